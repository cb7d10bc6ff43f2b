// Injected store faults for every k of every writing operation (issue 6, "Injected faults").
//
// For each operation: run it once without faults and count the store operations it makes per
// kind; then, for every kind and every k = 1..count, fail the k-th operation of that kind on a
// fresh copy of the table. The operation must return the error, the table must still open at
// its previous version with identical rows, indexes and a clean verify, and the same operation
// retried without faults must succeed and give what the fault-free run gave. Some operations run
// on S3 (moto) as well: the faults are injected above the S3 store, at each of its requests.
#include <unistd.h>

#include <atomic>
#include <functional>

#include <gtest/gtest.h>

#include "layout/otree/layout_writer.h"
#include "query/index_manager.h"
#include "query/scanner.h"
#include "table/table.h"
#include "util/moto.h"
#include "util/test_util.h"

namespace lakeindex::query {
namespace {

using table::Table;

const Schema& TestSchema() {
  static const Schema s = *Schema::Parse("id:int64,name:string,x:double");
  return s;
}

table::WriteConfig SmallFiles() {
  table::WriteConfig c;
  c.rows_per_file = 150;
  c.parquet.row_group_rows = 100;
  c.parquet.page_rows = 25;
  return c;
}

Status AddRows(std::shared_ptr<ObjectStore> store, uint64_t seed) {
  Batch batch = testing::RandomBatch(TestSchema(), 600, seed);
  auto source = table::MemorySource(TestSchema(), {batch});
  auto t = Table::Open(store);
  if (t.status().IsNotFound()) return Table::Create(store, source.get(), SmallFiles()).status();
  RETURN_IF_ERROR(t.status());
  return (*t)->Append(source.get(), SmallFiles());
}

Status AddIndex(std::shared_ptr<ObjectStore> store, const std::string& column, const std::string& type) {
  ASSIGN_OR_RETURN(auto t, Table::Open(store));
  IndexOptions options;
  options.column = column;
  options.type = type;
  options.params = options.type == "btree" ? nlohmann::json{{"page_rows", 32}} : nlohmann::json{{"zone_rows", 32}};
  return CreateIndex(t.get(), options);
}

// What a reader sees of the newest version.
struct TableState {
  bool exists = false;
  uint64_t version = 0;
  Batch rows;
  nlohmann::json indexes;
  uint64_t indexed_matches = 0;  // rows of a filter on id and x, answered through the indexes
};

TableState StateOf(std::shared_ptr<ObjectStore> store) {
  TableState s;
  auto t = Table::Open(store);
  if (t.status().IsNotFound()) return s;
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return s;
  s.exists = true;
  s.version = (*t)->version();
  auto rows = (*t)->ReadAll();
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  if (rows.ok()) s.rows = std::move(*rows);
  s.indexes = (*t)->manifest().indexes;
  auto verify = (*t)->Verify();
  EXPECT_TRUE(verify.ok()) << verify.status().ToString();
  ScanRequest request;
  request.where = "id > 0 AND x < 0.5";
  auto indexes = OpenIndexes(**t, {});
  EXPECT_TRUE(indexes.ok()) << indexes.status().ToString();
  if (indexes.ok()) request.indexes = std::move(*indexes);
  auto scanner = Scanner::Make(t->get(), request);
  EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
  Batch batch;
  while (scanner.ok()) {
    auto more = (*scanner)->Next(&batch);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    s.indexed_matches += batch.num_rows();
  }
  return s;
}

void ExpectSameState(const TableState& a, const TableState& b, const std::string& context) {
  EXPECT_EQ(a.exists, b.exists) << context;
  EXPECT_EQ(a.version, b.version) << context;
  EXPECT_TRUE(a.rows.Equals(b.rows)) << context;
  EXPECT_EQ(a.indexes.dump(), b.indexes.dump()) << context;
  EXPECT_EQ(a.indexed_matches, b.indexed_matches) << context;
}

// Index entries differ between runs only in their segment uuids and build times; compare what
// they cover.
nlohmann::json WithoutIds(nlohmann::json indexes) {
  std::function<void(nlohmann::json&)> strip = [&](nlohmann::json& j) {
    if (j.is_object()) {
      for (const char* key : {"uuid", "timestamp_ms", "created_ms"}) j.erase(key);
      for (auto& [k, v] : j.items()) strip(v);
    } else if (j.is_array()) {
      for (auto& v : j) strip(v);
    }
  };
  strip(indexes);
  return indexes;
}

using StoreFactory = std::function<std::shared_ptr<ObjectStore>()>;

std::shared_ptr<ObjectStore> FreshMemoryStore() { return NewMemoryStore(); }

// A new, empty prefix of the test bucket on the shared moto server: a remote store.
std::shared_ptr<ObjectStore> FreshS3Store() {
  static std::atomic<int> next{0};
  lakeindex::testing::MotoServer::Shared();  // sets the AWS_* variables of this process
  auto store = OpenStoreUri(std::string("s3://") + lakeindex::testing::MotoServer::kSharedBucket + "/faults-" +
                            std::to_string(::getpid()) + "-" + std::to_string(next++));
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::shared_ptr<ObjectStore>(std::move(*store)) : NewMemoryStore();
}

std::shared_ptr<ObjectStore> CopyOf(ObjectStore* from, const StoreFactory& fresh = FreshMemoryStore) {
  std::shared_ptr<ObjectStore> to = fresh();
  auto objects = from->List("");
  EXPECT_TRUE(objects.ok());
  for (const ObjectInfo& o : *objects) EXPECT_TRUE(to->Write(o.path, *from->Read(o.path)).ok());
  return to;
}

struct Operation {
  std::string name;
  std::function<Status(std::shared_ptr<ObjectStore>)> setup;  // the state before, no faults
  std::function<Status(std::shared_ptr<ObjectStore>)> run;    // the operation under test
};

constexpr StoreOp kKinds[] = {StoreOp::kRead, StoreOp::kWrite, StoreOp::kCreate, StoreOp::kList, StoreOp::kDelete};
constexpr const char* kKindNames[] = {"read", "write", "create", "list", "delete"};

// Returns the number of faults injected (that fired).
uint64_t InjectEveryFault(const Operation& op, const StoreFactory& fresh = FreshMemoryStore) {
  std::shared_ptr<ObjectStore> base = fresh();
  Status setup = op.setup(base);
  EXPECT_TRUE(setup.ok()) << op.name << " setup: " << setup.ToString();
  const TableState before = StateOf(base);

  // The fault-free run: what every retry must reproduce, and how many operations of each kind.
  auto clean = std::make_shared<InstrumentedStore>(CopyOf(base.get(), fresh));
  clean->FailNth(StoreOp::kAny, 0);
  Status st = op.run(clean);
  EXPECT_TRUE(st.ok()) << op.name << ": " << st.ToString();
  uint64_t counts[5];
  for (size_t i = 0; i < 5; ++i) counts[i] = clean->OpsSeen(kKinds[i]);
  const TableState after = StateOf(clean);
  EXPECT_NE(after.version, before.version) << op.name << " made no new version";

  uint64_t injected = 0;
  std::string summary;
  for (size_t i = 0; i < 5; ++i) {
    summary += std::string(" ") + kKindNames[i] + "=" + std::to_string(counts[i]);
    for (uint64_t k = 1; k <= counts[i]; ++k) {
      const std::string context = op.name + ": " + kKindNames[i] + " #" + std::to_string(k) + " failed";
      auto store = std::make_shared<InstrumentedStore>(CopyOf(base.get(), fresh));
      store->FailNth(kKinds[i], k);
      Status failed = op.run(store);
      const bool fired = store->OpsSeen(kKinds[i]) >= k;
      store->FailNth(StoreOp::kAny, 0);
      if (!fired) continue;  // a parallel scan may stop before reaching the k-th read
      ++injected;
      if (failed.ok()) {
        // A failure the operation got round: the one write after the commit point, the version
        // hint (best effort, table::kLatestHintPath), which then was not moved to its version;
        // a read of the open's fast path (the hint, or the manifest that confirms its copy),
        // after which the open took the careful path. The operation was done, once.
        if (kKinds[i] == StoreOp::kWrite) {
          auto hint = store->Read(table::kLatestHintPath);
          EXPECT_TRUE(!hint.ok() || hint->substr(0, hint->find('\n')) != std::to_string(after.version))
              << context << ": another write failed silently";
        } else {
          EXPECT_EQ(kKinds[i], StoreOp::kRead) << context << ": the operation reported success";
        }
        TableState done = StateOf(store);
        EXPECT_EQ(done.version, after.version) << context;
        EXPECT_TRUE(done.rows.Equals(after.rows)) << context;
        EXPECT_EQ(WithoutIds(done.indexes).dump(), WithoutIds(after.indexes).dump()) << context;
        EXPECT_EQ(done.indexed_matches, after.indexed_matches) << context;
        continue;
      }
      EXPECT_FALSE(failed.ok()) << context << ": the operation reported success";
      EXPECT_TRUE(failed.IsIOError()) << context << ": " << failed.ToString();
      ExpectSameState(StateOf(store), before, context);
      Status retried = op.run(store);
      EXPECT_TRUE(retried.ok()) << context << ", then the retry: " << retried.ToString();
      if (!retried.ok()) continue;
      TableState again = StateOf(store);
      EXPECT_EQ(again.version, after.version) << context;
      EXPECT_TRUE(again.rows.Equals(after.rows)) << context;
      EXPECT_EQ(WithoutIds(again.indexes).dump(), WithoutIds(after.indexes).dump()) << context;
      EXPECT_EQ(again.indexed_matches, after.indexed_matches) << context;
    }
  }
  std::printf("[ faults   ] %s:%s (%llu injected)\n", op.name.c_str(), summary.c_str(),
              static_cast<unsigned long long>(injected));
  return injected;
}

Status Nothing(std::shared_ptr<ObjectStore>) { return Status::OK(); }

Status TwoAppendsWithDeletions(std::shared_ptr<ObjectStore> store) {
  RETURN_IF_ERROR(AddRows(store, 1));
  RETURN_IF_ERROR(AddRows(store, 2));
  ASSIGN_OR_RETURN(auto t, Table::Open(store));
  return DeleteWhere(t.get(), "x < 0.2").status();
}

TEST(FaultInjectionTest, Create) {
  EXPECT_GT(InjectEveryFault({"create", Nothing, [](auto s) { return AddRows(s, 1); }}), 5u);
}

TEST(FaultInjectionTest, Append) {
  EXPECT_GT(InjectEveryFault({"append", [](auto s) { return AddRows(s, 1); }, [](auto s) { return AddRows(s, 2); }}), 5u);
}

// The same on S3: the open's hint and its confirmation, ranged and batched reads, conditional
// commits (If-None-Match) and multipart writes go through the S3 store, over HTTP.
TEST(FaultInjectionTest, AppendOnS3) {
  EXPECT_GT(InjectEveryFault({"append on S3", [](auto s) { return AddRows(s, 1); }, [](auto s) { return AddRows(s, 2); }},
                             FreshS3Store),
            5u);
}

TEST(FaultInjectionTest, Delete) {
  auto setup = [](auto s) { return AddRows(s, 1); };
  auto run = [](std::shared_ptr<ObjectStore> s) -> Status {
    ASSIGN_OR_RETURN(auto t, Table::Open(s));
    ASSIGN_OR_RETURN(uint64_t n, DeleteWhere(t.get(), "x > 0.5"));
    return n > 0 ? Status::OK() : Status::InvalidArgument("nothing deleted");
  };
  EXPECT_GT(InjectEveryFault({"delete", setup, run}), 5u);
}

TEST(FaultInjectionTest, CreateBTreeIndex) {
  EXPECT_GT(InjectEveryFault({"index create btree", TwoAppendsWithDeletions,
                              [](auto s) { return AddIndex(s, "id", "btree"); }}), 5u);
}

TEST(FaultInjectionTest, CreateZoneMapIndex) {
  EXPECT_GT(InjectEveryFault({"index create zonemap", TwoAppendsWithDeletions,
                              [](auto s) { return AddIndex(s, "x", "zonemap"); }}), 5u);
}

TEST(FaultInjectionTest, UpdateIndexes) {
  auto setup = [](std::shared_ptr<ObjectStore> s) -> Status {
    RETURN_IF_ERROR(AddRows(s, 1));
    RETURN_IF_ERROR(AddIndex(s, "id", "btree"));
    RETURN_IF_ERROR(AddIndex(s, "x", "zonemap"));
    return AddRows(s, 2);
  };
  auto run = [](std::shared_ptr<ObjectStore> s) -> Status {
    ASSIGN_OR_RETURN(auto t, Table::Open(s));
    ASSIGN_OR_RETURN(size_t segments, UpdateIndexes(t.get(), ""));
    return segments == 2 ? Status::OK() : Status::InvalidArgument("expected 2 new segments, got " + std::to_string(segments));
  };
  EXPECT_GT(InjectEveryFault({"index update", setup, run}), 5u);
}

TEST(FaultInjectionTest, Optimize) {
  auto setup = [](std::shared_ptr<ObjectStore> s) -> Status {
    RETURN_IF_ERROR(TwoAppendsWithDeletions(s));
    return AddIndex(s, "id", "btree");
  };
  auto run = [](std::shared_ptr<ObjectStore> s) -> Status {
    ASSIGN_OR_RETURN(auto t, Table::Open(s));
    table::WriteConfig config = SmallFiles();
    config.rows_per_file = 1000;
    ASSIGN_OR_RETURN(size_t rewritten, t->Optimize(config));
    return rewritten > 0 ? Status::OK() : Status::InvalidArgument("nothing optimized");
  };
  EXPECT_GT(InjectEveryFault({"optimize", setup, run}), 5u);
}


Status LayOut(std::shared_ptr<ObjectStore> store) {
  ASSIGN_OR_RETURN(auto t, Table::Open(store));
  layout::LayoutOptions options;
  options.columns = {"id", "x"};
  options.cube_rows = 60;
  options.page_rows = 8;
  options.write = SmallFiles();
  return layout::LayoutTable(t.get(), options).status();
}

Status TableWithIndexes(std::shared_ptr<ObjectStore> s) {
  RETURN_IF_ERROR(TwoAppendsWithDeletions(s));
  RETURN_IF_ERROR(AddIndex(s, "id", "btree"));
  return AddIndex(s, "x", "zonemap");
}

// Each layout operation is one commit (the CLI brings indexes up to date in a second one, which
// `index update` above covers): a fault anywhere leaves the previous version.
TEST(FaultInjectionTest, OTreeLayout) {
  EXPECT_GT(InjectEveryFault({"layout otree", TableWithIndexes, LayOut}), 5u);
}

TEST(FaultInjectionTest, OTreeAppendAndOptimize) {
  auto setup = [](std::shared_ptr<ObjectStore> s) -> Status {
    RETURN_IF_ERROR(TableWithIndexes(s));
    return LayOut(s);
  };
  auto append = [](std::shared_ptr<ObjectStore> s) -> Status {
    ASSIGN_OR_RETURN(auto t, Table::Open(s));
    Batch batch = testing::RandomBatch(TestSchema(), 300, 9);
    auto source = table::MemorySource(TestSchema(), {batch});
    return layout::AppendToLayout(t.get(), source.get(), SmallFiles()).status();
  };
  EXPECT_GT(InjectEveryFault({"layout append", setup, append}), 5u);
  auto appended = [&](std::shared_ptr<ObjectStore> s) -> Status {
    RETURN_IF_ERROR(setup(s));
    RETURN_IF_ERROR(append(s));
    return AddRows(s, 3).IsInvalidArgument() ? Status::OK() : Status::Internal("a plain append must be refused");
  };
  auto optimize = [](std::shared_ptr<ObjectStore> s) -> Status {
    ASSIGN_OR_RETURN(auto t, Table::Open(s));
    table::WriteConfig config = SmallFiles();
    config.rows_per_file = 1000;  // every file is small now: all are rolled up
    ASSIGN_OR_RETURN(size_t rewritten, layout::OptimizeLayout(t.get(), config));
    return rewritten > 0 ? Status::OK() : Status::InvalidArgument("nothing optimized");
  };
  EXPECT_GT(InjectEveryFault({"layout optimize", appended, optimize}), 5u);
}

}  // namespace
}  // namespace lakeindex::query
