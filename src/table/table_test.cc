#include "table/table.h"

#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include <xxhash.h>

#include "format/parquet/reader.h"
#include "util/test_util.h"

namespace lakeindex::table {
namespace {

using lakeindex::testing::RandomBatch;

const Schema& TestSchema() {
  static const Schema s = *Schema::Parse("id:int64,name:string,x:double,d:date,ts:timestamp,b:bool,i:int32,f:float");
  return s;
}

WriteConfig SmallFiles(uint64_t rows_per_file) {
  WriteConfig c;
  c.rows_per_file = rows_per_file;
  c.parquet.page_rows = 64;
  c.parquet.row_group_rows = 256;
  return c;
}

Result<std::unique_ptr<Table>> CreateFrom(std::shared_ptr<ObjectStore> store, const Batch& batch, uint64_t rows_per_file) {
  auto src = MemorySource(batch.schema(), {batch});
  return Table::Create(store, src.get(), SmallFiles(rows_per_file));
}

// A data file streamed to the store (StreamDataFile) is the file the writer assembles in memory:
// same bytes, its tail where the reader finds it with the checksum of those bytes, the rows and
// statistics of the rows written; a failing writer publishes nothing.
TEST(TableTest, StreamDataFileMatchesTheInMemoryFileAndAbandonsOnError) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  Batch batch = RandomBatch(testing::RandomSchema(7, 6), 3000, 7, 0.1);
  parquet::WriteOptions options;
  options.page_rows = 64;
  options.row_group_rows = 1000;
  auto in_memory = parquet::ParquetWriter::Make(batch.schema(), options);
  ASSERT_TRUE(in_memory.ok());
  ASSERT_TRUE((*in_memory)->Write(batch).ok());
  auto bytes = (*in_memory)->Finish();
  ASSERT_TRUE(bytes.ok());
  auto tail_offset = parquet::TailOffset(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size(), "t");
  ASSERT_TRUE(tail_offset.ok()) << tail_offset.status().ToString();
  const DataTail tail{*tail_offset, XXH64(bytes->data() + *tail_offset, bytes->size() - *tail_offset, 0)};
  auto streamed = StreamDataFile(
      store.get(), batch.schema(), options, [&](parquet::ParquetWriter* w) { return w->Write(batch); });
  ASSERT_TRUE(streamed.ok()) << streamed.status().ToString();
  EXPECT_EQ(streamed->rows, batch.num_rows());
  ASSERT_EQ(streamed->stats.size(), batch.num_columns());
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    EXPECT_EQ(streamed->stats.at(batch.schema().field(c).name), ComputeColumnStats(batch.column(c))) << c;
  }
  EXPECT_EQ(streamed->file_size, bytes->size());
  ASSERT_TRUE(streamed->tail.has_value());
  EXPECT_EQ(streamed->tail->offset, tail.offset);
  EXPECT_EQ(streamed->tail->xxh64, tail.xxh64);
  ASSERT_TRUE(streamed->tail->split.has_value());  // where the OffsetIndexes start: data_tail_corruption_test
  const uint64_t oi = streamed->tail->split->oi_offset;
  ASSERT_GT(oi, tail.offset);
  EXPECT_EQ(streamed->tail->split->ci_xxh64, XXH64(bytes->data() + tail.offset, oi - tail.offset, 0));
  EXPECT_EQ(streamed->tail->split->oi_xxh64, XXH64(bytes->data() + oi, bytes->size() - oi, 0));
  auto read = store->Read(streamed->file);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, *bytes);
  auto before = store->List("data/");
  ASSERT_TRUE(before.ok());
  auto failed = StreamDataFile(
      store.get(), batch.schema(), options,
      [&](parquet::ParquetWriter* w) -> Status {
        RETURN_IF_ERROR(w->Write(batch, 0, 100));
        return Status::IOError("injected");
      });
  EXPECT_TRUE(failed.status().IsIOError());
  auto after = store->List("data/");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->size(), before->size());
}

