// The C data and stream interfaces, consumed as the Arrow specification tells a consumer to
// (https://arrow.apache.org/docs/format/CDataInterface.html): formats and names from the schema,
// values from the buffers by the layouts the spec gives (validity bitmaps LSB first, booleans as
// bits, int32 offsets into utf8 data), release callbacks, children moved out, errors.
#include "format/arrow/arrow.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace lakeindex::arrow {
namespace {

Schema AllTypes() {
  Schema s;
  const std::vector<std::pair<std::string, TypeId>> fields = {
      {"b", TypeId::kBool},   {"i", TypeId::kInt32},  {"l", TypeId::kInt64}, {"f", TypeId::kFloat},
      {"d", TypeId::kDouble}, {"s", TypeId::kString}, {"dt", TypeId::kDate}, {"ts", TypeId::kTimestamp}};
  for (const auto& [name, type] : fields) s.AddField(Field{name, type, true});
  return s;
}

bool BitAt(const void* buffer, int64_t i) { return (static_cast<const uint8_t*>(buffer)[i >> 3] >> (i & 7)) & 1; }

// Row i of an exported child array of format `format`, as a Value (the spec's layouts).
Value ValueAt(const ArrowArray& a, const std::string& format, int64_t i) {
  const int64_t at = a.offset + i;
  if (a.buffers[0] != nullptr && !BitAt(a.buffers[0], at)) return Value::Null(TypeId::kBool);
  auto fixed = [&](auto tag) {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, static_cast<const uint8_t*>(a.buffers[1]) + at * int64_t(sizeof(T)), sizeof(T));
    return v;
  };
  if (format == "b") return Value::Bool(BitAt(a.buffers[1], at));
  if (format == "i") return Value::Int32(fixed(int32_t{}));
  if (format == "l") return Value::Int64(fixed(int64_t{}));
  if (format == "f") return Value::Float(fixed(float{}));
  if (format == "g") return Value::Double(fixed(double{}));
  if (format == "tdD") return Value::Date(fixed(int32_t{}));
  if (format == "tsu:") return Value::Timestamp(fixed(int64_t{}));
  if (format == "u") {
    const auto* offsets = static_cast<const int32_t*>(a.buffers[1]);
    return Value::String(std::string(static_cast<const char*>(a.buffers[2]) + offsets[at], size_t(offsets[at + 1] - offsets[at])));
  }
  ADD_FAILURE() << "unexpected format " << format;
  return Value::Null(TypeId::kBool);
}

// A value as the tests compare them (NaN equal to NaN).
std::string Show(const Value& v) { return v.is_null() ? "NULL" : v.ToString(); }

// Checks an exported struct array against `batch`, value by value.
void ExpectArrayEquals(const ArrowArray& array, const std::vector<std::string>& formats, const Batch& batch) {
  ASSERT_EQ(array.length, int64_t(batch.num_rows()));
  ASSERT_EQ(array.n_children, int64_t(batch.num_columns()));
  ASSERT_EQ(array.n_buffers, 1);
  EXPECT_EQ(array.buffers[0], nullptr);
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    const ArrowArray& child = *array.children[c];
    const Column& column = batch.column(c);
    ASSERT_NE(child.release, nullptr);
    EXPECT_EQ(child.length, int64_t(column.length()));
    EXPECT_EQ(child.null_count, int64_t(column.null_count()));
    EXPECT_EQ(child.n_buffers, formats[c] == "u" ? 3 : 2) << formats[c];
    for (int64_t i = 1; i < child.n_buffers; ++i) EXPECT_NE(child.buffers[i], nullptr) << "only the validity may be null";
    for (size_t i = 0; i < column.length(); ++i) {
      ASSERT_EQ(Show(ValueAt(child, formats[c], int64_t(i))), Show(column.GetValue(i))) << "column " << c << " row " << i;
    }
  }
}

TEST(ArrowExportTest, SchemaHasTheSpecsFormatsNamesAndFlags) {
  ArrowSchema schema;
  ExportSchema(AllTypes(), &schema);
  EXPECT_STREQ(schema.format, "+s");
  ASSERT_EQ(schema.n_children, 8);
  const char* formats[] = {"b", "i", "l", "f", "g", "u", "tdD", "tsu:"};
  for (int c = 0; c < 8; ++c) {
    EXPECT_STREQ(schema.children[c]->format, formats[c]);
    EXPECT_EQ(schema.children[c]->name, AllTypes().field(size_t(c)).name);
    EXPECT_EQ(schema.children[c]->flags & ARROW_FLAG_NULLABLE, ARROW_FLAG_NULLABLE);
    EXPECT_EQ(schema.children[c]->n_children, 0);
  }
  // A consumer may move a child out: the parent's release leaves it alone.
  ArrowSchema moved = *schema.children[5];
  schema.children[5]->release = nullptr;
  schema.release(&schema);
  EXPECT_EQ(schema.release, nullptr);
  EXPECT_STREQ(moved.format, "u");
  EXPECT_STREQ(moved.name, "s");
  moved.release(&moved);
  EXPECT_EQ(moved.release, nullptr);
}

