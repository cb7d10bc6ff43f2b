// Bit-level helpers shared by the Parquet encodings: little-endian loads, ULEB128/zigzag
// varints, and packing/unpacking of fixed-width integers in the LSB-first order of the
// RLE/bit-packing hybrid and DELTA_BINARY_PACKED (Encodings.md, "bit-packed-values").
//
// Internal to src/format/parquet; not a public API. All functions are pure and thread-safe.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace lakeindex::parquet::bits {

static_assert(std::endian::native == std::endian::little,
              "Parquet PLAIN and bit-packing code assumes a little-endian host");

inline uint64_t LoadLE64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

inline uint32_t LoadLE32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

inline uint64_t ZigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t ZigZagDecode(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

// Reads a ULEB128 of at most 10 bytes from data[*pos, size). Returns false when the varint
// runs past `size` or does not fit in 64 bits; *pos is then unspecified.
inline bool ReadUleb128(const uint8_t* data, size_t size, size_t* pos, uint64_t* out) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= size) return false;
    const uint8_t byte = data[(*pos)++];
    const uint64_t payload = byte & 0x7F;
    // The 10th byte may only carry the single top bit of a 64-bit value.
    if (shift == 63 && payload > 1) return false;
    result |= payload << shift;
    if ((byte & 0x80) == 0) {
      *out = result;
      return true;
    }
  }
  return false;
}

inline void WriteUleb128(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Bytes needed to hold `count` values of `width` bits, rounded up.
inline uint64_t PackedBytes(uint64_t count, int width) {
  return (count * static_cast<uint64_t>(width) + 7) / 8;
}

// Unpacks `count` values of `width` bits (0..8*sizeof(T)) that start at bit `bit_offset` of
// data[0, size). REQUIRES: bit_offset + count * width <= 8 * size.
// Groups of 8 values that start on a byte boundary and have width + 9 readable bytes from their
// start use a width-specialized path (constant shifts, 64-bit loads); the rest read byte by
// byte, so nothing at or past data + size is ever read. Callers may pass as `size` all bytes
// readable behind data (not just the packed run) so that more groups take the fast path.
template <typename T>
void Unpack(const uint8_t* data, size_t size, uint64_t bit_offset, int width, size_t count, T* out);

// Appends `count` values of `width` bits, LSB first, padded with zero bits to a whole byte.
// REQUIRES: every value < 2^width.
template <typename T>
void Pack(const T* values, size_t count, int width, std::string* out);

}  // namespace lakeindex::parquet::bits