TEST(TableTest, CreateAppendReadBackAndTimeTravel) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  Batch first = RandomBatch(TestSchema(), 1000, 1);
  auto table = CreateFrom(store, first, 300);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ((*table)->version(), 1u);
  EXPECT_EQ((*table)->manifest().fragments.size(), 4u);  // 300+300+300+100
  auto all = (*table)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_TRUE(all->Equals(first));

  Batch second = RandomBatch(TestSchema(), 500, 2);
  auto src = MemorySource(TestSchema(), {second});
  ASSERT_TRUE((*table)->Append(src.get(), SmallFiles(300)).ok());
  EXPECT_EQ((*table)->version(), 2u);
  Batch both = first;
  ASSERT_TRUE(both.Append(second).ok());
  EXPECT_TRUE((*table)->ReadAll()->Equals(both));

  auto v1 = Table::Open(store, 1);
  ASSERT_TRUE(v1.ok());
  EXPECT_TRUE((*v1)->ReadAll()->Equals(first));
  auto latest = Table::Open(store);
  EXPECT_EQ((*latest)->version(), 2u);
  EXPECT_TRUE(Table::Open(store, 9).status().IsNotFound());
  auto versions = (*latest)->Versions();
  ASSERT_EQ(versions->size(), 2u);
  EXPECT_EQ((*versions)[1].operation, "append");
  EXPECT_EQ((*versions)[1].rows, 1500u);
}

TEST(TableTest, CreateTwiceAndBadAppendsLeaveTheTableAsItWas) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  Batch b = RandomBatch(TestSchema(), 100, 3);
  ASSERT_TRUE(CreateFrom(store, b, 1000).ok());
  EXPECT_TRUE(CreateFrom(store, b, 1000).status().IsInvalidArgument());
  auto table = Table::Open(store);
  Batch other = RandomBatch(*Schema::Parse("id:int64,name:int64"), 10, 4);
  auto src = MemorySource(other.schema(), {other});
  Status st = (*table)->Append(src.get(), SmallFiles(1000));
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("schema mismatch"), std::string::npos);
  EXPECT_EQ(*Table::LatestVersion(store.get()), 1u);
}

TEST(TableTest, DeleteRowsThenTimeTravel) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  Batch b = RandomBatch(TestSchema(), 600, 5);
  auto table = CreateFrom(store, b, 250);
  ASSERT_TRUE(table.ok());
  const auto& frags = (*table)->manifest().fragments;
  RowSet del;
  std::vector<uint32_t> keep;
  for (uint32_t r = 0; r < 600; ++r) {
    uint32_t frag = frags[r / 250].id, off = r % 250;
    if (r % 3 == 0) {
      del.Add(MakeRowAddress(frag, off));
    } else {
      keep.push_back(r);
    }
  }
  auto n = (*table)->DeleteRows(del);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 200u);
  Batch expected(TestSchema());
  for (size_t c = 0; c < expected.num_columns(); ++c) {
    expected.mutable_column(c).AppendSelected(b.column(c), keep.data(), keep.size());
  }
  ASSERT_TRUE(expected.Seal().ok());
  EXPECT_TRUE((*table)->ReadAll()->Equals(expected));
  EXPECT_EQ(*(*table)->DeleteRows(del), 0u);  // already deleted: no new version
  EXPECT_EQ((*table)->version(), 2u);
  EXPECT_TRUE((*Table::Open(store, 1))->ReadAll()->Equals(b));
}

