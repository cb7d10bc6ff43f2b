// Feeds bytes to every Parquet value decoder and to Decompress.
// Input: byte 0 picks the decoder, byte 1 is its parameter (bit width, value width or codec),
// bytes 2-3 are the value count n (LE16), the rest is the encoded data.
// Decoded RLE values are re-encoded and must decode to themselves.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "format/parquet/compression.h"
#include "format/parquet/encoding.h"

using namespace lakeindex::parquet;

namespace {

void FuzzRle(const uint8_t* data, size_t size, int width, size_t n) {
  std::vector<uint32_t> values(n);
  RleDecoder dec(data, size, width);
  size_t done = 0;
  while (done < n) {
    const size_t k = std::min<size_t>(n - done, 1 + done % 97);
    if (!dec.Get(values.data() + done, k).ok()) return;
    done += k;
  }
  RleEncoder enc(width);
  enc.Put(values.data(), n);
  const std::string again = enc.Finish();
  RleDecoder check(reinterpret_cast<const uint8_t*>(again.data()), again.size(), width);
  std::vector<uint32_t> back(n);
  if (!check.Get(back.data(), n).ok() || back != values) std::abort();
}

void FuzzPlain(const uint8_t* data, size_t size, size_t n) {
  {
    PlainDecoder dec(data, size);
    std::vector<int64_t> v(n);
    (void)dec.GetFixed(v.data(), n);
  }
  {
    PlainDecoder dec(data, size);
    std::vector<uint8_t> b(n);
    (void)dec.GetBools(b.data(), n / 2);
    (void)dec.GetBools(b.data(), n - n / 2);
  }
  {
    PlainDecoder dec(data, size);
    std::vector<std::string_view> v(n);
    if (dec.GetByteArrays(v.data(), n).ok()) {
      std::string_view rest;
      (void)dec.GetFixedLenByteArray(dec.remaining(), &rest);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const uint8_t mode = data[0];
  const uint8_t param = data[1];
  const size_t n = data[2] | (size_t{data[3]} << 8);
  data += 4;
  size -= 4;
  switch (mode % 8) {
    case 0:
      FuzzRle(data, size, param % 33, n);
      break;
    case 1:
      FuzzPlain(data, size, n);
      break;
    case 2: {
      std::vector<int32_t> out;
      size_t consumed = 0;
      if (DeltaBinaryPackedDecode<int32_t>(data, size, n, &out, &consumed).ok() &&
          (out.size() != n || consumed > size)) {
        std::abort();
      }
      break;
    }
    case 3: {
      std::vector<int64_t> out;
      size_t consumed = 0;
      if (DeltaBinaryPackedDecode<int64_t>(data, size, n, &out, &consumed).ok() &&
          (out.size() != n || consumed > size)) {
        std::abort();
      }
      break;
    }
    case 4: {
      std::vector<std::string_view> out;
      (void)DeltaLengthByteArrayDecode(data, size, n, &out);
      break;
    }
    case 5: {
      std::vector<std::string> out;
      (void)DeltaByteArrayDecode(data, size, n, &out);
      break;
    }
    case 6: {
      const size_t width = param % 17;
      std::vector<uint8_t> out(n * width);
      (void)ByteStreamSplitDecode(data, size, n, width, out.data());
      break;
    }
    case 7: {
      std::string out;
      const Codec codec = static_cast<Codec>(param % 9);  // 8 is outside the enum
      if (Decompress(codec, data, size, n, &out).ok() && out.size() != n) std::abort();
      break;
    }
  }
  return 0;
}
