#include "query/index_manager.h"

#include <gtest/gtest.h>

#include <functional>
#include <tuple>

#include "index/btree/btree_reader.h"
#include "lakeindex/events.h"
#include "query/scanner.h"

namespace lakeindex::query {
namespace {

// A table of `rows` events rows, `sorted_ids` making id follow row order (clustered).
std::unique_ptr<table::Table> EventsTable(std::shared_ptr<ObjectStore> store, uint64_t rows, bool sorted_ids,
                                          uint64_t rows_per_file) {
  EventsGenerator gen(rows, 7);
  std::vector<Batch> batches;
  Batch b;
  int64_t next_id = 0;
  while (gen.Next(65536, &b)) {
    if (sorted_ids) {
      int64_t* ids = b.mutable_column(0).mutable_data<int64_t>();
      for (size_t r = 0; r < b.num_rows(); ++r) ids[r] = next_id++;
    }
    batches.push_back(std::move(b));
  }
  auto src = table::MemorySource(EventsGenerator::EventsSchema(), std::move(batches));
  table::WriteConfig config;
  config.rows_per_file = rows_per_file;
  auto t = table::Table::Create(store, src.get(), config);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return std::move(*t);
}

// An index of `type` on `column` with leaf pages (btree) or zones (zone map) of `rows` rows.
Status AddIndex(table::Table* t, const std::string& column, const std::string& type, uint32_t rows) {
  IndexOptions options;
  options.column = column;
  options.type = type;
  if (type == "btree") options.params["page_rows"] = rows;
  else options.params["zone_rows"] = rows;
  return CreateIndex(t, options);
}

Result<std::pair<uint64_t, ScanCounters>> Count(const table::Table& t, const std::string& where, bool use_indexes) {
  ScanRequest request;
  request.where = where;
  request.select = {"id"};
  if (use_indexes) {
    ASSIGN_OR_RETURN(request.indexes, OpenIndexes(t, {}));
  }
  ASSIGN_OR_RETURN(auto scanner, Scanner::Make(&t, request));
  uint64_t n = 0;
  Batch batch;
  while (true) {
    ASSIGN_OR_RETURN(bool more, scanner->Next(&batch));
    if (!more) break;
    n += batch.num_rows();
  }
  return std::make_pair(n, scanner->counters());
}

TEST(IndexManagerTest, ZoneMapOnClusteredIdReadsAtMostTwoZones) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 1000000, /*sorted_ids=*/true, 1000000);
  IndexOptions options;
  options.column = "id";
  options.type = "zonemap";
  ASSERT_TRUE(CreateIndex(t.get(), options).ok());
  auto r = Count(*t, "id BETWEEN 500000 AND 500100", true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->first, 101u);
  EXPECT_LE(r->second.rows_read, 2u * 8192u);
  EXPECT_LE(r->second.index.pages_selected, 2u);
  // Two range conjuncts on one column are merged into one search (not two half-table answers).
  auto merged = Count(*t, "id >= 500000 AND id <= 500100 AND id > 499990", true);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->first, 101u);
  EXPECT_LE(merged->second.index.pages_selected, 2u);
}

// Progress: a btree reports reading the column, then writing its pages; a zone map reading the
// column; in each step the rows done never go down and end at the rows of the table.
TEST(IndexManagerTest, BuildsReportProgressByStep) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  const uint64_t rows = 300000;
  auto t = EventsTable(store, rows, /*sorted_ids=*/false, 100000);
  for (const std::string type : {"btree", "zonemap"}) {
    std::vector<std::tuple<std::string, uint64_t, uint64_t>> calls;
    IndexOptions options;
    options.column = "score";
    options.type = type;
    options.progress = [&](const std::string& step, uint64_t done, uint64_t total) { calls.emplace_back(step, done, total); };
    ASSERT_TRUE(CreateIndex(t.get(), options).ok());
    std::vector<std::string> steps;
    for (size_t i = 0; i < calls.size(); ++i) {
      const auto& [step, done, total] = calls[i];
      EXPECT_EQ(total, rows) << type << " " << step;
      EXPECT_LE(done, total) << type << " " << step;
      if (steps.empty() || steps.back() != step) {
        steps.push_back(step);
      } else {
        EXPECT_GE(done, std::get<1>(calls[i - 1])) << type << " " << step;
      }
      if (i + 1 == calls.size() || std::get<0>(calls[i + 1]) != step) {
        EXPECT_EQ(done, rows) << type << " " << step;
      }
    }
    const std::vector<std::string> want = type == "btree" ? std::vector<std::string>{"reading score", "writing pages"}
                                                          : std::vector<std::string>{"reading score"};
    EXPECT_EQ(steps, want) << type;
  }
}

