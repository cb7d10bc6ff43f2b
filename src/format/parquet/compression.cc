#include "format/parquet/compression.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_c_literalCompressionMode (stable since zstd 1.5.1)
#include <zstd.h>

#include <cctype>
#include <climits>
#include <cstring>
#include <memory>

namespace lakeindex::parquet {
namespace {

constexpr int kGzipWindowBits = 15 + 16;         // deflate window 2^15, gzip wrapper
constexpr int kInflateAutoWindowBits = 15 + 32;  // accept zlib or gzip wrappers
constexpr int kBrotliQuality = 5;                // Arrow-like speed/ratio trade-off
constexpr size_t kHadoopLz4HeaderSize = 8;       // BE32 raw length, BE32 compressed length

Status SizeMismatch(Codec codec, size_t got, size_t expected) {
  return Status::Corruption(std::string(CodecName(codec)) + " data decompressed to " +
                            std::to_string(got) + " bytes, expected " + std::to_string(expected));
}

Status Malformed(Codec codec, const std::string& detail) {
  return Status::Corruption(std::string("malformed ") + CodecName(codec) + " data: " + detail);
}

// Grows *out by `bound` bytes, lets `fn(dst)` write and return the bytes used, then trims.
template <typename Fn>
Status AppendCompressed(std::string* out, size_t bound, Fn fn) {
  const size_t old = out->size();
  out->resize(old + bound);
  size_t used = 0;
  Status st = fn(reinterpret_cast<uint8_t*>(out->data()) + old, &used);
  out->resize(st.ok() ? old + used : old);
  return st;
}

uint32_t LoadBE32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

void StoreBE32(uint32_t v, uint8_t* p) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

Status GzipCompress(const uint8_t* data, size_t size, std::string* out) {
  if (size > UINT_MAX) return Status::InvalidArgument("GZIP input too large");
  z_stream s{};
  if (deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return Status::Internal("deflateInit2 failed");
  }
  const size_t bound = deflateBound(&s, static_cast<uLong>(size));
  Status st = AppendCompressed(out, bound, [&](uint8_t* dst, size_t* used) {
    s.next_in = const_cast<Bytef*>(data);
    s.avail_in = static_cast<uInt>(size);
    s.next_out = dst;
    s.avail_out = static_cast<uInt>(bound);
    if (deflate(&s, Z_FINISH) != Z_STREAM_END) return Status::Internal("deflate did not finish");
    *used = bound - s.avail_out;
    return Status::OK();
  });
  deflateEnd(&s);
  return st;
}

Status GzipDecompress(const uint8_t* data, size_t size, uint8_t* out, size_t out_size) {
  if (size > UINT_MAX || out_size > UINT_MAX) return Malformed(Codec::kGzip, "page too large");
  z_stream s{};
  if (inflateInit2(&s, kInflateAutoWindowBits) != Z_OK)
    return Status::Internal("inflateInit2 failed");
  s.next_in = const_cast<Bytef*>(data);
  s.avail_in = static_cast<uInt>(size);
  s.next_out = out;
  s.avail_out = static_cast<uInt>(out_size);
  Status st;
  while (true) {
    const int rc = inflate(&s, Z_FINISH);
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (concatenated streams); trailing bytes after a full
      // output are ignored.
      if (s.avail_in > 0 && s.avail_out > 0) {
        if (inflateReset(&s) != Z_OK) st = Malformed(Codec::kGzip, "reset failed");
        if (!st.ok()) break;
        continue;
      }
      break;
    }
    if (rc == Z_BUF_ERROR && s.avail_out == 0 && s.avail_in > 0) {
      st = Malformed(Codec::kGzip, "more than " + std::to_string(out_size) + " bytes of output");
    } else if (rc == Z_BUF_ERROR) {
      st = Malformed(Codec::kGzip, "stream truncated");
    } else {
      st =
          Malformed(Codec::kGzip, s.msg != nullptr ? s.msg : "inflate error " + std::to_string(rc));
    }
    break;
  }
  const size_t produced = out_size - s.avail_out;
  inflateEnd(&s);
  RETURN_IF_ERROR(st);
  if (produced != out_size) return SizeMismatch(Codec::kGzip, produced, out_size);
  return Status::OK();
}

ZSTD_CCtx* ThreadZstdCCtx() {
  thread_local std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> ctx(ZSTD_createCCtx(),
                                                                      &ZSTD_freeCCtx);
  return ctx.get();
}

ZSTD_DCtx* ThreadZstdDCtx() {
  thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(),
                                                                      &ZSTD_freeDCtx);
  return ctx.get();
}

