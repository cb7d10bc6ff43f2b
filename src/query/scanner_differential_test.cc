// Differential test of the whole read path: a table made by create + append + delete (small files,
// row groups and pages, rows clustered so that statistics prune), queried by the Scanner with
// thousands of random filters, must return exactly DuckDB's rows for the same data and deletes.
// Two tables live in memory, a third on S3 (moto, over HTTP: ranged and merged reads, the version
// hint, conditional commits).
#include <algorithm>
#include <numeric>
#include <set>

#include <unistd.h>

#include <gtest/gtest.h>

#include "query/random_expr_for_test.h"
#include "query/index_manager.h"
#include "query/scanner.h"
#include "util/moto.h"

namespace lakeindex::query {
namespace {

using lakeindex::testing::Rng;
using testgen::ExprGen;
using testgen::ScanRids;
using testgen::WithRid;

// Rows of `batch` ordered by column `c` (NULLs first), so that statistics can prune.
Batch SortedBy(const Batch& batch, size_t c) {
  std::vector<uint32_t> order(batch.num_rows());
  std::iota(order.begin(), order.end(), 0);
  const Column& col = batch.column(c);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (col.IsNull(a) || col.IsNull(b)) return col.IsNull(a) && !col.IsNull(b);
    return CompareValues(col.GetValue(a), col.GetValue(b)) < 0;
  });
  Batch out(batch.schema());
  for (size_t k = 0; k < batch.num_columns(); ++k) {
    out.mutable_column(k).AppendSelected(batch.column(k), order.data(), order.size());
  }
  EXPECT_TRUE(out.Seal().ok());
  return out;
}

// A reference "index" answering by brute force over the rows (`rid_of` maps row addresses to
// rows of `all`): exact, or a superset with extra rows added (as a zone map would answer).
IndexHandle ReferenceIndex(const std::string& column, bool exact, const Batch* all,
                           const std::map<uint64_t, uint32_t>* rid_of, const std::set<uint32_t>& fragments) {
  IndexHandle h;
  h.name = column + (exact ? "_exact" : "_atmost");
  h.column = column;
  h.type = exact ? "btree" : "zonemap";
  h.exact = exact;
  h.fragments = std::make_shared<const std::set<uint32_t>>(fragments);
  int c = all->schema().FindField(column);
  h.search = [=](const index::ScalarQuery& q, index::SearchCounters*) -> Result<index::SearchResult> {
    index::SearchResult r;
    r.exactness = exact ? index::Exactness::kExact : index::Exactness::kAtMost;
    uint64_t k = 0;
    for (const auto& [address, rid] : *rid_of) {
      Value v = all->column(size_t(c)).GetValue(rid);
      bool extra = !exact && (++k % 3 == 0);
      if (v.is_null() && q.kind != index::ScalarQuery::Kind::kIsNull) {
        r.rows.null_rows.Add(address);
      } else if (q.Matches(v) || extra) {
        r.rows.true_rows.Add(address);
      }
    }
    return r;
  };
  return h;
}

