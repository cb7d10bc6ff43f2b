// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY (Encodings.md).
// DELTA_BINARY_PACKED layout:
//   header := ULEB128 block_size, ULEB128 miniblocks_per_block, ULEB128 total_count,
//             zigzag-ULEB128 first_value
//   block  := zigzag-ULEB128 min_delta, one bit-width byte per miniblock, then the needed
//             miniblocks, each (block_size / miniblocks) values bit-packed at its width
// Deltas wrap in the unsigned type of T, as the spec requires.
#include <algorithm>
#include <type_traits>

#include "format/parquet/bit_util.h"
#include "format/parquet/encoding.h"

namespace lakeindex::parquet {
namespace {

constexpr uint64_t kMaxBlockSize = uint64_t{1} << 31;
constexpr size_t kEncodeBlockSize = 128;
constexpr size_t kEncodeMiniblocks = 4;
constexpr size_t kEncodeMiniblockValues = kEncodeBlockSize / kEncodeMiniblocks;

Status DeltaCorruption(const std::string& what, size_t pos) {
  return Status::Corruption("DELTA_BINARY_PACKED " + what + " at byte " + std::to_string(pos));
}

}  // namespace

template <typename T>
Status DeltaBinaryPackedDecode(const uint8_t* data, size_t size, size_t n, std::vector<T>* out,
                               size_t* consumed) {
  using U = std::make_unsigned_t<T>;
  constexpr int kMaxWidth = 8 * sizeof(T);
  size_t pos = 0;
  uint64_t block_size, miniblocks, total, first;
  if (!bits::ReadUleb128(data, size, &pos, &block_size) ||
      !bits::ReadUleb128(data, size, &pos, &miniblocks) ||
      !bits::ReadUleb128(data, size, &pos, &total) ||
      !bits::ReadUleb128(data, size, &pos, &first)) {
    return DeltaCorruption("header truncated", pos);
  }
  if (block_size == 0 || block_size > kMaxBlockSize || miniblocks == 0 ||
      block_size % miniblocks != 0 || (block_size / miniblocks) % 8 != 0) {
    return DeltaCorruption("block size " + std::to_string(block_size) + " with " +
                               std::to_string(miniblocks) + " miniblocks is invalid",
                           0);
  }
  if (total != n) {
    return DeltaCorruption(
        "stream holds " + std::to_string(total) + " values, expected " + std::to_string(n) + ",",
        0);
  }
  const uint64_t per_miniblock = block_size / miniblocks;
  out->resize(n);
  if (n == 0) {
    *consumed = pos;
    return Status::OK();
  }
  T* values = out->data();
  U prev = static_cast<U>(bits::ZigZagDecode(first));
  values[0] = static_cast<T>(prev);
  size_t i = 1;
  while (i < n) {
    uint64_t min_zz;
    if (!bits::ReadUleb128(data, size, &pos, &min_zz))
      return DeltaCorruption("min delta truncated", pos);
    const U min_delta = static_cast<U>(bits::ZigZagDecode(min_zz));
    if (size - pos < miniblocks) return DeltaCorruption("miniblock bit widths truncated", pos);
    const uint8_t* widths = data + pos;
    pos += miniblocks;
    for (uint64_t m = 0; m < miniblocks && i < n; ++m) {
      const int width = widths[m];
      if (width > kMaxWidth) {
        return DeltaCorruption("miniblock bit width " + std::to_string(width) + " exceeds " +
                                   std::to_string(kMaxWidth),
                               pos);
      }
      const uint64_t bytes = per_miniblock * width / 8;
      if (size - pos < bytes) return DeltaCorruption("miniblock truncated", pos);
      const size_t k = static_cast<size_t>(std::min<uint64_t>(per_miniblock, n - i));
      U* deltas = reinterpret_cast<U*>(values + i);
      // The rest of the input is readable, which lets whole groups take the fast path.
      bits::Unpack<U>(data + pos, size - pos, 0, width, k, deltas);
      for (size_t j = 0; j < k; ++j) {
        prev = static_cast<U>(prev + min_delta + deltas[j]);
        deltas[j] = prev;
      }
      pos += static_cast<size_t>(bytes);
      i += k;
    }
  }
  *consumed = pos;
  return Status::OK();
}

template <typename T>
void DeltaBinaryPackedEncode(const T* values, size_t n, std::string* out) {
  using U = std::make_unsigned_t<T>;
  bits::WriteUleb128(kEncodeBlockSize, out);
  bits::WriteUleb128(kEncodeMiniblocks, out);
  bits::WriteUleb128(n, out);
  bits::WriteUleb128(bits::ZigZagEncode(n == 0 ? 0 : static_cast<int64_t>(values[0])), out);
  U prev = n == 0 ? 0 : static_cast<U>(values[0]);
  U deltas[kEncodeBlockSize];
  for (size_t i = 1; i < n; i += kEncodeBlockSize) {
    const size_t k = std::min(kEncodeBlockSize, n - i);
    T min_delta = 0;
    for (size_t j = 0; j < k; ++j) {
      deltas[j] = static_cast<U>(static_cast<U>(values[i + j]) - prev);
      prev = static_cast<U>(values[i + j]);
      min_delta =
          j == 0 ? static_cast<T>(deltas[j]) : std::min(min_delta, static_cast<T>(deltas[j]));
    }
    for (size_t j = 0; j < k; ++j)
      deltas[j] = static_cast<U>(deltas[j] - static_cast<U>(min_delta));
    std::fill(deltas + k, deltas + kEncodeBlockSize, U{0});  // padding of the last miniblock
    bits::WriteUleb128(bits::ZigZagEncode(static_cast<int64_t>(min_delta)), out);
    int widths[kEncodeMiniblocks];
    for (size_t m = 0; m < kEncodeMiniblocks; ++m) {
      U max = 0;
      for (size_t j = m * kEncodeMiniblockValues; j < (m + 1) * kEncodeMiniblockValues; ++j) {
        max = std::max(max, deltas[j]);
      }
      // Unneeded miniblocks get width 0 and no body.
      widths[m] = m * kEncodeMiniblockValues < k ? BitWidth(max) : 0;
      out->push_back(static_cast<char>(widths[m]));
    }
    for (size_t m = 0; m < kEncodeMiniblocks && m * kEncodeMiniblockValues < k; ++m) {
      bits::Pack(deltas + m * kEncodeMiniblockValues, kEncodeMiniblockValues, widths[m], out);
    }
  }
}

Status DeltaLengthByteArrayDecode(const uint8_t* data, size_t size, size_t n,
                                  std::vector<std::string_view>* out) {
  std::vector<int32_t> lengths;
  size_t pos = 0;
  RETURN_IF_ERROR(DeltaBinaryPackedDecode<int32_t>(data, size, n, &lengths, &pos));
  out->clear();
  out->reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const int32_t len = lengths[i];
    if (len < 0 || static_cast<size_t>(len) > size - pos) {
      return Status::Corruption("DELTA_LENGTH_BYTE_ARRAY value " + std::to_string(i) +
                                " has length " + std::to_string(len) + " with " +
                                std::to_string(size - pos) + " bytes left");
    }
    out->emplace_back(reinterpret_cast<const char*>(data + pos), static_cast<size_t>(len));
    pos += static_cast<size_t>(len);
  }
  return Status::OK();
}

