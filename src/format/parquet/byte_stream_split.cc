// BYTE_STREAM_SPLIT (Encodings.md): byte b of value i is at data[b * N + i], N = values in
// the page; the page holds exactly width * N bytes.
#include "format/parquet/encoding.h"

namespace lakeindex::parquet {
namespace {

template <size_t W>
void ByteStreamSplitDecodeFixed(const uint8_t* data, size_t stride, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    for (size_t b = 0; b < W; ++b) out[i * W + b] = data[b * stride + i];
  }
}

}  // namespace

Status ByteStreamSplitDecode(const uint8_t* data, size_t size, size_t n, size_t width,
                             uint8_t* out) {
  if (width == 0 || size % width != 0 || n > size / width) {
    return Status::Corruption("BYTE_STREAM_SPLIT data of " + std::to_string(size) +
                              " bytes cannot hold " + std::to_string(n) + " values of " +
                              std::to_string(width) + " bytes");
  }
  const size_t stride = size / width;
  switch (width) {
    case 4:
      ByteStreamSplitDecodeFixed<4>(data, stride, n, out);
      break;
    case 8:
      ByteStreamSplitDecodeFixed<8>(data, stride, n, out);
      break;
    default:
      for (size_t b = 0; b < width; ++b) {
        for (size_t i = 0; i < n; ++i) out[i * width + b] = data[b * stride + i];
      }
  }
  return Status::OK();
}

void ByteStreamSplitEncode(const uint8_t* values, size_t n, size_t width, std::string* out) {
  const size_t old = out->size();
  out->resize(old + n * width);
  char* p = out->data() + old;
  for (size_t b = 0; b < width; ++b) {
    for (size_t i = 0; i < n; ++i) p[b * n + i] = static_cast<char>(values[i * width + b]);
  }
}

}  // namespace lakeindex::parquet