TEST(TableTest, ConcurrentAppendsAreAllKept) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  ASSERT_TRUE(CreateFrom(store, RandomBatch(TestSchema(), 10, 6), 100).ok());
  constexpr int kThreads = 4, kAppends = 10;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto table = Table::Open(store);
      if (!table.ok()) { ++failures; return; }
      for (int k = 0; k < kAppends; ++k) {
        auto src = MemorySource(TestSchema(), {RandomBatch(TestSchema(), 7, uint64_t(100 + t * 100 + k))});
        if (!(*table)->Append(src.get(), SmallFiles(100)).ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto table = Table::Open(store);
  EXPECT_EQ((*table)->version(), uint64_t(1 + kThreads * kAppends));
  EXPECT_EQ((*table)->manifest().total_rows(), uint64_t(10 + kThreads * kAppends * 7));
}

TEST(TableTest, ConcurrentDeletesOfOneFragmentConflict) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  ASSERT_TRUE(CreateFrom(store, RandomBatch(TestSchema(), 100, 7), 1000).ok());
  auto a = Table::Open(store);
  auto b = Table::Open(store);
  uint32_t frag = (*a)->manifest().fragments[0].id;
  ASSERT_TRUE((*a)->DeleteRows(RowSet::Of({MakeRowAddress(frag, 1)})).ok());
  auto r = (*b)->DeleteRows(RowSet::Of({MakeRowAddress(frag, 2)}));
  EXPECT_TRUE(r.status().IsConflict()) << r.status().ToString();
  // An append does not conflict with a delete: it rebases.
  auto src = MemorySource(TestSchema(), {RandomBatch(TestSchema(), 5, 8)});
  auto c = Table::Open(store, 1);
  EXPECT_TRUE((*c)->Append(src.get(), SmallFiles(1000)).ok());
  EXPECT_EQ((*c)->version(), 3u);
  EXPECT_EQ((*c)->manifest().total_rows(), 104u);
}

TEST(TableTest, FailedWritesLeaveThePreviousVersion) {
  auto base = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto inst = std::make_shared<InstrumentedStore>(base);
  ASSERT_TRUE(CreateFrom(inst, RandomBatch(TestSchema(), 50, 9), 20).ok());
  Batch more = RandomBatch(TestSchema(), 50, 10);
  for (StoreOp op : {StoreOp::kWrite, StoreOp::kCreate, StoreOp::kList}) {
    for (uint64_t k = 1; k <= 4; ++k) {
      auto table = Table::Open(inst);
      ASSERT_TRUE(table.ok());
      uint64_t before = (*table)->version();
      inst->FailNth(op, k);
      auto src = MemorySource(TestSchema(), {more});
      Status st = (*table)->Append(src.get(), SmallFiles(20));
      inst->FailNth(op, 0);
      auto now = Table::Open(inst);
      if (st.ok()) {
        EXPECT_EQ((*now)->version(), before + 1);
      } else {
        EXPECT_EQ((*now)->version(), before) << st.ToString();
      }
    }
  }
}

TEST(TableTest, OptimizeMergesSmallFragmentsAndFoldsDeletions) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  Batch b = RandomBatch(TestSchema(), 500, 11);
  auto table = CreateFrom(store, b, 40);  // 13 small fragments
  ASSERT_TRUE(table.ok());
  RowSet del;
  for (const auto& f : (*table)->manifest().fragments) del.Add(MakeRowAddress(f.id, 3));
  ASSERT_TRUE((*table)->DeleteRows(del).ok());
  Batch before = *(*table)->ReadAll();
  auto n = (*table)->Optimize(SmallFiles(200));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 13u);
  EXPECT_EQ((*table)->manifest().fragments.size(), 3u);  // 487 live rows in files of 200
  for (const auto& f : (*table)->manifest().fragments) EXPECT_FALSE(f.deletion.has_value());
  EXPECT_TRUE((*table)->ReadAll()->Equals(before));
  EXPECT_EQ(*(*table)->Optimize(SmallFiles(200)), 0u);  // nothing left to do
  // A delete made against the pre-optimize version now conflicts instead of deleting stale rows.
  auto old = Table::Open(store, 2);
  auto r = (*old)->DeleteRows(RowSet::Of({MakeRowAddress((*old)->manifest().fragments[0].id, 5)}));
  EXPECT_TRUE(r.status().IsConflict()) << r.status().ToString();
}

