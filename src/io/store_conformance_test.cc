// The behaviour every ObjectStore shares; instantiated by each store's own test file.

#include "io/store_conformance.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace lakeindex {
namespace {

std::vector<std::string> Paths(const std::vector<ObjectInfo>& infos) {
  std::vector<std::string> out;
  for (const ObjectInfo& i : infos) out.push_back(i.path);
  return out;
}

TEST_P(ObjectStoreConformance, WriteReadOverwrite) {
  const std::string binary("a\0b\xff\n", 5);
  ASSERT_TRUE(store_->Write("data/x.bin", binary).ok());
  Result<std::string> r = store_->Read("data/x.bin");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, binary);
  ASSERT_TRUE(store_->Write("data/x.bin", "replaced").ok());
  EXPECT_EQ(*store_->Read("data/x.bin"), "replaced");
  ASSERT_TRUE(store_->Write("empty", "").ok());
  EXPECT_EQ(*store_->Read("empty"), "");
  EXPECT_EQ(*store_->Size("empty"), 0u);
  EXPECT_EQ(*store_->Size("data/x.bin"), 8u);
}

TEST_P(ObjectStoreConformance, ReadRange) {
  ASSERT_TRUE(store_->Write("a/b/c", "0123456789").ok());
  EXPECT_EQ(*store_->ReadRange("a/b/c", 2, 3), "234");
  EXPECT_EQ(*store_->ReadRange("a/b/c", 0, 10), "0123456789");
  EXPECT_EQ(*store_->ReadRange("a/b/c", 10, 0), "");
  for (auto [offset, length] :
       {std::pair<uint64_t, uint64_t>{8, 3}, {11, 0}, {0, 11}, {1, UINT64_MAX}, {UINT64_MAX, 2}}) {
    Result<std::string> r = store_->ReadRange("a/b/c", offset, length);
    ASSERT_FALSE(r.ok()) << offset << "+" << length;
    EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
    EXPECT_NE(r.status().message().find("a/b/c"), std::string::npos) << r.status().ToString();
    EXPECT_NE(r.status().message().find(std::to_string(offset)), std::string::npos)
        << r.status().ToString();
  }
}

// ReadRanges returns exactly what ReadRange would, range by range, whatever the order, overlap,
// gaps or repeats; a range past the end fails the call as ReadRange would.
TEST_P(ObjectStoreConformance, ReadRangesMatchesReadRange) {
  std::string data(3 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = char(i * 131 + (i >> 12));
  ASSERT_TRUE(store_->Write("obj", data).ok());
  testing::Rng rng(5);
  for (int round = 0; round < 4; ++round) {
    std::vector<ObjectStore::ByteRange> ranges;
    const int n = int(rng.Range(0, 40));
    for (int i = 0; i < n; ++i) {
      const uint64_t off = rng.Uniform(data.size());
      const uint64_t len = rng.Chance(0.2) ? 0 : rng.Uniform(std::min<uint64_t>(data.size() - off, round % 2 ? 100 : 900000)) + 1;
      ranges.push_back({off, std::min<uint64_t>(len, data.size() - off)});
    }
    if (n > 2) ranges.push_back(ranges[1]);  // a repeat
    auto got = store_->ReadRanges("obj", ranges);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), ranges.size());
    for (size_t i = 0; i < ranges.size(); ++i) {
      EXPECT_TRUE((*got)[i] == data.substr(ranges[i].offset, ranges[i].length)) << round << "/" << i;
    }
  }
  auto past = store_->ReadRanges("obj", {{0, 10}, {data.size() - 5, 10}});
  EXPECT_TRUE(past.status().IsCorruption()) << past.status().ToString();
  EXPECT_TRUE(store_->ReadRanges("missing", {{0, 1}}).status().IsNotFound());
}