void DeltaLengthByteArrayEncode(const std::string_view* values, size_t n, std::string* out) {
  std::vector<int32_t> lengths(n);
  for (size_t i = 0; i < n; ++i) lengths[i] = static_cast<int32_t>(values[i].size());
  DeltaBinaryPackedEncode(lengths.data(), n, out);
  for (size_t i = 0; i < n; ++i) out->append(values[i]);
}

Status DeltaByteArrayDecode(const uint8_t* data, size_t size, size_t n,
                            std::vector<std::string>* out) {
  std::vector<int32_t> prefixes;
  size_t pos = 0;
  RETURN_IF_ERROR(DeltaBinaryPackedDecode<int32_t>(data, size, n, &prefixes, &pos));
  std::vector<std::string_view> suffixes;
  RETURN_IF_ERROR(DeltaLengthByteArrayDecode(data + pos, size - pos, n, &suffixes));
  const uint64_t limit = std::max<uint64_t>(uint64_t{64} << 20, uint64_t{256} * size);
  uint64_t total = 0;
  out->clear();
  out->reserve(n);
  std::string_view prev;
  for (size_t i = 0; i < n; ++i) {
    const int32_t prefix = prefixes[i];
    if (prefix < 0 || static_cast<size_t>(prefix) > prev.size()) {
      return Status::Corruption("DELTA_BYTE_ARRAY value " + std::to_string(i) + " has prefix " +
                                std::to_string(prefix) + " but the previous value has " +
                                std::to_string(prev.size()) + " bytes");
    }
    total += static_cast<uint64_t>(prefix) + suffixes[i].size();
    if (total > limit) {
      return Status::Corruption("DELTA_BYTE_ARRAY values exceed " + std::to_string(limit) +
                                " bytes at value " + std::to_string(i));
    }
    std::string value;
    value.reserve(static_cast<size_t>(prefix) + suffixes[i].size());
    value.append(prev.substr(0, static_cast<size_t>(prefix)));
    value.append(suffixes[i]);
    out->push_back(std::move(value));
    prev = out->back();
  }
  return Status::OK();
}

void DeltaByteArrayEncode(const std::string_view* values, size_t n, std::string* out) {
  std::vector<int32_t> prefixes(n);
  std::vector<std::string_view> suffixes(n);
  std::string_view prev;
  for (size_t i = 0; i < n; ++i) {
    const size_t limit = std::min(prev.size(), values[i].size());
    size_t p = 0;
    while (p < limit && prev[p] == values[i][p]) ++p;
    prefixes[i] = static_cast<int32_t>(p);
    suffixes[i] = values[i].substr(p);
    prev = values[i];
  }
  DeltaBinaryPackedEncode(prefixes.data(), n, out);
  DeltaLengthByteArrayEncode(suffixes.data(), n, out);
}

template Status DeltaBinaryPackedDecode<int32_t>(const uint8_t*, size_t, size_t,
                                                 std::vector<int32_t>*, size_t*);
template Status DeltaBinaryPackedDecode<int64_t>(const uint8_t*, size_t, size_t,
                                                 std::vector<int64_t>*, size_t*);
template void DeltaBinaryPackedEncode<int32_t>(const int32_t*, size_t, std::string*);
template void DeltaBinaryPackedEncode<int64_t>(const int64_t*, size_t, std::string*);

}  // namespace lakeindex::parquet
