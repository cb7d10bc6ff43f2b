// The C data and stream interfaces, consumed as the Arrow specification tells a consumer to
// (https://arrow.apache.org/docs/format/CDataInterface.html): formats and names from the schema,
// values from the buffers by the layouts the spec gives (validity bitmaps LSB first, booleans as
// bits, int32 offsets into utf8 data), release callbacks, children moved out, errors.
#include "format/arrow/arrow.h"

#include <cerrno>
#include <cstring>
#include <limits>
#include <random>
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
      {"d", TypeId::kDouble}, {"s", TypeId::kString}, {"dt", TypeId::kDate}, {"ts", TypeId::kTimestamp},
      {"dec", DecimalType(18, 4)}};
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
  if (format == "d:18,4") {  // 128-bit little-endian two's complement
    const __int128 v = fixed(__int128{});
    EXPECT_TRUE(v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max());
    return Value::Decimal(DecimalType(18, 4), int64_t(v));
  }
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

// A C stream of `batches` (copied), in order.
void ExportBatches(const Schema& schema, const std::vector<Batch>& batches, ArrowArrayStream* out) {
  ExportStream(schema, [batches, next = size_t{0}](Batch* b) mutable -> Result<bool> {
    if (next == batches.size()) return false;
    *b = batches[next++];
    return true;
  }, out);
}

