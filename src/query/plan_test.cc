// The plan as data: plain explain makes the same fragment decisions as running the scan, and an
// index-served take never reads more data-file bytes than the scan without indexes.
#include "query/plan.h"

#include <gtest/gtest.h>

#include <atomic>

#include "query/index_manager.h"
#include "query/random_expr_for_test.h"
#include "query/scanner.h"

namespace lakeindex::query {
namespace {

using lakeindex::testing::Rng;
using testgen::ExprGen;
using testgen::WithRid;

// Counts the bytes read from data files (under data/), on top of the usual counters (atomic:
// parallel scans read fragments from several threads).
class DataBytesStore : public InstrumentedStore {
 public:
  using InstrumentedStore::InstrumentedStore;
  Result<std::string> ReadRange(std::string_view path, uint64_t offset, uint64_t length) override {
    ASSIGN_OR_RETURN(std::string bytes, InstrumentedStore::ReadRange(path, offset, length));
    if (path.find("data/") != std::string_view::npos) data_bytes += bytes.size();
    return bytes;
  }
  std::atomic<uint64_t> data_bytes{0};
};

std::vector<std::pair<StepKind, uint32_t>> FragmentDecisions(const Scanner& s) {
  std::vector<std::pair<StepKind, uint32_t>> out;
  for (const PlanStep& step : s.plan_steps()) {
    if (step.is_fragment_decision()) out.emplace_back(step.kind, step.fragment);
  }
  return out;
}

struct Fixture {
  std::shared_ptr<ObjectStore> base = NewMemoryStore();
  std::shared_ptr<DataBytesStore> store = std::make_shared<DataBytesStore>(base);
  std::unique_ptr<table::Table> table;
};

// A table of 5 fragments of random rows (rid = row number; i64 sorted in the first table so the
// manifest statistics prune), btrees on i64 and s and a zone map on dbl, some rows deleted.
void MakeTable(Fixture* fx, uint64_t seed) {
  Schema schema = Schema::Parse(testgen::kSchema).value();
  Rng rng(seed);
  Batch rows = testgen::RandomBatch(schema, 1000, rng);
  if (seed % 2 == 0) {
    int64_t* v = rows.mutable_column(0).mutable_data<int64_t>();
    for (size_t r = 0; r < rows.num_rows(); ++r) v[r] = int64_t(r / 200) - 2;
  }
  table::WriteConfig config;
  config.rows_per_file = 200;
  config.parquet.row_group_rows = 100;
  config.parquet.page_rows = 10;
  auto src = table::MemorySource(WithRid(rows, 0).schema(), {WithRid(rows, 0)});
  auto t = table::Table::Create(fx->store, src.get(), config);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  fx->table = std::move(*t);
  for (const auto& [column, type] : std::vector<std::pair<std::string, std::string>>{
           {"i64", "btree"}, {"s", "btree"}, {"dbl", "zonemap"}}) {
    IndexOptions options;
    options.column = column;
    options.type = type;
    options.params = options.type == "btree" ? nlohmann::json{{"page_rows", 16}} : nlohmann::json{{"zone_rows", 20}};
    ASSERT_TRUE(CreateIndex(fx->table.get(), options).ok());
  }
  ExprGen gen(schema, rng);
  ASSERT_TRUE(DeleteWhere(fx->table.get(), "rid < 200 OR (" + gen.Gen(1) + ")").ok());
}

TEST(PlanTest, PlainExplainMakesTheDecisionsTheScanMakes) {
  size_t compared = 0, skipped = 0;
  for (uint64_t seed : {1, 2, 3, 4}) {
    Fixture fx;
    MakeTable(&fx, seed);
    Schema schema = Schema::Parse(testgen::kSchema).value();
    Rng rng(seed * 77);
    ExprGen gen(schema, rng);
    auto indexes = OpenIndexes(*fx.table, {});
    ASSERT_TRUE(indexes.ok()) << indexes.status().ToString();
    for (int i = 0; i < 150; ++i) {
      ScanRequest request;
      request.where = gen.Gen(2);
      if (i % 3 != 0) request.indexes = *indexes;
      auto plain = Scanner::Make(fx.table.get(), request);
      auto analyzed = Scanner::Make(fx.table.get(), request);
      ASSERT_TRUE(plain.ok() && analyzed.ok()) << request.where;
      ASSERT_TRUE((*plain)->Explain(false).ok()) << request.where;
      Status st = (*analyzed)->Explain(true);
      ASSERT_TRUE(st.ok()) << request.where << ": " << st.ToString();
      auto a = FragmentDecisions(**plain), b = FragmentDecisions(**analyzed);
      ASSERT_EQ(a.size(), fx.table->manifest().fragments.size()) << request.where;
      EXPECT_EQ(a, b) << request.where;
      EXPECT_EQ((*plain)->counters().fragments_scanned, (*analyzed)->counters().fragments_scanned) << request.where;
      for (const auto& [kind, f] : a) skipped += kind != StepKind::kFragmentScan && kind != StepKind::kFragmentTake;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 600u);
  EXPECT_GT(skipped, 100u);  // the filters exercise the skip decisions, not only scans
}

TEST(PlanTest, TakeNeverReadsMoreDataBytesThanTheScan) {
  size_t takes = 0;
  for (uint64_t seed : {2, 5}) {
    Fixture fx;
    MakeTable(&fx, seed);
    std::vector<std::string> filters = {"i64 = 1", "i64 IN (0, 2)", "s = 'a'", "s LIKE 'b%'", "i64 >= 2 AND dbl < 0.5",
                                        "i64 BETWEEN -1 AND 0", "i64 IS NULL", "s IS NOT NULL AND i64 = 3"};
    for (int64_t r = 0; r < 5; ++r) filters.push_back("i64 = " + std::to_string(r - 3) + " AND rid < " + std::to_string(300 + 150 * r));
    for (const std::string& where : filters) {
      ScanRequest request;
      request.where = where;
      // Cold each time: a fresh Table has fresh readers, whose cache entries are new.
      auto measure = [&](bool with_indexes, std::vector<uint32_t>* rids, uint64_t* rows_read) -> uint64_t {
        auto t = table::Table::Open(fx.store);
        EXPECT_TRUE(t.ok());
        ScanRequest r = request;
        if (with_indexes) r.indexes = OpenIndexes(**t, {}).value();
        fx.store->data_bytes = 0;
        ScanCounters counters;
        *rids = testgen::ScanRids(**t, where, &counters, r.indexes);
        *rows_read = counters.rows_read;
        return fx.store->data_bytes.load();
      };
      std::vector<uint32_t> scanned, taken;
      uint64_t scan_rows = 0, take_rows = 0;
      const uint64_t scan_bytes = measure(false, &scanned, &scan_rows);
      const uint64_t take_bytes = measure(true, &taken, &take_rows);
      takes += take_rows < scan_rows;  // the index made the scan read fewer rows
      EXPECT_EQ(taken, scanned) << where;
      EXPECT_LE(take_bytes, scan_bytes) << where;
    }
  }
  EXPECT_GT(takes, 5u);
}

// Counting: the count of every random filter equals the rows the scan returns, with and without
// indexes; a filter the btree answers exactly is counted without reading a data file.
TEST(PlanTest, CountsMatchTheScanAndExactIndexCountsReadNoDataFile) {
  size_t from_index = 0;
  for (uint64_t seed : {1, 2}) {
    Fixture fx;
    MakeTable(&fx, seed);
    Schema schema = Schema::Parse(testgen::kSchema).value();
    Rng rng(seed * 31);
    ExprGen gen(schema, rng);
    auto indexes = OpenIndexes(*fx.table, {});
    ASSERT_TRUE(indexes.ok());
    std::vector<std::string> filters = {"", "i64 = 1", "i64 IN (0, 2)", "s = 'a'", "i64 BETWEEN -1 AND 0", "i64 IS NULL"};
    for (int i = 0; i < 100; ++i) filters.push_back(gen.Gen(2));
    for (const std::string& where : filters) {
      ScanCounters counters;
      const size_t rows = testgen::ScanRids(*fx.table, where, &counters).size();
      auto plain = CountWhere(*fx.table, where);
      ASSERT_TRUE(plain.ok()) << where << ": " << plain.status().ToString();
      EXPECT_EQ(*plain, rows) << where;
      fx.store->data_bytes = 0;
      auto indexed = CountWhere(*fx.table, where, *indexes);
      ASSERT_TRUE(indexed.ok()) << where;
      EXPECT_EQ(*indexed, rows) << where;
      if (fx.store->data_bytes == 0) ++from_index;
    }
    // The exact btree filters of the list: no data file read at all.
    for (std::string where : {"i64 = 1", "i64 IN (0, 2)", "s = 'a'", "i64 BETWEEN -1 AND 0", ""}) {
      auto fresh = table::Table::Open(fx.store);
      ASSERT_TRUE(fresh.ok());
      auto idx = OpenIndexes(**fresh, {});
      ASSERT_TRUE(idx.ok());
      fx.store->data_bytes = 0;
      ASSERT_TRUE(CountWhere(**fresh, where, *idx).ok());
      EXPECT_EQ(fx.store->data_bytes.load(), 0u) << where;
    }
  }
  EXPECT_GT(from_index, 10u);
}

// With no deleted row and every fragment indexed by segments of live fragments only, a filter one
// btree answers alone is counted from its directory; the counts stay those of the scan, before
// (stale segments, deletes: the scan's way) and after optimize and index update.
TEST(PlanTest, CountsFromTheBTreeDirectoryWhenNothingIsDeletedOrStale) {
  Fixture fx;
  MakeTable(&fx, 2);
  Schema schema = Schema::Parse(testgen::kSchema).value();
  Rng rng(99);
  ExprGen gen(schema, rng);
  std::vector<std::string> filters = {"i64 = 1", "i64 IN (0, 2)", "s = 'a'", "i64 BETWEEN -1 AND 0", "i64 >= 0 AND i64 < 2",
                                      "i64 IS NULL", "s LIKE 'a%'", "s > 'b'"};
  for (int i = 0; i < 60; ++i) filters.push_back(gen.Gen(1));
  auto check = [&](bool expect_count) {
    auto indexes = OpenIndexes(*fx.table, {});
    ASSERT_TRUE(indexes.ok());
    size_t countable = 0;
    for (const IndexHandle& h : *indexes) countable += h.count ? 1 : 0;
    EXPECT_EQ(countable, expect_count ? 2u : countable);  // both btrees, once they are fresh
    for (const std::string& where : filters) {
      ScanCounters counters;
      const size_t rows = testgen::ScanRids(*fx.table, where, &counters).size();
      auto counted = CountWhere(*fx.table, where, *indexes);
      ASSERT_TRUE(counted.ok()) << where << ": " << counted.status().ToString();
      EXPECT_EQ(*counted, rows) << where;
    }
  };
  check(false);
  table::WriteConfig config;
  config.rows_per_file = 300;
  ASSERT_TRUE(fx.table->Optimize(config).ok());
  for (const table::FragmentMeta& f : fx.table->manifest().fragments) ASSERT_FALSE(f.deletion);
  {
    auto stale = OpenIndexes(*fx.table, {});
    ASSERT_TRUE(stale.ok());
    for (const IndexHandle& h : *stale) EXPECT_FALSE(h.count) << h.name << ": its segments cover the old files";
  }
  check(false);
  ASSERT_TRUE(UpdateIndexes(fx.table.get(), "").ok());
  check(true);
}

}  // namespace
}  // namespace lakeindex::query
