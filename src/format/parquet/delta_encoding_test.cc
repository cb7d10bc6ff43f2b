// Tests of DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "format/parquet/encoding.h"
#include "util/test_util.h"

namespace lakeindex::parquet {
namespace {

using testing::Rng;

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

template <typename T>
std::string DeltaEncode(const std::vector<T>& values) {
  std::string out;
  DeltaBinaryPackedEncode(values.data(), values.size(), &out);
  return out;
}

template <typename T>
Status DeltaDecode(const std::string& enc, size_t n, std::vector<T>* out, size_t* consumed) {
  return DeltaBinaryPackedDecode<T>(Bytes(enc), enc.size(), n, out, consumed);
}

TEST(DeltaBinaryPackedTest, SpecExamplesWithBlockSize8) {
  // Encodings.md examples (block size 8, one miniblock), byte for byte.
  std::vector<int32_t> got;
  size_t consumed = 0;
  const std::string ex1(
      "\x08\x01\x05\x02"
      "\x02\x00",
      6);
  ASSERT_TRUE(DeltaDecode(ex1, 5, &got, &consumed).ok());
  EXPECT_EQ(got, (std::vector<int32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(consumed, ex1.size());
  // -2 (min delta) zigzags to 3; 0,0,0,3,3,3,3 at 2 bits is C0 3F.
  const std::string ex2(
      "\x08\x01\x08\x0E"
      "\x03\x02\xC0\x3F",
      8);
  ASSERT_TRUE(DeltaDecode(ex2, 8, &got, &consumed).ok());
  EXPECT_EQ(got, (std::vector<int32_t>{7, 5, 3, 1, 2, 3, 4, 5}));
  EXPECT_EQ(consumed, ex2.size());
}

TEST(DeltaBinaryPackedTest, EncoderWritesSpecLayout) {
  // Example 2 in the 128-value block / 4 miniblock layout: one needed miniblock of 32 values.
  const std::string want(
      "\x80\x01\x04\x08\x0E"
      "\x03\x02\x00\x00\x00"
      "\xC0\x3F\x00\x00\x00\x00\x00\x00",
      18);
  EXPECT_EQ(DeltaEncode(std::vector<int32_t>{7, 5, 3, 1, 2, 3, 4, 5}), want);
  // Constant deltas need width 0 and no miniblock bodies.
  EXPECT_EQ(DeltaEncode(std::vector<int64_t>{1, 2, 3, 4, 5}), std::string("\x80\x01\x04\x05\x02"
                                                                          "\x02\x00\x00\x00\x00",
                                                                          10));
}

template <typename T>
void CheckRoundTrip(const std::vector<T>& values) {
  std::string enc = DeltaEncode(values);
  const size_t size = enc.size();
  enc += "trailing";  // what follows the stream must not be read
  std::vector<T> got;
  size_t consumed = 0;
  ASSERT_TRUE(DeltaDecode(enc, values.size(), &got, &consumed).ok());
  EXPECT_EQ(got, values);
  EXPECT_EQ(consumed, size);
}

template <typename T>
void RoundTripCases() {
  using L = std::numeric_limits<T>;
  Rng rng(10);
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{32}, size_t{127}, size_t{128},
                   size_t{129}, size_t{1000}}) {
    std::vector<T> random(n), sorted(n), constant(n, T{42}), small(n);
    for (size_t i = 0; i < n; ++i) {
      random[i] = static_cast<T>(rng.Next());
      sorted[i] = static_cast<T>(i * 3 + (i % 5));
      small[i] = static_cast<T>(rng.Range(-3, 3));
    }
    CheckRoundTrip(random);
    CheckRoundTrip(sorted);
    CheckRoundTrip(constant);
    CheckRoundTrip(small);
  }
  // Deltas that overflow T must wrap, in both directions.
  CheckRoundTrip<T>({L::min(), L::max(), L::min(), 0, -1, L::max(), L::max(), L::min()});
}

TEST(DeltaBinaryPackedTest, RoundTripInt32) { RoundTripCases<int32_t>(); }
TEST(DeltaBinaryPackedTest, RoundTripInt64) { RoundTripCases<int64_t>(); }

TEST(DeltaBinaryPackedTest, WrongCountIsCorruption) {
  const std::string enc = DeltaEncode(std::vector<int32_t>{1, 2, 3});
  std::vector<int32_t> got;
  size_t consumed;
  EXPECT_TRUE(DeltaDecode(enc, 4, &got, &consumed).IsCorruption());
  EXPECT_TRUE(DeltaDecode(enc, 2, &got, &consumed).IsCorruption());
}

TEST(DeltaBinaryPackedTest, BadHeaderOrWidthIsCorruption) {
  std::vector<int32_t> got;
  size_t consumed;
  // Block size 0; miniblock of 12 values; 3 miniblocks not dividing 128.
  for (const std::string& bad :
       {std::string("\x00\x01\x01\x00", 4), std::string("\x0C\x01\x01\x00", 4),
        std::string("\x80\x01\x03\x01\x00", 5)}) {
    EXPECT_TRUE(DeltaDecode(bad, 1, &got, &consumed).IsCorruption());
  }
  // Bit width 33 for INT32 (the spec forbids more bits than the physical type).
  std::string wide(
      "\x08\x01\x02\x00"
      "\x00\x21",
      6);
  wide += std::string(33, '\xFF');
  EXPECT_TRUE(DeltaDecode(wide, 2, &got, &consumed).IsCorruption());
  std::vector<int64_t> got64;
  EXPECT_TRUE(DeltaDecode(wide, 2, &got64, &consumed).ok());  // fine for INT64
}

TEST(DeltaBinaryPackedTest, EveryTruncationIsCorruption) {
  Rng rng(11);
  std::vector<int64_t> values(300);
  for (auto& v : values) v = rng.Range(-1000000, 1000000);
  const std::string enc = DeltaEncode(values);
  for (size_t len = 0; len < enc.size(); ++len) {
    std::vector<uint8_t> cut(enc.begin(), enc.begin() + len);
    std::vector<int64_t> got;
    size_t consumed;
    EXPECT_TRUE(
        DeltaBinaryPackedDecode<int64_t>(cut.data(), cut.size(), values.size(), &got, &consumed)
            .IsCorruption())
        << "len " << len;
  }
}

TEST(DeltaBinaryPackedTest, RandomByteFlipsNeverMisbehave) {
  Rng rng(12);
  std::vector<int32_t> values(500);
  for (auto& v : values) v = static_cast<int32_t>(rng.Range(-50, 5000));
  const std::string enc = DeltaEncode(values);
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<uint8_t> copy(enc.begin(), enc.end());
    for (int f = 0; f < 2; ++f)
      copy[rng.Uniform(copy.size())] ^= static_cast<uint8_t>(1 + rng.Uniform(255));
    std::vector<int32_t> got;
    size_t consumed = 0;
    const Status st =
        DeltaBinaryPackedDecode<int32_t>(copy.data(), copy.size(), values.size(), &got, &consumed);
    if (st.ok()) {
      ASSERT_EQ(got.size(), values.size());
      ASSERT_LE(consumed, copy.size());
    } else {
      ASSERT_TRUE(st.IsCorruption()) << st.ToString();
    }
  }
}

TEST(DeltaLengthByteArrayTest, SpecExampleRoundTrip) {
  const std::vector<std::string_view> values = {"Hello", "World", "Foobar", "ABCDEF"};
  std::string enc;
  DeltaLengthByteArrayEncode(values.data(), values.size(), &enc);
  EXPECT_EQ(enc, DeltaEncode(std::vector<int32_t>{5, 5, 6, 6}) + "HelloWorldFoobarABCDEF");
  std::vector<std::string_view> got;
  ASSERT_TRUE(DeltaLengthByteArrayDecode(Bytes(enc), enc.size(), values.size(), &got).ok());
  EXPECT_EQ(got, values);
  for (size_t len = 0; len < enc.size(); ++len) {
    std::vector<uint8_t> cut(enc.begin(), enc.begin() + len);
    EXPECT_TRUE(
        DeltaLengthByteArrayDecode(cut.data(), cut.size(), values.size(), &got).IsCorruption())
        << "len " << len;
  }
}

TEST(DeltaLengthByteArrayTest, NegativeLengthIsCorruption) {
  const std::string enc = DeltaEncode(std::vector<int32_t>{2, -1}) + "abc";
  std::vector<std::string_view> got;
  EXPECT_TRUE(DeltaLengthByteArrayDecode(Bytes(enc), enc.size(), 2, &got).IsCorruption());
}

TEST(DeltaByteArrayTest, SpecExampleLayoutAndRoundTrip) {
  const std::vector<std::string_view> values = {"axis", "axle", "babble", "babyhood"};
  std::string enc;
  DeltaByteArrayEncode(values.data(), values.size(), &enc);
  EXPECT_EQ(enc, DeltaEncode(std::vector<int32_t>{0, 2, 0, 3}) +
                     DeltaEncode(std::vector<int32_t>{4, 2, 6, 5}) + "axislebabbleyhood");
  std::vector<std::string> got;
  ASSERT_TRUE(DeltaByteArrayDecode(Bytes(enc), enc.size(), values.size(), &got).ok());
  EXPECT_EQ(got, (std::vector<std::string>{"axis", "axle", "babble", "babyhood"}));
  for (size_t len = 0; len < enc.size(); ++len) {
    std::vector<uint8_t> cut(enc.begin(), enc.begin() + len);
    EXPECT_TRUE(DeltaByteArrayDecode(cut.data(), cut.size(), values.size(), &got).IsCorruption())
        << "len " << len;
  }
}

TEST(DeltaByteArrayTest, RandomStringsRoundTrip) {
  Rng rng(13);
  std::vector<std::string> strings(700);
  for (auto& s : strings) {
    s = "prefix/" + std::to_string(rng.Uniform(50)) + "/" +
        std::string(rng.Uniform(20), 'a' + rng.Uniform(3));
  }
  std::sort(strings.begin(), strings.end());
  strings.push_back("");  // an empty value after a long one
  const std::vector<std::string_view> views(strings.begin(), strings.end());
  std::string enc;
  DeltaByteArrayEncode(views.data(), views.size(), &enc);
  std::vector<std::string> got;
  ASSERT_TRUE(DeltaByteArrayDecode(Bytes(enc), enc.size(), views.size(), &got).ok());
  EXPECT_EQ(got, strings);
}

TEST(DeltaByteArrayTest, PrefixLongerThanPreviousIsCorruption) {
  // First value may not share a prefix with anything; second claims 5 of 3 bytes.
  for (const std::vector<int32_t>& prefixes :
       {std::vector<int32_t>{1, 0}, std::vector<int32_t>{0, 5}}) {
    const std::string enc =
        DeltaEncode(prefixes) + DeltaEncode(std::vector<int32_t>{3, 1}) + "abcd";
    std::vector<std::string> got;
    EXPECT_TRUE(DeltaByteArrayDecode(Bytes(enc), enc.size(), 2, &got).IsCorruption());
  }
}

TEST(ByteStreamSplitTest, SpecExample) {
  const std::string enc("\xAA\x00\xA3\xBB\x11\xB4\xCC\x22\xC5\xDD\x33\xD6", 12);
  uint8_t got[12];
  ASSERT_TRUE(ByteStreamSplitDecode(Bytes(enc), enc.size(), 3, 4, got).ok());
  const std::string want("\xAA\xBB\xCC\xDD\x00\x11\x22\x33\xA3\xB4\xC5\xD6", 12);
  EXPECT_EQ(std::memcmp(got, want.data(), 12), 0);
  std::string back;
  ByteStreamSplitEncode(reinterpret_cast<const uint8_t*>(want.data()), 3, 4, &back);
  EXPECT_EQ(back, enc);
}

TEST(ByteStreamSplitTest, RoundTripWidths) {
  Rng rng(14);
  for (size_t width : {1, 2, 3, 4, 8, 12, 16}) {
    for (size_t n : {0, 1, 5, 1000}) {
      std::vector<uint8_t> values(n * width);
      for (auto& b : values) b = static_cast<uint8_t>(rng.Next());
      std::string enc;
      ByteStreamSplitEncode(values.data(), n, width, &enc);
      std::vector<uint8_t> got(n * width);
      ASSERT_TRUE(ByteStreamSplitDecode(Bytes(enc), enc.size(), n, width, got.data()).ok());
      EXPECT_EQ(got, values) << "width " << width << " n " << n;
    }
  }
}

TEST(ByteStreamSplitTest, SizeMismatchIsCorruption) {
  const std::string enc(12, 'x');
  uint8_t got[64];
  EXPECT_TRUE(ByteStreamSplitDecode(Bytes(enc), 11, 2, 4, got).IsCorruption());  // not a multiple
  EXPECT_TRUE(ByteStreamSplitDecode(Bytes(enc), 12, 4, 4, got).IsCorruption());  // too few bytes
  EXPECT_TRUE(ByteStreamSplitDecode(Bytes(enc), 12, 1, 0, got).IsCorruption());  // zero width
}

}  // namespace
}  // namespace lakeindex::parquet