TEST(ArrowExportTest, SchemaHasTheSpecsFormatsNamesAndFlags) {
  ArrowSchema schema;
  ExportSchema(AllTypes(), &schema);
  EXPECT_STREQ(schema.format, "+s");
  ASSERT_EQ(schema.n_children, 9);
  const char* formats[] = {"b", "i", "l", "f", "g", "u", "tdD", "tsu:", "d:18,4"};
  for (int c = 0; c < 9; ++c) {
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
  ArrowArrayStream stream;
  ExportBatches(schema, batches, &stream);
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

namespace lakeindex::arrow {
namespace {

// What ExportStream gives, StreamImporter takes back: the same values, whole or sliced.
TEST(ArrowImportTest, OurOwnStreamReadsBackValueByValueAndSliced) {
  const Schema schema = AllTypes();
  std::vector<Batch> batches = {testing::RandomBatch(schema, 1000, 5, 0.2), testing::RandomBatch(schema, 37, 6, 0.0)};
  ArrowArrayStream stream;
  ExportBatches(schema, batches, &stream);
  auto importer = StreamImporter::Make(&stream);
  ASSERT_TRUE(importer.ok()) << importer.status().ToString();
  EXPECT_EQ(stream.release, nullptr) << "the importer took the stream over";
  EXPECT_EQ((*importer)->schema(), schema);
  for (const Batch& want : batches) {
    Batch got;
    auto more = (*importer)->Next(&got);
    ASSERT_TRUE(more.ok() && *more) << more.status().ToString();
    ASSERT_EQ(got.num_rows(), want.num_rows());
    for (size_t c = 0; c < want.num_columns(); ++c) {
      for (size_t i = 0; i < want.num_rows(); ++i) {
        ASSERT_EQ(Show(got.column(c).GetValue(i)), Show(want.column(c).GetValue(i))) << c << " " << i;
      }
    }
  }
  Batch end;
  EXPECT_FALSE(*(*importer)->Next(&end));

  // A sliced record batch (offset 13 on the struct, children at their own offsets 0).
  ArrowArrayStream sliced;
  bool given = false;
  ExportStream(schema, [&](Batch* out) -> Result<bool> {
    if (given) return false;
    given = true;
    *out = batches[0];
    return true;
  }, &sliced);
  ArrowArrayStream wrapper = sliced;  // a producer that slices what ours gives
  struct Slicer {
    ArrowArrayStream inner;
  };
  static Slicer slicer;
  slicer.inner = sliced;
  wrapper.private_data = &slicer;
  wrapper.get_schema = [](ArrowArrayStream* s, ArrowSchema* out) {
    auto* in = &static_cast<Slicer*>(s->private_data)->inner;
    return in->get_schema(in, out);
  };
  wrapper.get_next = [](ArrowArrayStream* s, ArrowArray* out) {
    auto* in = &static_cast<Slicer*>(s->private_data)->inner;
    int rc = in->get_next(in, out);
    if (rc == 0 && out->release != nullptr) {
      out->offset = 13;
      out->length -= 13 + 7;
    }
    return rc;
  };
  wrapper.get_last_error = [](ArrowArrayStream* s) {
    auto* in = &static_cast<Slicer*>(s->private_data)->inner;
    return in->get_last_error(in);
  };
  wrapper.release = [](ArrowArrayStream* s) {
    auto* in = &static_cast<Slicer*>(s->private_data)->inner;
    in->release(in);
    s->release = nullptr;
  };
  auto sliced_importer = StreamImporter::Make(&wrapper);
  ASSERT_TRUE(sliced_importer.ok()) << sliced_importer.status().ToString();
  Batch got;
  ASSERT_TRUE(*(*sliced_importer)->Next(&got));
  const Batch want = batches[0].Slice(13, batches[0].num_rows() - 20);
  ASSERT_EQ(got.num_rows(), want.num_rows());
  for (size_t c = 0; c < want.num_columns(); ++c) {
    for (size_t i = 0; i < want.num_rows(); ++i) {
      ASSERT_EQ(Show(got.column(c).GetValue(i)), Show(want.column(c).GetValue(i))) << c << " " << i;
    }
  }
}

// A hand-made producer of the formats other libraries write (pyarrow, Polars): narrow and
// unsigned integers, large strings, date64, timestamps in s / ms / ns with a time zone.
TEST(ArrowImportTest, OtherProducersFormatsMapToOurTypes) {
  struct Column1 {
    std::string format;
    std::vector<uint8_t> values;  // raw little-endian
    std::vector<uint8_t> data;    // strings
    std::vector<int64_t> sizes;   // views: the data buffer's size (the variadic sizes buffer)
  };
  auto bytes = [](auto... v) {
    std::vector<uint8_t> out;
    ((out.insert(out.end(), reinterpret_cast<const uint8_t*>(&v), reinterpret_cast<const uint8_t*>(&v) + sizeof(v))), ...);
    return out;
  };
  static std::vector<Column1> cols;
  cols = {{"c", bytes(int8_t(-5), int8_t(7)), {}},
          {"S", bytes(uint16_t(65535), uint16_t(1)), {}},
          {"I", bytes(uint32_t(4294967295u), uint32_t(0)), {}},
          {"U", bytes(int64_t(0), int64_t(3), int64_t(5)), {'a', 'b', 'c', 'd', 'e'}},
          {"tdm", bytes(int64_t(86400000) * 19782, int64_t(-86400000)), {}},
          {"tss:UTC", bytes(int64_t(1), int64_t(-2)), {}},
          {"tsm:", bytes(int64_t(1500), int64_t(0)), {}},
          {"tsn:Europe/Paris", bytes(int64_t(3000), int64_t(-1000)), {}},
          {"d:9,2", bytes(__int128(-12345), __int128(7)), {}},
          {"d:5,1,64", bytes(int64_t(99999), int64_t(-1)), {}}};
  static const char* names[] = {"i8", "u16", "u32", "big", "d64", "ts_s", "ts_ms", "ts_ns", "dec", "dec64"};
  ArrowArrayStream stream{};
  static bool given;
  given = false;
  stream.get_schema = [](ArrowArrayStream*, ArrowSchema* out) {
    static std::vector<ArrowSchema> children(cols.size());
    static std::vector<ArrowSchema*> pointers;
    pointers.clear();
    for (size_t c = 0; c < cols.size(); ++c) {
      children[c] = ArrowSchema{cols[c].format.c_str(), names[c], nullptr, ARROW_FLAG_NULLABLE, 0, nullptr, nullptr,
                                [](ArrowSchema* s) { s->release = nullptr; }, nullptr};
      pointers.push_back(&children[c]);
    }
    *out = ArrowSchema{"+s", "", nullptr, 0, int64_t(cols.size()), pointers.data(), nullptr,
                       [](ArrowSchema* s) { s->release = nullptr; }, nullptr};
    return 0;
  };
  stream.get_next = [](ArrowArrayStream*, ArrowArray* out) {
    if (given) {
      out->release = nullptr;
      return 0;
    }
    given = true;
    static std::vector<ArrowArray> children(cols.size());
    static std::vector<ArrowArray*> pointers;
    static std::vector<std::vector<const void*>> buffers(cols.size());
    static const void* parent_buffers[1] = {nullptr};
    pointers.clear();
    for (size_t c = 0; c < cols.size(); ++c) {
      buffers[c] = {nullptr, cols[c].values.data()};
      if (!cols[c].data.empty()) buffers[c].push_back(cols[c].data.data());
      if (!cols[c].sizes.empty()) buffers[c].push_back(cols[c].sizes.data());
      children[c] = ArrowArray{2, 0, 0, int64_t(buffers[c].size()), 0, buffers[c].data(), nullptr, nullptr,
                               [](ArrowArray* a) { a->release = nullptr; }, nullptr};
      pointers.push_back(&children[c]);
    }
    *out = ArrowArray{2, 0, 0, 1, int64_t(cols.size()), parent_buffers, pointers.data(), nullptr,
                      [](ArrowArray* a) { a->release = nullptr; }, nullptr};
    return 0;
  };
  stream.get_last_error = [](ArrowArrayStream*) -> const char* { return nullptr; };
  stream.release = [](ArrowArrayStream* s) { s->release = nullptr; };
  auto importer = StreamImporter::Make(&stream);
  ASSERT_TRUE(importer.ok()) << importer.status().ToString();
  EXPECT_EQ((*importer)->schema().ToString(),
            "i8:int32,u16:int32,u32:int64,big:string,d64:date,ts_s:timestamptz,ts_ms:timestamp,ts_ns:timestamptz,"
            "dec:decimal(9,2),dec64:decimal(5,1)");
  Batch got;
  ASSERT_TRUE(*(*importer)->Next(&got));
  ASSERT_EQ(got.num_rows(), 2u);
  std::vector<std::string> row0, row1;
  for (size_t c = 0; c < got.num_columns(); ++c) {
    row0.push_back(Show(got.column(c).GetValue(0)));
    row1.push_back(Show(got.column(c).GetValue(1)));
  }
  // A time zone makes an instant (timestamptz, in UTC).
  EXPECT_EQ(row0, (std::vector<std::string>{"-5", "65535", "4294967295", "abc", "2024-02-29", "1970-01-01 00:00:01+00",
                                            "1970-01-01 00:00:01.5", "1970-01-01 00:00:00.000003+00", "-123.45", "9999.9"}));
  EXPECT_EQ(row1, (std::vector<std::string>{"7", "1", "0", "de", "1969-12-31", "1969-12-31 23:59:58+00", "1970-01-01 00:00:00",
                                            "1969-12-31 23:59:59.999999+00", "0.07", "-0.1"}));

  // Refused, naming the column: a type we do not hold, and nanoseconds finer than microseconds.
  cols = {{"L", bytes(uint64_t(1), uint64_t(2)), {}}};
  given = false;
  ArrowArrayStream again = stream;
  again.release = [](ArrowArrayStream* s) { s->release = nullptr; };
  auto refused = StreamImporter::Make(&again);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsNotSupported());
  EXPECT_NE(refused.status().message().find("'i8' has format 'L'"), std::string::npos) << refused.status().ToString();
  // Nanoseconds with a time zone become a timestamptz's microseconds: finer ones are refused.
  cols = {{"tsn:UTC", bytes(int64_t(1001), int64_t(0)), {}}};
  given = false;
  ArrowArrayStream fine = stream;
  fine.release = [](ArrowArrayStream* s) { s->release = nullptr; };
  auto ns = StreamImporter::Make(&fine);
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();
  Batch b;
  auto r = (*ns)->Next(&b);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotSupported()) << r.status().ToString();
  // Without a time zone every nanosecond is kept (timestamp_ns); binaries stay bytes.
  cols = {{"tsn:", bytes(int64_t(1001), int64_t(-1)), {}}, {"z", bytes(int32_t(0), int32_t(2), int32_t(3)), {0x00, 0xff, 0x5c}}};
  given = false;
  ArrowArrayStream exact = stream;
  exact.release = [](ArrowArrayStream* s) { s->release = nullptr; };
  auto kept = StreamImporter::Make(&exact);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ((*kept)->schema().ToString(), "i8:timestamp_ns,u16:binary");
  Batch k;
  ASSERT_TRUE(*(*kept)->Next(&k));
  EXPECT_EQ(k.column(0).GetValue(0).ToString(), "1970-01-01 00:00:00.000001001");
  EXPECT_EQ(k.column(0).GetValue(1).ToString(), "1969-12-31 23:59:59.999999999");
  EXPECT_EQ(k.column(1).GetValue(0).ToString(), "\\x00\\xFF");
  EXPECT_EQ(k.column(1).GetValue(1).ToString(), "\\x5C");

  // String and binary views (Polars' strings): inline up to 12 bytes, else in a data buffer.
  const std::string tail = "a string of 21 chars!";
  std::vector<uint8_t> views(32, 0);
  const int32_t short_len = 5, long_len = int32_t(tail.size()), zero = 0;
  std::memcpy(views.data(), &short_len, 4);
  std::memcpy(views.data() + 4, "short", 5);
  std::memcpy(views.data() + 16, &long_len, 4);
  std::memcpy(views.data() + 20, tail.data(), 4);  // prefix
  std::memcpy(views.data() + 24, &zero, 4);        // buffer 0
  std::memcpy(views.data() + 28, &zero, 4);        // offset 0
  cols = {{"vu", views, std::vector<uint8_t>(tail.begin(), tail.end()), {int64_t(tail.size())}},
          {"vz", views, std::vector<uint8_t>(tail.begin(), tail.end()), {int64_t(tail.size())}}};
  given = false;
  ArrowArrayStream viewed = stream;
  viewed.release = [](ArrowArrayStream* s) { s->release = nullptr; };
  auto views_in = StreamImporter::Make(&viewed);
  ASSERT_TRUE(views_in.ok()) << views_in.status().ToString();
  EXPECT_EQ((*views_in)->schema().ToString(), "i8:string,u16:binary");
  Batch v;
  ASSERT_TRUE(*(*views_in)->Next(&v));
  EXPECT_EQ(v.column(0).GetString(0), "short");
  EXPECT_EQ(v.column(0).GetString(1), tail);
  EXPECT_EQ(v.column(1).GetString(1), tail);
  // A view past its data buffer is refused.
  cols[0].sizes = {4};
  cols.resize(1);
  given = false;
  ArrowArrayStream outside = stream;
  outside.release = [](ArrowArrayStream* s) { s->release = nullptr; };
  auto past = StreamImporter::Make(&outside);
  ASSERT_TRUE(past.ok());
  Batch p;
  auto read = (*past)->Next(&p);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("outside its data buffers"), std::string::npos) << read.status().ToString();
}


// Our IPC stream read back: every type, NULL and value of random batches, whole and in batches.
TEST(IpcReaderTest, OurStreamsReadBackExactly) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const Schema schema = testing::RandomSchema(seed, 12);
    std::vector<Batch> batches;
    IpcStreamWriter writer(schema);
    std::string bytes;
    for (size_t b = 0; b < 3; ++b) {
      batches.push_back(testing::RandomBatch(schema, b == 1 ? 0 : 40 + 13 * b, seed * 10 + b, 0.2));
      ASSERT_TRUE(writer.Write(batches.back(), &bytes).ok());
    }
    writer.Finish(&bytes);
    auto reader = OpenIpc(bytes, "s.arrows");
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->schema(), schema);
    for (const Batch& want : batches) {
      if (want.num_rows() == 0) continue;  // a batch of no rows is skipped
      Batch got;
      auto more = (*reader)->Next(&got);
      ASSERT_TRUE(more.ok()) << more.status().ToString();
      ASSERT_TRUE(*more);
      ASSERT_TRUE(got.Equals(want)) << "seed " << seed << " schema " << schema.ToString();
    }
    Batch end;
    auto more = (*reader)->Next(&end);
    ASSERT_TRUE(more.ok());
    EXPECT_FALSE(*more);
  }
}

