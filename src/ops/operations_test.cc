#include "ops/operations.h"

#include <gtest/gtest.h>

#include <set>

#include "format/parquet/reader.h"
#include "index/index_catalog.h"
#include "lakeindex/events.h"
#include "layout/otree/layout_meta.h"
#include "query/index_manager.h"
#include "query/scanner.h"

namespace lakeindex::ops {
namespace {

// `rows` events rows whose ids start at `first_id` (so appends are told apart by id).
std::vector<Batch> EventsRows(uint64_t rows, uint64_t seed, int64_t first_id) {
  EventsGenerator gen(rows, seed);
  std::vector<Batch> batches;
  Batch b;
  int64_t next = first_id;
  while (gen.Next(4096, &b)) {
    int64_t* ids = b.mutable_column(0).mutable_data<int64_t>();
    for (size_t r = 0; r < b.num_rows(); ++r) ids[r] = next++;
    batches.push_back(std::move(b));
  }
  return batches;
}

std::unique_ptr<table::Table> NewTable(const std::shared_ptr<ObjectStore>& store, uint64_t rows) {
  auto src = table::MemorySource(EventsGenerator::EventsSchema(), EventsRows(rows, 7, 0));
  table::WriteConfig config;
  config.rows_per_file = 1000;
  auto t = table::Table::Create(store, src.get(), config);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return std::move(*t);
}

void CreateBTree(table::Table* t, const std::string& column) {
  query::IndexOptions options;
  options.column = column;
  options.type = "btree";
  options.params["page_rows"] = 64;
  ASSERT_TRUE(query::CreateIndex(t, options).ok());
}

// Every id of the newest version, read with the indexes (`where` selects) and without them.
std::multiset<int64_t> Ids(const std::shared_ptr<ObjectStore>& store, const std::string& where, bool indexes) {
  auto t = table::Table::Open(store);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  query::ScanRequest request;
  request.where = where;
  request.select = {"id"};
  if (indexes) {
    auto opened = query::OpenIndexes(**t, {});
    EXPECT_TRUE(opened.ok());
    request.indexes = *opened;
  }
  auto scanner = query::Scanner::Make(t->get(), request);
  EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
  std::multiset<int64_t> out;
  Batch batch;
  while (true) {
    auto more = (*scanner)->Next(&batch);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    for (size_t r = 0; r < batch.num_rows(); ++r) out.insert(batch.column(0).Get<int64_t>(r));
  }
  return out;
}

// Fragments of the newest version that no segment of `index` covers.
size_t Uncovered(const std::shared_ptr<ObjectStore>& store, const std::string& index) {
  auto t = table::Table::Open(store);
  auto indexes = index::ReadIndexes((*t)->manifest());
  std::set<uint32_t> covered;
  for (const auto& meta : *indexes) {
    if (meta.name != index) continue;
    for (const auto& seg : meta.segments) covered.insert(seg.fragments.begin(), seg.fragments.end());
  }
  size_t n = 0;
  for (const auto& f : (*t)->manifest().fragments) n += covered.count(f.id) ? 0 : 1;
  return n;
}

TEST(OperationsTest, AppendIsOneCommitWithItsIndexSegments) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = NewTable(store, 3000);
  CreateBTree(t.get(), "id");
  CreateBTree(t.get(), "score");
  const uint64_t version = t->version();
  auto src = table::MemorySource(EventsGenerator::EventsSchema(), EventsRows(2500, 8, 100000));
  auto r = Append(t.get(), src.get(), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 2500u);
  EXPECT_EQ(r->index_segments, 2u);
  EXPECT_EQ(t->version(), version + 1);  // one commit: data and both indexes
  EXPECT_EQ(Uncovered(store, "id_btree"), 0u);
  EXPECT_EQ(Uncovered(store, "score_btree"), 0u);
  for (const std::string where : {"id >= 100000", "id BETWEEN 99990 AND 100010", "score < 1000"}) {
    EXPECT_EQ(Ids(store, where, true), Ids(store, where, false)) << where;
  }
  EXPECT_EQ(Ids(store, "id >= 100000", true).size(), 2500u);
}

// A commit of another writer lands while the append is committing (injected on its first
// attempt): the append rebases, and its rows are in exactly once, indexed by what the newest
// version has.
TEST(OperationsTest, AppendRebasesOverConcurrentIndexChanges) {
  for (const std::string other : {"drop", "create", "append"}) {
    SCOPED_TRACE(other);
    auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
    auto t = NewTable(store, 2000);
    CreateBTree(t.get(), "id");
    bool injected = false;
    table::WriteConfig config;
    config.before_commit = [&](table::Manifest*) -> Status {
      if (injected) return Status::OK();
      injected = true;
      ASSIGN_OR_RETURN(auto concurrent, table::Table::Open(store));
      if (other == "drop") return query::DropIndex(concurrent.get(), "id_btree");
      if (other == "create") {
        query::IndexOptions options;
        options.column = "score";
        options.type = "btree";
        return query::CreateIndex(concurrent.get(), options);
      }
      auto rows = table::MemorySource(EventsGenerator::EventsSchema(), EventsRows(500, 9, 500000));
      return Append(concurrent.get(), rows.get(), {}).status();
    };
    auto src = table::MemorySource(EventsGenerator::EventsSchema(), EventsRows(1500, 8, 100000));
    auto r = Append(t.get(), src.get(), config);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(injected);
    EXPECT_EQ(r->rows, 1500u);
    const auto all = Ids(store, "", false);
    EXPECT_EQ(all.size(), 2000u + 1500u + (other == "append" ? 500u : 0u));
    EXPECT_EQ(std::set<int64_t>(all.begin(), all.end()).size(), all.size());  // none twice
    if (other != "drop") {
      EXPECT_EQ(Uncovered(store, "id_btree"), 0u);
    }
    if (other == "create") {
      EXPECT_EQ(Uncovered(store, "score_btree"), 0u);
    }
    EXPECT_EQ(Ids(store, "id >= 100000", true), Ids(store, "id >= 100000", false));
  }
}

// A layout that adds the hidden `_lakeindex_weight` column lands while a plain append commits: the append's
// files have the old schema, so it fails with Conflict and nothing of it is visible.
TEST(OperationsTest, AppendOverAConcurrentSchemaChangeIsAConflictThatCommitsNothing) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = NewTable(store, 2000);
  CreateBTree(t.get(), "id");
  table::WriteConfig config;
  bool injected = false;
  config.before_commit = [&](table::Manifest*) -> Status {
    if (injected) return Status::OK();
    injected = true;
    ASSIGN_OR_RETURN(auto concurrent, table::Table::Open(store));
    layout::LayoutOptions options;
    options.columns = {"x", "y"};
    options.cube_rows = 500;
    return Layout(concurrent.get(), options).status();
  };
  auto src = table::MemorySource(EventsGenerator::EventsSchema(), EventsRows(1000, 8, 100000));
  auto r = Append(t.get(), src.get(), config);
  ASSERT_TRUE(r.status().IsConflict()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("committed nothing"), std::string::npos) << r.status().ToString();
  EXPECT_EQ(Ids(store, "", false).size(), 2000u);
  EXPECT_TRUE(Ids(store, "id >= 100000", true).empty());
  // The laid-out table is whole and indexed in the layout's own commit.
  EXPECT_EQ(Uncovered(store, "id_btree"), 0u);
  EXPECT_EQ(Ids(store, "id < 1000", true), Ids(store, "id < 1000", false));
}

