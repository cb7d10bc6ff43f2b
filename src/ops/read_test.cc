#include "ops/read.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "lakeindex/events.h"
#include "ops/operations.h"
#include "query/index_manager.h"

namespace lakeindex::ops {
namespace {

std::unique_ptr<table::Table> EventsTable(const std::shared_ptr<ObjectStore>& store, uint64_t rows) {
  EventsGenerator gen(rows, 3);
  std::vector<Batch> batches;
  Batch b;
  while (gen.Next(4096, &b)) batches.push_back(std::move(b));
  auto src = table::MemorySource(EventsGenerator::EventsSchema(), std::move(batches));
  table::WriteConfig config;
  config.rows_per_file = 2000;
  auto t = table::Table::Create(store, src.get(), config);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return std::move(*t);
}

void Index(table::Table* t, const std::string& column, const std::string& type) {
  query::IndexOptions options;
  options.column = column;
  options.type = type;
  ASSERT_TRUE(ops::CreateIndex(t, options).ok());
}

std::set<std::string> Names(const PlannedFilter& p) {
  std::set<std::string> out;
  for (const auto& h : p.indexes) out.insert(h.name);
  return out;
}

// Every id a read returns, in order.
std::vector<int64_t> Ids(const table::Table& t, const ReadRequest& request) {
  auto rows = Read(t, request);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  std::vector<int64_t> out;
  if (!rows.ok()) return out;
  const int id = (*rows)->schema().FindField("id");
  Batch b;
  while (true) {
    auto more = (*rows)->Next(&b);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    for (size_t r = 0; r < b.num_rows(); ++r) out.push_back(b.column(size_t(id)).Get<int64_t>(r));
  }
  return out;
}

// One policy for every read: the indexes on the columns the bound filter names (or, with no
// filter, on the order's one key), opened once per version and shared by later reads.
TEST(ReadTest, TheIndexesOfAReadAreTheFiltersOpenedOncePerVersion) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 6000);
  Index(t.get(), "id", "btree");
  Index(t.get(), "x", "zonemap");

  auto by_id = PlanFilter(*t, "id = 5");
  ASSERT_TRUE(by_id.ok()) << by_id.status().ToString();
  EXPECT_EQ(Names(*by_id), (std::set<std::string>{"id_btree"}));
  ASSERT_TRUE(by_id->parsed);
  EXPECT_EQ(Names(*PlanFilter(*t, "X < 300 AND id > 5")), (std::set<std::string>{"id_btree", "x_zonemap"}));
  EXPECT_TRUE(PlanFilter(*t, "")->indexes.empty());
  EXPECT_EQ(Names(*PlanFilter(*t, "", "id desc")), (std::set<std::string>{"id_btree"}));
  EXPECT_TRUE(PlanFilter(*t, "", "score desc, id")->indexes.empty());
  auto bad = PlanFilter(*t, "nope = 1");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  // The same columns again: the same handles, not opened again.
  auto again = PlanFilter(*t, "id BETWEEN 3 AND 9");
  ASSERT_EQ(again->indexes.size(), 1u);
  EXPECT_EQ(again->indexes[0].fragments.get(), by_id->indexes[0].fragments.get());

  // After an append, the new version's handles cover its new fragments.
  EventsGenerator gen(500, 9);
  Batch more;
  std::vector<Batch> batches;
  while (gen.Next(4096, &more)) {
    int64_t* ids = more.mutable_column(0).mutable_data<int64_t>();
    for (size_t r = 0; r < more.num_rows(); ++r) ids[r] += 1000000;
    batches.push_back(std::move(more));
  }
  auto src = table::MemorySource(EventsGenerator::EventsSchema(), std::move(batches));
  ASSERT_TRUE(ops::Append(t.get(), src.get(), table::WriteConfig{}).ok());
  auto after = PlanFilter(*t, "id = 1000007");
  ASSERT_EQ(after->indexes.size(), 1u);
  EXPECT_EQ(after->indexes[0].fragments->size(), t->manifest().fragments.size());
  EXPECT_EQ(Ids(*t, {"id = 1000007", {"id"}, std::nullopt, std::nullopt, ""}), std::vector<int64_t>{1000007});
}