TEST_P(ObjectStoreConformance, MissingObjectsAreNotFoundNamingThePath) {
  ASSERT_TRUE(store_->Write("dir/present", "x").ok());
  for (const char* path : {"nope", "dir/nope", "dir/present/child", "dir"}) {
    for (Status st : {store_->Read(path).status(), store_->ReadRange(path, 0, 1).status(),
                      store_->Size(path).status()}) {
      EXPECT_TRUE(st.IsNotFound()) << path << ": " << st.ToString();
      EXPECT_NE(st.message().find(path), std::string::npos) << st.ToString();
    }
  }
}

TEST_P(ObjectStoreConformance, CreateIfAbsent) {
  ASSERT_TRUE(store_->CreateIfAbsent("_versions/1.manifest", "first").ok());
  Status st = store_->CreateIfAbsent("_versions/1.manifest", "second");
  EXPECT_TRUE(st.IsAlreadyExists()) << st.ToString();
  EXPECT_NE(st.message().find("_versions/1.manifest"), std::string::npos) << st.ToString();
  EXPECT_EQ(*store_->Read("_versions/1.manifest"), "first");
  // Write still replaces it.
  ASSERT_TRUE(store_->Write("_versions/1.manifest", "third").ok());
  EXPECT_EQ(*store_->Read("_versions/1.manifest"), "third");
}

TEST_P(ObjectStoreConformance, ListIsRecursiveSortedAndPrefixed) {
  for (const char* p :
       {"data/b.parquet", "data/a.parquet", "data/sub/c", "datafile", "_v/1", "z"}) {
    ASSERT_TRUE(store_->Write(p, std::string(std::strlen(p), 'x')).ok());
  }
  Result<std::vector<ObjectInfo>> all = store_->List("");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(Paths(*all), (std::vector<std::string>{"_v/1", "data/a.parquet", "data/b.parquet",
                                                   "data/sub/c", "datafile", "z"}));
  for (const ObjectInfo& info : *all) {
    EXPECT_EQ(info.size, info.path.size()) << info.path;
    EXPECT_GE(info.mtime_ms, 0);
  }
  EXPECT_EQ(Paths(*store_->List("data/")),
            (std::vector<std::string>{"data/a.parquet", "data/b.parquet", "data/sub/c"}));
  EXPECT_EQ(
      Paths(*store_->List("data")),
      (std::vector<std::string>{"data/a.parquet", "data/b.parquet", "data/sub/c", "datafile"}));
  EXPECT_EQ(Paths(*store_->List("data/a")), (std::vector<std::string>{"data/a.parquet"}));
  EXPECT_EQ(Paths(*store_->List("data/sub/")), (std::vector<std::string>{"data/sub/c"}));
  EXPECT_TRUE(store_->List("missing/").value().empty());
  EXPECT_TRUE(store_->List("z/").value().empty());
}

TEST_P(ObjectStoreConformance, Delete) {
  ASSERT_TRUE(store_->Write("d/x", "1").ok());
  ASSERT_TRUE(store_->Delete("d/x").ok());
  EXPECT_TRUE(store_->Read("d/x").status().IsNotFound());
  EXPECT_TRUE(store_->Delete("d/x").ok());
  EXPECT_TRUE(store_->Delete("never/existed").ok());
  EXPECT_TRUE(store_->List("d/").value().empty());
  // A deleted key can be created again.
  EXPECT_TRUE(store_->CreateIfAbsent("d/x", "2").ok());
}

TEST_P(ObjectStoreConformance, DeleteMany) {
  for (const char* key : {"m/a", "m/b", "m/c/d", "keep/e"}) ASSERT_TRUE(store_->Write(key, "1").ok());
  ASSERT_TRUE(store_->DeleteMany({"m/a", "m/c/d", "m/absent", "m/b"}).ok());
  EXPECT_TRUE(store_->List("m/").value().empty());
  EXPECT_EQ(store_->Read("keep/e").value(), "1");
  EXPECT_TRUE(store_->DeleteMany({}).ok());
  EXPECT_TRUE(store_->DeleteMany({"m/x", "/abs"}).IsInvalidArgument());
}

