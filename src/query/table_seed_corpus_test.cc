// Seed corpora of fuzz/manifest_fuzz.cc and fuzz/deletion_vector_fuzz.cc, made by our writers:
// the manifests of a table taken through create (every type, hostile values), append, delete,
// btree and zone map index create, optimize, and one without data-file tails (older manifests);
// deletion vectors that are empty, single, runs, sparse, dense and spread over many containers.
//   LAKEINDEX_WRITE_SEEDS=1 ctest --test-dir build -R TableSeedCorpus   (re)writes them;
// without the variable the test checks that both corpora exist and every seed still parses.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "query/index_manager.h"
#include "query/scanner.h"
#include "table/deletion_vector.h"
#include "table/table.h"
#include "util/test_util.h"

namespace lakeindex::query {
namespace {

namespace fs = std::filesystem;
using table::Table;

constexpr size_t kMaxSeedBytes = 20 * 1024;

std::string CorpusDir(const std::string& target) {
  const char* src = std::getenv("LAKEINDEX_SOURCE_DIR");
  return std::string(src && *src ? src : LAKEINDEX_SOURCE_DIR) + "/fuzz/corpus/" + target;
}

bool WriteSeeds() {
  const char* write = std::getenv("LAKEINDEX_WRITE_SEEDS");
  return write && std::string(write) == "1";
}

std::vector<std::string> ReadCorpus(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    out.emplace_back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  return out;
}

// Every version's manifest of a table taken through each writing operation.
Result<std::vector<std::string>> ManifestSeeds() {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  const Schema schema = *Schema::Parse("id:int64,name:string,x:double,d:date,ts:timestamp,b:bool,i:int32,f:float");
  table::WriteConfig config;
  config.rows_per_file = 40;
  config.parquet.page_rows = 16;
  auto first = table::MemorySource(schema, {testing::RandomBatch(schema, 100, 1, 0.2)});
  ASSIGN_OR_RETURN(auto t, Table::Create(store, first.get(), config));
  auto more = table::MemorySource(schema, {testing::RandomBatch(schema, 30, 2, 0.0)});
  RETURN_IF_ERROR(t->Append(more.get(), config));
  RETURN_IF_ERROR(DeleteWhere(t.get(), "x < 0.3 OR name IS NULL").status());
  RETURN_IF_ERROR(CreateIndex(t.get(), IndexOptions{.column = "id", .type = "btree"}));
  RETURN_IF_ERROR(CreateIndex(t.get(), IndexOptions{.column = "ts", .type = "zonemap"}));
  config.rows_per_file = 1000;
  RETURN_IF_ERROR(t->Optimize(config).status());
  table::Transaction strip;
  strip.operation = "strip tails";
  strip.apply_extra = [](table::Manifest* m) {
    for (auto& f : m->fragments) f.tail.reset();
    return Status::OK();
  };
  RETURN_IF_ERROR(t->Commit(std::move(strip)));
  std::vector<std::string> out;
  for (uint64_t v = 1; v <= t->version(); ++v) {
    ASSIGN_OR_RETURN(std::string bytes, store->Read(table::ManifestPath(v)));
    out.push_back(std::move(bytes));
  }
  return out;
}

std::vector<std::string> DeletionVectorSeeds() {
  std::vector<std::string> out;
  auto add = [&](uint32_t fragment, uint32_t rows, const std::vector<uint32_t>& offsets) {
    table::DeletionVector dv;
    dv.fragment_id = fragment;
    dv.fragment_rows = rows;
    for (uint32_t o : offsets) dv.deleted.add(o);
    out.push_back(table::EncodeDeletionVector(dv));
  };
  add(0, 10, {});
  add(3, 1, {0});
  std::vector<uint32_t> run, sparse, dense, spread;
  for (uint32_t i = 100; i < 900; ++i) run.push_back(i);
  testing::Rng rng(5);
  for (int i = 0; i < 60; ++i) sparse.push_back(uint32_t(rng.Uniform(1u << 20)));
  for (uint32_t i = 0; i < 65536; i += 3) dense.push_back(i);  // a bitmap container
  for (uint32_t c = 0; c < 12; ++c) {
    for (uint32_t i = 0; i < 5; ++i) spread.push_back(c * 65536 + i * 17);
  }
  add(7, 1000, run);
  add(1, 1u << 20, sparse);
  add(2, 65536, dense);
  add(9, 12 * 65536, spread);
  add(UINT32_MAX - 1, UINT32_MAX, {0, UINT32_MAX - 1});
  return out;
}

TEST(TableSeedCorpus, ManifestsUpToDate) {
  const std::string dir = CorpusDir("manifest_fuzz");
  if (WriteSeeds()) {
    auto seeds = ManifestSeeds();
    ASSERT_TRUE(seeds.ok()) << seeds.status().ToString();
    fs::create_directories(dir);
    for (size_t i = 0; i < seeds->size(); ++i) {
      EXPECT_LT((*seeds)[i].size(), kMaxSeedBytes);
      std::ofstream(dir + "/version_" + std::to_string(i + 1) + ".manifest", std::ios::binary) << (*seeds)[i];
    }
  }
  ASSERT_TRUE(fs::is_directory(dir)) << dir << " missing; run with LAKEINDEX_WRITE_SEEDS=1";
  std::vector<std::string> corpus = ReadCorpus(dir);
  EXPECT_GE(corpus.size(), 7u);
  bool saw_tail = false, saw_index = false, saw_deletion = false;
  for (const std::string& bytes : corpus) {
    auto m = table::ParseManifest(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "seed");
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    for (const auto& f : m->fragments) {
      saw_tail |= f.tail.has_value();
      saw_deletion |= f.deletion.has_value();
    }
    saw_index |= !m->indexes.empty();
  }
  EXPECT_TRUE(saw_tail && saw_index && saw_deletion);
}

TEST(TableSeedCorpus, DeletionVectorsUpToDate) {
  const std::string dir = CorpusDir("deletion_vector_fuzz");
  if (WriteSeeds()) {
    std::vector<std::string> seeds = DeletionVectorSeeds();
    fs::create_directories(dir);
    for (size_t i = 0; i < seeds.size(); ++i) {
      EXPECT_LT(seeds[i].size(), kMaxSeedBytes);
      std::ofstream(dir + "/dv_" + std::to_string(i) + ".bin", std::ios::binary) << seeds[i];
    }
  }
  ASSERT_TRUE(fs::is_directory(dir)) << dir << " missing; run with LAKEINDEX_WRITE_SEEDS=1";
  // dv_*: seeds from the encoder, which decode; regression_*: inputs the fuzzer found crashing
  // the decoder before it checked payloads, which must now be Corruption.
  size_t seeds = 0, regressions = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string name = e.path().filename().string();
    auto dv = table::DecodeDeletionVector(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), name);
    if (name.rfind("regression_", 0) == 0) {
      ++regressions;
      EXPECT_TRUE(dv.status().IsCorruption()) << name;
    } else {
      ++seeds;
      EXPECT_TRUE(dv.ok()) << dv.status().ToString();
    }
  }
  EXPECT_GE(seeds, 7u);
  EXPECT_GE(regressions, 2u);
}

}  // namespace
}  // namespace lakeindex::query
