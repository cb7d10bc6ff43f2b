// The OTree layout end to end: layout, append, delete, optimize on random tables (every type,
// NULLs, 1-6 dimensions, tiny cubes), queried with random filters and samples, against DuckDB
// and brute force; sample quality; the comparison layouts keep every row, extremes included.
#include <algorithm>
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "format/parquet/reader.h"
#include "layout/otree/layout_writer.h"
#include "lakeindex/events.h"
#include "query/index_manager.h"
#include "query/random_expr_for_test.h"
#include "query/scanner.h"

namespace lakeindex::query {
namespace {

using lakeindex::testing::Rng;
using testgen::ExprGen;
using testgen::ScanRids;
using testgen::WithRid;

// Rids of the rows whose `_lakeindex_weight` is below f, by brute force over every live row.
std::vector<uint32_t> SampleByBruteForce(const table::Table& table, double f) {
  auto all = table.ReadAll();
  EXPECT_TRUE(all.ok()) << all.status().ToString();
  std::vector<uint32_t> rids;
  if (!all.ok()) return rids;
  const Column* rid = all->FindColumn("rid");
  const Column* weight = all->FindColumn(layout::kWeightColumn);
  EXPECT_TRUE(rid && weight);
  if (!rid || !weight) return rids;
  for (size_t r = 0; r < all->num_rows(); ++r) {
    if (weight->Get<double>(r) < f) rids.push_back(uint32_t(rid->Get<int64_t>(r)));
  }
  std::sort(rids.begin(), rids.end());
  return rids;
}

std::vector<uint32_t> Intersection(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<uint32_t> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// Every filter in `exprs` returns DuckDB's rows, and with each sample fraction exactly those of
// them whose weight is below it (nested across fractions).
void CheckAgainst(const table::Table& table, const std::vector<std::string>& exprs,
                  const std::map<size_t, std::vector<uint32_t>>& answers, const std::string& stage,
                  ScanCounters* total) {
  std::vector<uint32_t> previous;
  for (double f : {0.05, 0.3, 1.0}) {
    std::vector<uint32_t> sample = SampleByBruteForce(table, f);
    EXPECT_EQ(ScanRids(table, "", total, {}, f), sample) << stage << ": sample " << f;
    EXPECT_TRUE(std::includes(sample.begin(), sample.end(), previous.begin(), previous.end())) << "not nested";
    previous = sample;
    size_t k = 0;
    for (const auto& [id, rows] : answers) {
      if (++k % 4 != 0) continue;  // a quarter of the filters, combined with each sample
      EXPECT_EQ(ScanRids(table, exprs[id], total, {}, f), Intersection(rows, sample))
          << stage << ": sample " << f << " AND " << exprs[id];
    }
  }
  // Indexes built before the layout, brought up to date after each rewrite, stay exact.
  auto indexes = OpenIndexes(table, {});
  ASSERT_TRUE(indexes.ok()) << indexes.status().ToString();
  EXPECT_EQ(indexes->size(), 2u);
  for (const auto& [id, rows] : answers) {
    EXPECT_EQ(ScanRids(table, exprs[id], total), rows) << stage << ": " << exprs[id];
    EXPECT_EQ(ScanRids(table, exprs[id], total, *indexes), rows) << stage << ", with indexes: " << exprs[id];
  }
}

TEST(OTreeScanTest, LayoutAppendDeleteOptimizeMatchDuckDBAndSamplesAreExact) {
  if (!lakeindex::testing::DuckDBAvailable()) GTEST_FAIL() << lakeindex::testing::DuckDBMissingMessage();
  Schema schema = Schema::Parse(testgen::kSchema).value();
  constexpr int kTables = 3;
  constexpr size_t kExprs = 120;
  ScanCounters total;
  size_t compared = 0;
  for (int t = 0; t < kTables; ++t) {
    Rng rng(0x07ae0000 + uint64_t(t));
    Batch first = testgen::RandomBatch(schema, 500, rng);
    Batch second = testgen::RandomBatch(schema, 250, rng);
    Batch all = first;
    ASSERT_TRUE(all.Append(second).ok());

    // The second table on a store that says it is remote: its blocks are prefetched and read
    // page by page through the cache (Scanner::PrefetchPlan), not chunk by chunk.
    std::shared_ptr<ObjectStore> store = NewMemoryStore();
    if (t == 1) {
      auto remote = std::make_shared<InstrumentedStore>(store);
      remote->SetLatencyMicros(1);
      store = remote;
    }
    table::WriteConfig config;
    config.rows_per_file = 200;
    auto src = table::MemorySource(WithRid(first, 0).schema(), {WithRid(first, 0)});
    auto table = table::Table::Create(store, src.get(), config);
    ASSERT_TRUE(table.ok()) << table.status().ToString();

    for (const auto& [column, type] : std::vector<std::pair<std::string, std::string>>{{"i64", "btree"}, {"dbl", "zonemap"}}) {
      IndexOptions index;
      index.column = column;
      index.type = type;
      index.params = index.type == "btree" ? nlohmann::json{{"page_rows", 6}} : nlohmann::json{{"zone_rows", 8}};
      Status st = CreateIndex(table->get(), index);
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
    auto update_indexes = [&] {
      auto updated = UpdateIndexes(table->get(), "");
      ASSERT_TRUE(updated.ok()) << updated.status().ToString();
    };

    // 1 to 6 random layout columns, tiny cubes and pages.
    layout::LayoutOptions options;
    std::vector<std::string> names;
    for (const Field& f : schema.fields()) names.push_back(f.name);
    const size_t dims = size_t(1 + t * 5 / (kTables - 1));  // 1, 3, 6
    for (size_t d = 0; d < dims; ++d) {
      size_t pick = rng.Uniform(names.size());
      options.columns.push_back(names[pick]);
      names.erase(names.begin() + long(pick));
    }
    options.cube_rows = t == 0 ? 9 : 40;
    options.slices = int(1 + t);
    options.page_rows = 4;
    options.transform = t == 1 ? "quantile" : "default";
    options.row_groups = t == 2 ? layout::kRowGroupsByRegion : layout::kRowGroupsBySlice;
    options.write = config;
    auto report = layout::LayoutTable(table->get(), options);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->rows, 500u);
    EXPECT_GT(report->cubes, 1u);
    update_indexes();

    ExprGen gen(schema, rng);
    std::vector<std::string> exprs;
    for (size_t i = 0; i < kExprs; ++i) exprs.push_back(gen.Gen(3));
    auto answers = testgen::DuckDBAnswers(testgen::CreateTableSql(first), exprs);
    CheckAgainst(**table, exprs, answers, "after layout", &total);
    compared += answers.size();

    // Append (new blocks, maybe a new revision), delete, then optimize.
    auto more = table::MemorySource(WithRid(second, 500).schema(), {WithRid(second, 500)});
    auto appended = layout::AppendToLayout(table->get(), more.get(), config);
    ASSERT_TRUE(appended.ok()) << appended.status().ToString();
    std::string delete_where = gen.Gen(2);
    update_indexes();
    ASSERT_TRUE(DeleteWhere(table->get(), delete_where).ok());
    answers = testgen::DuckDBAnswers(testgen::CreateTableSql(all) + "DELETE FROM t WHERE " + delete_where + ";\n", exprs);
    CheckAgainst(**table, exprs, answers, "after append and delete", &total);
    compared += answers.size();

    std::vector<uint32_t> sample_before = SampleByBruteForce(**table, 0.3);
    auto optimized = layout::OptimizeLayout(table->get(), config);
    ASSERT_TRUE(optimized.ok()) << optimized.status().ToString();
    EXPECT_GT(*optimized, 0u);
    update_indexes();
    EXPECT_EQ(SampleByBruteForce(**table, 0.3), sample_before) << "weights survive optimize";
    auto meta = layout::LoadLayout((*table)->manifest());
    ASSERT_TRUE(meta.ok() && meta->has_value());
    for (const layout::Revision& rev : (*meta)->revisions) {
      EXPECT_TRUE(rev.tree.Overfull(1.5).empty()) << "optimize leaves no overfull cube (revision " << rev.id << ")";
    }
    CheckAgainst(**table, exprs, answers, "after optimize", &total);
    auto verified = (*table)->Verify();
    EXPECT_TRUE(verified.ok()) << verified.status().ToString();
  }
  EXPECT_GE(compared, size_t(kTables) * kExprs * 2 * 9 / 10);
  // Blocks were really skipped.
  EXPECT_LT(total.blocks_read, total.blocks_total);
}

// Samples of a 2-D OTree over uniform data: the size within 5 sigma of f*N, uniform over an 8x8
// grid (chi-squared), the mean within 3 sigma, and only about f of the rows read.
// A table of `rows` generated events in files of `rows_per_file`, laid out as an OTree on (x, y).
Result<std::unique_ptr<table::Table>> EventsOTree(std::shared_ptr<ObjectStore> store, uint64_t rows, uint64_t seed,
                                                  uint64_t rows_per_file, uint64_t cube_rows,
                                                  const std::string& row_groups = layout::kRowGroupsBySlice) {
  EventsGenerator gen(rows, seed);
  std::vector<Batch> batches;
  Batch b;
  while (gen.Next(1 << 16, &b)) batches.push_back(b);
  auto src = table::MemorySource(EventsGenerator::EventsSchema(), std::move(batches));
  table::WriteConfig config;
  config.rows_per_file = rows_per_file;
  ASSIGN_OR_RETURN(auto table, table::Table::Create(store, src.get(), config));
  layout::LayoutOptions options;
  options.columns = {"x", "y"};
  options.cube_rows = cube_rows;
  options.row_groups = row_groups;
  options.write = config;
  RETURN_IF_ERROR(layout::LayoutTable(table.get(), options).status());
  return table;
}

// The ids a scan returns, sorted, and its counters.
std::vector<int64_t> ScanIds(const table::Table& t, ScanRequest request, ScanCounters* counters) {
  request.select = {"id"};
  auto scanner = Scanner::Make(&t, request);
  EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
  std::vector<int64_t> ids;
  if (!scanner.ok()) return ids;
  Batch out;
  while (true) {
    auto more = (*scanner)->Next(&out);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    for (size_t r = 0; r < out.num_rows(); ++r) ids.push_back(out.column(0).Get<int64_t>(r));
  }
  *counters = (*scanner)->counters();
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Row groups by region: the same rows, weights and cubes as by slice, so every box and sample
// returns the same rows; a cube with children is cut by space (the root's row groups each lie in
// one quadrant, by their own min/max, which is all an engine like Spark looks at), and a sample
// still reads about its fraction (the weights' pages skip the slices above it inside a row group).
TEST(OTreeScanTest, RowGroupsByRegionAreTightInSpaceAndAnswerAsBySlice) {
  constexpr uint64_t kRows = 100000, kCubeRows = 2000;
  auto slices = EventsOTree(NewMemoryStore(), kRows, 11, 40000, kCubeRows);
  auto regions = EventsOTree(NewMemoryStore(), kRows, 11, 40000, kCubeRows, layout::kRowGroupsByRegion);
  ASSERT_TRUE(slices.ok() && regions.ok()) << regions.status().ToString();
  auto meta = layout::LoadLayout((*regions)->manifest());
  ASSERT_TRUE(meta.ok() && meta->has_value());
  EXPECT_EQ((*meta)->row_groups, layout::kRowGroupsByRegion);
  size_t root_blocks = 0;
  for (const layout::BlockMeta& b : (*meta)->blocks) {
    if (b.cube.depth != 0) continue;
    ++root_blocks;
    const table::FragmentMeta* f = (*regions)->manifest().FindFragment(b.fragment);
    ASSERT_NE(f, nullptr);
    auto reader = (*regions)->OpenDataFile(*f);
    ASSERT_TRUE(reader.ok());
    for (const char* column : {"x", "y"}) {
      const auto stats = (*reader)->column_statistics(b.row_group, (*reader)->schema().FindField(column));
      ASSERT_TRUE(stats.min && stats.max);
      EXPECT_LT(stats.max->double_value() - stats.min->double_value(), 500.0) << column << " of root block " << b.row_group;
    }
  }
  EXPECT_GE(root_blocks, 4u);

  Rng rng(5);
  for (int i = 0; i < 20; ++i) {
    const double x = double(rng.Uniform(900)), y = double(rng.Uniform(900)), side = double(1 + rng.Uniform(300));
    ScanRequest box;
    box.where = "x BETWEEN " + std::to_string(x) + " AND " + std::to_string(x + side) + " AND y BETWEEN " +
                std::to_string(y) + " AND " + std::to_string(y + side);
    ScanCounters a, b;
    EXPECT_EQ(ScanIds(**regions, box, &a), ScanIds(**slices, box, &b)) << box.where;
  }
  for (double f : {0.003, 0.01, 0.1, 0.3}) {
    ScanRequest sample;
    sample.sample = f;
    ScanCounters a, b;
    EXPECT_EQ(ScanIds(**regions, sample, &a), ScanIds(**slices, sample, &b)) << "sample " << f;
    EXPECT_LE(double(a.rows_read), 1.2 * f * double(kRows) + double(kCubeRows) * 2) << "sample " << f;
  }
  auto verified = (*regions)->Verify();
  EXPECT_TRUE(verified.ok()) << verified.status().ToString();
}

// A small box tests the page bounds of its second column only in the pages its first column
// kept, not every page of every block it reads: the two columns' tests come to little more than
// one column's pages (before: both columns' every page, at least the pages_total of x and y).
// The rows are brute force's.
TEST(OTreeScanTest, SmallBoxesTestTheSecondColumnsPagesOnlyWhereTheFirstKeptRows) {
  constexpr uint64_t kRows = 100000;
  auto table = EventsOTree(NewMemoryStore(), kRows, 13, 50000, 5000);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto all = (*table)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  const Column* id = all->FindColumn("id");
  const Column* xs = all->FindColumn("x");
  const Column* ys = all->FindColumn("y");
  ASSERT_TRUE(id && xs && ys);
  Rng rng(17);
  uint64_t tested = 0, pages = 0;
  for (int i = 0; i < 20; ++i) {
    const double x = double(rng.Uniform(980)), y = double(rng.Uniform(980)), side = 1 + double(rng.Uniform(20));
    const std::string x0 = std::to_string(x), x1 = std::to_string(x + side);
    const std::string y0 = std::to_string(y), y1 = std::to_string(y + side);
    ScanRequest box;
    box.where = "x BETWEEN " + x0 + " AND " + x1 + " AND y BETWEEN " + y0 + " AND " + y1;
    auto in = [](const Column* c, size_t r, const std::string& lo, const std::string& hi) {
      return c->IsValid(r) && c->Get<double>(r) >= std::stod(lo) && c->Get<double>(r) <= std::stod(hi);
    };
    std::vector<int64_t> expected;
    for (size_t r = 0; r < all->num_rows(); ++r) {
      if (in(xs, r, x0, x1) && in(ys, r, y0, y1)) expected.push_back(id->Get<int64_t>(r));
    }
    std::sort(expected.begin(), expected.end());
    ASSERT_FALSE(expected.empty() && i == 0) << "the first box holds no row";
    ScanCounters c;
    EXPECT_EQ(ScanIds(**table, box, &c), expected) << box.where;
    // The pages of x and y in the blocks read, page by page: every one of them was tested before.
    ScanRequest both = box;
    both.select = {"x", "y"};
    auto scanner = Scanner::Make(table->get(), both);
    ASSERT_TRUE(scanner.ok());
    Batch out;
    while (true) {
      auto more = (*scanner)->Next(&out);
      ASSERT_TRUE(more.ok());
      if (!*more) break;
    }
    tested += (*scanner)->counters().pages_tested;
    pages += (*scanner)->counters().pages_total;
  }
  ASSERT_GT(pages, 0u);
  EXPECT_LT(double(tested), 0.7 * double(pages)) << tested << " page bounds tested for " << pages << " pages of x and y";
}

// The default row groups (what `layout` and the front ends write unless asked) are by region, for
// a table without Iceberg metadata too: a small box then meets a few row groups, not every slice
// of every cube on its path — each costs it page indexes and gathers — for the same rows.
TEST(OTreeScanTest, ByDefaultSmallBoxesMeetAFewRowGroupsNotEverySlice) {
  EXPECT_EQ(layout::DefaultRowGroups("otree", table::Manifest{}), layout::kRowGroupsByRegion);
  EXPECT_EQ(layout::DefaultRowGroups("hilbert", table::Manifest{}), layout::kRowGroupsBySlice);
  constexpr uint64_t kRows = 100000, kCubeRows = 2000;
  auto by_default = EventsOTree(NewMemoryStore(), kRows, 3, 50000, kCubeRows, layout::DefaultRowGroups("otree", table::Manifest{}));
  auto slices = EventsOTree(NewMemoryStore(), kRows, 3, 50000, kCubeRows, layout::kRowGroupsBySlice);
  ASSERT_TRUE(by_default.ok() && slices.ok()) << by_default.status().ToString();
  Rng rng(23);
  uint64_t blocks_default = 0, blocks_slices = 0, rows = 0;
  for (int i = 0; i < 20; ++i) {
    const double x = double(rng.Uniform(980)), y = double(rng.Uniform(980)), side = 1 + double(rng.Uniform(20));
    ScanRequest box;
    box.where = "x BETWEEN " + std::to_string(x) + " AND " + std::to_string(x + side) + " AND y BETWEEN " +
                std::to_string(y) + " AND " + std::to_string(y + side);
    ScanCounters a, b;
    const std::vector<int64_t> ids = ScanIds(**by_default, box, &a);
    EXPECT_EQ(ids, ScanIds(**slices, box, &b)) << box.where;
    rows += ids.size();
    blocks_default += a.blocks_read;
    blocks_slices += b.blocks_read;
  }
  EXPECT_GT(rows, 0u);
  EXPECT_LT(double(blocks_default), 0.5 * double(blocks_slices)) << blocks_default << " row groups read by default, "
                                                                   << blocks_slices << " by slice";
}

TEST(OTreeScanTest, SamplesAreUniformAndReadAboutTheirFraction) {
  constexpr uint64_t kRows = 100000;
  constexpr uint64_t kCubeRows = 2000;
  auto table = EventsOTree(NewMemoryStore(), kRows, 7, 40000, kCubeRows);
  ASSERT_TRUE(table.ok()) << table.status().ToString();

  for (double f : {0.01, 0.1, 0.3}) {
    ScanRequest request;
    request.sample = f;
    request.select = {"x", "y"};
    auto scanner = Scanner::Make(table->get(), request);
    ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
    std::vector<uint64_t> cells(64, 0);
    double sum_x = 0;
    uint64_t n = 0;
    Batch out;
    while (true) {
      auto more = (*scanner)->Next(&out);
      ASSERT_TRUE(more.ok());
      if (!*more) break;
      for (size_t r = 0; r < out.num_rows(); ++r) {
        double x = out.column(0).Get<double>(r), y = out.column(1).Get<double>(r);
        sum_x += x;
        ++cells[size_t(std::min(7.0, x / 125.0)) * 8 + size_t(std::min(7.0, y / 125.0))];
        ++n;
      }
    }
    const double expected = f * double(kRows);
    EXPECT_LT(std::abs(double(n) - expected), 5 * std::sqrt(expected * (1 - f))) << "sample " << f;
    double chi2 = 0;
    for (uint64_t c : cells) chi2 += (double(c) - double(n) / 64) * (double(c) - double(n) / 64) / (double(n) / 64);
    EXPECT_LT(chi2, 63 + 5 * std::sqrt(2.0 * 63)) << "sample " << f << " is not uniform";
    const double sigma_mean = (1000.0 / std::sqrt(12.0)) / std::sqrt(double(n));
    EXPECT_LT(std::abs(sum_x / double(n) - 500.0), 3 * sigma_mean) << "sample " << f;
    const ScanCounters& c = (*scanner)->counters();
    EXPECT_EQ(c.rows_returned, n);
    EXPECT_LE(double(c.rows_read), 1.2 * expected + double(kCubeRows) * 2) << "sample " << f;
  }
}

// On a remote store a box and a sample fetch their blocks in two round trips after the table is
// open (the data files' footers, then every block's pages, each a batch of requests sent
// together), and return what the same scan returns from a local store.
TEST(OTreeScanTest, OnARemoteStoreABoxOrASampleTakesTwoRoundTrips) {
  std::shared_ptr<ObjectStore> base = NewMemoryStore();
  auto local = EventsOTree(base, 20000, 11, 5000, 500);
  ASSERT_TRUE(local.ok()) << local.status().ToString();

  auto remote_store = std::make_shared<InstrumentedStore>(base);
  remote_store->SetLatencyMicros(50000);  // requests sent together overlap even on a loaded machine
  auto remote = table::Table::Open(remote_store);
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  auto rows_of = [](const table::Table& t, const std::string& where, std::optional<double> sample) {
    ScanRequest request;
    request.where = where;
    request.sample = sample;
    auto scanner = Scanner::Make(&t, request);
    EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
    std::optional<Batch> all;
    Batch out;
    while (scanner.ok()) {
      auto more = (*scanner)->Next(&out);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      if (!all) all = out;
      else EXPECT_TRUE(all->Append(out).ok());
    }
    return all ? *all : Batch();
  };
  for (const auto& [where, sample] : std::vector<std::pair<std::string, std::optional<double>>>{
           {"x BETWEEN 300 AND 400 AND y BETWEEN 500 AND 600", std::nullopt}, {"", 0.05}}) {
    const Batch expected = rows_of(**local, where, sample);
    remote_store->counters().Reset();
    const Batch got = rows_of(**remote, where, sample);
    EXPECT_GT(expected.num_rows(), 0u) << where;
    EXPECT_TRUE(got.Equals(expected)) << where << " sample " << sample.value_or(1);
    EXPECT_LE(remote_store->counters().round_trips.load(), 2u) << where << " sample " << sample.value_or(1);
    EXPECT_GT(remote_store->counters().round_trips.load(), 0u);
  }
}

// The comparison layouts (and the OTree) over extreme values: no row is lost or changed (the
// ClickHouse bug: curve keys of values beyond 2^32), and filters on the extremes find them.
TEST(OTreeScanTest, EveryLayoutKeepsExtremeValues) {
  Schema schema = Schema::Parse("rid:int64,a:int64,b:double,c:string").value();
  Batch rows(schema);
  const int64_t ints[] = {INT64_MIN, INT64_MAX, 0, -1, int64_t(1) << 40, (int64_t(1) << 32) + 1, 4294967296, -4294967297};
  const double dbls[] = {-INFINITY, INFINITY, NAN, -0.0, 1e308, -1e308, 4294967296.5, 5e-324};
  const char* strs[] = {"", "\xff\xff", "a", "ab", "abc\xff", "zz", "\x01", "m"};
  int64_t rid = 0;
  for (int rep = 0; rep < 40; ++rep) {
    for (size_t i = 0; i < 8; ++i) {
      rows.mutable_column(0).Append<int64_t>(rid++);
      rows.mutable_column(1).Append<int64_t>(ints[(i + size_t(rep)) % 8]);
      if (rep % 7 == 3) {
        rows.mutable_column(2).AppendNull();
      } else {
        rows.mutable_column(2).Append<double>(dbls[(i * 3 + size_t(rep)) % 8]);
      }
      ASSERT_TRUE(rows.mutable_column(3).AppendString(strs[(i * 5 + size_t(rep)) % 8]).ok());
    }
  }
  ASSERT_TRUE(rows.Seal().ok());
  const std::vector<std::string> filters = {
      "a = -9223372036854775808", "a = 9223372036854775807", "a > 4294967296", "a BETWEEN -4294967297 AND -1",
      "b = 1e999", "b < -1e300", "b IS NULL", "b > 4294967296", "c >= 'zz'", "c LIKE 'ab%'", "c = ''",
      "a > 0 AND b > 0", "a < 0 OR c = 'm'"};
  for (const char* kind : {"sort", "zorder", "hilbert", "otree"}) {
    auto src = table::MemorySource(schema, {rows});
    table::WriteConfig config;
    config.rows_per_file = 100;
    auto table = table::Table::Create(NewMemoryStore(), src.get(), config);
    ASSERT_TRUE(table.ok());
    std::map<std::string, std::vector<uint32_t>> before;
    ScanCounters counters;
    for (const std::string& f : filters) before[f] = ScanRids(**table, f, &counters);
    layout::LayoutOptions options;
    options.kind = kind;
    options.columns = {"a", "b", "c"};
    options.cube_rows = 16;
    options.page_rows = 4;
    options.write = config;
    auto report = layout::LayoutTable(table->get(), options);
    ASSERT_TRUE(report.ok()) << kind << ": " << report.status().ToString();
    EXPECT_EQ(report->rows, rows.num_rows()) << kind;
    for (const std::string& f : filters) {
      EXPECT_FALSE(before[f].empty()) << f;
      EXPECT_EQ(ScanRids(**table, f, &counters), before[f]) << kind << ": " << f;
    }
    std::vector<uint32_t> every = ScanRids(**table, "", &counters);
    EXPECT_EQ(every.size(), rows.num_rows()) << kind;
    if (std::string(kind) == "sort") {  // the files hold the rows ordered by (a, b, c), NULLs first
      auto all = (*table)->ReadAll();
      ASSERT_TRUE(all.ok());
      auto row_less = [&](size_t x, size_t y) {
        for (size_t c = 0; c < 3; ++c) {
          const Column& col = all->column(c + 1);
          if (col.IsNull(x) != col.IsNull(y)) return col.IsNull(x);
          if (col.IsNull(x)) continue;
          int cmp = CompareValues(col.GetValue(x), col.GetValue(y));
          if (cmp != 0) return cmp < 0;
        }
        return false;
      };
      for (size_t i = 1; i < all->num_rows(); ++i) ASSERT_FALSE(row_less(i, i - 1)) << "row " << i;
    }
    // Laid out again as an OTree (from files of the layout just written): the same rows, and a
    // table that was an OTree keeps its weights (the same sample).
    const bool was_otree = std::string(kind) == "otree";
    const std::vector<uint32_t> sampled = was_otree ? SampleByBruteForce(**table, 0.3) : std::vector<uint32_t>{};
    options.kind = "otree";
    auto again = layout::LayoutTable(table->get(), options);
    ASSERT_TRUE(again.ok()) << kind << " then otree: " << again.status().ToString();
    for (const std::string& f : filters) EXPECT_EQ(ScanRids(**table, f, &counters), before[f]) << kind << " then otree: " << f;
    if (was_otree) {
      EXPECT_FALSE(sampled.empty());
      EXPECT_EQ(SampleByBruteForce(**table, 0.3), sampled);
    }
  }
}

// ±infinity, NaN and NULL in a float layout column take the ends of the space under every
// transformation (the linear one used to refuse "needs finite bounds"), and rows appended later
// with infinities go into the same tree (they are covered by any fit).
TEST(OTreeScanTest, InfinitiesHaveAPlaceInEveryTransformation) {
  Schema schema = Schema::Parse("rid:int64,a:int64,b:double").value();
  auto make = [&](int64_t first, size_t n, uint64_t seed) {
    Batch rows(schema);
    testing::Rng rng(seed);
    for (size_t i = 0; i < n; ++i) {
      rows.mutable_column(0).Append<int64_t>(first + int64_t(i));
      rows.mutable_column(1).Append<int64_t>(int64_t(rng.Uniform(1000)));
      const uint64_t pick = rng.Uniform(10);
      if (pick == 0) {
        rows.mutable_column(2).AppendNull();
      } else {
        const double special[] = {-INFINITY, INFINITY, NAN};
        rows.mutable_column(2).Append<double>(pick <= 3 ? special[pick - 1] : rng.Unit() * 100 - 50);
      }
    }
    EXPECT_TRUE(rows.Seal().ok());
    return rows;
  };
  const std::vector<std::string> filters = {"b = 1e999", "b = -1e999", "b < -40", "b > 40", "b IS NULL", "b BETWEEN -10 AND 10",
                                            "b > 1e308 AND a < 500", "a < 100 AND b < 0", "b IS NOT NULL"};
  for (const char* transform : {"linear", "quantile", "default"}) {
    for (int only_infinite = 0; only_infinite < 2; ++only_infinite) {
      SCOPED_TRACE(std::string(transform) + (only_infinite ? ", b only infinite" : ""));
      Batch rows = make(0, 600, 5);
      if (only_infinite) {  // no finite value of b at all
        Column& b = rows.mutable_column(2);
        for (size_t i = 0; i < rows.num_rows(); ++i) {
          if (b.IsValid(i)) b.mutable_data<double>()[i] = i % 2 ? INFINITY : -INFINITY;
        }
      }
      auto src = table::MemorySource(schema, {rows});
      table::WriteConfig config;
      config.rows_per_file = 200;
      auto table = table::Table::Create(NewMemoryStore(), src.get(), config);
      ASSERT_TRUE(table.ok());
      layout::LayoutOptions options;
      options.kind = "otree";
      options.columns = {"b", "a"};
      options.transform = transform;
      options.cube_rows = 40;
      options.page_rows = 4;
      options.write = config;
      auto report = layout::LayoutTable(table->get(), options);
      ASSERT_TRUE(report.ok()) << report.status().ToString();
      // Appended rows with infinities (and finite values inside the fitted range only when
      // there is one) join the same revision.
      Batch more = make(600, 200, 6);
      Column& mb = more.mutable_column(2);
      for (size_t i = 0; i < more.num_rows(); ++i) {
        more.mutable_column(1).mutable_data<int64_t>()[i] = 100 + more.column(1).Get<int64_t>(i) % 800;
        if (mb.IsValid(i) && std::isfinite(mb.Get<double>(i))) {
          if (only_infinite) {
            mb.mutable_data<double>()[i] = -INFINITY;
          } else {
            mb.mutable_data<double>()[i] = std::clamp(mb.Get<double>(i), -40.0, 40.0);
          }
        }
      }
      auto more_src = table::MemorySource(schema, {more});
      auto appended = layout::AppendToLayout(table->get(), more_src.get(), config);
      ASSERT_TRUE(appended.ok()) << appended.status().ToString();
      auto meta = layout::LoadLayout((*table)->manifest());
      ASSERT_TRUE(meta.ok() && meta->has_value());
      EXPECT_EQ((*meta)->revisions.size(), 1u) << "rows with infinities started a new revision";
      // The answers: a plain table of the same rows.
      auto both = table::MemorySource(schema, {rows, more});
      auto plain = table::Table::Create(NewMemoryStore(), both.get(), config);
      ASSERT_TRUE(plain.ok());
      ScanCounters counters;
      for (const std::string& f : filters) {
        const std::vector<uint32_t> want = ScanRids(**plain, f, &counters);
        EXPECT_EQ(ScanRids(**table, f, &counters), want) << f;
        if (f == "b = 1e999" || f == "b = -1e999") { EXPECT_FALSE(want.empty()) << f; }
      }
    }
  }
}

TEST(OTreeScanTest, BadRequestsAreClearErrors) {
  Schema schema = Schema::Parse("rid:int64,x:double").value();
  Batch rows(schema);
  for (int i = 0; i < 50; ++i) {
    rows.mutable_column(0).Append<int64_t>(i);
    rows.mutable_column(1).Append<double>(i * 0.5);
  }
  ASSERT_TRUE(rows.Seal().ok());
  auto src = table::MemorySource(schema, {rows});
  auto table = table::Table::Create(NewMemoryStore(), src.get(), {});
  ASSERT_TRUE(table.ok());
  ScanRequest request;
  request.sample = 0.5;
  auto no_layout = Scanner::Make(table->get(), request);
  ASSERT_FALSE(no_layout.ok());
  EXPECT_NE(no_layout.status().message().find("OTree layout"), std::string::npos) << no_layout.status().ToString();

  layout::LayoutOptions options;
  options.columns = {"nope"};
  EXPECT_TRUE(layout::LayoutTable(table->get(), options).status().IsInvalidArgument());
  options.columns = {"x", "x"};
  EXPECT_TRUE(layout::LayoutTable(table->get(), options).status().IsInvalidArgument());
  options.columns = {"rid", "x", "rid", "x", "rid", "x", "rid"};
  EXPECT_TRUE(layout::LayoutTable(table->get(), options).status().IsInvalidArgument());
  EXPECT_EQ((*table)->version(), 1u) << "failed layouts commit nothing";
  options.columns = {"x"};
  options.cube_rows = 10;
  ASSERT_TRUE(layout::LayoutTable(table->get(), options).ok());
  for (double bad : {0.0, -0.1, 1.5, std::nan("")}) {
    request.sample = bad;
    auto s = Scanner::Make(table->get(), request);
    EXPECT_TRUE(!s.ok() && s.status().IsInvalidArgument()) << bad;
  }
  // A plain optimize would lose the blocks' records: refused.
  EXPECT_TRUE((*table)->Optimize({}).status().IsInvalidArgument());
}

// A manifest (checksummed, so not damaged in transit) whose OTree blocks and fragments disagree
// is Corruption for every query, never an answer missing the rows of a hidden fragment.
TEST(OTreeScanTest, BlocksAndFragmentsThatDisagreeAreCorruption) {
  Schema schema = Schema::Parse("rid:int64,x:double").value();
  Batch rows(schema);
  for (int i = 0; i < 400; ++i) {
    rows.mutable_column(0).Append<int64_t>(i);
    rows.mutable_column(1).Append<double>(i * 0.5);
  }
  ASSERT_TRUE(rows.Seal().ok());
  auto src = table::MemorySource(schema, {rows});
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  table::WriteConfig config;
  config.rows_per_file = 100;
  auto table = table::Table::Create(store, src.get(), config);
  ASSERT_TRUE(table.ok());
  layout::LayoutOptions options;
  options.columns = {"x"};
  options.cube_rows = 50;
  options.write.rows_per_file = 100;
  ASSERT_TRUE(layout::LayoutTable(table->get(), options).ok());
  const table::Manifest good = (*table)->manifest();
  ASSERT_GT(good.fragments.size(), 1u);
  for (const std::string damage : {"fragment gone", "blocks gone"}) {
    SCOPED_TRACE(damage);
    table::Manifest m = good;
    m.version = good.version + 1;
    m.parent_version = good.version;
    if (damage == "fragment gone") {
      m.fragments.pop_back();  // its blocks stay in the layout
    } else {
      nlohmann::json layout = m.layout;
      const uint32_t first = m.fragments[0].id;
      nlohmann::json kept = nlohmann::json::array();
      for (const auto& b : layout["blocks"]) {
        if (b["fragment"].get<uint32_t>() != first) kept.push_back(b);
      }
      layout["blocks"] = kept;
      m.layout = layout;
    }
    ASSERT_TRUE(store->CreateIfAbsent(table::ManifestPath(m.version), table::SerializeManifest(m)).ok());
    auto opened = table::Table::Open(store);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    ScanRequest request;
    request.where = "x >= 0";
    auto scanner = Scanner::Make(opened->get(), request);
    ASSERT_FALSE(scanner.ok());
    EXPECT_TRUE(scanner.status().IsCorruption()) << scanner.status().ToString();
    EXPECT_NE(scanner.status().message().find("OTree block"), std::string::npos) << scanner.status().ToString();
    ASSERT_TRUE(store->Delete(table::ManifestPath(m.version)).ok());
  }
}

}  // namespace
}  // namespace lakeindex::query