TEST(IndexManagerTest, BTreeColdEqualityReadsOneLeafPageAndMatchesTheScan) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 200000, /*sorted_ids=*/false, 50000);
  IndexOptions options;
  options.column = "id";
  options.type = "btree";
  ASSERT_TRUE(CreateIndex(t.get(), options).ok());
  // Selective filters read fewer rows; 10% of the rows, scattered, touch every page, so taking
  // them would read every byte the scan reads: on a new open (no page decoded yet) the scanner
  // reads whole row groups there (same rows read as without the index).
  for (const auto& [where, selective] : std::vector<std::pair<std::string, bool>>{
           {"id = 123457", true}, {"id IN (5, 99999, 7) OR id < 3", true}, {"NOT (id >= 10) AND score > 0", true},
           {"id BETWEEN 10 AND 20000", false}}) {
    auto reopened = table::Table::Open(store);
    ASSERT_TRUE(reopened.ok());
    auto with = Count(selective ? *t : **reopened, where, true);
    auto without = Count(*t, where, false);
    ASSERT_TRUE(with.ok() && without.ok()) << where;
    EXPECT_EQ(with->first, without->first) << where;
    if (selective) {
      EXPECT_LT(with->second.rows_read, without->second.rows_read) << where;
    } else {
      EXPECT_EQ(with->second.rows_read, without->second.rows_read) << where;
    }
  }
  // A fresh Table opens the segments anew (cold); the same Table shares them between queries
  // (hot: the leaf page is not read again).
  auto fresh = table::Table::Open(store);
  ASSERT_TRUE(fresh.ok());
  auto cold = Count(**fresh, "id = 4242", true);
  ASSERT_TRUE(cold.ok());
  EXPECT_EQ(cold->first, 1u);
  EXPECT_EQ(cold->second.index.pages_read, 1u);
  auto hot = Count(**fresh, "id = 4242", true);
  ASSERT_TRUE(hot.ok());
  EXPECT_EQ(hot->first, 1u);
  EXPECT_EQ(hot->second.index.pages_read, 0u);
}

TEST(IndexManagerTest, TakeReadsOnlyThePagesOfTheGivenRows) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 100000, /*sorted_ids=*/true, 50000);
  const auto& frags = t->manifest().fragments;
  RowSet rows = RowSet::Of({MakeRowAddress(frags[0].id, 5), MakeRowAddress(frags[0].id, 40000),
                            MakeRowAddress(frags[1].id, 7)});
  ASSERT_TRUE(t->DeleteRows(RowSet::Of({MakeRowAddress(frags[0].id, 40000)})).ok());
  for (const std::string& where : {std::string(""), std::string("id > 6")}) {
    ScanRequest request;
    request.select = {"id"};
    request.rows = rows;
    request.where = where;
    auto scanner = Scanner::Make(t.get(), request);
    ASSERT_TRUE(scanner.ok());
    std::vector<int64_t> ids;
    Batch b;
    while (*(*scanner)->Next(&b)) {
      for (size_t r = 0; r < b.num_rows(); ++r) ids.push_back(b.column(0).Get<int64_t>(r));
    }
    // Row 40000 is deleted; ids follow row order (fragment 1 starts at id 50000).
    EXPECT_EQ(ids, where.empty() ? std::vector<int64_t>({5, 50007}) : std::vector<int64_t>({50007}));
    EXPECT_LE((*scanner)->counters().rows_read, 3u * 8192u);
  }
}

TEST(IndexManagerTest, BadRequestsLeaveTheTableAsItWas) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 1000, false, 1000);
  IndexOptions options;
  options.column = "nope";
  options.type = "btree";
  EXPECT_TRUE(CreateIndex(t.get(), options).IsInvalidArgument());
  options.column = "id";
  options.type = "hash";
  EXPECT_TRUE(CreateIndex(t.get(), options).IsInvalidArgument());
  options.type = "btree";
  options.params["page_rows"] = 0;
  EXPECT_TRUE(CreateIndex(t.get(), options).IsInvalidArgument());
  EXPECT_EQ(t->version(), 1u);
  options.params["page_rows"] = 64;
  ASSERT_TRUE(CreateIndex(t.get(), options).ok());
  EXPECT_TRUE(CreateIndex(t.get(), options).IsInvalidArgument());  // name in use
  EXPECT_TRUE(DropIndex(t.get(), "missing").IsInvalidArgument());
  EXPECT_EQ(t->version(), 2u);
}

