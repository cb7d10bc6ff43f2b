#include "format/parquet/column_reader.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "format/parquet/crc32.h"
#include "format/parquet/encoding.h"

namespace lakeindex::parquet {
namespace {

// Hand-built pages reach the decoder's paths one at a time: the direct decompression of
// PLAIN fixed-width pages of REQUIRED columns (with and without conversions), its fallbacks,
// and the bulk scatter with validity bitmaps.

template <typename T>
std::string Plain(const std::vector<T>& v) {
  std::string out;
  PlainEncode(v.data(), v.size(), &out);
  return out;
}

// Definition levels of data page v1: 4-byte length + RLE/bit-packed hybrid, bit width 1.
std::string Levels(const std::vector<bool>& valid) {
  RleEncoder enc(1);
  for (bool b : valid) enc.Put(b ? 1u : 0u);
  std::string rle = enc.Finish();
  uint32_t len = uint32_t(rle.size());
  std::string out(4, '\0');
  std::memcpy(out.data(), &len, 4);
  return out + rle;
}

// Appends a v1 data page (body = levels + values, compressed with codec) to *chunk.
void AddPageV1(Codec codec, size_t num_values, Encoding encoding, const std::string& body,
               std::string* chunk) {
  std::string payload;
  if (codec == Codec::kUncompressed) {
    payload = body;
  } else {
    ASSERT_TRUE(Compress(codec, reinterpret_cast<const uint8_t*>(body.data()), body.size(), &payload).ok());
  }
  PageHeader h;
  h.type = PageType::kDataPage;
  h.uncompressed_page_size = int32_t(body.size());
  h.compressed_page_size = int32_t(payload.size());
  h.crc = int32_t(Crc32(reinterpret_cast<const uint8_t*>(payload.data()), payload.size()));
  DataPageHeader& d = h.data_page_header.emplace();
  d.num_values = int32_t(num_values);
  d.encoding = encoding;
  thrift::SerializeStruct(h, chunk);
  chunk->append(payload);
}

// Appends a v2 data page without levels (REQUIRED column).
void AddPageV2(Codec codec, size_t num_values, const std::string& values, std::string* chunk) {
  std::string payload;
  ASSERT_TRUE(Compress(codec, reinterpret_cast<const uint8_t*>(values.data()), values.size(), &payload).ok());
  PageHeader h;
  h.type = PageType::kDataPageV2;
  h.uncompressed_page_size = int32_t(values.size());
  h.compressed_page_size = int32_t(payload.size());
  DataPageHeaderV2& d = h.data_page_header_v2.emplace();
  d.num_values = d.num_rows = int32_t(num_values);
  d.encoding = Encoding::kPlain;
  thrift::SerializeStruct(h, chunk);
  chunk->append(payload);
}

Status Decode(const std::string& chunk, const LeafColumn& leaf, Codec codec, int64_t rows, Column* out) {
  return DecodeColumnChunk(reinterpret_cast<const uint8_t*>(chunk.data()), chunk.size(), 0, leaf,
                           codec, 0, rows, out);
}

LeafColumn Leaf(TypeId type, PhysicalType physical, bool nullable,
                ValueConversion conversion = ValueConversion::kNone) {
  LeafColumn leaf;
  leaf.name = "c";
  leaf.type = type;
  leaf.physical = physical;
  leaf.nullable = nullable;
  leaf.conversion = conversion;
  return leaf;
}

TEST(ColumnReaderTest, RequiredPlainPagesDecompressIntoTheColumnForEveryCodecAndPageVersion) {
  std::vector<double> a = {1.5, -2.25, 3e100}, b = {0.0, 7.0};
  for (Codec codec : {Codec::kSnappy, Codec::kZstd, Codec::kGzip, Codec::kUncompressed}) {
    std::string chunk;
    AddPageV1(codec, a.size(), Encoding::kPlain, Plain(a), &chunk);
    if (codec != Codec::kUncompressed) AddPageV2(codec, b.size(), Plain(b), &chunk);
    else AddPageV1(codec, b.size(), Encoding::kPlain, Plain(b), &chunk);
    Column out(TypeId::kDouble);
    ASSERT_TRUE(Decode(chunk, Leaf(TypeId::kDouble, PhysicalType::kDouble, false), codec, 5, &out).ok())
        << CodecName(codec);
    ASSERT_EQ(out.length(), 5u);
    EXPECT_FALSE(out.has_validity());
    std::vector<double> want = {1.5, -2.25, 3e100, 0.0, 7.0};
    for (size_t i = 0; i < 5; ++i) EXPECT_EQ(out.Get<double>(i), want[i]) << CodecName(codec) << " row " << i;
  }
}

TEST(ColumnReaderTest, DirectPathAppliesTimestampConversions) {
  std::vector<int64_t> millis = {0, 1700000000123, -1};
  std::string chunk;
  AddPageV1(Codec::kSnappy, millis.size(), Encoding::kPlain, Plain(millis), &chunk);
  Column out(TypeId::kTimestamp);
  ASSERT_TRUE(Decode(chunk, Leaf(TypeId::kTimestamp, PhysicalType::kInt64, false, ValueConversion::kMillisToMicros),
                     Codec::kSnappy, 3, &out).ok());
  EXPECT_EQ(out.Get<int64_t>(0), 0);
  EXPECT_EQ(out.Get<int64_t>(1), 1700000000123000);
  EXPECT_EQ(out.Get<int64_t>(2), -1000);

  std::vector<int64_t> huge = {INT64_MAX / 10};
  std::string bad;
  AddPageV1(Codec::kSnappy, 1, Encoding::kPlain, Plain(huge), &bad);
  Column sink(TypeId::kTimestamp);
  EXPECT_TRUE(Decode(bad, Leaf(TypeId::kTimestamp, PhysicalType::kInt64, false, ValueConversion::kMillisToMicros),
                     Codec::kSnappy, 1, &sink).IsCorruption());
}

TEST(ColumnReaderTest, WideningAndOddSizedPagesTakeTheGeneralPath) {
  // UINT32 widened to int64: not a byte copy.
  std::vector<int32_t> u = {-1, 5};
  std::string chunk;
  AddPageV1(Codec::kZstd, u.size(), Encoding::kPlain, Plain(u), &chunk);
  Column out(TypeId::kInt64);
  ASSERT_TRUE(Decode(chunk, Leaf(TypeId::kInt64, PhysicalType::kInt32, false, ValueConversion::kUint32ToInt64),
                     Codec::kZstd, 2, &out).ok());
  EXPECT_EQ(out.Get<int64_t>(0), 4294967295);
  EXPECT_EQ(out.Get<int64_t>(1), 5);

  // A PLAIN page with trailing bytes is legal; the values are its prefix.
  std::vector<int32_t> v = {10, 20, 30};
  std::string chunk2;
  AddPageV1(Codec::kSnappy, v.size(), Encoding::kPlain, Plain(v) + "xyz", &chunk2);
  Column out2(TypeId::kInt32);
  ASSERT_TRUE(Decode(chunk2, Leaf(TypeId::kInt32, PhysicalType::kInt32, false), Codec::kSnappy, 3, &out2).ok());
  EXPECT_EQ(out2.Get<int32_t>(2), 30);

  // Too few bytes for the declared values: Corruption, never a read past the page.
  std::string chunk3;
  AddPageV1(Codec::kSnappy, 4, Encoding::kPlain, Plain(v), &chunk3);
  Column out3(TypeId::kInt32);
  EXPECT_TRUE(Decode(chunk3, Leaf(TypeId::kInt32, PhysicalType::kInt32, false), Codec::kSnappy, 4, &out3).IsCorruption());
}

TEST(ColumnReaderTest, NullsAcrossPagesLandOnTheRightRows) {
  // Page sizes that are not multiples of 8, so each page's bitmap lands at an odd bit offset.
  std::vector<bool> valid1 = {true, false, true, true, false}, valid2 = {false, false, true, true, true, false, true};
  std::vector<int64_t> v1 = {1, 3, 4}, v2 = {13, 14, 15, 17};
  std::string chunk;
  AddPageV1(Codec::kZstd, valid1.size(), Encoding::kPlain, Levels(valid1) + Plain(v1), &chunk);
  AddPageV1(Codec::kZstd, valid2.size(), Encoding::kPlain, Levels(valid2) + Plain(v2), &chunk);
  std::vector<bool> all_valid(3, true);
  AddPageV1(Codec::kZstd, 3, Encoding::kPlain, Levels(all_valid) + Plain(std::vector<int64_t>{20, 21, 22}), &chunk);
  Column out(TypeId::kInt64);
  ASSERT_TRUE(Decode(chunk, Leaf(TypeId::kInt64, PhysicalType::kInt64, true), Codec::kZstd, 15, &out).ok());
  ASSERT_EQ(out.length(), 15u);
  std::vector<int64_t> want = {1, -1, 3, 4, -1, -1, -1, 13, 14, 15, -1, 17, 20, 21, 22};  // -1 = NULL
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] < 0) {
      EXPECT_TRUE(out.IsNull(i)) << "row " << i;
    } else {
      ASSERT_TRUE(out.IsValid(i)) << "row " << i;
      EXPECT_EQ(out.Get<int64_t>(i), want[i]) << "row " << i;
    }
  }
  EXPECT_EQ(out.null_count(), 5u);
}