Status Lz4RawDecompress(Codec codec, const uint8_t* data, size_t size, uint8_t* out,
                        size_t out_size) {
  if (size > INT_MAX || out_size > INT_MAX) return Malformed(codec, "page too large");
  const int got =
      LZ4_decompress_safe(reinterpret_cast<const char*>(data), reinterpret_cast<char*>(out),
                          static_cast<int>(size), static_cast<int>(out_size));
  if (got < 0)
    return Malformed(codec, "LZ4 block is invalid or larger than " + std::to_string(out_size));
  if (static_cast<size_t>(got) != out_size)
    return SizeMismatch(codec, static_cast<size_t>(got), out_size);
  return Status::OK();
}

// Hadoop framing: blocks of [BE32 raw length][BE32 compressed length][raw LZ4 block].
bool TryLz4HadoopDecompress(const uint8_t* data, size_t size, uint8_t* out, size_t out_size) {
  size_t in = 0, produced = 0;
  while (in < size) {
    if (size - in < kHadoopLz4HeaderSize) return false;
    const uint32_t raw_len = LoadBE32(data + in);
    const uint32_t comp_len = LoadBE32(data + in + 4);
    in += kHadoopLz4HeaderSize;
    if (comp_len > size - in || raw_len > out_size - produced) return false;
    if (!Lz4RawDecompress(Codec::kLz4, data + in, comp_len, out + produced, raw_len).ok())
      return false;
    in += comp_len;
    produced += raw_len;
  }
  return produced == out_size;
}

}  // namespace

const char* CodecName(Codec c) {
  switch (c) {
    case Codec::kUncompressed:
      return "UNCOMPRESSED";
    case Codec::kSnappy:
      return "SNAPPY";
    case Codec::kGzip:
      return "GZIP";
    case Codec::kLzo:
      return "LZO";
    case Codec::kBrotli:
      return "BROTLI";
    case Codec::kLz4:
      return "LZ4";
    case Codec::kZstd:
      return "ZSTD";
    case Codec::kLz4Raw:
      return "LZ4_RAW";
  }
  return "UNKNOWN";
}

Result<Codec> CodecFromName(std::string_view name) {
  std::string upper(name);
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (upper == "NONE") return Codec::kUncompressed;
  for (int i = 0; i <= static_cast<int>(Codec::kLz4Raw); ++i) {
    if (upper == CodecName(static_cast<Codec>(i))) return static_cast<Codec>(i);
  }
  return Status::InvalidArgument("unknown compression codec '" + std::string(name) + "'");
}

bool CodecSupported(Codec c) {
  switch (c) {
    case Codec::kUncompressed:
    case Codec::kSnappy:
    case Codec::kGzip:
    case Codec::kBrotli:
    case Codec::kLz4:
    case Codec::kZstd:
    case Codec::kLz4Raw:
      return true;
    case Codec::kLzo:
      break;
  }
  return false;
}

