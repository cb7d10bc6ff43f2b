// SegmentWriter streams page_data: bytes reach the store while pages are appended, the object
// appears only at Finish, and a failure or an abandoned writer leaves no page_data behind.
#include <gtest/gtest.h>

#include <filesystem>

#include "index/index_key.h"
#include "index/btree/btree_segment_writer.h"
#include "index/btree/btree_test_util.h"

namespace lakeindex::index::btree {
namespace {

namespace fs = std::filesystem;

std::string Int64Key(int64_t v) {
  std::string key(kFixedKeyWidth, '\0');
  StoreFixedKey(IntKey(v), key.data());
  return key;
}

// Bytes in temporary files under `root` (objects being streamed).
uint64_t TempBytes(const std::string& root) {
  uint64_t bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().filename().string().starts_with(".tmp-")) bytes += fs::file_size(e.path());
  }
  return bytes;
}

// Appends `rows` increasing keys whose low bits are noise, so pages do not compress to nothing.
Status AppendRows(SegmentWriter* writer, size_t rows) {
  lakeindex::testing::Rng rng(7);
  for (size_t i = 0; i < rows; ++i) {
    RETURN_IF_ERROR(writer->Append(Int64Key(int64_t(i << 20 | rng.Uniform(1 << 20))), i));
  }
  return Status::OK();
}

class SegmentWriterStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Join("t");
    auto local = OpenLocalStore(root_);
    ASSERT_TRUE(local.ok()) << local.status().ToString();
    store_ = std::make_shared<InstrumentedStore>(std::shared_ptr<ObjectStore>(std::move(*local)));
  }

  lakeindex::testing::TempDir dir_;
  std::string root_;
  std::shared_ptr<InstrumentedStore> store_;
};

TEST_F(SegmentWriterStreamTest, PageDataLeavesMemoryAsPagesFillAndAppearsAtFinish) {
  constexpr size_t kRows = 400000;
  SegmentWriter writer(store_.get(), "seg", TypeId::kInt64, 1024);
  ASSERT_TRUE(AppendRows(&writer, kRows).ok());
  const uint64_t on_disk = TempBytes(root_);
  EXPECT_TRUE(store_->Read(SegmentDataPath("seg")).status().IsNotFound());
  auto info = writer.Finish(RowSet());
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  // All but the local writer's 1 MiB buffer, the last page and the footer was already on disk.
  EXPECT_GT(on_disk, 0u);
  EXPECT_LE(info->data_bytes - on_disk, (uint64_t(1) << 20) + (256 << 10))
      << on_disk << " of " << info->data_bytes;
  EXPECT_EQ(TempBytes(root_), 0u);
  EXPECT_EQ(store_->Size(SegmentDataPath("seg")).value(), info->data_bytes);
  EXPECT_EQ(store_->counters().write_requests, 2u);  // page_data + page_lookup
  auto seg = BTreeSegment::Open(store_.get(), "seg");
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  const auto dump = testutil::DumpSegment(**seg);
  ASSERT_EQ(dump.entries.size(), kRows);
  EXPECT_TRUE(std::is_sorted(dump.entries.begin(), dump.entries.end()));
}

TEST_F(SegmentWriterStreamTest, FailedOrAbandonedWritesLeaveNoPageData) {
  // page_data's publication fails: nothing of the segment exists, no temp file is left.
  store_->FailNth(StoreOp::kWrite, 1);
  {
    SegmentWriter writer(store_.get(), "a", TypeId::kInt64, 64);
    ASSERT_TRUE(AppendRows(&writer, 5000).ok());
    Status st = writer.Finish(RowSet()).status();
    EXPECT_TRUE(st.IsIOError()) << st.ToString();
    EXPECT_NE(st.message().find("page_data"), std::string::npos) << st.ToString();
  }
  // Abandoned mid-build (e.g. the sort failed): no object either.
  {
    SegmentWriter writer(store_.get(), "b", TypeId::kInt64, 64);
    ASSERT_TRUE(AppendRows(&writer, 5000).ok());
  }
  EXPECT_TRUE(store_->List("_indices/").value().empty());
  EXPECT_EQ(TempBytes(root_), 0u);
  // A failing page_lookup leaves page_data without a lookup, which readers treat as absent
  // (the lookup is written last so that its existence marks a complete segment).
  store_->FailNth(StoreOp::kWrite, 2);
  SegmentWriter writer(store_.get(), "c", TypeId::kInt64, 64);
  ASSERT_TRUE(AppendRows(&writer, 5000).ok());
  EXPECT_TRUE(writer.Finish(RowSet()).status().IsIOError());
  EXPECT_TRUE(store_->Read(SegmentLookupPath("c")).status().IsNotFound());
  EXPECT_FALSE(BTreeSegment::Open(store_.get(), "c").ok());
}

}  // namespace
}  // namespace lakeindex::index::btree