TEST_P(ObjectStoreConformance, InvalidPathsAreRefusedEverywhere) {
  const std::vector<std::string> bad = {"",     "/abs", "a/../b", "..",     "../x",
                                        "a/..", "./a",  "a/./b",  "a\\b",   std::string("a\0b", 3),
                                        "a//b", "a/",   "/",      ".tmp-x", "d/.tmp-123"};
  for (const std::string& p : bad) {
    std::vector<Status> statuses = {
        store_->Read(p).status(), store_->ReadRange(p, 0, 0).status(), store_->Size(p).status(),
        store_->Write(p, "x"),    store_->CreateIfAbsent(p, "x"),      store_->Delete(p),
        store_->OpenWriter(p).status()};
    for (const Status& st : statuses) {
      EXPECT_TRUE(st.IsInvalidArgument()) << "'" << p << "': " << st.ToString();
    }
  }
  for (const std::string& prefix : {std::string("/abs"), std::string("../"), std::string("a\\"),
                                    std::string("a\0", 2), std::string("a//")}) {
    EXPECT_TRUE(store_->List(prefix).status().IsInvalidArgument()) << prefix;
  }
  // Names that merely look unusual are fine.
  for (const char* p : {"..a", "a..", ".hidden", "a/.b", "a b", "tmp-x", "ü/日本"}) {
    EXPECT_TRUE(store_->Write(p, "ok").ok()) << p;
    EXPECT_EQ(store_->Read(p).value(), "ok") << p;
  }
  EXPECT_TRUE(ValidateObjectPath("data/x.parquet").ok());
}

TEST_P(ObjectStoreConformance, ConcurrentCreateIfAbsentHasOneWinner) {
  for (int round = 0; round < 5; ++round) {
    const std::string key = "_versions/" + std::to_string(round) + ".manifest";
    constexpr int kThreads = 8;
    std::atomic<int> ready{0};
    std::vector<Status> results(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        ++ready;
        while (ready.load() < kThreads) std::this_thread::yield();
        results[t] = store_->CreateIfAbsent(key, "writer " + std::to_string(t));
      });
    }
    for (auto& th : threads) th.join();
    int winners = 0, winner = -1;
    for (int t = 0; t < kThreads; ++t) {
      if (results[t].ok()) {
        ++winners;
        winner = t;
      } else {
        EXPECT_TRUE(results[t].IsAlreadyExists()) << results[t].ToString();
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    EXPECT_EQ(*store_->Read(key), "writer " + std::to_string(winner));
  }
  // No temporary files are left behind or listed.
  EXPECT_EQ(store_->List("_versions/").value().size(), 5u);
}

// Version v of the object: an 8-byte header holding v, then a fill byte that depends on v, to a
// length that depends on v. A reader can tell a complete version from a torn one.
std::string Version(uint64_t v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);
  s.append((1 << 20) + v * 4099, char('a' + v % 26));
  return s;
}

bool IsCompleteVersion(const std::string& s) {
  if (s.size() < 8) return false;
  uint64_t v = 0;
  std::memcpy(&v, s.data(), 8);
  if (v > 1000 || s != Version(v)) return false;
  return true;
}

// Writes `data` through a streaming writer in uneven pieces (empty ones included).
Status StreamWrite(ObjectStore* store, std::string_view path, std::string_view data) {
  ASSIGN_OR_RETURN(std::unique_ptr<ObjectWriter> w, store->OpenWriter(path));
  size_t piece = 0;
  for (size_t at = 0; at < data.size(); piece = piece * 3 + 1) {
    const size_t n = std::min(data.size() - at, piece % 300001);
    RETURN_IF_ERROR(w->Append(data.substr(at, n)));
    at += n;
  }
  return w->Close();
}

void CheckWriteIsAtomicForConcurrentReaders(ObjectStore* store, bool streamed) {
  auto write = [&](uint64_t v) {
    return streamed ? StreamWrite(store, "big", Version(v)) : store->Write("big", Version(v));
  };
  ASSERT_TRUE(write(0).ok());
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::atomic<int> torn{0};
  std::thread reader([&] {
    while (!done.load() || reads.load() < 5) {
      Result<std::string> r = store->Read("big");
      if (!r.ok() || !IsCompleteVersion(*r)) ++torn;
      ++reads;
    }
  });
  for (uint64_t v = 1; v <= 25; ++v) {
    ASSERT_TRUE(write(v).ok());
  }
  done = true;
  reader.join();
  EXPECT_EQ(torn.load(), 0) << "of " << reads.load() << " reads";
  EXPECT_EQ(*store->Read("big"), Version(25));
}

