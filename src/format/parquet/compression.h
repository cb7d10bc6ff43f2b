// Page compression codecs of Parquet (CompressionCodec in parquet.thrift).
//
// GZIP is RFC 1952 gzip on write; zlib and gzip (also concatenated members) are accepted on
// read. LZ4 (deprecated codec 5) is written with Hadoop framing, like Arrow, and read as
// Hadoop-framed with a fallback to a raw LZ4 block. LZO is not supported.
// Thread safety: all functions are thread-safe (zstd contexts are per thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lakeindex/status.h"

namespace lakeindex::parquet {

// Values are Parquet's CompressionCodec enum (serialized; never renumber).
enum class Codec : uint8_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,
  kZstd = 6,
  kLz4Raw = 7,
};

// Parquet's spelling ("ZSTD", "LZ4_RAW", ...), or "UNKNOWN" for values outside the enum.
const char* CodecName(Codec c);
// Case-insensitive inverse of CodecName; "none" is also accepted for kUncompressed.
// InvalidArgument for anything else.
Result<Codec> CodecFromName(std::string_view name);
// True when both Compress and Decompress work for c.
bool CodecSupported(Codec c);

// How kZstd compresses: a level, and whether literals (the bytes no match covers) are
// Huffman-coded even at a negative level, where zstd leaves them raw by default.
struct ZstdSettings {
  int level = 1;
  bool huffman_literals = false;
};
// zstd's near-fastest matcher with Huffman-coded literals: on text with few repeats (names,
// ids, hashes) in small pages, output as small as level 1's in half the time (the match search
// costs much and finds little); on repetitive text (URLs, paths) much larger. See
// WriteOptions::fast_string_zstd.
inline constexpr ZstdSettings kZstdFastHuffman{-20, true};

// Appends the compressed form of data[0, size) to *out (`zstd` applies to kZstd).
// NotSupported naming the codec for unsupported codecs.
Status Compress(Codec codec, const uint8_t* data, size_t size, std::string* out, ZstdSettings zstd = {});

// Decompresses into *out (replaced), which must come out exactly `uncompressed_size` bytes,
// else Corruption. NotSupported naming the codec for unsupported codecs. Never allocates more
// than uncompressed_size (callers bound uncompressed_size before calling).
Status Decompress(Codec codec, const uint8_t* data, size_t size, size_t uncompressed_size,
                  std::string* out);
// Same, into a caller buffer of exactly out_size bytes (e.g. a reused page buffer).
Status DecompressInto(Codec codec, const uint8_t* data, size_t size, uint8_t* out, size_t out_size);

}  // namespace lakeindex::parquet
