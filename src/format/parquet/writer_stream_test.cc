// The streaming mode of ParquetWriter (a sink instead of an in-memory file): same bytes as the
// in-memory mode, bytes leave the writer at every row group, and a failure publishes nothing.

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "util/test_util.h"

namespace lakeindex::parquet {
namespace {

using lakeindex::testing::RandomBatch;
using lakeindex::testing::RandomSchema;
using lakeindex::testing::Rng;

// Forwards to a real writer, failing the `fail_at`-th append (1-based; 0 = never) with IOError.
class FailingSink final : public ObjectWriter {
 public:
  FailingSink(std::unique_ptr<ObjectWriter> base, int fail_at)
      : ObjectWriter(base->path()), base_(std::move(base)), fail_at_(fail_at) {}
  int appends() const { return appends_; }

 protected:
  Status DoAppend(std::string_view data) override {
    if (++appends_ == fail_at_) return Status::IOError(path() + ": disk full (test)");
    return base_->Append(data);
  }
  Status DoClose() override { return base_->Close(); }

 private:
  std::unique_ptr<ObjectWriter> base_;
  int fail_at_;
  int appends_ = 0;
};

// Feeds `batch` in uneven slices, so row groups straddle Write calls.
Status WriteInPieces(ParquetWriter* writer, const Batch& batch) {
  size_t offset = 0, step = 1;
  while (offset < batch.num_rows()) {
    const size_t n = std::min(step, batch.num_rows() - offset);
    RETURN_IF_ERROR(writer->Write(batch.Slice(offset, n)));
    offset += n;
    step = step * 3 + 1;
  }
  return Status::OK();
}

TEST(ParquetStreamTest, StreamedFileIsByteIdenticalToTheInMemoryFile) {
  lakeindex::testing::TempDir dir;
  auto local = OpenLocalStore(dir.Join("root"));
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  std::unique_ptr<ObjectStore> memory = NewMemoryStore();
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed * 104729);
    Schema schema = RandomSchema(seed, 6);
    const size_t rows_choices[] = {0, 1, 17, 1000, 5000};
    Batch batch = RandomBatch(schema, rows_choices[rng.Uniform(5)], seed, 0.2);
    WriteOptions o;
    const size_t page_choices[] = {1, 7, 100, 8192};
    const size_t rg_choices[] = {1, 9, 300, size_t(1) << 20};
    o.page_rows = page_choices[rng.Uniform(4)];
    o.row_group_rows = rg_choices[rng.Uniform(4)];
    o.dictionary = rng.Chance(0.6);
    o.statistics = rng.Chance(0.8);
    o.page_index = rng.Chance(0.8);
    o.key_value_metadata = {{"k", "v" + std::to_string(seed)}};

    auto in_memory = ParquetWriter::Make(schema, o);
    ASSERT_TRUE(in_memory.ok());
    ASSERT_TRUE(WriteInPieces(in_memory->get(), batch).ok());
    Result<std::string> expected = (*in_memory)->Finish();
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();

    for (ObjectStore* store : {memory.get(), local->get()}) {
      SCOPED_TRACE(store->Describe());
      const std::string path = "t" + std::to_string(seed) + ".parquet";
      auto sink = store->OpenWriter(path);
      ASSERT_TRUE(sink.ok()) << sink.status().ToString();
      auto streamed = ParquetWriter::Make(schema, o, sink->get());
      ASSERT_TRUE(streamed.ok()) << streamed.status().ToString();
      size_t offset = 0;
      while (offset < batch.num_rows()) {
        const size_t n = std::min<size_t>(o.row_group_rows, batch.num_rows() - offset);
        ASSERT_TRUE((*streamed)->Write(batch.Slice(offset, n)).ok());
        offset += n;
        ASSERT_TRUE((*streamed)->FlushRowGroup().ok());
        // Every flushed row group has left the writer: it holds no file bytes.
        EXPECT_EQ((*sink)->bytes_appended(), (*streamed)->bytes_written());
      }
      Result<uint64_t> size = (*streamed)->FinishToSink();
      ASSERT_TRUE(size.ok()) << size.status().ToString();
      EXPECT_EQ(*size, expected->size());
      EXPECT_EQ((*sink)->bytes_appended(), expected->size());
      EXPECT_TRUE(store->Read(path).status().IsNotFound());  // not yet published
      ASSERT_TRUE((*sink)->Close().ok());
      Result<std::string> got = store->Read(path);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ASSERT_TRUE(*got == *expected) << "streamed bytes differ from the in-memory file";
      auto reader = ParquetReader::Open(store, path);
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      auto all = (*reader)->ReadAll();
      ASSERT_TRUE(all.ok()) << all.status().ToString();
      EXPECT_TRUE(all->Equals(batch));
    }
  }
}

