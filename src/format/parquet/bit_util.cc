#include "format/parquet/bit_util.h"

#include <algorithm>
#include <array>
#include <utility>

namespace lakeindex::parquet::bits {
namespace {

constexpr uint64_t LowMask(int width) {
  return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
}

// Reads the `width`-bit value at bit `bit`, touching only the bytes that hold its bits.
inline uint64_t ReadBitsSafe(const uint8_t* data, uint64_t bit, int width) {
  const uint8_t* p = data + (bit >> 3);
  const int shift = static_cast<int>(bit & 7);
  const int needed = (shift + width + 7) / 8;  // 1..9 bytes
  uint64_t lo = 0;
  for (int i = 0; i < std::min(needed, 8); ++i) lo |= uint64_t{p[i]} << (8 * i);
  uint64_t v = lo >> shift;
  if (needed == 9) v |= uint64_t{p[8]} << (64 - shift);
  return v & LowMask(width);
}

// One group of 8 values of W bits starting at a byte boundary. Reads in[0, W + 9).
template <int W, typename T, size_t J>
inline void UnpackOne(const uint8_t* in, T* out) {
  constexpr int kBit = static_cast<int>(J) * W;
  constexpr int kByte = kBit / 8;
  constexpr int kShift = kBit % 8;
  uint64_t v = LoadLE64(in + kByte) >> kShift;
  if constexpr (kShift + W > 64) v |= uint64_t{in[kByte + 8]} << (64 - kShift);
  out[J] = static_cast<T>(v & LowMask(W));
}

template <int W, typename T, size_t... J>
inline void Unpack8(const uint8_t* in, T* out, std::index_sequence<J...>) {
  (UnpackOne<W, T, J>(in, out), ...);
}

template <int W, typename T>
void UnpackGroups(const uint8_t* in, size_t groups, T* out) {
  for (size_t g = 0; g < groups; ++g) {
    Unpack8<W, T>(in, out, std::make_index_sequence<8>());
    in += W;
    out += 8;
  }
}

template <typename T>
using GroupFn = void (*)(const uint8_t*, size_t, T*);

template <typename T, size_t... W>
constexpr std::array<GroupFn<T>, sizeof...(W)> MakeTable(std::index_sequence<W...>) {
  return {&UnpackGroups<static_cast<int>(W), T>...};
}

template <typename T>
constexpr auto kGroupTable = MakeTable<T>(std::make_index_sequence<8 * sizeof(T) + 1>());

}  // namespace

template <typename T>
void Unpack(const uint8_t* data, size_t size, uint64_t bit_offset, int width, size_t count,
            T* out) {
  if (width == 0) {
    std::fill(out, out + count, T{0});
    return;
  }
  size_t i = 0;
  // Values before the first byte-aligned group boundary.
  while (i < count && ((bit_offset + i * width) & 7) != 0) {
    out[i] = static_cast<T>(ReadBitsSafe(data, bit_offset + i * width, width));
    ++i;
  }
  const uint64_t byte = (bit_offset + i * width) / 8;
  const uint64_t slack = static_cast<uint64_t>(width) + 9;
  if (i < count && size >= byte + slack) {
    // Group g starts at byte + g*width and reads width + 9 bytes from there.
    const size_t fast = std::min<uint64_t>((count - i) / 8, (size - byte - 9) / width);
    kGroupTable<T>[width](data + byte, fast, out + i);
    i += fast * 8;
  }
  for (; i < count; ++i) out[i] = static_cast<T>(ReadBitsSafe(data, bit_offset + i * width, width));
}

template <typename T>
void Pack(const T* values, size_t count, int width, std::string* out) {
  const size_t old = out->size();
  out->resize(old + PackedBytes(count, width));
  if (width == 0) return;
  uint8_t* p = reinterpret_cast<uint8_t*>(out->data()) + old;
  // acc holds nbits (< 64) pending bits; every full 64 bits are output bits, so whole-word
  // stores never pass the end of the packed bytes.
  uint64_t acc = 0;
  int nbits = 0;
  for (size_t i = 0; i < count; ++i) {
    const uint64_t x = static_cast<uint64_t>(values[i]);
    acc |= x << nbits;
    if (nbits + width >= 64) {
      std::memcpy(p, &acc, 8);
      p += 8;
      acc = nbits == 0 ? 0 : x >> (64 - nbits);
      nbits = nbits + width - 64;
    } else {
      nbits += width;
    }
  }
  for (; nbits > 0; nbits -= 8, acc >>= 8) *p++ = static_cast<uint8_t>(acc);
}

template void Unpack<uint32_t>(const uint8_t*, size_t, uint64_t, int, size_t, uint32_t*);
template void Unpack<uint64_t>(const uint8_t*, size_t, uint64_t, int, size_t, uint64_t*);
template void Pack<uint32_t>(const uint32_t*, size_t, int, std::string*);
template void Pack<uint64_t>(const uint64_t*, size_t, int, std::string*);
template void Pack<uint8_t>(const uint8_t*, size_t, int, std::string*);

}  // namespace lakeindex::parquet::bits
