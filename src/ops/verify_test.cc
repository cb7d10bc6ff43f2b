// verify finds every damage: single-byte flips over every file a version names — the manifest,
// data files, deletion vectors, btree and zone map files, Iceberg manifest lists, manifests,
// position delete files and the metadata JSON — each named by verify (or, for the manifest, by the
// open), whichever byte it hits.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "lakeindex/events.h"
#include "ops/operations.h"
#include "ops/read.h"
#include "table/iceberg.h"
#include "util/test_util.h"

namespace lakeindex::ops {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The kind of a table file, for the coverage count.
std::string KindOf(const std::string& path) {
  if (path.rfind("_versions/", 0) == 0) return "manifest";
  if (path.rfind("data/", 0) == 0) return "data";
  if (path.rfind("_deletions/", 0) == 0) return "deletion vector";
  if (path.rfind("_indices/", 0) == 0) return "index " + path.substr(path.rfind('/') + 1);
  if (path.find(".metadata.json") != std::string::npos) return "iceberg metadata";
  if (path.find("snap-") != std::string::npos) return "iceberg manifest list";
  if (path.find(".avro") != std::string::npos) return "iceberg manifest";
  return "iceberg " + path.substr(path.rfind('.') + 1);
}

TEST(VerifyTest, EverySingleByteFlipInAFileTheVersionNamesIsNamed) {
  testing::TempDir dir;
  const std::string root = dir.path() + "/t";
  auto store = table::OpenTableStore(root, /*create=*/true);
  ASSERT_TRUE(store.ok());
  EventsGenerator gen(3000, 5);
  std::vector<Batch> batches;
  for (Batch b; gen.Next(1000, &b);) batches.push_back(std::move(b));
  auto source = table::MemorySource(EventsGenerator::EventsSchema(), std::move(batches));
  table::WriteConfig config;
  config.rows_per_file = 1000;
  config.iceberg_location = table::TableLocationUri(root);
  auto t = Create(*store, source.get(), config);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  for (const auto& [column, type] : std::vector<std::pair<std::string, std::string>>{{"score", "btree"}, {"ts", "zonemap"}}) {
    query::IndexOptions options;
    options.column = column;
    options.type = type;
    ASSERT_TRUE(ops::CreateIndex(t->get(), options).ok());
  }
  auto deleted = ops::Delete(t->get(), "score < 50000 OR category = 'c3'");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  const table::Manifest& m = (*t)->manifest();
  auto clean = Verify(**t);
  ASSERT_TRUE(clean.ok()) << clean.status().ToString();

  // The files the newest version names, each once.
  std::set<std::string> named = {table::ManifestPath(m.version), table::iceberg::MetadataPath(m.version)};
  for (const std::string& f : table::Table::ChecksummedFiles(m)) named.insert(f);
  for (const std::string& prefix : table::Table::ReferencedIndexPrefixes(m)) {
    auto listed = (*store)->List(prefix);
    ASSERT_TRUE(listed.ok());
    for (const ObjectInfo& o : *listed) named.insert(o.path);
  }
  // Every one of them carries a checksum, or checks itself (the manifest, the metadata JSON).
  for (const std::string& f : named) {
    if (f.rfind("_versions/", 0) == 0 || f.find(".metadata.json") != std::string::npos) continue;
    EXPECT_EQ(m.checksums.count(f), 1u) << f << " has no checksum recorded";
  }
  const std::vector<std::string> files(named.begin(), named.end());
  std::map<std::string, int> flips_of_kind;
  std::mt19937_64 rng(20261206);
  constexpr int kFlips = 1200;
  int missed = 0;
  for (int i = 0; i < kFlips; ++i) {
    const std::string& file = files[size_t(i) % files.size()];  // every file in turn, a random byte
    const std::string path = root + "/" + file;
    const std::string original = ReadFile(path);
    ASSERT_FALSE(original.empty()) << file;
    std::string damaged = original;
    const size_t at = rng() % damaged.size();
    damaged[at] = char(uint8_t(damaged[at]) ^ uint8_t(1 + rng() % 255));
    WriteFile(path, damaged);
    Status found;
    auto opened = table::Table::Open(*store);
    if (!opened.ok()) {
      found = opened.status();
    } else {
      found = Verify(**opened).status();
    }
    WriteFile(path, original);
    ++flips_of_kind[KindOf(file)];
    // A manifest is JSON under a checksum of its value: a flip of one whitespace byte into
    // another (' ' into '\n' in the indentation) leaves the same manifest, and nothing to find.
    const bool same_manifest = KindOf(file) == "manifest" && nlohmann::json::parse(damaged, nullptr, false) ==
                                                                 nlohmann::json::parse(original, nullptr, false);
    if (same_manifest) {
      EXPECT_TRUE(found.ok()) << found.ToString();
    } else if (found.ok() || found.message().find(file) == std::string::npos) {
      ++missed;
      ADD_FAILURE() << "byte " << at << " of " << file << " flipped: "
                    << (found.ok() ? "verify passed" : "the error does not name it: " + found.ToString());
    }
  }
  EXPECT_EQ(missed, 0);
  // Every kind of file was hit: the manifest, data, deletions, both index kinds, every Iceberg file.
  for (const char* kind : {"manifest", "data", "deletion vector", "iceberg metadata", "iceberg manifest list",
                           "iceberg manifest", "index page_lookup.parquet", "index page_data.parquet"}) {
    EXPECT_GT(flips_of_kind[kind], 10) << kind;
  }
  size_t zonemaps = 0;
  for (const auto& [kind, n] : flips_of_kind) zonemaps += kind.find("zonemap") != std::string::npos ? n : 0;
  EXPECT_GT(zonemaps, 10u);
  // And the table is as it was.
  auto after = Verify(**table::Table::Open(*store));
  EXPECT_TRUE(after.ok()) << after.status().ToString();
}

// A table of 3,000 events rows in 3 files, a btree index on score, some rows deleted.
struct IndexedTable {
  testing::TempDir dir;
  std::string root = dir.path() + "/t";
  std::shared_ptr<ObjectStore> store;
  std::unique_ptr<table::Table> table;