TEST(ParquetStreamTest, SinkFailureMidWriteIsStickyAndPublishesNothing) {
  lakeindex::testing::TempDir dir;
  auto store = OpenLocalStore(dir.Join("root"));
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->Write("t.parquet", "old object").ok());
  Schema schema = RandomSchema(5, 4);
  Batch batch = RandomBatch(schema, 2000, 5, 0.1);
  WriteOptions o;
  o.row_group_rows = 100;  // 20 row groups: the failure lands in the middle
  for (int fail_at : {1, 2, 15, 1000}) {
    SCOPED_TRACE("fail at append " + std::to_string(fail_at));
    {
      auto base = (*store)->OpenWriter("t.parquet");
      ASSERT_TRUE(base.ok());
      FailingSink sink(std::move(*base), fail_at);
      auto writer = ParquetWriter::Make(schema, o, &sink);
      Status st = writer.ok() ? WriteInPieces(writer->get(), batch) : writer.status();
      if (st.ok()) st = (*writer)->FinishToSink().status();
      if (fail_at > sink.appends()) {
        // The control case: the failure was never reached; the sink is dropped unclosed.
        EXPECT_TRUE(st.ok()) << st.ToString();
      } else {
        EXPECT_TRUE(st.IsIOError()) << st.ToString();
        EXPECT_NE(st.message().find("t.parquet"), std::string::npos) << st.ToString();
        if (writer.ok()) {
          EXPECT_TRUE((*writer)->Write(batch.Slice(0, 1)).IsIOError());
          EXPECT_TRUE((*writer)->FinishToSink().status().IsIOError());
        }
        EXPECT_TRUE(sink.Close().IsIOError());
      }
    }
    EXPECT_EQ((*store)->Read("t.parquet").value(), "old object");
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir.Join("root"))) {
      EXPECT_FALSE(e.path().filename().string().starts_with(".tmp-")) << e.path();
    }
  }
}

TEST(ParquetStreamTest, WriteParquetStreamsAndAnInjectedFailurePublishesNothing) {
  auto instrumented = std::make_shared<InstrumentedStore>(NewMemoryStore());
  Schema schema = RandomSchema(9, 3);
  Batch batch = RandomBatch(schema, 500, 9, 0.1);
  instrumented->FailNth(StoreOp::kWrite, 1);
  Status st = WriteParquet(instrumented.get(), "f.parquet", batch);
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_TRUE(instrumented->Read("f.parquet").status().IsNotFound());
  ASSERT_TRUE(WriteParquet(instrumented.get(), "f.parquet", batch).ok());
  EXPECT_EQ(instrumented->counters().write_requests, 1u);
  auto reader = ParquetReader::Open(instrumented.get(), "f.parquet");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->ReadAll()->Equals(batch));
}

TEST(ParquetStreamTest, FinishMustMatchTheMode) {
  Schema schema({Field{"a", TypeId::kInt32, true}});
  auto memory = ParquetWriter::Make(schema);
  ASSERT_TRUE(memory.ok());
  EXPECT_TRUE((*memory)->FinishToSink().status().IsInvalidArgument());
  auto store = NewMemoryStore();
  auto sink = store->OpenWriter("x");
  ASSERT_TRUE(sink.ok());
  auto streamed = ParquetWriter::Make(schema, {}, sink->get());
  ASSERT_TRUE(streamed.ok());
  EXPECT_TRUE((*streamed)->Finish().status().IsInvalidArgument());
  EXPECT_TRUE((*streamed)->FinishToSink().ok());
}

}  // namespace
}  // namespace lakeindex::parquet
