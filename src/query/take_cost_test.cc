// Reads cut by the store's hint, and the planner's take-or-scan choice: with no holes a take
// reads exactly its pages; an index read never costs more data-file bytes than the scan without
// the index, locally and with S3's hint; a dense key falls back to the scan and explain says so.
#include "query/take_cost.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "query/index_manager.h"
#include "query/scanner.h"
#include "table/batch_source.h"
#include "table/table.h"

namespace lakeindex::query {
namespace {

// Counts, besides InstrumentedStore's totals, the bytes read from data files (not the manifest,
// nor the index's files), so that a take and a scan compare on what the choice decides.
class DataBytesStore : public InstrumentedStore {
 public:
  using InstrumentedStore::InstrumentedStore;
  std::atomic<uint64_t> data_bytes{0};

  Result<std::string> Read(std::string_view path) override { return Count(path, InstrumentedStore::Read(path)); }
  Result<std::string> ReadRange(std::string_view path, uint64_t offset, uint64_t length) override {
    return Count(path, InstrumentedStore::ReadRange(path, offset, length));
  }
  Result<std::vector<std::string>> ReadRanges(std::string_view path, const std::vector<ByteRange>& ranges) override {
    auto r = InstrumentedStore::ReadRanges(path, ranges);
    if (r.ok() && IsData(path)) {
      for (const std::string& b : *r) data_bytes += b.size();
    }
    return r;
  }