TEST(TableTest, VerifyFindsDamageAndVacuumRemovesOnlyOrphans) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  auto table = CreateFrom(store, RandomBatch(TestSchema(), 300, 12), 100);
  ASSERT_TRUE(table.ok());
  ASSERT_TRUE((*table)->DeleteRows(RowSet::Of({MakeRowAddress((*table)->manifest().fragments[0].id, 1)})).ok());
  auto report = (*table)->Verify();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->size(), 6u);  // manifest, 3 data files, 1 deletion vector, the checksums
  EXPECT_EQ(report->back(), "4 of 4 files read whole against their checksums");
  // An orphan (a killed writer's file) goes; everything versions reference stays.
  ASSERT_TRUE(store->Write("data/orphan.parquet", "x").ok());
  auto young = (*table)->Vacuum(/*older_than_ms=*/3600 * 1000);
  ASSERT_TRUE(young.ok());
  EXPECT_TRUE(young->empty());  // too young: a writer may be about to commit it
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto removed = (*table)->Vacuum(0);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, std::vector<std::string>{"data/orphan.parquet"});
  EXPECT_TRUE((*Table::Open(store, 1))->ReadAll().ok());
  // Damage one page of a data file: verify names the file.
  const std::string file = (*table)->manifest().fragments[1].file;
  std::string bytes = *store->Read(file);
  bytes[bytes.size() / 3] = char(bytes[bytes.size() / 3] ^ 0x40);
  ASSERT_TRUE(store->Write(file, bytes).ok());
  auto bad = (*Table::Open(store))->Verify();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(file), std::string::npos) << bad.status().ToString();
}

// A store whose conditional writes of manifests lose their answers in the ways a network does.
class AnswerLosingStore : public ObjectStore {
 public:
  enum class Mode {
    kAppliedAnswerLost,      // the store applies it, the client sees a dropped connection
    kAppliedThenExists,      // applied, and a silent re-send of it came back "exists"
    kNotApplied,             // the request never reached the store
    kAppliedUnreadable,      // applied, answer lost, and reading the manifest back fails too
  };
  AnswerLosingStore(std::shared_ptr<ObjectStore> base, Mode mode) : base_(std::move(base)), mode_(mode) {}
  bool armed = false;  // the next conditional write of a manifest misbehaves, once

  Result<std::string> Read(std::string_view p) override { return base_->Read(p); }
  Result<std::string> ReadRange(std::string_view p, uint64_t o, uint64_t n) override { return base_->ReadRange(p, o, n); }
  Result<uint64_t> Size(std::string_view p) override { return base_->Size(p); }
  Result<std::string> ReadBounded(std::string_view p, uint64_t max) override {
    if (!unreadable_.empty() && unreadable_ == p) {  // the read-back right after, once
      unreadable_.clear();
      return Status::IOError("connection reset reading " + std::string(p));
    }
    return base_->ReadBounded(p, max);
  }
  Status Write(std::string_view p, std::string_view d) override { return base_->Write(p, d); }
  Status CreateIfAbsent(std::string_view p, std::string_view d) override {
    if (!armed || std::string_view(p).rfind(kVersionsDir, 0) != 0) return base_->CreateIfAbsent(p, d);
    armed = false;
    if (mode_ == Mode::kNotApplied) return Status::IOError("connection refused");
    RETURN_IF_ERROR(base_->CreateIfAbsent(p, d));
    if (mode_ == Mode::kAppliedThenExists) return Status::AlreadyExists(std::string(p) + ": already exists");
    if (mode_ == Mode::kAppliedUnreadable) unreadable_ = std::string(p);
    return Status::IOError("connection dropped before the answer (gave up after 6 attempts)");
  }
  Result<std::vector<ObjectInfo>> List(std::string_view p) override { return base_->List(p); }
  Status Delete(std::string_view p) override { return base_->Delete(p); }
  std::string Describe() const override { return base_->Describe(); }

 private:
  std::shared_ptr<ObjectStore> base_;
  Mode mode_;
  std::string unreadable_;
};