// With a source it can read again, an append that cannot be rebased starts over from the newest
// version: after a concurrent OTree layout its rows are placed into the new tree; after a
// concurrent OTree append (which changed the tree) they are placed again.
TEST(OperationsTest, AppendStartsOverWhenItCannotRebase) {
  for (const std::string other : {"layout", "otree_append"}) {
    SCOPED_TRACE(other);
    auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
    auto t = NewTable(store, 2000);
    CreateBTree(t.get(), "id");
    layout::LayoutOptions options;
    options.columns = {"x", "y"};
    options.cube_rows = 500;
    if (other == "otree_append") {
      ASSERT_TRUE(Layout(t.get(), options).ok());
    }
    int injected = 0, opened = 0;
    table::WriteConfig config;
    config.before_commit = [&](table::Manifest*) -> Status {
      if (injected++ > 0) return Status::OK();
      ASSIGN_OR_RETURN(auto concurrent, table::Table::Open(store));
      if (other == "layout") return Layout(concurrent.get(), options).status();
      auto rows = table::MemorySource(layout::VisibleSchema(concurrent->schema()), EventsRows(300, 9, 500000));
      return Append(concurrent.get(), rows.get(), {}).status();
    };
    auto open = [&](const Schema& columns) -> Result<std::unique_ptr<table::BatchSource>> {
      ++opened;
      EXPECT_EQ(columns, EventsGenerator::EventsSchema());  // the visible columns, never `_lakeindex_weight`
      return table::MemorySource(columns, EventsRows(1000, 8, 100000));
    };
    auto r = Append(t.get(), open, config);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(opened, 2);  // the first attempt was overtaken
    EXPECT_TRUE(r->otree);
    EXPECT_EQ(r->rows, 1000u);
    const auto all = Ids(store, "", false);
    EXPECT_EQ(all.size(), 2000u + 1000u + (other == "otree_append" ? 300u : 0u));
    EXPECT_EQ(std::set<int64_t>(all.begin(), all.end()).size(), all.size());
    EXPECT_EQ(Ids(store, "id >= 100000 AND id < 200000", true).size(), 1000u);
    EXPECT_EQ(Uncovered(store, "id_btree"), 0u);
  }
}