TEST(ArrowExportTest, StreamGivesEveryBatchValueByValueThenEnds) {
  const Schema schema = AllTypes();
  std::vector<Batch> batches = {testing::RandomBatch(schema, 1000, 1, 0.2), testing::RandomBatch(schema, 0, 2),
                                testing::RandomBatch(schema, 77, 3, 0.0)};
  size_t next = 0;
  ArrowArrayStream stream;
  ExportStream(schema, [&](Batch* out) -> Result<bool> {
    if (next == batches.size()) return false;
    *out = batches[next++];
    return true;
  }, &stream);
  ArrowSchema s;
  ASSERT_EQ(stream.get_schema(&stream, &s), 0);
  std::vector<std::string> formats;
  for (int64_t c = 0; c < s.n_children; ++c) formats.push_back(s.children[c]->format);
  s.release(&s);
  std::vector<ArrowArray> kept;  // held past later get_next calls and past the stream's release
  for (size_t b = 0; b < batches.size(); ++b) {
    ArrowArray array;
    ASSERT_EQ(stream.get_next(&stream, &array), 0);
    ASSERT_NE(array.release, nullptr) << "batch " << b;
    kept.push_back(array);
  }
  ArrowArray end;
  ASSERT_EQ(stream.get_next(&stream, &end), 0);
  EXPECT_EQ(end.release, nullptr) << "the end of a stream is a released array";
  EXPECT_EQ(stream.get_last_error(&stream), nullptr);
  stream.release(&stream);
  EXPECT_EQ(stream.release, nullptr);
  // Arrays own their data: still readable after the stream is gone; a moved child outlives its parent.
  for (size_t b = 0; b < kept.size(); ++b) ExpectArrayEquals(kept[b], formats, batches[b]);
  ArrowArray strings = *kept[0].children[5];
  kept[0].children[5]->release = nullptr;
  for (ArrowArray& a : kept) a.release(&a);
  for (int64_t i = 0; i < strings.length; ++i) ASSERT_EQ(Show(ValueAt(strings, "u", i)), Show(batches[0].column(5).GetValue(size_t(i))));
  strings.release(&strings);
  EXPECT_EQ(strings.release, nullptr);
}

TEST(ArrowExportTest, AnErrorOfTheProducerIsTheStreamsLastError) {
  ArrowArrayStream stream;
  ExportStream(AllTypes(), [](Batch*) -> Result<bool> { return Status::IOError("disk gone at part-7.parquet"); }, &stream);
  ArrowArray array;
  EXPECT_EQ(stream.get_next(&stream, &array), EIO);
  ASSERT_NE(stream.get_last_error(&stream), nullptr);
  EXPECT_NE(std::string(stream.get_last_error(&stream)).find("disk gone at part-7.parquet"), std::string::npos);
  stream.release(&stream);
}

TEST(ArrowExportTest, IpcStreamFramesItsMessages) {
  // The framing the IPC spec gives (apache-arrow reads the contents: CliArrowTest): each message
  // is 0xFFFFFFFF, a metadata length that keeps the body 8-aligned, the metadata; the stream
  // ends with 0xFFFFFFFF 0x00000000.
  const Schema schema = AllTypes();
  IpcStreamWriter writer(schema);
  std::string out;
  ASSERT_TRUE(writer.Write(testing::RandomBatch(schema, 100, 4), &out).ok());
  writer.Finish(&out);
  ASSERT_GE(out.size(), 16u);
  uint32_t marker;
  int32_t length;
  std::memcpy(&marker, out.data(), 4);
  std::memcpy(&length, out.data() + 4, 4);
  EXPECT_EQ(marker, 0xFFFFFFFFu);
  EXPECT_EQ(length % 8, 0);
  EXPECT_EQ(out.size() % 8, 0u);
  EXPECT_EQ(out.substr(out.size() - 8), std::string("\xff\xff\xff\xff\0\0\0\0", 8));
}

}  // namespace
}  // namespace lakeindex::arrow