TEST(ColumnReaderTest, DictionaryStringsWithAndWithoutNulls) {
  std::string chunk;
  std::string dict;
  for (std::string_view s : {"alpha", "", "gamma"}) PlainEncodeByteArray(s, &dict);
  PageHeader dh;
  dh.type = PageType::kDictionaryPage;
  dh.uncompressed_page_size = dh.compressed_page_size = int32_t(dict.size());
  DictionaryPageHeader& d = dh.dictionary_page_header.emplace();
  d.num_values = 3;
  d.encoding = Encoding::kPlain;
  thrift::SerializeStruct(dh, &chunk);
  chunk.append(dict);
  auto indices = [](std::vector<uint32_t> idx) {
    RleEncoder enc(2);
    enc.Put(idx.data(), idx.size());
    return std::string(1, char(2)) + enc.Finish();
  };
  std::vector<bool> valid = {true, false, true, true};
  AddPageV1(Codec::kUncompressed, 4, Encoding::kRleDictionary, Levels(valid) + indices({2, 0, 1}), &chunk);
  std::vector<bool> all(2, true);
  AddPageV1(Codec::kUncompressed, 2, Encoding::kRleDictionary, Levels(all) + indices({0, 2}), &chunk);
  Column out(TypeId::kString);
  ASSERT_TRUE(Decode(chunk, Leaf(TypeId::kString, PhysicalType::kByteArray, true), Codec::kUncompressed, 6, &out).ok());
  ASSERT_EQ(out.length(), 6u);
  EXPECT_EQ(out.GetString(0), "gamma");
  EXPECT_TRUE(out.IsNull(1));
  EXPECT_EQ(out.GetString(2), "alpha");
  EXPECT_EQ(out.GetString(3), "");
  EXPECT_TRUE(out.IsValid(3));
  EXPECT_EQ(out.GetString(4), "alpha");
  EXPECT_EQ(out.GetString(5), "gamma");
  EXPECT_EQ(out.null_count(), 1u);
}

}  // namespace
}  // namespace lakeindex::parquet