// One lost answer to the commit's conditional write: the version is known to be ours by reading
// it back (exactly one new version, the rows once, the deleted count right); a write that never
// landed fails with nothing visible; one whose outcome cannot be read back is OutcomeUnknown.
TEST(TableTest, ACommitWhoseAnswerIsLostIsDecidedByReadingItBack) {
  using Mode = AnswerLosingStore::Mode;
  for (Mode mode : {Mode::kAppliedAnswerLost, Mode::kAppliedThenExists, Mode::kNotApplied, Mode::kAppliedUnreadable}) {
    SCOPED_TRACE(int(mode));
    auto base = std::shared_ptr<ObjectStore>(NewMemoryStore());
    auto store = std::make_shared<AnswerLosingStore>(base, mode);
    Batch first = RandomBatch(TestSchema(), 100, 21);
    ASSERT_TRUE(CreateFrom(store, first, 50).ok());
    auto t = Table::Open(store);
    ASSERT_TRUE(t.ok());
    store->armed = true;
    auto src = MemorySource(TestSchema(), {RandomBatch(TestSchema(), 60, 22)});
    Status appended = (*t)->Append(src.get(), SmallFiles(50));
    auto now = Table::Open(base);
    ASSERT_TRUE(now.ok()) << now.status().ToString();  // never unopenable
    auto versions = (*now)->Versions();
    ASSERT_TRUE(versions.ok());
    if (mode == Mode::kNotApplied) {
      EXPECT_TRUE(appended.IsIOError()) << appended.ToString();
      EXPECT_EQ(versions->size(), 1u);
      continue;
    }
    if (mode == Mode::kAppliedUnreadable) {
      EXPECT_TRUE(appended.IsOutcomeUnknown()) << appended.ToString();
      EXPECT_NE(appended.message().find("may or may not"), std::string::npos) << appended.ToString();
    } else {
      ASSERT_TRUE(appended.ok()) << appended.ToString();
      EXPECT_EQ((*t)->version(), 2u);
    }
    ASSERT_EQ(versions->size(), 2u);  // one new version, not a rebased second one
    EXPECT_EQ((*now)->manifest().total_rows(), 160u);
    // A delete whose answer is lost reports the rows it deleted.
    auto t2 = Table::Open(store);
    ASSERT_TRUE(t2.ok());
    store->armed = mode != Mode::kAppliedUnreadable;
    RowSet rows;
    for (uint32_t r = 0; r < 10; ++r) rows.Add(MakeRowAddress((*t2)->manifest().fragments[0].id, r));
    auto deleted = (*t2)->DeleteRows(rows);
    ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
    EXPECT_EQ(*deleted, 10u);
    EXPECT_EQ((*Table::Open(base))->manifest().total_rows(), 150u);
    EXPECT_EQ((*Table::Open(base))->Versions()->size(), 3u);
  }
}

// The newest manifest gone while the hint names it (deleted behind the tool's back, or lost by the
// store): opening is Corruption naming the version, not the one before served as the newest,
// until the loss is accepted by naming it; the next commit then takes the number anew.
TEST(TableTest, ALostNewestVersionIsAnErrorUntilItIsAccepted) {
  testing::TempDir dir;
  const std::string root = dir.path() + "/t";
  auto store = OpenTableStore(root, /*create=*/true);
  ASSERT_TRUE(store.ok());
  auto t = CreateFrom(*store, RandomBatch(TestSchema(), 100, 5), 50);
  ASSERT_TRUE(t.ok());
  for (int i = 0; i < 2; ++i) {
    auto src = MemorySource(TestSchema(), {RandomBatch(TestSchema(), 10, 6 + i)});
    ASSERT_TRUE((*t)->Append(src.get(), SmallFiles(50)).ok());
  }
  ASSERT_EQ((*t)->version(), 3u);
  std::filesystem::remove(root + "/" + ManifestPath(3));
  for (int attempt = 0; attempt < 2; ++attempt) {  // every open, not only the first
    auto reopened = Table::Open(*store);
    ASSERT_FALSE(reopened.ok()) << "served version " << (*reopened)->version();
    EXPECT_TRUE(reopened.status().IsCorruption()) << reopened.status().ToString();
    EXPECT_NE(reopened.status().message().find("version 3 committed but its manifest is gone"), std::string::npos)
        << reopened.status().ToString();
    EXPECT_NE(reopened.status().message().find("the newest version left is 2"), std::string::npos);
  }
  EXPECT_FALSE(Table::LatestVersion(store->get()).ok());
  EXPECT_TRUE(Table::AcceptLostVersions(store->get(), 2).status().IsInvalidArgument());
  auto accepted = Table::AcceptLostVersions(store->get(), 3);
  ASSERT_TRUE(accepted.ok()) << accepted.status().ToString();
  EXPECT_EQ(*accepted, 2u);
  EXPECT_TRUE(Table::AcceptLostVersions(store->get(), 3).status().IsInvalidArgument());  // not lost any more
  auto back = Table::Open(*store);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)->version(), 2u);
  EXPECT_EQ((*back)->manifest().total_rows(), 110u);
  auto src = MemorySource(TestSchema(), {RandomBatch(TestSchema(), 7, 9)});
  ASSERT_TRUE((*back)->Append(src.get(), SmallFiles(50)).ok());
  EXPECT_EQ((*back)->version(), 3u);
  EXPECT_EQ((*Table::Open(*store))->manifest().total_rows(), 117u);
}

