// ColumnChunkDecoder: turns the pages of one column chunk (bytes already in memory) into a
// Column (internal to the Parquet reader).
//
// Supported: dictionary pages (PLAIN / PLAIN_DICTIONARY), data pages v1 and v2 with RLE
// definition levels (flat columns: max definition level 0 or 1, no repetition levels), values
// in PLAIN, RLE_DICTIONARY / PLAIN_DICTIONARY, RLE (booleans), DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT; any codec that
// compression.h supports. Page CRCs are verified when present. Index pages are skipped.
// Every size and count is bounded before use (see kMaxPageBytes); errors are Corruption (or
// NotSupported for an unsupported encoding/codec) whose message starts with
// "page at offset N: ".
// Thread safety: none (one decoder per thread); holds the chunk's dictionary between pages.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/parquet/compression.h"
#include "format/parquet/metadata.h"
#include "format/parquet/schema_mapping.h"
#include "lakeindex/batch.h"

namespace lakeindex::parquet {

// Largest uncompressed page accepted (a sanity bound against hostile headers).
inline constexpr int64_t kMaxPageBytes = int64_t(1) << 30;

// A decoded dictionary page: the values that dictionary indices refer to (one vector used, by
// the column's physical type). Immutable once loaded, so decoders may share it.
struct PageDictionary {
  std::string buf;  // owns the bytes `strings` views
  std::vector<int32_t> i32;
  std::vector<int64_t> i64;
  std::vector<float> f32;
  std::vector<double> f64;
  std::vector<std::string_view> strings;
  size_t MemoryBytes() const {
    return sizeof(*this) + buf.capacity() + i32.capacity() * 4 + i64.capacity() * 8 + f32.capacity() * 4 +
           f64.capacity() * 8 + strings.capacity() * sizeof(std::string_view);
  }
};

class ColumnChunkDecoder {
 public:
  // `max_uncompressed` bounds every page's uncompressed size (the chunk's
  // total_uncompressed_size when positive, else kMaxPageBytes).
  ColumnChunkDecoder(const LeafColumn& leaf, Codec codec, int64_t max_uncompressed);

  // Decodes the page whose header starts at data[*pos] and advances *pos past it. `file_offset`
  // is the file position of data[0] (for messages). A dictionary page is loaded; a data page
  // appends its rows to *out and sets *rows (Corruption if it holds more than max_rows rows);
  // other pages are skipped with *rows = 0. On an error *out may hold some of the page's rows
  // (callers discard the column).
  Status DecodePage(const uint8_t* data, size_t size, size_t* pos, uint64_t file_offset,
                    int64_t max_rows, Column* out, int64_t* rows);

  // Appends `num_rows` rows whose non-NULL values are the k PLAIN values data[0, size) (`valid`
  // as for DecodeValues below, nullptr = no NULLs), exactly as a PLAIN data page of those rows
  // would: conversions, decimal checks and errors alike. Per-value reads (value_reader.h) decode
  // through it.
  Status DecodePlainValues(const uint8_t* data, size_t size, size_t num_rows, const uint8_t* valid, size_t k,
                           Column* out);

  bool has_dictionary() const { return has_dictionary_; }
  // The dictionary loaded from the chunk's dictionary page (nullptr before one was decoded).
  // Another decoder of the same chunk can take it with UseDictionary instead of decoding the
  // page again (ParquetReader caches it per chunk).
  std::shared_ptr<const PageDictionary> dictionary() const { return dict_; }
  void UseDictionary(std::shared_ptr<const PageDictionary> dict) {
    dict_ = std::move(dict);
    has_dictionary_ = dict_ != nullptr;
  }

 private:
  Status LoadDictionary(const PageHeader& h, const uint8_t* payload, size_t size);
  Status DecodeDataPage(const PageHeader& h, const uint8_t* payload, size_t size,
                        int64_t max_rows, Column* out, int64_t* rows);
  // Decompresses a page payload (or returns it as is when uncompressed) into *out.
  Status Inflate(const uint8_t* data, size_t size, size_t uncompressed_size,
                 const uint8_t** out);
  // Appends num_values rows; `valid` (nullptr = no NULLs) is their validity bitmap with k
  // bits set, and the page holds k values.
  template <typename P>
  Status DecodeValues(Encoding encoding, const uint8_t* data, size_t size, size_t num_values,
                      const uint8_t* valid, size_t k, Column* out);
  // DecodeValues for the leaf's physical type.
  Status DecodeAny(Encoding encoding, const uint8_t* data, size_t size, size_t num_values, const uint8_t* valid,
                   size_t k, Column* out);
  // Fast path for a PLAIN page of fixed-width values without levels: decompresses straight
  // into the column (no page buffer, no copy). *done = false (and nothing appended) when the
  // page does not qualify (encoding, codec, conversion, or a size other than n values).
  Status DecompressPlainInto(Encoding encoding, const uint8_t* data, size_t size, size_t raw_size,
                             size_t n, Column* out, bool* done);
  // Corruption when a decimal value appended from row `first_row` on is past the column's
  // precision (every decimal in memory is within it; the big-endian ones are checked as read).
  Status CheckDecimals(const Column& out, size_t first_row) const;
  // Appends the byte values decoded into the page buffers' views: as strings, or for a decimal
  // held as bytes, as its unscaled values.
  Status AppendByteValues(Column* out, size_t num_values, const uint8_t* valid);
  // Reused buffer of room for k values of P.
  template <typename P>
  P* Scratch(size_t k);

  LeafColumn leaf_;
  Codec codec_;
  int64_t max_uncompressed_;
  // Buffers used within one DecodePage call (decompressed page, levels, indices, values).
  // They belong to the thread, not the decoder, and are kept between pages and column chunks,
  // so that decoding neither allocates nor faults in fresh memory per chunk.
  struct PageBuffers;
  static PageBuffers& ThreadPageBuffers();
  PageBuffers* buf_ = nullptr;  // the calling thread's, set by DecodePage

  bool has_dictionary_ = false;
  std::shared_ptr<const PageDictionary> dict_;
};

// Decodes a whole column chunk data[0, size) (starting at file position `file_offset`) that
// must hold exactly `num_rows` rows, appending them to *out. With `end`, the bytes may go on
// after the chunk: *end receives where its pages end (the first byte after its last page).
Status DecodeColumnChunk(const uint8_t* data, size_t size, uint64_t file_offset,
                         const LeafColumn& leaf, Codec codec, int64_t total_uncompressed,
                         int64_t num_rows, Column* out, size_t* end = nullptr);

// Reserves characters in the string column *out for `rows` more rows that are like the
// `sample_rows` rows whose strings took `sample_chars` characters (+1/8 slack), at most `limit`
// more characters, so that chars do not regrow and copy themselves page after page. A no-op
// for other types or an empty sample.
void ReserveCharsLike(Column* out, uint64_t sample_chars, uint64_t sample_rows, uint64_t rows,
                      uint64_t limit);

// Parses the page header at data[pos] into *h; *header_size receives its length.
Status ParsePageHeaderAt(const uint8_t* data, size_t size, size_t pos, uint64_t file_offset,
                         PageHeader* h, size_t* header_size);

}  // namespace lakeindex::parquet