Status Compress(Codec codec, const uint8_t* data, size_t size, std::string* out, ZstdSettings zstd) {
  switch (codec) {
    case Codec::kUncompressed:
      out->append(reinterpret_cast<const char*>(data), size);
      return Status::OK();
    case Codec::kSnappy:
      return AppendCompressed(out, snappy::MaxCompressedLength(size),
                              [&](uint8_t* dst, size_t* used) {
                                snappy::RawCompress(reinterpret_cast<const char*>(data), size,
                                                    reinterpret_cast<char*>(dst), used);
                                return Status::OK();
                              });
    case Codec::kGzip:
      return GzipCompress(data, size, out);
    case Codec::kBrotli:
      return AppendCompressed(
          out, BrotliEncoderMaxCompressedSize(size), [&](uint8_t* dst, size_t* used) {
            *used = BrotliEncoderMaxCompressedSize(size);
            if (*used == 0 || !BrotliEncoderCompress(kBrotliQuality, BROTLI_DEFAULT_WINDOW,
                                                     BROTLI_MODE_GENERIC, size, data, used, dst)) {
              return Status::Internal("brotli compression failed");
            }
            return Status::OK();
          });
    case Codec::kZstd:
      return AppendCompressed(out, ZSTD_compressBound(size), [&](uint8_t* dst, size_t* used) {
        ZSTD_CCtx* cctx = ThreadZstdCCtx();
        if (!zstd.huffman_literals) {
          *used = ZSTD_compressCCtx(cctx, dst, ZSTD_compressBound(size), data, size, zstd.level);
        } else {
          // The advanced API: a level and the literals' mode (reset from any earlier call).
          ZSTD_CCtx_reset(cctx, ZSTD_reset_parameters);
          *used = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, zstd.level);
          if (!ZSTD_isError(*used)) {
            *used = ZSTD_CCtx_setParameter(cctx, ZSTD_c_literalCompressionMode, ZSTD_ps_enable);
          }
          if (!ZSTD_isError(*used)) *used = ZSTD_compress2(cctx, dst, ZSTD_compressBound(size), data, size);
        }
        if (ZSTD_isError(*used))
          return Status::Internal(std::string("zstd: ") + ZSTD_getErrorName(*used));
        return Status::OK();
      });
    case Codec::kLz4:
    case Codec::kLz4Raw: {
      if (size > LZ4_MAX_INPUT_SIZE) return Status::InvalidArgument("LZ4 input too large");
      const bool hadoop = codec == Codec::kLz4;
      const size_t header = hadoop ? kHadoopLz4HeaderSize : 0;
      const int bound = LZ4_compressBound(static_cast<int>(size));
      return AppendCompressed(
          out, header + static_cast<size_t>(bound), [&](uint8_t* dst, size_t* used) {
            const int n = LZ4_compress_default(reinterpret_cast<const char*>(data),
                                               reinterpret_cast<char*>(dst + header),
                                               static_cast<int>(size), bound);
            if (n <= 0) return Status::Internal("LZ4 compression failed");
            if (hadoop) {
              StoreBE32(static_cast<uint32_t>(size), dst);
              StoreBE32(static_cast<uint32_t>(n), dst + 4);
            }
            *used = header + static_cast<size_t>(n);
            return Status::OK();
          });
    }
    case Codec::kLzo:
      break;
  }
  return Status::NotSupported(std::string("compression codec ") + CodecName(codec) +
                              " is not supported");
}

Status DecompressInto(Codec codec, const uint8_t* data, size_t size, uint8_t* out,
                      size_t out_size) {
  if (!CodecSupported(codec)) {
    return Status::NotSupported(std::string("compression codec ") + CodecName(codec) +
                                " is not supported");
  }
  if (size == 0 && out_size == 0) return Status::OK();
  switch (codec) {
    case Codec::kUncompressed:
      if (size != out_size) return SizeMismatch(codec, size, out_size);
      std::memcpy(out, data, size);
      return Status::OK();
    case Codec::kSnappy: {
      const char* in = reinterpret_cast<const char*>(data);
      size_t len = 0;
      if (!snappy::GetUncompressedLength(in, size, &len))
        return Malformed(codec, "bad length header");
      if (len != out_size) return SizeMismatch(codec, len, out_size);
      if (!snappy::RawUncompress(in, size, reinterpret_cast<char*>(out)))
        return Malformed(codec, "bad stream");
      return Status::OK();
    }
    case Codec::kGzip:
      return GzipDecompress(data, size, out, out_size);
    case Codec::kBrotli: {
      uint8_t dummy = 0;
      size_t got = out_size;
      if (BrotliDecoderDecompress(size, data, &got, out_size == 0 ? &dummy : out) !=
          BROTLI_DECODER_RESULT_SUCCESS) {
        return Malformed(codec,
                         "invalid stream or more than " + std::to_string(out_size) + " bytes");
      }
      if (got != out_size) return SizeMismatch(codec, got, out_size);
      return Status::OK();
    }
    case Codec::kZstd: {
      const size_t got = ZSTD_decompressDCtx(ThreadZstdDCtx(), out, out_size, data, size);
      if (ZSTD_isError(got)) return Malformed(codec, ZSTD_getErrorName(got));
      if (got != out_size) return SizeMismatch(codec, got, out_size);
      return Status::OK();
    }
    case Codec::kLz4:
      if (TryLz4HadoopDecompress(data, size, out, out_size)) return Status::OK();
      return Lz4RawDecompress(codec, data, size, out, out_size);
    case Codec::kLz4Raw:
      return Lz4RawDecompress(codec, data, size, out, out_size);
    case Codec::kLzo:
      break;
  }
  return Status::NotSupported(std::string("compression codec ") + CodecName(codec) +
                              " is not supported");
}

Status Decompress(Codec codec, const uint8_t* data, size_t size, size_t uncompressed_size,
                  std::string* out) {
  if (!CodecSupported(codec)) return DecompressInto(codec, data, size, nullptr, 0);
  out->resize(uncompressed_size);
  Status st =
      DecompressInto(codec, data, size, reinterpret_cast<uint8_t*>(out->data()), uncompressed_size);
  if (!st.ok()) out->clear();
  return st;
}

}  // namespace lakeindex::parquet