TEST(IndexManagerTest, AppendThenUpdateCoversNewFragmentsAndDropRemoves) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 3000, false, 1000);
  IndexOptions options;
  options.column = "score";
  options.type = "btree";
  options.params["page_rows"] = 100;
  ASSERT_TRUE(CreateIndex(t.get(), options).ok());
  EventsGenerator gen(500, 99);
  Batch more;
  ASSERT_TRUE(gen.Next(500, &more));
  auto src = table::MemorySource(more.schema(), {more});
  ASSERT_TRUE(t->Append(src.get(), table::WriteConfig{}).ok());
  auto indexes = index::ReadIndexes(t->manifest());
  ASSERT_TRUE(indexes.ok());
  EXPECT_EQ((*indexes)[0].CoveredFragments(t->manifest()).size(), 3u);  // the appended one is scanned
  auto before = Count(*t, "score < 100000", true);
  auto updated = UpdateIndexes(t.get(), "");
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ(*updated, 1u);
  EXPECT_EQ((*index::ReadIndexes(t->manifest()))[0].CoveredFragments(t->manifest()).size(), 4u);
  auto after = Count(*t, "score < 100000", true);
  auto scan = Count(*t, "score < 100000", false);
  ASSERT_TRUE(before.ok() && after.ok() && scan.ok());
  EXPECT_EQ(before->first, scan->first);
  EXPECT_EQ(after->first, scan->first);
  ASSERT_TRUE(DropIndex(t.get(), "score_btree").ok());
  EXPECT_TRUE(OpenIndexes(*t, {})->empty());
}

