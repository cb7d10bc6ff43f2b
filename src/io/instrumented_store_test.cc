#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "io/store_conformance.h"
#include "lakeindex/object_store.h"

namespace lakeindex {
namespace {

// The wrapper must not change behaviour when it injects nothing.
INSTANTIATE_TEST_SUITE_P(Instrumented, ObjectStoreConformance,
                         ::testing::Values(StoreFactory{"instrumented_memory",
                                                        [](const std::string&) {
                                                          return std::shared_ptr<ObjectStore>(
                                                              std::make_shared<InstrumentedStore>(
                                                                  NewMemoryStore()));
                                                        }}),
                         StoreFactoryName);

class InstrumentedStoreTest : public ::testing::Test {
 protected:
  std::shared_ptr<ObjectStore> base_ = NewMemoryStore();
  InstrumentedStore store_{base_};
};

TEST_F(InstrumentedStoreTest, CountsRequestsAndBytes) {
  ASSERT_TRUE(store_.Write("a", "12345").ok());
  ASSERT_TRUE(store_.CreateIfAbsent("b", "xy").ok());
  EXPECT_TRUE(store_.CreateIfAbsent("b", "zzz").IsAlreadyExists());
  ASSERT_TRUE(store_.Read("a").ok());
  ASSERT_TRUE(store_.ReadRange("a", 1, 3).ok());
  ASSERT_TRUE(store_.Size("b").ok());
  EXPECT_TRUE(store_.Read("missing").status().IsNotFound());
  ASSERT_TRUE(store_.List("").ok());
  ASSERT_TRUE(store_.Delete("b").ok());
  StoreCounters& c = store_.counters();
  EXPECT_EQ(c.write_requests, 3u);  // the failed create was still a request
  EXPECT_EQ(c.bytes_written, 7u);   // but wrote nothing
  EXPECT_EQ(c.read_requests, 4u);   // Read, ReadRange, Size, failed Read
  EXPECT_EQ(c.bytes_read, 8u);      // 5 + 3
  EXPECT_EQ(c.list_requests, 1u);
  EXPECT_EQ(c.delete_requests, 1u);
  c.Reset();
  EXPECT_EQ(c.read_requests + c.bytes_read + c.write_requests + c.bytes_written + c.list_requests +
                c.delete_requests,
            0u);
  EXPECT_EQ(store_.Describe(), "memory://");
}

TEST_F(InstrumentedStoreTest, StreamedObjectIsOneWriteRequestAtClose) {
  auto w = store_.OpenWriter("obj");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->Append("123").ok());
  ASSERT_TRUE((*w)->Append("45").ok());
  EXPECT_EQ(store_.counters().write_requests, 0u);
  EXPECT_EQ(store_.OpsSeen(StoreOp::kWrite), 0u);
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(store_.counters().write_requests, 1u);
  EXPECT_EQ(store_.counters().bytes_written, 5u);
  EXPECT_EQ(store_.OpsSeen(StoreOp::kWrite), 1u);
  EXPECT_EQ(*base_->Read("obj"), "12345");
}

TEST_F(InstrumentedStoreTest, InjectedFailureAtCloseLeavesNoObject) {
  ASSERT_TRUE(store_.Write("obj", "old").ok());
  store_.FailNth(StoreOp::kWrite, 2);
  ASSERT_TRUE(store_.Write("other", "x").ok());  // write #1
  auto w = store_.OpenWriter("obj");
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Append("new bytes").ok());
  Status st = (*w)->Close();  // write #2
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_NE(st.message().find("injected failure: write #2 on obj"), std::string::npos)
      << st.ToString();
  EXPECT_EQ(*base_->Read("obj"), "old");
  EXPECT_EQ(store_.counters().bytes_written, 4u);  // "old" + "x"; the failed one reached nothing
  EXPECT_TRUE((*w)->Close().IsIOError());         // sticky
  EXPECT_EQ(store_.OpsSeen(StoreOp::kWrite), 2u);
}

TEST_F(InstrumentedStoreTest, OpsSeenPerKindSinceFailNth) {
  ASSERT_TRUE(store_.Write("a", "1").ok());
  store_.FailNth(StoreOp::kAny, 0);  // resets the counts, injects nothing
  ASSERT_TRUE(store_.Read("a").ok());
  ASSERT_TRUE(store_.ReadRange("a", 0, 1).ok());
  ASSERT_TRUE(store_.Size("a").ok());
  ASSERT_TRUE(store_.Write("a", "2").ok());
  ASSERT_TRUE(store_.CreateIfAbsent("c", "3").ok());
  ASSERT_TRUE(store_.List("").ok());
  ASSERT_TRUE(store_.Delete("c").ok());
  EXPECT_EQ(store_.OpsSeen(StoreOp::kRead), 3u);
  EXPECT_EQ(store_.OpsSeen(StoreOp::kWrite), 1u);
  EXPECT_EQ(store_.OpsSeen(StoreOp::kCreate), 1u);
  EXPECT_EQ(store_.OpsSeen(StoreOp::kList), 1u);
  EXPECT_EQ(store_.OpsSeen(StoreOp::kDelete), 1u);
  EXPECT_EQ(store_.OpsSeen(StoreOp::kAny), 7u);
}