TEST_P(ObjectStoreConformance, WriteIsAtomicForConcurrentReaders) {
  CheckWriteIsAtomicForConcurrentReaders(store_.get(), /*streamed=*/false);
}

TEST_P(ObjectStoreConformance, StreamedWriteIsAtomicForConcurrentReaders) {
  CheckWriteIsAtomicForConcurrentReaders(store_.get(), /*streamed=*/true);
}

TEST_P(ObjectStoreConformance, StreamedWriteIsInvisibleUntilClose) {
  const std::string big = Version(7);  // > 1 MiB: crosses the local store's buffer
  ASSERT_TRUE(store_->Write("s/old", "previous").ok());
  Result<std::unique_ptr<ObjectWriter>> fresh = store_->OpenWriter("s/new");
  Result<std::unique_ptr<ObjectWriter>> over = store_->OpenWriter("s/old");
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  ASSERT_TRUE(over.ok()) << over.status().ToString();
  EXPECT_EQ((*fresh)->path(), "s/new");
  for (ObjectWriter* w : {fresh->get(), over->get()}) {
    ASSERT_TRUE(w->Append("head:").ok());
    ASSERT_TRUE(w->Append("").ok());
    ASSERT_TRUE(w->Append(big).ok());
    EXPECT_EQ(w->bytes_appended(), 5 + big.size());
  }
  EXPECT_TRUE(store_->Read("s/new").status().IsNotFound());
  EXPECT_EQ(*store_->Read("s/old"), "previous");
  EXPECT_EQ(Paths(*store_->List("s/")), (std::vector<std::string>{"s/old"}));
  ASSERT_TRUE((*fresh)->Close().ok());
  ASSERT_TRUE((*over)->Close().ok());
  EXPECT_EQ(*store_->Read("s/new"), "head:" + big);
  EXPECT_EQ(*store_->Read("s/old"), "head:" + big);
  EXPECT_EQ(*store_->Size("s/new"), 5 + big.size());
  EXPECT_EQ(Paths(*store_->List("s/")), (std::vector<std::string>{"s/new", "s/old"}));
  // A closed writer refuses more work and publishes nothing more.
  EXPECT_TRUE((*fresh)->Append("x").IsInvalidArgument());
  EXPECT_TRUE((*fresh)->Close().IsInvalidArgument());
  EXPECT_EQ(*store_->Size("s/new"), 5 + big.size());
  // An empty streamed object is an object.
  ASSERT_TRUE(StreamWrite(store_.get(), "s/empty", "").ok());
  EXPECT_EQ(*store_->Read("s/empty"), "");
}

TEST_P(ObjectStoreConformance, AbandonedWriterLeavesNoObject) {
  ASSERT_TRUE(store_->Write("keep/old", "previous").ok());
  {
    auto fresh = store_->OpenWriter("gone/new");
    auto over = store_->OpenWriter("keep/old");
    ASSERT_TRUE(fresh.ok() && over.ok());
    ASSERT_TRUE((*fresh)->Append(Version(3)).ok());
    ASSERT_TRUE((*over)->Append("replacement that never lands").ok());
    auto untouched = store_->OpenWriter("gone/untouched");
    ASSERT_TRUE(untouched.ok());
  }  // destroyed without Close
  EXPECT_TRUE(store_->Read("gone/new").status().IsNotFound());
  EXPECT_TRUE(store_->Read("gone/untouched").status().IsNotFound());
  EXPECT_EQ(*store_->Read("keep/old"), "previous");
  EXPECT_EQ(Paths(*store_->List("")), (std::vector<std::string>{"keep/old"}));
}

}  // namespace
}  // namespace lakeindex