 private:
  static bool IsData(std::string_view path) { return path.starts_with("data/"); }
  Result<std::string> Count(std::string_view path, Result<std::string> r) {
    if (r.ok() && IsData(path)) data_bytes += r->size();
    return r;
  }
};

// Shaped like nycflights13: a key (`tail`) whose rows are scattered over the whole table, with
// frequencies from a handful of rows to most of the table (key K0 is on about 60% of the rows),
// beside numbers stored PLAIN (random) and small dictionary columns, in 1,024-row pages.
std::shared_ptr<ObjectStore> FlightsLike(uint64_t rows, uint32_t seed) {
  Schema schema({{"id", TypeId::kInt64, false},
                 {"tail", TypeId::kString, false},
                 {"delay", TypeId::kDouble, false},
                 {"distance", TypeId::kInt64, false},
                 {"month", TypeId::kInt64, false},
                 {"carrier", TypeId::kString, false}});
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Column> cols;
  for (const Field& f : schema.fields()) cols.emplace_back(f.type);
  for (uint64_t r = 0; r < rows; ++r) {
    cols[0].Append<int64_t>(int64_t(r));
    // K0 on 60% of rows, else a key whose frequency falls off as a power of its number.
    const uint64_t k = u(rng) < 0.6 ? 0 : 1 + uint64_t(std::pow(u(rng), 3) * 3000);
    EXPECT_TRUE(cols[1].AppendString("K" + std::to_string(k)).ok());
    cols[2].Append<double>(u(rng) * 1000);
    cols[3].Append<int64_t>(int64_t(rng() % 5000));
    cols[4].Append<int64_t>(int64_t(r * 12 / rows));
    EXPECT_TRUE(cols[5].AppendString(std::string(1, char('A' + rng() % 16))).ok());
  }
  std::vector<Batch> batches;
  batches.emplace_back(schema, std::move(cols), size_t(rows));
  EXPECT_TRUE(batches.back().Seal().ok());
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto src = table::MemorySource(schema, std::move(batches));
  auto t = table::Table::Create(store, src.get(), table::WriteConfig{});
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  IndexOptions options;
  options.column = "tail";
  options.type = "btree";
  EXPECT_TRUE(CreateIndex(t->get(), options).ok());
  return store;
}

struct QueryRun {
  std::vector<int64_t> ids;  // sorted
  uint64_t data_bytes = 0;
  std::vector<std::string> plan;
};

// `where` on a new open of the table (nothing cached), with or without its index, whole rows.
QueryRun Query(std::shared_ptr<ObjectStore> base, const std::string& where, bool use_index,
          std::optional<ObjectStore::ReadHint> hint = std::nullopt) {
  auto store = std::make_shared<DataBytesStore>(base);
  store->SetReadHint(hint);
  auto t = table::Table::Open(store);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  ScanRequest request;
  request.where = where;
  if (use_index) {
    auto indexes = OpenIndexes(**t, {});
    EXPECT_TRUE(indexes.ok());
    request.indexes = std::move(*indexes);
  }
  auto scanner = Scanner::Make(t->get(), request);
  EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
  QueryRun run;
  Batch batch;
  while (true) {
    auto more = (*scanner)->Next(&batch);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    EXPECT_EQ(batch.num_columns(), 6u);
    for (size_t r = 0; r < batch.num_rows(); ++r) run.ids.push_back(batch.column(0).Get<int64_t>(r));
  }
  std::sort(run.ids.begin(), run.ids.end());
  run.data_bytes = store->data_bytes.load();
  run.plan = (*scanner)->plan();
  return run;
}

// Plain explain's plan (nothing run).
std::vector<std::string> PlainPlan(std::shared_ptr<ObjectStore> base, const std::string& where) {
  auto t = table::Table::Open(base);
  EXPECT_TRUE(t.ok());
  ScanRequest request;
  request.where = where;
  auto indexes = OpenIndexes(**t, {});
  EXPECT_TRUE(indexes.ok());
  request.indexes = std::move(*indexes);
  auto scanner = Scanner::Make(t->get(), request);
  EXPECT_TRUE(scanner.ok());
  EXPECT_TRUE((*scanner)->Explain(false).ok());
  return (*scanner)->plan();
}

bool Has(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

// Scattered rows of one column of small dictionary-index pages gathered through a store whose
// hint has no holes: the bytes read are exactly the pages' sizes in the OffsetIndex and the
// dictionary's; with holes, more; with a cap of one byte, one request per page.
TEST(RowGatherTest, WithNoHolesOnlyTheWantedPagesAreRead) {
  auto base = FlightsLike(40000, 1);
  auto store = std::make_shared<InstrumentedStore>(base);
  const int column = 5;  // carrier: 16 values, pages of a few hundred bytes and a dictionary
  const Ranges rows = {{5, 6}, {3000, 3002}, {3100, 3101}, {9000, 9001}, {20480, 20481}, {39999, 40000}};
  struct Case {
    ObjectStore::ReadHint hint;
    bool exact;  // bytes == the pages' and the dictionary's bytes
    uint64_t requests;
  };
  // Pages 2 and 3 are adjacent: no holes makes 5 runs; 1 MiB holes one; a 1-byte cap one a page.
  // The dictionary is one more request.
  for (const Case& c : {Case{{0, UINT64_MAX, 1}, true, 6}, Case{{1 << 20, UINT64_MAX, 1}, false, 2},
                        Case{{1 << 20, 1, 1}, true, 7}}) {
    SCOPED_TRACE(c.hint.max_hole);
    store->SetReadHint(c.hint);
    auto t = table::Table::Open(store);  // a new open: nothing cached
    ASSERT_TRUE(t.ok());
    const table::FragmentMeta& frag = (*t)->manifest().fragments.at(0);
    auto reader = (*t)->OpenDataFile(frag);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto index = (*reader)->SharedPageIndex(0, column, false);
    ASSERT_TRUE(index.ok());
    auto pages = PagesOf(**index, rows, frag.file);
    ASSERT_TRUE(pages.ok());
    ASSERT_EQ(pages->size(), 6u);  // pages 0, 2, 3, 8, 20, 39
    const uint64_t dictionary = (*reader)->ChunkBytes(0, column) - ChunkBytes(**index);
    ASSERT_GT(dictionary, 0u);
    store->counters().Reset();
    Column out(TypeId::kString);
    GatherCounters counters;
    ASSERT_TRUE(GatherRows(**reader, 0, column, rows, &out, &counters).ok());
    EXPECT_EQ(out.length(), 7u);
    EXPECT_EQ(counters.pages_loaded, 6u);
    const uint64_t bytes = store->counters().bytes_read.load();
    if (c.exact) {
      EXPECT_EQ(bytes, PageBytes(**index, *pages) + dictionary);
    } else {
      EXPECT_GT(bytes, PageBytes(**index, *pages) + dictionary);
    }
    EXPECT_EQ(store->counters().read_requests.load(), c.requests);
  }
}

TEST(TakeCostTest, ScatteredKeyIsTakenAndReadsNoMoreThanTheScan) {
  auto base = FlightsLike(60000, 2);
  // K40: about 40 rows over the whole table, on about 40 of the 59 pages of each column.
  const std::string where = "tail = 'K40'";
  QueryRun with = Query(base, where, true), without = Query(base, where, false);
  ASSERT_FALSE(with.ids.empty());
  EXPECT_EQ(with.ids, without.ids);
  EXPECT_TRUE(Has(with.plan, "row group 0: take ")) << Joined(with.plan);
  EXPECT_TRUE(Has(with.plan, "-byte scan: taking; ")) << Joined(with.plan);
  EXPECT_LT(with.data_bytes, without.data_bytes);
  const std::vector<std::string> plain = PlainPlan(base, where);
  EXPECT_TRUE(Has(plain, "row group 0: take ")) << Joined(plain);
  EXPECT_TRUE(Has(plain, "-byte scan: taking; ")) << Joined(plain);
}

TEST(TakeCostTest, DenseKeyFallsBackToTheScanAndExplainSaysSo) {
  auto base = FlightsLike(60000, 3);
  const std::string where = "tail = 'K0'";  // 60% of the rows: on every page
  QueryRun with = Query(base, where, true), without = Query(base, where, false);
  EXPECT_GT(with.ids.size(), 30000u);
  EXPECT_EQ(with.ids, without.ids);
  EXPECT_FALSE(Has(with.plan, "row group 0: take ")) << Joined(with.plan);
  EXPECT_TRUE(Has(with.plan, "row group 0: read whole (60000 rows), not the index's ")) << Joined(with.plan);
  EXPECT_TRUE(Has(with.plan, "-byte scan: scanning; ")) << Joined(with.plan);
  EXPECT_LE(with.data_bytes, without.data_bytes);
  const std::vector<std::string> plain = PlainPlan(base, where);
  EXPECT_TRUE(Has(plain, "row group 0: scan (60000 rows), not the index's ")) << Joined(plain);
  EXPECT_TRUE(Has(plain, "-byte scan: scanning; ")) << Joined(plain);
}

// Over keys of every density, on a local store (no holes) and with S3's hint (1 MiB holes): the
// index never makes the query read more data-file bytes than the same query without it.
TEST(TakeCostTest, AnIndexNeverReadsMoreThanTheScanAtAnyDensity) {
  auto base = FlightsLike(60000, 4);
  std::mt19937 rng(52);
  std::vector<std::string> keys = {"K0", "K1", "K2", "K5", "K3000", "K99999"};
  for (int i = 0; i < 14; ++i) keys.push_back("K" + std::to_string(rng() % 3000));
  for (std::optional<ObjectStore::ReadHint> hint : {std::optional<ObjectStore::ReadHint>(), std::optional(kRemoteReadHint)}) {
    int taken = 0;
    for (const std::string& key : keys) {
      const std::string where = "tail = '" + key + "'";
      SCOPED_TRACE(where + (hint ? " (S3 hint)" : " (local)"));
      QueryRun with = Query(base, where, true, hint), without = Query(base, where, false, hint);
      EXPECT_EQ(with.ids, without.ids);
      EXPECT_LE(with.data_bytes, without.data_bytes) << Joined(with.plan);
      taken += Has(with.plan, "row group 0: take ") ? 1 : 0;
    }
    EXPECT_GT(taken, 0);  // the comparison covered takes, not only fallbacks
  }
}

// On a store with a network round trip per request (latency injected: S3's hint), a take of
// rows scattered over the whole table is one run per column (1 MiB holes), plus the dictionaries:
// a few requests, not one per page.
TEST(TakeCostTest, AScatteredTakeOnARemoteStoreIsARequestOrTwoPerColumn) {
  auto base = FlightsLike(60000, 5);
  auto store = std::make_shared<InstrumentedStore>(base);
  store->SetLatencyMicros(1);
  ASSERT_EQ(store->read_hint(), kRemoteReadHint);
  auto t = table::Table::Open(store);
  ASSERT_TRUE(t.ok());
  ScanRequest request;
  request.where = "tail = 'K40'";
  auto indexes = OpenIndexes(**t, {});
  ASSERT_TRUE(indexes.ok());
  request.indexes = std::move(*indexes);
  const table::FragmentMeta& frag = (*t)->manifest().fragments.at(0);
  ASSERT_TRUE((*t)->OpenDataFile(frag).ok());  // the footer and page index: not counted below
  store->counters().Reset();
  auto scanner = Scanner::Make(t->get(), request);
  ASSERT_TRUE(scanner.ok());
  Batch batch;
  uint64_t rows = 0;
  while (*(*scanner)->Next(&batch)) rows += batch.num_rows();
  EXPECT_GT(rows, 10u);
  EXPECT_TRUE(Has((*scanner)->plan(), "holes of up to 1,048,576 bytes)")) << Joined((*scanner)->plan());
  // 6 columns: at most a run and a dictionary each, and the index's leaf page.
  EXPECT_LE(store->counters().read_requests.load(), 2u * 6u + 1u);
}

// Rows the caller gives (ScanRequest::rows) are what is asked for: however densely they cover the
// pages, they are taken, never replaced by a scan (which, with no filter to apply, would return
// every row).
TEST(TakeCostTest, GivenRowsOnEveryPageAreTakenNotScanned) {
  auto base = FlightsLike(20000, 6);
  auto t = table::Table::Open(base);
  ASSERT_TRUE(t.ok());
  const uint32_t frag = (*t)->manifest().fragments.at(0).id;
  std::vector<uint64_t> addresses;
  std::vector<int64_t> want;
  for (uint32_t r = 0; r < 20000; r += 3) {
    addresses.push_back(MakeRowAddress(frag, r));
    want.push_back(int64_t(r));
  }
  for (const std::string& where : {std::string(""), std::string("distance >= 0")}) {
    ScanRequest request;
    request.select = {"id"};
    request.where = where;
    request.rows = RowSet::Of(addresses);
    auto scanner = Scanner::Make(t->get(), request);
    ASSERT_TRUE(scanner.ok());
    std::vector<int64_t> got;
    Batch batch;
    while (*(*scanner)->Next(&batch)) {
      for (size_t r = 0; r < batch.num_rows(); ++r) got.push_back(batch.column(0).Get<int64_t>(r));
    }
    EXPECT_EQ(got, want) << where;
  }
}

}  // namespace
}  // namespace lakeindex::query
