#include "format/parquet/crc32.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LAKEINDEX_CRC32_CLMUL 1
#endif

namespace lakeindex::parquet {

namespace {

constexpr uint32_t kPolyReflected = 0xEDB88320u;

// Slicing-by-8 tables: table[k][b] is the CRC of byte b followed by k zero bytes.
struct Tables {
  std::array<std::array<uint32_t, 256>, 8> t;
  constexpr Tables() : t() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolyReflected : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i) {
      for (int k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
    }
  }
};
constexpr Tables kTables;

// The functions below work on the raw CRC register (the value before the final inversion).
uint32_t BytewiseState(const uint8_t* data, size_t size, uint32_t c) {
  const auto& t0 = kTables.t[0];
  while (size-- > 0) c = (c >> 8) ^ t0[(c ^ *data++) & 0xFF];
  return c;
}

uint32_t Slicing8State(const uint8_t* data, size_t size, uint32_t c) {
  const auto& t = kTables.t;
  while (size >= 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, data, 4);
    std::memcpy(&hi, data + 4, 4);
    lo ^= c;
    c = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^
        t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF] ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
    data += 8;
    size -= 8;
  }
  return BytewiseState(data, size, c);
}

#ifdef LAKEINDEX_CRC32_CLMUL
// Carry-less multiply folding (Gopal et al., "Fast CRC Computation for Generic Polynomials
// Using PCLMULQDQ Instruction", Intel 2009), for the bit-reflected gzip polynomial. Four
// 128-bit lanes are folded 64 bytes at a time, merged, folded 16 bytes at a time, then reduced
// to 32 bits with a Barrett reduction. The constants are x^k mod P(x) (bit-reflected, shifted
// one bit) for the fold distances: k1/k2 fold by 512 bits, k3/k4 by 128 bits, k5 by 64 bits;
// mu and P' drive the Barrett step.
#define LAKEINDEX_CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

LAKEINDEX_CLMUL_TARGET inline __m128i Load128(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
// x * x^k: the low half times one constant plus the high half times the other.
LAKEINDEX_CLMUL_TARGET inline __m128i Fold(__m128i x, __m128i k) {
  return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

// REQUIRES: size >= 64 and a multiple of 16.
LAKEINDEX_CLMUL_TARGET uint32_t ClmulState(const uint8_t* data, size_t size,
                                                              uint32_t c) {
  const __m128i k1k2 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
  const __m128i k3k4 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
  const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124);
  const __m128i mu_poly = _mm_set_epi64x(0x1f7011641, 0x1db710641);
  const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
  __m128i x1 = _mm_xor_si128(Load128(data), _mm_cvtsi32_si128(int(c)));
  __m128i x2 = Load128(data + 16), x3 = Load128(data + 32), x4 = Load128(data + 48);
  data += 64;
  size -= 64;
  while (size >= 64) {
    x1 = _mm_xor_si128(Fold(x1, k1k2), Load128(data));
    x2 = _mm_xor_si128(Fold(x2, k1k2), Load128(data + 16));
    x3 = _mm_xor_si128(Fold(x3, k1k2), Load128(data + 32));
    x4 = _mm_xor_si128(Fold(x4, k1k2), Load128(data + 48));
    data += 64;
    size -= 64;
  }
  x1 = _mm_xor_si128(Fold(x1, k3k4), x2);
  x1 = _mm_xor_si128(Fold(x1, k3k4), x3);
  x1 = _mm_xor_si128(Fold(x1, k3k4), x4);
  while (size >= 16) {
    x1 = _mm_xor_si128(Fold(x1, k3k4), Load128(data));
    data += 16;
    size -= 16;
  }
  // 128 -> 64 bits: low half times k4, added to the high half.
  x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), _mm_clmulepi64_si128(k3k4, x1, 0x01));
  // 64 -> 32 bits (appending 32 zero bits).
  x1 = _mm_xor_si128(_mm_srli_si128(x1, 4),
                     _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), k5, 0x00));
  // Barrett reduction to the 32-bit remainder.
  __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), mu_poly, 0x10);
  t = _mm_clmulepi64_si128(_mm_and_si128(t, mask32), mu_poly, 0x00);
  return uint32_t(_mm_extract_epi32(_mm_xor_si128(t, x1), 1));
}

bool CpuHasClmul() {
  static const bool has = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return has;
}
#endif

}  // namespace

uint32_t Crc32Bytewise(const uint8_t* data, size_t size, uint32_t crc) {
  return ~BytewiseState(data, size, ~crc);
}

uint32_t Crc32Slicing8(const uint8_t* data, size_t size, uint32_t crc) {
  return ~Slicing8State(data, size, ~crc);
}

bool Crc32HasHardwareFolding() {
#ifdef LAKEINDEX_CRC32_CLMUL
  return CpuHasClmul();
#else
  return false;
#endif
}

uint32_t Crc32(const uint8_t* data, size_t size, uint32_t crc) {
  uint32_t c = ~crc;
#ifdef LAKEINDEX_CRC32_CLMUL
  if (size >= 64 && CpuHasClmul()) {
    size_t bulk = size & ~size_t(15);
    c = ClmulState(data, bulk, c);
    data += bulk;
    size -= bulk;
  }
#endif
  return ~Slicing8State(data, size, c);
}

}  // namespace lakeindex::parquet