// A layout or an optimize overtaken by another commit starts over from the newest version: the
// rows appended meanwhile are laid out too.
TEST(OperationsTest, LayoutAndOptimizeStartOverWhenOvertaken) {
  for (const std::string op : {"layout", "optimize"}) {
    SCOPED_TRACE(op);
    auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
    auto t = NewTable(store, 2500);
    CreateBTree(t.get(), "id");
    int injected = 0;
    table::WriteConfig config;
    config.rows_per_file = 5000;
    config.before_commit = [&](table::Manifest*) -> Status {
      if (injected++ > 0) return Status::OK();
      ASSIGN_OR_RETURN(auto concurrent, table::Table::Open(store));
      auto rows = table::MemorySource(concurrent->schema(), EventsRows(300, 9, 500000));
      return Append(concurrent.get(), rows.get(), {}).status();
    };
    if (op == "layout") {
      layout::LayoutOptions options;
      options.columns = {"x", "y"};
      options.cube_rows = 500;
      options.write = config;
      auto r = Layout(t.get(), options);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->report.rows, 2800u);
    } else {
      auto r = Optimize(t.get(), config);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
    EXPECT_GE(injected, 2);  // the first attempt was overtaken, a later one committed
    const auto all = Ids(store, "", false);
    EXPECT_EQ(all.size(), 2800u);
    EXPECT_EQ(std::set<int64_t>(all.begin(), all.end()).size(), all.size());
    EXPECT_EQ(Uncovered(store, "id_btree"), 0u);
    EXPECT_EQ(Ids(store, "id >= 500000", true).size(), 300u);
  }
}