// The ids of the rows passing `where`, sorted (a multiset: appended rows may repeat ids).
std::vector<int64_t> Ids(const table::Table& t, const std::string& where, bool use_indexes) {
  ScanRequest request;
  request.where = where;
  request.select = {"id"};
  if (use_indexes) {
    auto indexes = OpenIndexes(t, {});
    EXPECT_TRUE(indexes.ok()) << indexes.status().ToString();
    if (indexes.ok()) request.indexes = *indexes;
  }
  auto scanner = Scanner::Make(&t, request);
  EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
  std::vector<int64_t> out;
  if (!scanner.ok()) return out;
  Batch batch;
  for (;;) {
    auto more = (*scanner)->Next(&batch);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    for (size_t r = 0; r < batch.num_rows(); ++r) out.push_back(batch.column(0).Get<int64_t>(r));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Index answers equal the brute-force scan on filters over every indexed column, and every
// segment covers only live fragments (none is stale).
void ExpectIndexesExactAndFresh(const table::Table& t) {
  for (const std::string where :
       {"score < 200000", "score >= 500000 AND score < 520000", "name LIKE 'a%'", "name >= 'm'", "id < 700",
        "maybe IS NULL", "NOT (score < 900000)", "id IN (1, 5, 77, 1500) OR score > 990000"}) {
    EXPECT_EQ(Ids(t, where, true), Ids(t, where, false)) << where << " at version " << t.version();
  }
  auto indexes = index::ReadIndexes(t.manifest());
  ASSERT_TRUE(indexes.ok());
  for (const auto& meta : *indexes) {
    EXPECT_LE(meta.segments.size(), kMaxSegments) << meta.name;
    EXPECT_EQ(meta.CoveredFragments(t.manifest()).size(), t.manifest().fragments.size()) << meta.name;
    for (const auto& seg : meta.segments) {
      for (uint32_t f : seg.fragments) EXPECT_NE(t.manifest().FindFragment(f), nullptr) << meta.name << " " << f;
      if (meta.type != "btree") continue;
      // Exactly the rows of its fragments: none of a gone fragment kept, none twice.
      auto segment = index::btree::BTreeSegment::Open(t.store(), seg.uuid);
      ASSERT_TRUE(segment.ok()) << segment.status().ToString();
      EXPECT_EQ((*segment)->info().num_rows + (*segment)->info().null_count, seg.rows) << meta.name;
    }
  }
}

Status AppendEvents(table::Table* t, uint64_t rows, uint64_t seed) {
  EventsGenerator gen(rows, seed);
  Batch more;
  if (!gen.Next(rows, &more)) return Status::Internal("no rows generated");
  auto src = table::MemorySource(more.schema(), {more});
  table::WriteConfig config;
  config.rows_per_file = 1000;
  return t->Append(src.get(), config);
}

// On a remote store a whole-row lookup through a btree, from a table opened cold as the CLI's
// query opens it (PrefetchForQueries: the index directory and the data files' footers ride with
// the open), takes four sequential round trips: the version hint; its confirmation with the
// prefetch; the leaf pages; the rows' pages of every column of every data file, together. Rows
// as the local scan's.
TEST(IndexManagerTest, OnARemoteStoreALookupTakesFourRoundTripsFromAColdOpen) {
  auto base = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(base, 40000, /*sorted_ids=*/false, 10000);
  ASSERT_TRUE(AddIndex(t.get(), "id", "btree", 256).ok());
  auto ids = t->ReadAll({0});
  ASSERT_TRUE(ids.ok());
  std::string in_list;  // ids spread over every data file
  for (size_t r = 0; r < 40000; r += 1999) in_list += (in_list.empty() ? "" : ", ") + std::to_string(ids->column(0).Get<int64_t>(r));
  for (const std::string& where : {"id = " + std::to_string(ids->column(0).Get<int64_t>(12345)), "id IN (" + in_list + ")"}) {
    auto rows_of = [&](const table::Table& table) {
      ScanRequest request;
      request.where = where;
      auto indexes = OpenIndexesFor(table, where);
      EXPECT_TRUE(indexes.ok());
      request.indexes = std::move(*indexes);
      auto scanner = Scanner::Make(&table, request);
      EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
      std::vector<int64_t> got;
      Batch batch;
      while (scanner.ok()) {
        auto more = (*scanner)->Next(&batch);
        EXPECT_TRUE(more.ok());
        if (!more.ok() || !*more) break;
        EXPECT_EQ(batch.num_columns(), t->schema().num_fields());  // whole rows
        for (size_t r = 0; r < batch.num_rows(); ++r) got.push_back(batch.column(0).Get<int64_t>(r));
      }
      std::sort(got.begin(), got.end());
      return got;
    };
    auto local = table::Table::Open(base);
    ASSERT_TRUE(local.ok());
    const std::vector<int64_t> expected = rows_of(**local);
    EXPECT_FALSE(expected.empty()) << where;
    auto remote = std::make_shared<InstrumentedStore>(base);
    remote->SetLatencyMicros(50000);  // requests sent together overlap even on a loaded machine
    table::Table::OpenOptions open;
    open.prefetch = [&](const table::Table& table) { PrefetchForQueries(table, where); };
    auto cold = table::Table::Open(remote, std::nullopt, open);
    ASSERT_TRUE(cold.ok()) << cold.status().ToString();
    EXPECT_EQ(rows_of(**cold), expected) << where;
    EXPECT_EQ(remote->counters().round_trips.load(), 4u) << where;
  }
}

// A table opened before its filter is known (the Python module's Table.open): with
// PrefetchForAnyQuery the index's directory rides in the open's second round trip, as the
// command line's does with the filter, so the cold lookup is four round trips, not five (the
// directory in a round trip of its own before the leaf). More index segments than
// kPrefetchAnyQuerySegments are left to the queries.
TEST(IndexManagerTest, AnOpenForAnyQueryFetchesTheIndexDirectoriesWithTheVersion) {
  auto base = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(base, 20000, /*sorted_ids=*/false, 5000);
  ASSERT_TRUE(AddIndex(t.get(), "id", "btree", 256).ok());
  auto ids = t->ReadAll({0});
  ASSERT_TRUE(ids.ok());
  const int64_t id = ids->column(0).Get<int64_t>(12345);
  const std::string where = "id = " + std::to_string(id);
  auto lookup = [&](const std::function<void(const table::Table&)>& prefetch) {
    auto remote = std::make_shared<InstrumentedStore>(base);
    remote->SetLatencyMicros(50000);  // requests sent together overlap even on a loaded machine
    table::Table::OpenOptions open;
    open.prefetch = prefetch;
    auto cold = table::Table::Open(remote, std::nullopt, open);
    EXPECT_TRUE(cold.ok()) << cold.status().ToString();
    ScanRequest request;
    request.where = where;
    request.select = {"id"};
    auto indexes = OpenIndexesFor(**cold, where);
    EXPECT_TRUE(indexes.ok());
    request.indexes = std::move(*indexes);
    auto scanner = Scanner::Make(cold->get(), request);
    EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
    std::vector<int64_t> got;
    Batch batch;
    for (int guard = 0; scanner.ok() && guard < 1000; ++guard) {
      auto more = (*scanner)->Next(&batch);
      EXPECT_TRUE(more.ok());
      if (!more.ok() || !*more) break;
      for (size_t r = 0; r < batch.num_rows(); ++r) got.push_back(batch.column(0).Get<int64_t>(r));
    }
    EXPECT_EQ(got, std::vector<int64_t>{id});
    return remote->counters().round_trips.load();
  };
  EXPECT_EQ(lookup([](const table::Table& table) { PrefetchForAnyQuery(table); }), 4u);
  EXPECT_EQ(lookup([](const table::Table& table) { PrefetchForQueries(table, ""); }), 5u);  // the open before
  // Past the bound, the directories wait for the query that needs them.
  for (uint64_t i = 0; i < kPrefetchAnyQuerySegments; ++i) {
    IndexOptions more;
    more.column = "score";
    more.type = "btree";
    more.name = "score_" + std::to_string(i);
    ASSERT_TRUE(CreateIndex(t.get(), more).ok()) << more.name;
  }
  EXPECT_EQ(lookup([](const table::Table& table) { PrefetchForAnyQuery(table); }), 5u);
}

std::unique_ptr<table::Table> IndexedEventsTable(std::shared_ptr<ObjectStore> store) {
  auto t = EventsTable(store, 3000, false, 1000);
  for (const auto& [column, type] : std::vector<std::pair<std::string, std::string>>{
           {"score", "btree"}, {"name", "btree"}, {"maybe", "btree"}, {"id", "zonemap"}}) {
    IndexOptions options;
    options.column = column;
    options.type = type;
    options.params = options.type == "btree" ? nlohmann::json{{"page_rows", 64}} : nlohmann::json{{"zone_rows", 100}};
    EXPECT_TRUE(CreateIndex(t.get(), options).ok()) << column;
  }
  return t;
}

TEST(IndexManagerTest, OptimizeRewritesStaleSegmentsAndDropsGoneOnes) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = IndexedEventsTable(store);
  ASSERT_TRUE(AppendEvents(t.get(), 300, 11).ok());  // a small fragment: optimize rewrites it
  auto first_update = UpdateIndexes(t.get(), "");
  ASSERT_TRUE(first_update.ok()) << first_update.status().ToString();
  ASSERT_EQ(*first_update, 4u);
  // Rows deleted in the first fragment: optimize rewrites it too.
  std::vector<uint64_t> doomed;
  const uint32_t first = t->manifest().fragments[0].id;
  for (uint32_t r = 0; r < 1000; r += 3) doomed.push_back(MakeRowAddress(first, r));
  ASSERT_TRUE(t->DeleteRows(RowSet::Of(doomed)).ok());
  ExpectIndexesExactAndFresh(*t);
  table::WriteConfig config;
  config.rows_per_file = 1000;
  auto rewritten = t->Optimize(config);
  ASSERT_TRUE(rewritten.ok()) << rewritten.status().ToString();
  ASSERT_EQ(*rewritten, 2u);
  // Stale now: the first segment of each index covers a gone fragment, the second only one.
  auto updated = UpdateIndexes(t.get(), "");
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(*updated, 4u);  // one rewritten segment per index
  auto indexes = index::ReadIndexes(t->manifest());
  ASSERT_TRUE(indexes.ok());
  for (const auto& meta : *indexes) EXPECT_EQ(meta.segments.size(), 1u) << meta.name;
  ExpectIndexesExactAndFresh(*t);
  // Nothing left to do: no new version.
  const uint64_t version = t->version();
  auto again = UpdateIndexes(t.get(), "");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0u);
  EXPECT_EQ(t->version(), version);
}