// The newest manifest replaced by something that is not a manifest (a directory, a link out of
// the table): opening is Corruption naming it, never the previous version served as the newest.
TEST(TableTest, DamagedNewestManifestIsCorruptionNotARollback) {
  for (const std::string damage : {"directory", "symlink", "garbage"}) {
    SCOPED_TRACE(damage);
    testing::TempDir dir;
    const std::string root = dir.path() + "/t";
    auto store = OpenTableStore(root, /*create=*/true);
    ASSERT_TRUE(store.ok());
    Batch batch = RandomBatch(TestSchema(), 300, 3, 0.1);
    auto t = CreateFrom(*store, batch, 100);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    ASSERT_TRUE((*t)->DeleteRows(RowSet::Of({MakeRowAddress(0, 1)})).ok());
    ASSERT_EQ((*t)->version(), 2u);
    const std::string newest = root + "/" + ManifestPath(2);
    std::filesystem::remove(newest);
    if (damage == "directory") {
      std::filesystem::create_directory(newest);
    } else if (damage == "symlink") {
      const std::string outside = dir.path() + "/outside.manifest";
      std::filesystem::copy_file(root + "/" + ManifestPath(1), outside);
      std::filesystem::create_symlink(outside, newest);
    } else {
      std::ofstream(newest) << "not a manifest";
    }
    auto reopened = Table::Open(*store);
    ASSERT_FALSE(reopened.ok()) << "served version " << (*reopened)->version();
    EXPECT_TRUE(reopened.status().IsCorruption()) << reopened.status().ToString();
    EXPECT_NE(reopened.status().message().find(ManifestPath(2)), std::string::npos) << reopened.status().ToString();
    // The versions before it stay readable by number.
    auto v1 = Table::Open(*store, 1);
    ASSERT_TRUE(v1.ok()) << v1.status().ToString();
    EXPECT_EQ((*v1)->manifest().total_rows(), 300u);
  }
}