TEST(OperationsTest, OptimizeAndLayoutReindexInTheirOwnCommit) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = NewTable(store, 2500);  // fragments of 1000, 1000, 500
  CreateBTree(t.get(), "id");
  table::WriteConfig config;
  config.rows_per_file = 5000;
  uint64_t version = t->version();
  auto opt = Optimize(t.get(), config);
  ASSERT_TRUE(opt.ok()) << opt.status().ToString();
  EXPECT_GT(opt->rewritten, 0u);
  EXPECT_EQ(t->version(), version + 1);
  EXPECT_EQ(Uncovered(store, "id_btree"), 0u);
  EXPECT_EQ(Ids(store, "id < 700", true), Ids(store, "id < 700", false));
  version = t->version();
  layout::LayoutOptions options;
  options.columns = {"x", "y"};
  options.cube_rows = 500;
  std::vector<std::string> steps;  // the layout's progress, rebuilding the btree included
  options.progress = [&](const std::string& step, uint64_t, uint64_t) {
    if (steps.empty() || steps.back() != step) steps.push_back(step);
  };
  auto laid = Layout(t.get(), options);
  ASSERT_TRUE(laid.ok()) << laid.status().ToString();
  EXPECT_EQ(t->version(), version + 1);
  EXPECT_EQ(laid->index_segments, 1u);
  ASSERT_GE(steps.size(), 3u);
  EXPECT_EQ(steps[steps.size() - 3], "index id_btree, reading id");
  EXPECT_EQ(steps[steps.size() - 2], "index id_btree, writing pages");
  EXPECT_EQ(steps.back(), "done");
  EXPECT_EQ(Uncovered(store, "id_btree"), 0u);
  EXPECT_EQ(Ids(store, "id < 700", true).size(), 700u);
}

// A delete from a stale view whose fragments another writer changed meanwhile starts over from
// the newest version: the filter is evaluated there, and the other writer's deletes stay.
TEST(OperationsTest, DeleteStartsOverFromTheNewestVersion) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto stale = NewTable(store, 2000);
  CreateBTree(stale.get(), "id");
  auto other = table::Table::Open(store);
  ASSERT_TRUE(other.ok());
  auto first = Delete(other->get(), "id < 100");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, 100u);
  auto second = Delete(stale.get(), "id >= 50 AND id < 150");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(*second, 50u);  // rows 50..99 were gone at the version it committed on
  EXPECT_EQ(stale->version(), (*other)->version() + 1);
  const auto ids = Ids(store, "", false);
  EXPECT_EQ(ids.size(), 1850u);
  EXPECT_EQ(*ids.begin(), 150);
  EXPECT_EQ(Ids(store, "id < 300", true), Ids(store, "id < 300", false));
}

TEST(OperationsTest, IndexCommandsAndVacuumRefuseWhatTheyCannotDo) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = NewTable(store, 1000);
  query::IndexOptions options;
  options.column = "id";
  options.type = "btree";
  ASSERT_TRUE(ops::CreateIndex(t.get(), options).ok());
  const uint64_t version = t->version();
  Status again = ops::CreateIndex(t.get(), options);
  EXPECT_FALSE(again.ok());
  EXPECT_NE(again.message().find("id_btree"), std::string::npos) << again.ToString();
  Status missing = ops::DropIndex(t.get(), "nope");
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("nope"), std::string::npos) << missing.ToString();
  EXPECT_EQ(t->version(), version);  // nothing committed by either
  auto updated = ops::UpdateIndexes(t.get(), "", {});
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(*updated, 0u);  // every fragment is indexed already

  VacuumOptions unsafe;
  unsafe.older_than_hours = 0;
  auto refused = Vacuum(t.get(), unsafe);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("in progress"), std::string::npos) << refused.status().ToString();
  unsafe.force = true;
  unsafe.keep_versions = 0;
  EXPECT_FALSE(Vacuum(t.get(), unsafe).ok());
  EXPECT_EQ(t->version(), version);
  unsafe.keep_versions = 1;
  auto vacuumed = Vacuum(t.get(), unsafe);
  ASSERT_TRUE(vacuumed.ok()) << vacuumed.status().ToString();
  // One commit: a version of its own expires every version before it.
  EXPECT_EQ(vacuumed->expired.size(), size_t(version));
  EXPECT_TRUE(vacuumed->warnings.empty());
  EXPECT_EQ(t->version(), version + 1);
  EXPECT_EQ(t->manifest().operation, "expire");
  EXPECT_EQ(t->manifest().expired_before, version + 1);
  EXPECT_EQ(Ids(store, "", false).size(), 1000u);
  EXPECT_EQ(Ids(store, "id < 10", true).size(), 10u);
  auto listed = t->Versions();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].version, version + 1);
  // Nothing more to expire: no commit.
  auto again_vacuumed = Vacuum(t.get(), unsafe);
  ASSERT_TRUE(again_vacuumed.ok());
  EXPECT_TRUE(again_vacuumed->expired.empty());
  EXPECT_EQ(t->version(), version + 1);
}