TEST_F(InstrumentedStoreTest, FailNthFailsExactlyTheKthOpOfItsKind) {
  ASSERT_TRUE(store_.Write("a", "old").ok());
  store_.FailNth(StoreOp::kWrite, 3);
  // Other kinds do not advance the write count.
  ASSERT_TRUE(store_.Read("a").ok());
  ASSERT_TRUE(store_.CreateIfAbsent("x", "1").ok());
  ASSERT_TRUE(store_.Write("a", "w1").ok());
  ASSERT_TRUE(store_.Write("a", "w2").ok());
  Status st = store_.Write("a", "w3");
  ASSERT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_EQ(st.message(), "injected failure: write #3 on a");
  // The failed write had no effect and was not counted as traffic.
  EXPECT_EQ(base_->Read("a").value(), "w2");
  ASSERT_TRUE(store_.Write("a", "w4").ok());  // only the 3rd fails
  EXPECT_EQ(store_.OpsSeen(StoreOp::kWrite), 4u);
  EXPECT_EQ(store_.counters().write_requests, 1u + 1u + 2u + 1u);
}

TEST_F(InstrumentedStoreTest, FailNthOfEachKind) {
  struct Case {
    StoreOp op;
    std::function<Status()> call;
    const char* name;
  };
  ASSERT_TRUE(base_->Write("obj", "data").ok());
  std::vector<Case> cases = {
      {StoreOp::kRead, [&] { return store_.Read("obj").status(); }, "read"},
      {StoreOp::kRead, [&] { return store_.ReadRange("obj", 0, 2).status(); }, "read"},
      {StoreOp::kRead, [&] { return store_.Size("obj").status(); }, "read"},
      {StoreOp::kWrite, [&] { return store_.Write("obj", "data"); }, "write"},
      {StoreOp::kCreate, [&] { return store_.CreateIfAbsent("new", "n"); }, "create"},
      {StoreOp::kList, [&] { return store_.List("o").status(); }, "list"},
      {StoreOp::kDelete, [&] { return store_.Delete("new"); }, "delete"},
  };
  for (const Case& c : cases) {
    store_.FailNth(c.op, 1);
    Status st = c.call();
    ASSERT_TRUE(st.IsIOError()) << c.name << ": " << st.ToString();
    EXPECT_NE(st.message().find(std::string("injected failure: ") + c.name + " #1 on "),
              std::string::npos)
        << st.ToString();
    EXPECT_TRUE(c.call().ok()) << c.name << " second call";
  }
  // The failed create had no effect: "new" was made by the second call and deleted by the last
  // case's second call.
  EXPECT_TRUE(base_->Read("new").status().IsNotFound());
}

TEST_F(InstrumentedStoreTest, FailNthAnyCountsAllKinds) {
  store_.FailNth(StoreOp::kAny, 3);
  ASSERT_TRUE(store_.Write("a", "1").ok());
  ASSERT_TRUE(store_.List("").ok());
  Status st = store_.Delete("a");
  ASSERT_TRUE(st.IsIOError());
  EXPECT_EQ(st.message(), "injected failure: delete #3 on a");
  EXPECT_TRUE(base_->Read("a").ok());  // not deleted
  EXPECT_TRUE(store_.Read("a").ok());
  EXPECT_EQ(store_.OpsSeen(StoreOp::kAny), 4u);
}

TEST_F(InstrumentedStoreTest, FailNthZeroDisablesAndCallResetsCounts) {
  store_.FailNth(StoreOp::kRead, 2);
  ASSERT_TRUE(base_->Write("a", "1").ok());
  ASSERT_TRUE(store_.Read("a").ok());
  store_.FailNth(StoreOp::kRead, 2);  // counted from now: the next read is #1 again
  ASSERT_TRUE(store_.Read("a").ok());
  EXPECT_FALSE(store_.Read("a").ok());
  store_.FailNth(StoreOp::kRead, 0);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(store_.Read("a").ok());
}

TEST_F(InstrumentedStoreTest, ConcurrentFailNthFailsExactlyOnce) {
  ASSERT_TRUE(base_->Write("a", "1").ok());
  store_.FailNth(StoreOp::kRead, 50);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        if (!store_.Read("a").ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 1);
  EXPECT_EQ(store_.OpsSeen(StoreOp::kRead), 200u);
  EXPECT_EQ(store_.counters().read_requests, 199u);
}

TEST_F(InstrumentedStoreTest, LatencyIsAddedToEachRequest) {
  ASSERT_TRUE(base_->Write("a", "1").ok());
  store_.SetLatencyMicros(20000);
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(store_.Read("a").ok());
  ASSERT_TRUE(store_.Size("a").ok());
  auto elapsed = std::chrono::steady_clock::now() - start;
  // A lower bound only: sleeping guarantees at least the latency, never at most.
  EXPECT_GE(elapsed, std::chrono::microseconds(40000));
  store_.SetLatencyMicros(0);
}

// The read hint: the base store's (a local one's: no holes); a remote one's when latency makes
// the wrapper stand for a remote store; the one set on it above both.
TEST_F(InstrumentedStoreTest, ReadHintIsTheBaseStoresUnlessLatencyOrASetHint) {
  EXPECT_EQ(store_.read_hint(), base_->read_hint());
  EXPECT_EQ(store_.read_hint().max_hole, 0u);
  auto dir = ::testing::TempDir() + "/hint_local";
  auto local = OpenLocalStore(dir);
  ASSERT_TRUE(local.ok());
  InstrumentedStore over_local{std::shared_ptr<ObjectStore>(std::move(*local))};
  EXPECT_EQ(over_local.read_hint().max_hole, 0u);
  EXPECT_GT(over_local.read_hint().max_range, 0u);
  store_.SetLatencyMicros(1);
  EXPECT_EQ(store_.read_hint(), kRemoteReadHint);
  const ObjectStore::ReadHint set{123, 4567, 2};
  store_.SetReadHint(set);
  EXPECT_EQ(store_.read_hint(), set);
  store_.SetReadHint(std::nullopt);
  store_.SetLatencyMicros(0);
  EXPECT_EQ(store_.read_hint(), base_->read_hint());
}

}  // namespace
}  // namespace lakeindex