// Hostile bytes: every truncation and random corruptions of a valid stream give an error (or,
// where the damage hits only values, rows), never a crash or a read outside the bytes (ASan).
TEST(IpcReaderTest, TruncatedAndCorruptedStreamsFailCleanly) {
  const Schema schema = testing::RandomSchema(5, 12);
  IpcStreamWriter writer(schema);
  std::string bytes;
  ASSERT_TRUE(writer.Write(testing::RandomBatch(schema, 30, 5, 0.3), &bytes).ok());
  writer.Finish(&bytes);
  auto drain = [](std::string data) -> Status {
    ASSIGN_OR_RETURN(std::unique_ptr<BatchReader> reader, OpenIpc(std::move(data), "x.arrows"));
    Batch b;
    for (int i = 0; i < 100; ++i) {
      ASSIGN_OR_RETURN(bool more, reader->Next(&b));
      if (!more) return Status::OK();
    }
    return Status::Internal("more than 100 batches");
  };
  ASSERT_TRUE(drain(bytes).ok());
  // A stream may end without its end-of-stream marker: a cut between two messages reads (the
  // schema alone, or the schema and the batch); a cut anywhere else is an error.
  size_t whole_messages = 0;
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    const Status st = drain(bytes.substr(0, cut));
    if (st.ok()) {
      ++whole_messages;
      continue;
    }
    EXPECT_TRUE(st.IsCorruption()) << "cut at " << cut << ": " << st.ToString();
  }
  EXPECT_LE(whole_messages, 2u);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bad = bytes;
    for (int k = 0; k < 1 + trial % 4; ++k) bad[rng() % bad.size()] = char(rng());
    const Status st = drain(bad);
    EXPECT_TRUE(st.ok() || st.IsCorruption() || st.IsNotSupported() || st.IsInvalidArgument()) << st.ToString();
  }
}

}  // namespace
}  // namespace lakeindex::arrow
