// PLAIN encoding (Encodings.md "Plain"): fixed-width values little-endian back to back,
// booleans bit-packed LSB first, BYTE_ARRAY as a 4-byte LE length then the bytes.
#include <cstring>

#include "format/parquet/bit_util.h"
#include "format/parquet/encoding.h"

namespace lakeindex::parquet {

template <typename T>
void PlainEncode(const T* values, size_t n, std::string* out) {
  // Little-endian host (checked in bit_util.h): the in-memory bytes are the PLAIN bytes.
  out->append(reinterpret_cast<const char*>(values), n * sizeof(T));
}

void PlainEncodeBools(const uint8_t* values, size_t n, std::string* out) {
  const size_t old = out->size();
  out->resize(old + (n + 7) / 8);
  uint8_t* p = reinterpret_cast<uint8_t*>(out->data()) + old;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint8_t byte = 0;
    for (int b = 0; b < 8; ++b) byte |= static_cast<uint8_t>((values[i + b] & 1) << b);
    *p++ = byte;
  }
  if (i < n) {
    uint8_t byte = 0;
    for (int b = 0; i + b < n; ++b) byte |= static_cast<uint8_t>((values[i + b] & 1) << b);
    *p = byte;
  }
}

void PlainEncodeByteArray(std::string_view value, std::string* out) {
  const uint32_t len = static_cast<uint32_t>(value.size());
  char prefix[4];
  std::memcpy(prefix, &len, 4);
  out->append(prefix, 4);
  out->append(value);
}

template <typename T>
Status PlainDecoder::GetFixed(T* out, size_t n) {
  if (n > remaining() / sizeof(T)) {
    return Status::Corruption("PLAIN data has " + std::to_string(remaining()) + " bytes left at " +
                              std::to_string(pos_) + ", need " + std::to_string(n) + " values of " +
                              std::to_string(sizeof(T)) + " bytes");
  }
  if (n == 0) return Status::OK();  // out may be null then
  std::memcpy(out, data_ + pos_, n * sizeof(T));
  pos_ += n * sizeof(T);
  return Status::OK();
}

Status PlainDecoder::GetBools(uint8_t* out, size_t n) {
  // Bits available: whole remaining bytes minus those already taken from data_[pos_].
  const uint64_t avail_bits = static_cast<uint64_t>(remaining()) * 8 - bool_bit_;
  if (n > avail_bits) {
    return Status::Corruption("PLAIN booleans: " + std::to_string(n) + " values requested, " +
                              std::to_string(avail_bits) + " bits left");
  }
  size_t i = 0;
  // Finish a partly read byte, then whole bytes, then a partial one.
  while (i < n && bool_bit_ != 0) {
    out[i++] = (data_[pos_] >> bool_bit_) & 1;
    if (++bool_bit_ == 8) {
      bool_bit_ = 0;
      ++pos_;
    }
  }
  for (; i + 8 <= n; i += 8) {
    const uint8_t byte = data_[pos_++];
    for (int b = 0; b < 8; ++b) out[i + b] = (byte >> b) & 1;
  }
  while (i < n) {
    out[i++] = (data_[pos_] >> bool_bit_) & 1;
    ++bool_bit_;  // n - i < 8 here, so this byte is not finished
  }
  return Status::OK();
}

Status PlainDecoder::GetByteArray(std::string_view* out) {
  if (remaining() < 4) {
    return Status::Corruption("PLAIN byte array length truncated at byte " + std::to_string(pos_));
  }
  const uint32_t len = bits::LoadLE32(data_ + pos_);
  if (len > remaining() - 4) {
    return Status::Corruption("PLAIN byte array of " + std::to_string(len) + " bytes at byte " +
                              std::to_string(pos_) + " runs past the end (" +
                              std::to_string(remaining() - 4) + " left)");
  }
  *out = std::string_view(reinterpret_cast<const char*>(data_ + pos_ + 4), len);
  pos_ += 4 + static_cast<size_t>(len);
  return Status::OK();
}

Status PlainDecoder::GetByteArrays(std::string_view* out, size_t n) {
  for (size_t i = 0; i < n; ++i) RETURN_IF_ERROR(GetByteArray(&out[i]));
  return Status::OK();
}

Status PlainDecoder::GetFixedLenByteArray(size_t width, std::string_view* out) {
  if (width > remaining()) {
    return Status::Corruption("PLAIN fixed-length value of " + std::to_string(width) +
                              " bytes at byte " + std::to_string(pos_) + " runs past the end");
  }
  *out = std::string_view(reinterpret_cast<const char*>(data_ + pos_), width);
  pos_ += width;
  return Status::OK();
}

template void PlainEncode<int32_t>(const int32_t*, size_t, std::string*);
template void PlainEncode<int64_t>(const int64_t*, size_t, std::string*);
template void PlainEncode<float>(const float*, size_t, std::string*);
template void PlainEncode<double>(const double*, size_t, std::string*);
template Status PlainDecoder::GetFixed<int32_t>(int32_t*, size_t);
template Status PlainDecoder::GetFixed<int64_t>(int64_t*, size_t);
template Status PlainDecoder::GetFixed<float>(float*, size_t);
template Status PlainDecoder::GetFixed<double>(double*, size_t);

}  // namespace lakeindex::parquet