TEST(IndexManagerTest, SegmentsAreMergedPastTheThresholdAndOnRequest) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = IndexedEventsTable(store);
  size_t max_seen = 0;
  for (uint64_t i = 0; i < kMaxSegments + 3; ++i) {
    ASSERT_TRUE(AppendEvents(t.get(), 50 + i, 100 + i).ok());
    ASSERT_TRUE(UpdateIndexes(t.get(), "").ok());
    auto indexes = index::ReadIndexes(t->manifest());
    ASSERT_TRUE(indexes.ok());
    for (const auto& meta : *indexes) max_seen = std::max(max_seen, meta.segments.size());
    if (i == kMaxSegments - 1 || i == kMaxSegments) ExpectIndexesExactAndFresh(*t);  // around the merge
  }
  EXPECT_EQ(max_seen, kMaxSegments);
  ExpectIndexesExactAndFresh(*t);
  UpdateOptions merge;
  merge.merge = true;
  auto merged = UpdateIndexes(t.get(), "score_btree", merge);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(*merged, 1u);
  auto indexes = index::ReadIndexes(t->manifest());
  ASSERT_TRUE(indexes.ok());
  for (const auto& meta : *indexes) {
    if (meta.name == "score_btree") {
      ASSERT_EQ(meta.segments.size(), 1u);
      EXPECT_EQ(meta.segments[0].rows, t->manifest().total_rows());
    }
  }
  ExpectIndexesExactAndFresh(*t);
}