// Reads, counts and stats against a brute-force reading of every row.
TEST(ReadTest, ReadsCountsAndStatsAgreeWithEveryRow) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 5000);
  Index(t.get(), "id", "btree");
  auto deleted = ops::Delete(t.get(), "id BETWEEN 100 AND 199");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(*deleted, 100u);
  auto all = t->ReadAll();
  ASSERT_TRUE(all.ok());
  const int id = all->schema().FindField("id"), x = all->schema().FindField("x");
  std::mt19937_64 rng(5);
  for (int round = 0; round < 30; ++round) {
    const int64_t lo = int64_t(rng() % 5000), hi = lo + int64_t(rng() % 800);
    const double cut = double(rng() % 1000);
    const std::string where = "id BETWEEN " + std::to_string(lo) + " AND " + std::to_string(hi) +
                              (round % 2 ? " AND x < " + std::to_string(cut) : "");
    std::vector<int64_t> want;
    for (size_t r = 0; r < all->num_rows(); ++r) {
      const int64_t v = all->column(size_t(id)).Get<int64_t>(r);
      if (v < lo || v > hi) continue;
      if (round % 2 && !(all->column(size_t(x)).IsValid(r) && all->column(size_t(x)).Get<double>(r) < cut)) continue;
      want.push_back(v);
    }
    std::sort(want.begin(), want.end());
    std::vector<int64_t> got = Ids(*t, {where, {"id"}, std::nullopt, std::nullopt, ""});
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want) << where;
    EXPECT_EQ(Ids(*t, {where, {"id"}, std::nullopt, std::nullopt, "id desc"}),
              std::vector<int64_t>(want.rbegin(), want.rend()))
        << where;
    std::vector<int64_t> first(want.begin(), want.begin() + std::ptrdiff_t(std::min<size_t>(want.size(), 3)));
    EXPECT_EQ(Ids(*t, {where, {"id"}, std::nullopt, 3, "id"}), first) << where;
    auto n = Count(*t, where);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(*n, want.size()) << where;
  }
  TableStats stats = Stats(*t);
  EXPECT_EQ(stats.rows, all->num_rows());
  EXPECT_EQ(stats.deleted_rows, 100u);
  EXPECT_EQ(stats.fragments, t->manifest().fragments.size());
  EXPECT_EQ(stats.columns["id"].row_count, 5000u);  // deleted rows stay in the files' statistics
}

// OFFSET skips rows across batches and files, after the order when there is one.
TEST(ReadTest, OffsetSkipsTheFirstRowsOfTheReadOrOfItsOrder) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = EventsTable(store, 5000);
  const std::vector<int64_t> all = Ids(*t, {"", {"id"}, std::nullopt, std::nullopt, ""});
  ASSERT_EQ(all.size(), 5000u);
  ReadRequest skip{"", {"id"}, std::nullopt, 10, "", 2995};  // past the first file and batch
  EXPECT_EQ(Ids(*t, skip), std::vector<int64_t>(all.begin() + 2995, all.begin() + 3005));
  skip.limit.reset();
  EXPECT_EQ(Ids(*t, skip), std::vector<int64_t>(all.begin() + 2995, all.end()));
  EXPECT_EQ(Ids(*t, {"id < 100", {"id"}, std::nullopt, 3, "id desc", 5}), (std::vector<int64_t>{94, 93, 92}));
  EXPECT_TRUE(Ids(*t, {"", {"id"}, std::nullopt, 3, "", 5000}).empty());
  EXPECT_TRUE(Ids(*t, {"", {"id"}, std::nullopt, std::nullopt, "id", 6000}).empty());
}

TEST(ReadTest, SelectColumnsExpandsStarAndNamesUnknownColumns) {
  const Schema schema = Schema::Parse("id:int64,Dep Delay:double,_lakeindex_weight:double,dest:string").value();
  auto star = SelectColumns(schema, "dest, *");
  ASSERT_TRUE(star.ok()) << star.status().ToString();
  EXPECT_EQ(*star, (std::vector<std::string>{"dest", "id", "Dep Delay", "dest"}));  // hidden ones only by name
  auto named = SelectColumns(schema, "\"dep delay\", _lakeindex_weight");
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(*named, (std::vector<std::string>{"Dep Delay", "_lakeindex_weight"}));
  auto unknown = SelectColumns(schema, "id, destt");
  EXPECT_EQ(unknown.status().message(), "at position 5: unknown column 'destt'; did you mean 'dest'?");
  EXPECT_EQ(unknown.status().parameter(), "select");
}

}  // namespace
}  // namespace lakeindex::ops