// A manifest is bounded (kMaxManifestBytes): a commit that would write a larger one is refused
// with nothing committed, and a larger object at a version's path is Corruption, not read.
// Opening the newest version reads the version hint, finds the next version absent and reads
// the manifest: three requests at 10,000 versions, no listing. Without the hint, or with a stale,
// garbled or expired one, the answer is the same, found by probing or listing.
TEST(TableTest, OpeningTheNewestVersionCostsThreeRequestsHoweverManyVersions) {
  auto base = std::shared_ptr<ObjectStore>(NewMemoryStore());
  ASSERT_TRUE(CreateFrom(base, RandomBatch(TestSchema(), 10, 3), 100).ok());
  // Versions 2..10,000 as commits would leave them (each manifest names its parent).
  Manifest m = Table::LoadManifest(base.get(), 1).value();
  constexpr uint64_t kVersions = 10000;
  for (uint64_t v = 2; v <= kVersions; ++v) {
    m.parent_version = m.version;
    m.version = v;
    ASSERT_TRUE(base->CreateIfAbsent(ManifestPath(v), SerializeManifest(m)).ok());
  }
  ASSERT_TRUE(base->Write(kLatestHintPath, std::to_string(kVersions)).ok());
  InstrumentedStore store(base);
  auto counted_open = [&](uint64_t* requests, uint64_t* lists) {
    store.counters().Reset();
    auto t = Table::Open(std::shared_ptr<ObjectStore>(&store, [](ObjectStore*) {}));
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    *requests = store.counters().read_requests;
    *lists = store.counters().list_requests;
    return t.ok() ? (*t)->version() : 0;
  };
  uint64_t reads = 0, lists = 0;
  EXPECT_EQ(counted_open(&reads, &lists), kVersions);
  EXPECT_EQ(reads, 3u);
  EXPECT_EQ(lists, 0u);

  ASSERT_TRUE(base->Write(kLatestHintPath, std::to_string(kVersions - 7)).ok());  // stale: probed forward
  EXPECT_EQ(counted_open(&reads, &lists), kVersions);
  EXPECT_EQ(reads, 3u + 2u * 7u);  // each version found: is something there, is it readable
  EXPECT_EQ(lists, 0u);
  for (const std::string hint : {"garbled", "", "99999999999999999999999"}) {
    ASSERT_TRUE(base->Write(kLatestHintPath, hint).ok());
    EXPECT_EQ(counted_open(&reads, &lists), kVersions) << hint;
    EXPECT_EQ(lists, 1u) << hint;
  }
  ASSERT_TRUE(base->Delete(kLatestHintPath).ok());
  EXPECT_EQ(counted_open(&reads, &lists), kVersions);
  // Versions expire oldest first; a hint left at an expired version falls back to listing.
  for (uint64_t v = 1; v <= 9000; ++v) ASSERT_TRUE(base->Delete(ManifestPath(v)).ok());
  ASSERT_TRUE(base->Write(kLatestHintPath, "5").ok());
  EXPECT_EQ(counted_open(&reads, &lists), kVersions);
  EXPECT_EQ(Table::LatestVersion(base.get()).value(), kVersions);
  // A commit moves the hint to its version.
  auto t = Table::Open(base).value();
  auto src = MemorySource(TestSchema(), {RandomBatch(TestSchema(), 3, 4)});
  ASSERT_TRUE(t->Append(src.get(), SmallFiles(100)).ok());
  const std::string newest_manifest = base->Read(ManifestPath(kVersions + 1)).value();
  const std::string carrying = std::to_string(kVersions + 1) + "\n" + newest_manifest;
  EXPECT_EQ(base->Read(kLatestHintPath).value(), carrying);
  // A hint carrying the manifest: it, the next version absent, the hinted manifest equal to the
  // copy — nothing else read.
  EXPECT_EQ(counted_open(&reads, &lists), kVersions + 1);
  EXPECT_EQ(reads, 3u);
  EXPECT_EQ(store.counters().bytes_read, carrying.size() + newest_manifest.size());
  EXPECT_EQ(SerializeManifest(Table::Open(base).value()->manifest()), newest_manifest);
  // A copy that is not the hinted version's manifest is not trusted: a stale one (a newer version
  // was committed since), one that differs from the version's (a hand-made hint: same size), one
  // that does not parse, one of another version.
  Manifest older = Table::LoadManifest(base.get(), kVersions).value();
  Manifest altered = Table::LoadManifest(base.get(), kVersions + 1).value();
  altered.operation = "forged";
  for (const std::string& hint :
       {std::to_string(kVersions) + "\n" + SerializeManifest(older),
        std::to_string(kVersions + 1) + "\n" + SerializeManifest(altered),
        std::to_string(kVersions + 1) + "\n" + newest_manifest.substr(0, newest_manifest.size() - 1) + " ",
        std::to_string(kVersions + 1) + "\n" + SerializeManifest(older)}) {
    ASSERT_TRUE(base->Write(kLatestHintPath, hint).ok());
    auto opened = Table::Open(base);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    EXPECT_EQ(SerializeManifest((*opened)->manifest()), newest_manifest) << hint.substr(0, 40);
  }
}