// An expiry that committed but stopped before deleting the expired versions' manifests: the
// versions are expired all the same (time travel refuses them, `versions` hides them), and the
// next expiry deletes what was left.
TEST(OperationsTest, VersionsAnExpiryLeftBehindStayExpired) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = NewTable(store, 1000);
  ASSERT_TRUE(Delete(t.get(), "id < 10").ok());
  ASSERT_TRUE(Delete(t.get(), "id < 20").ok());
  const uint64_t version = t->version();
  auto old_manifest = store->Read(table::ManifestPath(1));
  ASSERT_TRUE(old_manifest.ok());
  VacuumOptions expire;
  expire.older_than_hours = 0;
  expire.force = true;
  expire.keep_versions = 2;
  auto vacuumed = Vacuum(t.get(), expire);
  ASSERT_TRUE(vacuumed.ok()) << vacuumed.status().ToString();
  EXPECT_EQ(vacuumed->expired, (std::vector<uint64_t>{1, 2}));  // kept: the newest before, and the expiry
  EXPECT_EQ(t->version(), version + 1);
  ASSERT_TRUE(store->Write(table::ManifestPath(1), *old_manifest).ok());  // as if its delete had failed
  auto travel = table::Table::Open(store, uint64_t(1));
  ASSERT_FALSE(travel.ok());
  EXPECT_TRUE(travel.status().IsNotFound()) << travel.status().ToString();
  EXPECT_NE(travel.status().message().find("expired"), std::string::npos) << travel.status().ToString();
  auto kept = table::Table::Open(store, version);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  auto listed = t->Versions();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].version, version);
  expire.keep_versions = 5;  // nothing new expires, and no commit; what was left goes
  auto again = Vacuum(t.get(), expire);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->expired.empty());
  EXPECT_EQ(t->version(), version + 1);
  EXPECT_TRUE(store->Read(table::ManifestPath(1)).status().IsNotFound());
}

// The encodings of every data file of `t`'s version, and whether a uuid column has min/max
// anywhere (statistics or page index): what engines refuse or read wrong.
std::pair<std::set<parquet::Encoding>, bool> WhatEnginesMeet(const table::Table& t) {
  std::set<parquet::Encoding> encodings;
  bool uuid_bounds = false;
  for (const table::FragmentMeta& f : t.manifest().fragments) {
    auto file = t.OpenDataFile(f);
    EXPECT_TRUE(file.ok()) << file.status().ToString();
    if (!file.ok()) continue;
    for (const parquet::RowGroup& rg : (*file)->metadata().row_groups) {
      for (size_t c = 0; c < rg.columns.size(); ++c) {
        const parquet::ColumnMetaData& m = *rg.columns[c].meta_data;
        encodings.insert(m.encodings.begin(), m.encodings.end());
        if ((*file)->schema().fields()[c].type == TypeId::kUuid) {
          uuid_bounds |= rg.columns[c].column_index_offset.has_value() ||
                         (m.statistics && (m.statistics->min_value || m.statistics->max_value));
        }
      }
    }
  }
  return {encodings, uuid_bounds};
}

