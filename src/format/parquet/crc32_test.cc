#include "format/parquet/crc32.h"

#include <zlib.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace lakeindex::parquet {
namespace {

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

// Independent reference: the bit-at-a-time definition of the reflected CRC-32.
uint32_t BitwiseCrc(const uint8_t* data, size_t size, uint32_t crc = 0) {
  uint32_t c = ~crc;
  for (size_t i = 0; i < size; ++i) {
    c ^= data[i];
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
  }
  return ~c;
}

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(rng());
  return v;
}

TEST(Crc32Test, KnownValues) {
  EXPECT_EQ(Crc32(nullptr, 0), 0u);
  EXPECT_EQ(Crc32(Bytes("123456789"), 9), 0xCBF43926u);  // the standard check value
  std::string zeros(4096, '\0');
  EXPECT_EQ(Crc32(Bytes(zeros), zeros.size()), BitwiseCrc(Bytes(zeros), zeros.size()));
}

TEST(Crc32Test, EveryImplementationMatchesReferenceForAllLengthsUpTo4096) {
  // One buffer with a random start offset per length, so unaligned loads and every tail size
  // (and every number of 64- and 16-byte folds) are covered.
  std::vector<uint8_t> buf = RandomBytes(4096 + 64, 7);
  std::mt19937 rng(11);
  for (size_t len = 0; len <= 4096; ++len) {
    const uint8_t* p = buf.data() + rng() % 64;
    uint32_t want = BitwiseCrc(p, len);
    ASSERT_EQ(Crc32Bytewise(p, len), want) << "len " << len;
    ASSERT_EQ(Crc32Slicing8(p, len), want) << "len " << len;
    ASSERT_EQ(Crc32(p, len), want) << "len " << len;
    ASSERT_EQ(uint32_t(crc32(0, p, uInt(len))), want) << "zlib, len " << len;
  }
}

TEST(Crc32Test, ContinuationEqualsOneShot) {
  std::vector<uint8_t> buf = RandomBytes(10000, 3);
  uint32_t whole = Crc32(buf.data(), buf.size());
  EXPECT_EQ(whole, BitwiseCrc(buf.data(), buf.size()));
  for (size_t split : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(100), size_t(4097), size_t(9999)}) {
    uint32_t c = Crc32(buf.data(), split);
    c = Crc32(buf.data() + split, buf.size() - split, c);
    EXPECT_EQ(c, whole) << "split " << split;
    uint32_t s = Crc32Slicing8(buf.data(), split);
    EXPECT_EQ(Crc32Slicing8(buf.data() + split, buf.size() - split, s), whole) << "split " << split;
  }
}

TEST(Crc32Test, LargeRandomBuffersMatchZlib) {
  for (uint32_t seed = 0; seed < 8; ++seed) {
    std::vector<uint8_t> buf = RandomBytes(1 << 20, seed);
    size_t len = buf.size() - seed * 13;  // not always a multiple of 16
    EXPECT_EQ(Crc32(buf.data(), len), uint32_t(crc32(0, buf.data(), uInt(len)))) << "seed " << seed;
  }
}

#if defined(__x86_64__)
TEST(Crc32Test, UsesFoldingWhenTheCpuHasClmul) {
  // Otherwise the tests above would only have checked the table versions on this machine.
  EXPECT_EQ(Crc32HasHardwareFolding(),
            __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1"));
}
#endif

}  // namespace
}  // namespace lakeindex::parquet
