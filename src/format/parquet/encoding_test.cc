// Tests of bit packing, the RLE/bit-packing hybrid and PLAIN.
#include "format/parquet/encoding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "format/parquet/bit_util.h"
#include "util/test_util.h"

namespace lakeindex::parquet {
namespace {

using testing::Rng;

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

uint64_t MaxForWidth(int width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

TEST(BitWidthTest, Boundaries) {
  EXPECT_EQ(BitWidth(0), 0);
  EXPECT_EQ(BitWidth(1), 1);
  EXPECT_EQ(BitWidth(2), 2);
  EXPECT_EQ(BitWidth(255), 8);
  EXPECT_EQ(BitWidth(256), 9);
  EXPECT_EQ(BitWidth(~uint64_t{0}), 64);
}

TEST(BitPackTest, RoundTripEveryWidthAndOffset) {
  Rng rng(1);
  for (int width = 0; width <= 64; ++width) {
    for (size_t count : {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{100}}) {
      std::vector<uint64_t> values(count);
      for (auto& v : values) v = rng.Next() & MaxForWidth(width);
      std::string packed;
      bits::Pack(values.data(), count, width, &packed);
      ASSERT_EQ(packed.size(), bits::PackedBytes(count, width));
      // Unpack from every starting value so unaligned starts and the fast path both run.
      for (size_t start = 0; start < count; start += 3) {
        std::vector<uint64_t> got(count - start);
        bits::Unpack<uint64_t>(Bytes(packed), packed.size(), uint64_t{start} * width, width,
                               count - start, got.data());
        ASSERT_TRUE(std::equal(got.begin(), got.end(), values.begin() + start))
            << "width " << width << " count " << count << " start " << start;
      }
    }
  }
}

TEST(BitPackTest, SpecExampleWidth3) {
  // Encodings.md: 0..7 at bit width 3 packs to 10001000 11000110 11111010.
  const uint32_t values[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  std::string packed;
  bits::Pack(values, 8, 3, &packed);
  EXPECT_EQ(packed, std::string("\x88\xC6\xFA"));
}

// Values with runs of random lengths, so both run kinds appear.
std::vector<uint32_t> RunnyValues(Rng& rng, size_t n, int width) {
  std::vector<uint32_t> values;
  values.reserve(n);
  while (values.size() < n) {
    const uint32_t v = static_cast<uint32_t>(rng.Next() & MaxForWidth(width));
    const size_t run = rng.Chance(0.5) ? 1 : static_cast<size_t>(rng.Range(1, 40));
    for (size_t i = 0; i < run && values.size() < n; ++i) values.push_back(v);
  }
  return values;
}

std::string RleEncode(const std::vector<uint32_t>& values, int width) {
  RleEncoder enc(width);
  enc.Put(values.data(), values.size());
  return enc.Finish();
}

TEST(RleTest, RoundTripEveryWidth) {
  Rng rng(2);
  for (int width = 0; width <= 32; ++width) {
    for (size_t n :
         {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{600}, size_t{5000}}) {
      for (bool runny : {false, true}) {
        std::vector<uint32_t> values(n);
        if (runny) {
          values = RunnyValues(rng, n, width);
        } else {
          for (auto& v : values) v = static_cast<uint32_t>(rng.Next() & MaxForWidth(width));
        }
        const std::string enc = RleEncode(values, width);
        RleDecoder dec(Bytes(enc), enc.size(), width);
        std::vector<uint32_t> got(n);
        size_t done = 0;
        while (done < n) {  // uneven batches cross run boundaries
          const size_t k = std::min<size_t>(n - done, rng.Range(1, 100));
          ASSERT_TRUE(dec.Get(got.data() + done, k).ok());
          done += k;
        }
        ASSERT_EQ(got, values) << "width " << width << " n " << n << " runny " << runny;
        EXPECT_EQ(dec.consumed(), enc.size());
      }
    }
  }
}

TEST(RleTest, BatchPutEqualsSinglePuts) {
  Rng rng(7);
  for (int width : {0, 1, 2, 5, 16, 32}) {
    const std::vector<uint32_t> values = RunnyValues(rng, 4000, width);
    RleEncoder single(width);
    for (uint32_t v : values) single.Put(v);
    RleEncoder batch(width);
    size_t done = 0;
    while (done < values.size()) {  // batches that start mid-group and mid-run
      const size_t k = std::min<size_t>(values.size() - done, rng.Range(1, 50));
      batch.Put(values.data() + done, k);
      done += k;
    }
    EXPECT_EQ(batch.Finish(), single.Finish()) << "width " << width;
  }
}

TEST(RleTest, LongRunIsOneRleRun) {
  const std::vector<uint32_t> values(100, 5);
  // ULEB128(100 << 1) = C8 01, then the value in one byte.
  EXPECT_EQ(RleEncode(values, 3), std::string("\xC8\x01\x05"));
  // A 17-bit width stores the value in 3 bytes.
  EXPECT_EQ(RleEncode(std::vector<uint32_t>(10, 0x10203), 17), std::string("\x14\x03\x02\x01", 4));
}

TEST(RleTest, MixedRunsChooseBothKinds) {
  std::vector<uint32_t> values = {1, 2, 3, 4, 5, 6, 7, 0};
  values.insert(values.end(), 50, 6);
  const std::string enc = RleEncode(values, 3);
  // One bit-packed group (header 03 + 3 bytes), then an RLE run of 50 sixes (header 100 = 64).
  ASSERT_EQ(enc.size(), 4u + 2u);
  EXPECT_EQ(static_cast<uint8_t>(enc[0]), 0x03);
  EXPECT_EQ(enc.substr(4), std::string("\x64\x06"));
}

TEST(RleTest, DecodesHandWrittenRuns) {
  // Bit-packed run of 8 values at width 3 (the spec example), then an RLE run of 3 fives.
  const std::string data("\x03\x88\xC6\xFA\x06\x05", 6);
  RleDecoder dec(Bytes(data), data.size(), 3);
  uint32_t got[11];
  ASSERT_TRUE(dec.Get(got, 11).ok());
  const uint32_t want[11] = {0, 1, 2, 3, 4, 5, 6, 7, 5, 5, 5};
  EXPECT_TRUE(std::equal(got, got + 11, want));
}

TEST(RleTest, ReadingPastTheRunsIsCorruption) {
  const std::string enc = RleEncode(std::vector<uint32_t>(16, 1), 1);
  RleDecoder dec(Bytes(enc), enc.size(), 1);
  std::vector<uint32_t> got(17);
  EXPECT_TRUE(dec.Get(got.data(), 17).IsCorruption());
}

TEST(RleTest, SkipThenGet) {
  Rng rng(3);
  const std::vector<uint32_t> values = RunnyValues(rng, 3000, 5);
  const std::string enc = RleEncode(values, 5);
  for (size_t skip : {size_t{0}, size_t{3}, size_t{8}, size_t{1001}, size_t{2999}}) {
    RleDecoder dec(Bytes(enc), enc.size(), 5);
    ASSERT_TRUE(dec.Skip(skip).ok());
    std::vector<uint32_t> rest(values.size() - skip);
    ASSERT_TRUE(dec.Get(rest.data(), rest.size()).ok());
    EXPECT_TRUE(std::equal(rest.begin(), rest.end(), values.begin() + skip));
  }
}

TEST(RleTest, RejectsValueWiderThanBitWidth) {
  const std::string data("\x10\x04", 2);  // 8 copies of 4 at width 2
  RleDecoder dec(Bytes(data), data.size(), 2);
  uint32_t got[8];
  EXPECT_TRUE(dec.Get(got, 8).IsCorruption());
}

TEST(RleTest, InvalidBitWidthIsCorruption) {
  const std::string data("\x02\x01", 2);
  uint32_t v;
  EXPECT_TRUE(RleDecoder(Bytes(data), data.size(), 33).Get(&v, 1).IsCorruption());
  EXPECT_TRUE(RleDecoder(Bytes(data), data.size(), -1).Skip(1).IsCorruption());
}

TEST(RleTest, RejectsOverlongRuns) {
  std::string data;
  bits::WriteUleb128(uint64_t{1} << 33, &data);  // RLE run of 2^32 values
  data.push_back(1);
  RleDecoder dec(Bytes(data), data.size(), 1);
  uint32_t v;
  EXPECT_TRUE(dec.Get(&v, 1).IsCorruption());
}

TEST(RleTest, EveryTruncationIsCorruptionOrExact) {
  Rng rng(4);
  for (int width : {1, 3, 8, 13, 32}) {
    const std::vector<uint32_t> values = RunnyValues(rng, 300, width);
    const std::string enc = RleEncode(values, width);
    for (size_t len = 0; len < enc.size(); ++len) {
      // A copy of exactly `len` bytes, so ASan sees any read past the cut.
      std::vector<uint8_t> cut(enc.begin(), enc.begin() + len);
      RleDecoder dec(cut.data(), cut.size(), width);
      std::vector<uint32_t> got(values.size());
      const Status st = dec.Get(got.data(), got.size());
      // Only cutting the zero padding of the last bit-packed group may still decode.
      if (st.ok()) {
        EXPECT_EQ(got, values) << "width " << width << " len " << len;
      } else {
        EXPECT_TRUE(st.IsCorruption()) << st.ToString();
      }
    }
  }
}

TEST(RleTest, RandomByteFlipsNeverMisbehave) {
  Rng rng(5);
  for (int iter = 0; iter < 2000; ++iter) {
    const int width = static_cast<int>(rng.Uniform(33));
    const std::vector<uint32_t> values = RunnyValues(rng, 200, width);
    std::string enc = RleEncode(values, width);
    if (enc.empty()) continue;
    for (int flips = 0; flips < 3; ++flips)
      enc[rng.Uniform(enc.size())] ^= static_cast<char>(1 + rng.Uniform(255));
    std::vector<uint8_t> copy(enc.begin(), enc.end());
    RleDecoder dec(copy.data(), copy.size(), width);
    std::vector<uint32_t> got(values.size());
    const Status st = dec.Get(got.data(), got.size());
    if (st.ok()) {
      for (uint32_t v : got) ASSERT_LE(v, MaxForWidth(width));
    } else {
      ASSERT_TRUE(st.IsCorruption()) << st.ToString();
    }
  }
}

template <typename T>
void CheckPlainRoundTrip(const std::vector<T>& values) {
  std::string enc;
  PlainEncode(values.data(), values.size(), &enc);
  ASSERT_EQ(enc.size(), values.size() * sizeof(T));
  PlainDecoder dec(Bytes(enc), enc.size());
  std::vector<T> got(values.size());
  ASSERT_TRUE(dec.GetFixed(got.data(), got.size()).ok());
  EXPECT_EQ(std::memcmp(got.data(), values.data(), enc.size()), 0);  // bitwise, NaN included
  EXPECT_EQ(dec.remaining(), 0u);
  T extra;
  EXPECT_TRUE(dec.GetFixed(&extra, 1).IsCorruption());
}

TEST(PlainTest, FixedWidthRoundTrip) {
  CheckPlainRoundTrip<int32_t>(
      {0, -1, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), 7});
  CheckPlainRoundTrip<int64_t>(
      {0, -1, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()});
  CheckPlainRoundTrip<float>({0.0f, -0.0f, std::nanf(""), -INFINITY, 1.5f});
  CheckPlainRoundTrip<double>({0.0, -0.0, std::nan(""), INFINITY, 1e-310});
}

TEST(PlainTest, LittleEndianLayout) {
  const int32_t v = 0x01020304;
  std::string enc;
  PlainEncode(&v, 1, &enc);
  EXPECT_EQ(enc, std::string("\x04\x03\x02\x01"));
}

TEST(PlainTest, BoolsContinueAcrossCalls) {
  Rng rng(6);
  std::vector<uint8_t> values(37);
  for (auto& v : values) v = rng.Chance(0.5) ? 1 : 0;
  std::string enc;
  PlainEncodeBools(values.data(), values.size(), &enc);
  ASSERT_EQ(enc.size(), 5u);
  PlainDecoder dec(Bytes(enc), enc.size());
  std::vector<uint8_t> got(values.size());
  size_t done = 0;
  for (size_t k : {3, 1, 8, 13, 12}) {
    ASSERT_TRUE(dec.GetBools(got.data() + done, k).ok());
    done += k;
  }
  EXPECT_EQ(got, values);
  uint8_t extra[4];
  EXPECT_TRUE(dec.GetBools(extra, 4).IsCorruption());  // only 3 padding bits remain
  EXPECT_TRUE(dec.GetBools(extra, 3).ok());
}

TEST(PlainTest, BoolBitOrderIsLsbFirst) {
  const uint8_t values[9] = {1, 0, 0, 0, 0, 0, 0, 1, 1};
  std::string enc;
  PlainEncodeBools(values, 9, &enc);
  EXPECT_EQ(enc, std::string("\x81\x01"));
}

TEST(PlainTest, ByteArraysRoundTrip) {
  const std::vector<std::string> values = {"", "a", std::string("with\0nul", 8),
                                           std::string(1000, 'x')};
  std::string enc;
  for (const auto& v : values) PlainEncodeByteArray(v, &enc);
  const std::string fixed = "0123456789AB";  // an INT96 after them
  enc += fixed;
  PlainDecoder dec(Bytes(enc), enc.size());
  std::vector<std::string_view> got(values.size());
  ASSERT_TRUE(dec.GetByteArrays(got.data(), got.size()).ok());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(got[i], values[i]);
  std::string_view int96;
  ASSERT_TRUE(dec.GetBytes(12, &int96).ok());
  EXPECT_EQ(int96, fixed);
  EXPECT_TRUE(dec.GetFixedLenByteArray(1, &int96).IsCorruption());
}

TEST(PlainTest, EveryTruncatedByteArrayIsCorruption) {
  std::string enc;
  PlainEncodeByteArray("hello", &enc);
  PlainEncodeByteArray("world!", &enc);
  for (size_t len = 0; len < enc.size(); ++len) {
    std::vector<uint8_t> cut(enc.begin(), enc.begin() + len);
    PlainDecoder dec(cut.data(), cut.size());
    std::string_view a, b;
    Status st = dec.GetByteArray(&a);
    if (st.ok()) st = dec.GetByteArray(&b);
    EXPECT_TRUE(st.IsCorruption()) << "len " << len;
  }
}

TEST(PlainTest, HugeLengthIsCorruptionNotOverflow) {
  const std::string enc(
      "\xFF\xFF\xFF\xFF"
      "abc",
      7);
  PlainDecoder dec(Bytes(enc), enc.size());
  std::string_view v;
  EXPECT_TRUE(dec.GetByteArray(&v).IsCorruption());
  int64_t big[1];
  PlainDecoder dec2(Bytes(enc), enc.size());
  EXPECT_TRUE(dec2.GetFixed(big, std::numeric_limits<size_t>::max() / 4).IsCorruption());
}

}  // namespace
}  // namespace lakeindex::parquet