// iceberg enable on a table written without Iceberg metadata rewrites, in its one commit, the
// files engines would refuse (an OTree's BYTE_STREAM_SPLIT / DELTA_LENGTH_BYTE_ARRAY) or read
// wrong (uuid bounds), keeping every row where it was: indexes, deletions, blocks stay valid.
TEST(OperationsTest, IcebergEnableRewritesTheFilesEnginesWouldReadWrong) {
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto t = NewTable(store, 3000);
  CreateBTree(t.get(), "id");
  layout::LayoutOptions options;
  options.columns = {"x", "y"};
  options.cube_rows = 400;
  ASSERT_TRUE(Layout(t.get(), options).ok());
  ASSERT_TRUE(Delete(t.get(), "id BETWEEN 100 AND 449").ok());
  ASSERT_TRUE(WhatEnginesMeet(*t).first.count(parquet::Encoding::kByteStreamSplit));
  const std::vector<std::string> wheres = {"", "id < 700", "id = 1234", "x < 0.3 AND y > 0.6", "_lakeindex_weight < 0.1"};
  std::vector<std::multiset<int64_t>> before;
  for (const std::string& w : wheres) before.push_back(Ids(store, w, false));
  const nlohmann::json layout = t->manifest().layout;
  const uint64_t version = t->version();
  uint64_t progressed = 0;
  table::WriteConfig config;
  config.progress = [&](uint64_t rows) { progressed = rows; };
  auto enabled = EnableIceberg(t.get(), "s3://bucket/t", false, config);
  ASSERT_TRUE(enabled.ok()) << enabled.status().ToString();
  EXPECT_EQ(t->version(), version + 1);  // one commit
  EXPECT_EQ(enabled->rewritten, t->manifest().fragments.size());
  EXPECT_EQ(progressed, 3000u);  // every row, deleted ones too
  EXPECT_TRUE(enabled->unwritten.ok()) << enabled->unwritten.ToString();
  auto [encodings, uuid_bounds] = WhatEnginesMeet(*t);
  EXPECT_FALSE(encodings.count(parquet::Encoding::kByteStreamSplit));
  EXPECT_FALSE(encodings.count(parquet::Encoding::kDeltaLengthByteArray));
  EXPECT_EQ(t->manifest().layout, layout);  // the blocks are the files' row groups still
  for (size_t i = 0; i < wheres.size(); ++i) {
    EXPECT_EQ(Ids(store, wheres[i], false), before[i]) << wheres[i];
    EXPECT_EQ(Ids(store, wheres[i], true), before[i]) << wheres[i] << " (with the btree)";
  }
  auto verified = Verify(*t);
  EXPECT_TRUE(verified.ok()) << verified.status().ToString();
  auto again = EnableIceberg(t.get(), "s3://bucket/t", false);  // nothing left to rewrite: no commit
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->committed);
  EXPECT_EQ(t->version(), version + 1);

  // A table of uuids, written without Iceberg metadata: their bounds go.
  auto uuids = std::shared_ptr<ObjectStore>(NewMemoryStore());
  Schema schema({Field{"id", TypeId::kInt64}, Field{"u", TypeId::kUuid}});
  Column id(TypeId::kInt64), u(TypeId::kUuid);
  for (int64_t i = 0; i < 500; ++i) {
    id.Append<int64_t>(i);
    std::string bytes(16, char(0));
    for (int k = 0; k < 8; ++k) bytes[k] = char(uint64_t(i * 0x9E3779B97F4A7C15ull) >> (8 * k));
    ASSERT_TRUE(u.AppendString(bytes).ok());
  }
  std::vector<Batch> rows;
  rows.emplace_back(schema, std::vector<Column>{std::move(id), std::move(u)}, 500);
  auto src = table::MemorySource(schema, std::move(rows));
  auto plain = table::Table::Create(uuids, src.get(), {});
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  ASSERT_TRUE(WhatEnginesMeet(**plain).second);
  auto u_enabled = EnableIceberg(plain->get(), "s3://bucket/u", false);
  ASSERT_TRUE(u_enabled.ok()) << u_enabled.status().ToString();
  EXPECT_EQ(u_enabled->rewritten, 1u);
  EXPECT_FALSE(WhatEnginesMeet(**plain).second);
  EXPECT_EQ(Ids(uuids, "", false).size(), 500u);
}

}  // namespace
}  // namespace lakeindex::ops