  IndexedTable() {
    auto opened = table::OpenTableStore(root, /*create=*/true);
    EXPECT_TRUE(opened.ok());
    store = *opened;
    EventsGenerator gen(3000, 5);
    std::vector<Batch> batches;
    for (Batch b; gen.Next(1000, &b);) batches.push_back(std::move(b));
    auto source = table::MemorySource(EventsGenerator::EventsSchema(), std::move(batches));
    table::WriteConfig config;
    config.rows_per_file = 1000;
    auto t = Create(store, source.get(), config);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    table = std::move(*t);
    query::IndexOptions options;
    options.column = "score";
    options.type = "btree";
    EXPECT_TRUE(ops::CreateIndex(table.get(), options).ok());
    EXPECT_TRUE(ops::Delete(table.get(), "id < 40").ok());
  }

  // The status of an indexed query of the newest version, read to the end.
  Status Query(const std::string& where) {
    auto t = table::Table::Open(store);
    if (!t.ok()) return t.status();
    ReadRequest request;
    request.where = where;
    auto rows = Read(**t, request);
    if (!rows.ok()) return rows.status();
    for (Batch b;;) {
      auto more = (*rows)->Next(&b);
      if (!more.ok()) return more.status();
      if (!*more) return Status::OK();
    }
  }
};

// A file the version references but the store lacks is damage to the table — Corruption, as a
// missing data file is — for verify, which names it in its damage list, and for queries.
TEST(VerifyTest, AMissingIndexFileOrDeletionVectorIsDamageNamedByVerifyAndQueries) {
  IndexedTable t;
  const table::Manifest& m = t.table->manifest();
  std::vector<std::string> files;
  for (const std::string& prefix : table::Table::ReferencedIndexPrefixes(m)) {
    auto listed = t.store->List(prefix);
    ASSERT_TRUE(listed.ok());
    for (const ObjectInfo& o : *listed) files.push_back(o.path);
  }
  ASSERT_EQ(files.size(), 2u);  // page_lookup, page_data
  for (const table::FragmentMeta& f : m.fragments) {
    if (f.deletion) files.push_back(f.deletion->file);
  }
  ASSERT_GT(files.size(), 2u);
  ASSERT_TRUE(Verify(*t.table).ok());
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const std::string path = t.root + "/" + file;
    const std::string bytes = ReadFile(path);
    ASSERT_TRUE(std::filesystem::remove(path));
    auto opened = table::Table::Open(t.store);
    ASSERT_TRUE(opened.ok());
    const Status verified = Verify(**opened).status();
    EXPECT_TRUE(verified.IsCorruption()) << verified.ToString();
    EXPECT_NE(verified.message().find("1 damage in version"), std::string::npos) << verified.ToString();
    EXPECT_NE(verified.message().find(file + " is missing"), std::string::npos) << verified.ToString();
    // A query that uses the index (a lookup of one score) for an index file, one that reads
    // every fragment for a deletion vector.
    const std::string where = file.rfind("_indices/", 0) == 0 ? "score = 500000" : "id >= 0";
    const Status queried = t.Query(where);
    EXPECT_TRUE(queried.IsCorruption()) << where << ": " << queried.ToString();
    EXPECT_NE(queried.message().find(file), std::string::npos) << queried.ToString();
    WriteFile(path, bytes);
  }
  EXPECT_TRUE(Verify(**table::Table::Open(t.store)).ok());
}

// verify runs the checks a query's opening of the version runs: a sealed manifest (its checksum
// right) whose OTree layout section disagrees with its fragments is refused by every query, and
// verify names it in its damage list.
TEST(VerifyTest, ASealedManifestWhoseLayoutSectionIsInconsistentIsDamage) {
  IndexedTable t;
  layout::LayoutOptions options;
  options.columns = {"x", "y"};
  options.cube_rows = 500;
  auto laid = ops::Layout(t.table.get(), options);
  ASSERT_TRUE(laid.ok()) << laid.status().ToString();
  ASSERT_TRUE(Verify(*t.table).ok());
  table::Manifest m = t.table->manifest();
  ASSERT_TRUE(m.layout.is_object());
  ASSERT_GT(m.layout["blocks"].size(), 1u);
  // One block's rows moved to another of the same fragment would be consistent: one more row is not.
  m.layout["blocks"][0]["rows"] = m.layout["blocks"][0]["rows"].get<uint64_t>() + 1;
  WriteFile(t.root + "/" + table::ManifestPath(m.version), table::SerializeManifest(m));
  auto reopened = table::Table::Open(t.store);
  ASSERT_TRUE(reopened.ok()) << "the manifest is sealed: it opens " << reopened.status().ToString();
  const Status queried = t.Query("x > 0");
  ASSERT_TRUE(queried.IsCorruption()) << queried.ToString();
  const Status verified = Verify(**reopened).status();
  EXPECT_TRUE(verified.IsCorruption()) << verified.ToString();
  EXPECT_NE(verified.message().find(queried.message()), std::string::npos)
      << "verify names what queries refuse: " << queried.message() << "\nverify: " << verified.ToString();
}

}  // namespace
}  // namespace lakeindex::ops