// On a remote store a table opened with a prefetch runs it in the round trip that confirms the
// hinted version, on that version: with a hint carrying the manifest, the open and the prefetch
// take two sequential round trips.
TEST(TableTest, OpenRunsThePrefetchInTheConfirmingRoundTrip) {
  auto base = std::shared_ptr<ObjectStore>(NewMemoryStore());
  ASSERT_TRUE(CreateFrom(base, RandomBatch(TestSchema(), 10, 3), 100).ok());
  ASSERT_TRUE(Table::Open(base).value()->Append(MemorySource(TestSchema(), {RandomBatch(TestSchema(), 3, 4)}).get(),
                                                SmallFiles(100)).ok());
  auto store = std::make_shared<InstrumentedStore>(base);
  // A remote store, to the table; requests sent together overlap even on a loaded machine.
  store->SetLatencyMicros(100000);
  Table::OpenOptions options;
  std::atomic<int> prefetched{0};
  uint64_t prefetched_version = 0;
  options.prefetch = [&](const Table& t) {
    prefetched_version = t.version();
    ++prefetched;
    (void)t.OpenDataFile(t.manifest().fragments[0]);
  };
  auto t = Table::Open(store, std::nullopt, options);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ((*t)->version(), 2u);
  EXPECT_EQ(prefetched.load(), 1);
  EXPECT_EQ(prefetched_version, 2u);
  EXPECT_EQ(store->counters().round_trips, 2u);
  // A given version: loaded, then prefetched.
  store->counters().Reset();
  auto v1 = Table::Open(store, 1, options);
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(prefetched_version, 1u);
  EXPECT_EQ(store->counters().round_trips, 2u);
  // A stale hint: the prefetched table is dropped and the newest version is opened.
  ASSERT_TRUE(Table::Open(base).value()->Append(MemorySource(TestSchema(), {RandomBatch(TestSchema(), 2, 5)}).get(),
                                                SmallFiles(100)).ok());
  ASSERT_TRUE(base->Write(kLatestHintPath, "2\n" + base->Read(ManifestPath(2)).value()).ok());
  auto newest = Table::Open(store, std::nullopt, options);
  ASSERT_TRUE(newest.ok());
  EXPECT_EQ((*newest)->version(), 3u);
  EXPECT_EQ(prefetched_version, 3u);
}

TEST(TableTest, ManifestSizeIsBounded) {
  std::shared_ptr<ObjectStore> store = NewMemoryStore();
  // Each one-row fragment of a 1 MiB string has 2 MiB of statistics (its min and max).
  Batch big(*Schema::Parse("s:string"));
  for (int r = 0; r < 40; ++r) ASSERT_TRUE(big.mutable_column(0).AppendString(std::string(1 << 20, char('a' + r % 26)) + std::to_string(r)).ok());
  ASSERT_TRUE(big.Seal().ok());
  auto src = MemorySource(big.schema(), {big});
  WriteConfig one_row_files;
  one_row_files.rows_per_file = 1;
  auto refused = Table::Create(store, src.get(), one_row_files);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsInvalidArgument()) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("64 MiB"), std::string::npos) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("nothing was committed"), std::string::npos) << refused.status().ToString();
  EXPECT_FALSE(Table::Open(store).ok());  // no version 1

  std::shared_ptr<ObjectStore> other = NewMemoryStore();
  ASSERT_TRUE(other->Write(ManifestPath(1), std::string(kMaxManifestBytes + 1, '{')).ok());
  auto opened = Table::Open(other);
  ASSERT_FALSE(opened.ok());
  EXPECT_TRUE(opened.status().IsCorruption()) << opened.status().ToString();
  EXPECT_NE(opened.status().message().find(ManifestPath(1)), std::string::npos) << opened.status().ToString();
}

}  // namespace
}  // namespace lakeindex::table
