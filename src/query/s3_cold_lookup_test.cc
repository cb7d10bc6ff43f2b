// A cold whole-row point lookup on S3 (moto on loopback), opened as a new process's `query`
// opens it: what goes out, in how many sequential round trips, counted by the InstrumentedStore
// around the S3 store (requests and round trips, never time).
//
// What each round trip holds, and why it waits for the one before:
//  1. the version hint (_versions/_latest, a copy of the newest manifest): nothing is known
//     before it, not even the index's directory;
//  2. with the hint's manifest: the next version's absence and the hinted manifest (confirming
//     the hint), the btree's page_lookup and page_data's size, and every data file's page index
//     and footer (their offsets are in the manifest; PrefetchForQueries);
//  3. the btree leaf holding the key: its offset is in page_lookup;
//  4. the matching rows' pages of every column of the files they are in: their offsets are in
//     the data files' page indexes, the rows in the leaf.
// So a point lookup is four round trips until the leaf's location rides in the manifest (or an
// earlier object) and the pages' locations in the leaf; requests grow with the data files (one
// tail each, speculatively) and the columns returned (one range per column per file touched,
// their chunks being megabytes apart).

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "lakeindex/events.h"
#include "lakeindex/object_store.h"
#include "query/index_manager.h"
#include "query/scanner.h"
#include "table/table.h"
#include "util/moto.h"

namespace lakeindex::query {
namespace {

TEST(S3ColdLookupTest, AWholeRowPointLookupFromAColdOpenTakesFourRoundTrips) {
  lakeindex::testing::MotoServer::Shared();  // sets the AWS_* variables of this process
  auto opened = OpenStoreUri(std::string("s3://") + lakeindex::testing::MotoServer::kSharedBucket + "/cold-lookup-" +
                             std::to_string(::getpid()));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::shared_ptr<ObjectStore> s3 = std::move(*opened);

  // 40,000 events rows in 4 data files, a btree on score.
  constexpr uint64_t kRows = 40000, kFiles = 4;
  EventsGenerator gen(kRows, 52);
  std::vector<Batch> batches;
  Batch b;
  while (gen.Next(8192, &b)) batches.push_back(std::move(b));
  auto source = table::MemorySource(EventsGenerator::EventsSchema(), std::move(batches));
  table::WriteConfig config;
  config.rows_per_file = kRows / kFiles;
  auto created = table::Table::Create(s3, source.get(), config);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  IndexOptions index;
  index.column = "score";
  index.type = "btree";
  index.params["page_rows"] = 1024;
  ASSERT_TRUE(CreateIndex(created->get(), index).ok());
  const size_t score = size_t((*created)->schema().FindField("score"));
  const size_t id = size_t((*created)->schema().FindField("id"));
  auto all = (*created)->ReadAll({int(id), int(score)});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  // A score held by a few rows, and their ids: the brute-force answer.
  const int64_t key = all->column(1).Get<int64_t>(kRows / 3);
  std::multiset<int64_t> expected;
  for (size_t r = 0; r < all->num_rows(); ++r) {
    if (all->column(1).Get<int64_t>(r) == key) expected.insert(all->column(0).Get<int64_t>(r));
  }
  ASSERT_FALSE(expected.empty());
  const std::string where = "score = " + std::to_string(key);

  // The cold lookup: a new Table and index through a store with nothing cached, 50 ms a
  // request (requests sent together then overlap, even on a loaded machine).
  auto remote = std::make_shared<InstrumentedStore>(s3);
  remote->SetLatencyMicros(50000);
  table::Table::OpenOptions open;
  open.prefetch = [&](const table::Table& t) { PrefetchForQueries(t, where); };
  auto cold = table::Table::Open(remote, std::nullopt, open);
  ASSERT_TRUE(cold.ok()) << cold.status().ToString();
  const uint64_t open_trips = remote->counters().round_trips, open_requests = remote->counters().read_requests;
  ScanRequest request;
  request.where = where;
  auto indexes = OpenIndexesFor(**cold, where);
  ASSERT_TRUE(indexes.ok()) << indexes.status().ToString();
  request.indexes = std::move(*indexes);
  auto scanner = Scanner::Make(cold->get(), request);
  ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
  std::multiset<int64_t> got;
  std::set<uint32_t> files;
  Batch batch;
  for (int guard = 0; guard < 1000; ++guard) {
    auto more = (*scanner)->Next(&batch);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    ASSERT_EQ(batch.num_columns(), (*cold)->schema().num_fields());  // whole rows
    for (size_t r = 0; r < batch.num_rows(); ++r) got.insert(batch.column(id).Get<int64_t>(r));
  }
  EXPECT_EQ(got, expected);
  for (const PlanStep& step : (*scanner)->plan_steps()) {
    if (step.kind == StepKind::kFragmentTake) files.insert(step.fragment);
  }
  ASSERT_FALSE(files.empty());

  // Open: the hint; then together the next version's absence (its Occupied), the hinted manifest,
  // page_lookup, page_data's size and the 4 data files' tails.
  EXPECT_EQ(open_trips, 2u);
  EXPECT_EQ(open_requests, 1u + 1 + 1 + 1 + 1 + kFiles);
  // The lookup: the leaf, then the rows' pages of the 9 columns (category's dictionary page
  // beside its data page) of each file holding a match, together.
  EXPECT_EQ(remote->counters().round_trips.load(), 4u);
  const uint64_t columns = (*cold)->schema().num_fields();
  const uint64_t lookup_requests = remote->counters().read_requests - open_requests;
  EXPECT_GE(lookup_requests, 1 + files.size() * columns);
  EXPECT_LE(lookup_requests, 1 + files.size() * (columns + 1) * expected.size());
}

}  // namespace
}  // namespace lakeindex::query