TEST(ScannerDifferentialTest, CreateAppendDeleteThenRandomFiltersMatchDuckDB) {
  if (!lakeindex::testing::DuckDBAvailable()) GTEST_FAIL() << lakeindex::testing::DuckDBMissingMessage();
  Schema schema = Schema::Parse(testgen::kSchema).value();
  constexpr int kTables = 3;  // the last on S3
  constexpr size_t kExprs = 700, kExprsOnS3 = 40;
  size_t compared = 0;
  ScanCounters total;
  for (int t = 0; t < kTables; ++t) {
    Rng rng(0x7ab1e000 + uint64_t(t));
    Batch first = SortedBy(testgen::RandomBatch(schema, 400, rng), size_t(t % 2 == 0 ? 0 : 6));
    Batch second = testgen::RandomBatch(schema, 200, rng);
    Batch all = first;
    ASSERT_TRUE(all.Append(second).ok());

    const bool on_s3 = t == kTables - 1;
    std::shared_ptr<ObjectStore> store = NewMemoryStore();
    if (on_s3) {
      lakeindex::testing::MotoServer::Shared();  // sets the AWS_* variables of this process
      auto s3 = OpenStoreUri(std::string("s3://") + lakeindex::testing::MotoServer::kSharedBucket +
                             "/scanner-differential-" + std::to_string(::getpid()));
      ASSERT_TRUE(s3.ok()) << s3.status().ToString();
      store = std::move(*s3);
    }
    table::WriteConfig config;
    config.rows_per_file = 150;
    config.parquet.row_group_rows = 64;
    config.parquet.page_rows = 16;
    // Some tables with columns whose pages do not line up with the others' (as an OTree's
    // weights): page-pruned reads gather each column's rows from its own pages.
    if (t % 2 == 1) config.parquet.column_page_rows = {{"s", 40}, {"dbl", 5}, {"i32", 64}};
    auto src = table::MemorySource(WithRid(first, 0).schema(), {WithRid(first, 0)});
    auto table = table::Table::Create(store, src.get(), config);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    // Real indexes built before the append: the appended fragment is uncovered and scanned.
    for (const auto& [column, type] : std::vector<std::pair<std::string, std::string>>{
             {"i64", "btree"}, {"s", "btree"}, {"ts", "btree"}, {"dbl", "zonemap"}, {"d", "zonemap"}, {"i32", "zonemap"}}) {
      IndexOptions options;
      options.column = column;
      options.type = type;
      options.params = options.type == "btree" ? nlohmann::json{{"page_rows", 7}} : nlohmann::json{{"zone_rows", 10}};
      Status st = CreateIndex(table->get(), options);
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    auto more = table::MemorySource(WithRid(second, 400).schema(), {WithRid(second, 400)});
    ASSERT_TRUE((*table)->Append(more.get(), config).ok());

    // Row addresses of every row (before deletes), for the reference indexes.
    std::map<uint64_t, uint32_t> rid_of;
    std::set<uint32_t> fragments;
    for (const auto& f : (*table)->manifest().fragments) {
      fragments.insert(f.id);
      auto rows = (*table)->ReadFragment(f, {0});
      ASSERT_TRUE(rows.ok());
      for (uint32_t r = 0; r < rows->num_rows(); ++r) rid_of[MakeRowAddress(f.id, r)] = uint32_t(rows->column(0).Get<int64_t>(r));
    }
    std::set<uint32_t> some_fragments = fragments;
    some_fragments.erase(some_fragments.begin());  // one fragment is not covered: it is scanned
    std::vector<IndexHandle> indexes = {
        ReferenceIndex("i64", true, &all, &rid_of, fragments), ReferenceIndex("s", true, &all, &rid_of, fragments),
        ReferenceIndex("d", true, &all, &rid_of, some_fragments), ReferenceIndex("dbl", false, &all, &rid_of, fragments),
        ReferenceIndex("ts", false, &all, &rid_of, fragments), ReferenceIndex("b", true, &all, &rid_of, fragments)};

    auto opened = OpenIndexes(**table, {});
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    std::vector<IndexHandle> real_indexes = std::move(*opened);
    ASSERT_EQ(real_indexes.size(), 6u);

    ExprGen gen(schema, rng);
    std::string delete_where = gen.Gen(2);
    ASSERT_TRUE(DeleteWhere(table->get(), delete_where).ok());

    std::vector<std::string> exprs;
    std::vector<std::vector<uint32_t>> ours;
    size_t indexed = 0;
    for (size_t i = 0; i < (on_s3 ? kExprsOnS3 : kExprs); ++i) {
      exprs.push_back(gen.Gen(3));
      ours.push_back(ScanRids(**table, exprs.back(), &total));
      ScanCounters with_index;
      std::vector<uint32_t> via_index = ScanRids(**table, exprs.back(), &with_index, indexes);
      EXPECT_EQ(via_index, ours.back()) << "with reference indexes: " << exprs.back();
      std::vector<uint32_t> via_real = ScanRids(**table, exprs.back(), &with_index, real_indexes);
      EXPECT_EQ(via_real, ours.back()) << "with btree/zonemap indexes: " << exprs.back();
      indexed += with_index.index.pages_total > 0 || with_index.rows_read < total.rows_read;
    }
    std::string create = testgen::CreateTableSql(all) + "DELETE FROM t WHERE " + delete_where + ";\n";
    std::map<size_t, std::vector<uint32_t>> answers = testgen::DuckDBAnswers(create, exprs);
    for (const auto& [id, rows] : answers) {
      EXPECT_EQ(ours[id], rows) << "table " << t << " (deleted where " << delete_where << ") expression: " << exprs[id];
      ++compared;
    }

    // Optimize (rewrites every fragment with deletions), then btree indexes on every column,
    // brought up to date: still DuckDB's answers.
    table::WriteConfig big = config;
    big.rows_per_file = 1000;
    auto rewritten = (*table)->Optimize(big);
    ASSERT_TRUE(rewritten.ok()) << rewritten.status().ToString();
    auto updated = UpdateIndexes(table->get(), "");
    ASSERT_TRUE(updated.ok()) << updated.status().ToString();
    for (const Field& f : schema.fields()) {
      IndexOptions options;
      options.name = f.name + "_all";
      options.column = f.name;
      options.type = "btree";
      options.params["page_rows"] = 5;
      Status st = CreateIndex(table->get(), options);
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    auto all_indexes = OpenIndexes(**table, {});
    ASSERT_TRUE(all_indexes.ok()) << all_indexes.status().ToString();
    // And a bitmap on every column (exact like the btree: it serves NOT and every predicate).
    for (const Field& f : schema.fields()) {
      IndexOptions options;
      options.name = f.name + "_bitmap";
      options.column = f.name;
      options.type = "bitmap";
      Status st = CreateIndex(table->get(), options);
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    auto with_bitmaps = OpenIndexes(**table, {});
    ASSERT_TRUE(with_bitmaps.ok()) << with_bitmaps.status().ToString();
    std::vector<IndexHandle> bitmaps;
    for (const IndexHandle& h : *with_bitmaps) {
      if (h.type == "bitmap") bitmaps.push_back(h);
    }
    ASSERT_EQ(bitmaps.size(), schema.fields().size());
    for (const auto& [id, rows] : answers) {
      ScanCounters after;
      EXPECT_EQ(ScanRids(**table, exprs[id], &after, *all_indexes), rows) << "after optimize, expression: " << exprs[id];
      EXPECT_EQ(ScanRids(**table, exprs[id], &after, bitmaps), rows) << "after optimize, bitmaps: " << exprs[id];
      EXPECT_EQ(ScanRids(**table, exprs[id], &after), rows) << "after optimize, no index: " << exprs[id];
    }
  }
  EXPECT_GE(compared, 1000u);
  // The pruning paths really ran: some fragments, row groups and pages were skipped.
  std::printf("fragments %llu/%llu, row groups %llu/%llu, rows read %llu\n",
              (unsigned long long)total.fragments_scanned, (unsigned long long)total.fragments_total,
              (unsigned long long)total.blocks_read, (unsigned long long)total.blocks_total,
              (unsigned long long)total.rows_read);
  EXPECT_LT(total.fragments_scanned, total.fragments_total);
  EXPECT_LT(total.blocks_read, total.blocks_total);
  EXPECT_LT(total.rows_read, uint64_t(kTables * kExprs * 600) * 9 / 10);
}

}  // namespace
}  // namespace lakeindex::query