// verify reads every index file: a flipped byte in a btree's page_lookup or page_data or in a
// zone map is found (Corruption naming the segment) unless it is harmless — then the index
// still answers exactly. Harmless flips are those in bytes no check covers and no reader of ours
// uses (a file's leading magic, Parquet page statistics of the directory files); at least 3 of 4
// flips must be found.
TEST(IndexManagerTest, VerifyReadsEveryIndexFile) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 3000, /*sorted_ids=*/false, 1000);
  ASSERT_TRUE(AddIndex(t.get(), "score", "btree", 256).ok());
  ASSERT_TRUE(AddIndex(t.get(), "ts", "zonemap", 256).ok());
  auto good = VerifyIndexes(*t);
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ(good->size(), 2u);
  const std::string where = "score BETWEEN 100000 AND 300000 OR ts < TIMESTAMP '2024-01-05 00:00:00'";
  auto want = Count(*t, where, false);
  ASSERT_TRUE(want.ok());
  auto files = store->List("_indices/");
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 3u);  // page_lookup, page_data, zonemap
  size_t flips = 0, found = 0;
  for (const ObjectInfo& file : *files) {
    const std::string bytes = *store->Read(file.path);
    const std::string uuid = file.path.substr(std::string("_indices/").size(), 32);
    for (size_t i = 0; i < bytes.size(); i += std::max<size_t>(1, bytes.size() / 60)) {
      std::string bad = bytes;
      bad[i] = char(bad[i] ^ 0x10);
      ASSERT_TRUE(store->Write(file.path, bad).ok());
      auto fresh = table::Table::Open(store);  // nothing cached from the good files
      ASSERT_TRUE(fresh.ok());
      auto r = VerifyIndexes(**fresh);
      ++flips;
      if (!r.ok()) {
        ++found;
        EXPECT_TRUE(r.status().IsCorruption() || r.status().IsNotSupported()) << r.status().ToString();
        EXPECT_NE(r.status().message().find(uuid), std::string::npos) << r.status().ToString();
      } else {
        auto got = Count(**fresh, where, true);
        ASSERT_TRUE(got.ok()) << file.path << " byte " << i << ": " << got.status().ToString();
        EXPECT_EQ(got->first, want->first) << file.path << " byte " << i;
      }
    }
    ASSERT_TRUE(store->Write(file.path, bytes).ok());
  }
  EXPECT_GT(found * 4, flips * 3) << found << " of " << flips << " flips found";
}

// A query opens the indexes on the columns its parsed filter names: not one whose column name
// only appears inside a string literal, nor any without a filter.
TEST(IndexManagerTest, OpenIndexesForTakesTheFilterColumns) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 2000, /*sorted_ids=*/false, 1000);
  for (const char* column : {"id", "score"}) {
    IndexOptions options;
    options.column = column;
    options.type = "btree";
    ASSERT_TRUE(CreateIndex(t.get(), options).ok());
  }
  auto names = [&](const std::string& where) {
    std::vector<std::string> out;
    auto opened = OpenIndexesFor(*t, where);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    if (opened.ok()) {
      for (const auto& h : *opened) out.push_back(h.column);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(names("score = 5 AND name = 'id'"), std::vector<std::string>{"score"});
  EXPECT_EQ(names("ID < 3"), std::vector<std::string>{"id"});  // as the binder resolves names
  EXPECT_EQ(names("id < 3 OR score > 2"), (std::vector<std::string>{"id", "score"}));
  EXPECT_TRUE(names("").empty());
  EXPECT_TRUE(OpenIndexesFor(*t, "id <").status().IsInvalidArgument());
  EXPECT_TRUE(OpenIndexesFor(*t, "nope = 1").status().IsInvalidArgument());
}

}  // namespace
}  // namespace lakeindex::query
