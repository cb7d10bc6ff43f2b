// Value encodings of Parquet data pages (apache/parquet-format Encodings.md): PLAIN, the
// RLE/bit-packing hybrid (levels, dictionary indices, booleans), DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT.
//
// Decoders take untrusted bytes: every length and count is checked against the remaining
// input before use, and malformed input yields Status::Corruption with a short message (the
// caller adds file/column/page context with Status::WithContext). No decoder allocates more
// than a small multiple of its input size or of the value count `n` the caller passes in
// (callers bound `n` by the page header's num_values). Views returned by decoders point into
// the input buffer and live as long as it does.
//
// Thread safety: free functions are thread-safe; encoder/decoder objects are not (one per
// thread), and a decoder must not outlive the bytes it reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/status.h"

namespace lakeindex::parquet {

// Bits needed to represent `max_value`: 0 for 0, else floor(log2(max_value)) + 1.
int BitWidth(uint64_t max_value);

// ---------------------------------------------------------------------------------------------
// RLE / bit-packing hybrid, without the optional 4-byte length prefix (callers add it for
// data page v1 levels and RLE booleans).

// Chooses per group of 8 values between an RLE run (>= 8 equal values) and bit-packed runs.
// Bit-packed runs are at most 63 groups long so their header is always one byte.
class RleEncoder {
 public:
  // REQUIRES: 0 <= bit_width <= 32.
  explicit RleEncoder(int bit_width);

  // REQUIRES: value < 2^bit_width. Amortized O(1); repeats of the current run cost a compare.
  void Put(uint32_t value) {
    if (value == current_value_) {
      if (++repeat_count_ > 8) return;  // long run: nothing to buffer
    } else {
      if (repeat_count_ >= 8) FlushRleRun();
      current_value_ = value;
      repeat_count_ = 1;
    }
    buffered_[num_buffered_++] = value;
    if (num_buffered_ == 8) FlushBuffered();
  }
  // Same as n single Puts, faster: groups of 8 distinct-ish values are packed without
  // buffering, and long runs are extended by a tight compare loop.
  void Put(const uint32_t* values, size_t n);

  // Returns the encoded bytes and resets the encoder for reuse with the same bit width.
  std::string Finish();

  // Bytes encoded so far, excluding up to 8 buffered values and a pending run.
  size_t EncodedSize() const { return out_.size(); }

 private:
  void FlushBuffered();
  void AppendLiteralGroup(const uint32_t* group);
  void FlushRleRun();
  void EndLiteralRun();

  int bit_width_;
  std::string out_;
  uint32_t buffered_[8];
  int num_buffered_ = 0;
  uint32_t current_value_ = 0;
  // Length of the run of current_value_ counted from the first value after the last
  // bit-packed group, so RLE runs always start on a group boundary.
  uint64_t repeat_count_ = 0;
  size_t literal_groups_ = 0;  // groups in the open bit-packed run
  size_t literal_header_ = 0;  // offset of its one-byte header in out_
};

class RleDecoder {
 public:
  // A bit_width outside 0..32 (e.g. read from a hostile page) makes Get/Skip return Corruption.
  RleDecoder(const uint8_t* data, size_t size, int bit_width);

  // Decodes exactly n values into out[0, n), or returns Corruption when the runs end (or a
  // run is truncated, or an RLE value does not fit bit_width) before n values. Every decoded
  // value is < 2^bit_width. A bit-packed run whose padding is cut short still yields the
  // values that are fully present.
  Status Get(uint32_t* out, size_t n);
  // Like Get, discarding the values.
  Status Skip(size_t n);

  // Bytes of input covered by the runs started so far (headers plus their data).
  size_t consumed() const { return pos_; }

 private:
  Status NextRun();

  const uint8_t* data_;
  size_t size_;
  int bit_width_;
  size_t pos_ = 0;
  uint64_t rle_left_ = 0;  // values left in the current RLE run
  uint32_t rle_value_ = 0;
  uint64_t literal_left_ = 0;         // values left (and present) in the current bit-packed run
  const uint8_t* literal_ = nullptr;  // start of the current bit-packed run's bytes
  uint64_t literal_bit_ = 0;          // bit offset of the next value within literal_
};

// ---------------------------------------------------------------------------------------------
// PLAIN

// Appends n little-endian values. T is int32_t, int64_t, float or double.
template <typename T>
void PlainEncode(const T* values, size_t n, std::string* out);
// Appends ceil(n/8) bytes, bit-packed LSB first; values are 0 or 1. Booleans of one page must
// be encoded by one call (a call always starts a new byte).
void PlainEncodeBools(const uint8_t* values, size_t n, std::string* out);
// Appends a 4-byte little-endian length and the bytes. REQUIRES: value.size() < 2^32.
void PlainEncodeByteArray(std::string_view value, std::string* out);

class PlainDecoder {
 public:
  PlainDecoder(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  // T is int32_t, int64_t, float or double.
  template <typename T>
  Status GetFixed(T* out, size_t n);
  // Booleans continue bit by bit across calls. out[i] is 0 or 1.
  Status GetBools(uint8_t* out, size_t n);
  Status GetByteArray(std::string_view* out);
  Status GetByteArrays(std::string_view* out, size_t n);
  Status GetFixedLenByteArray(size_t width, std::string_view* out);
  // Raw bytes, e.g. the 12 bytes of an INT96.
  Status GetBytes(size_t n, std::string_view* out) { return GetFixedLenByteArray(n, out); }

  // Unread bytes; a partly read boolean byte counts as unread.
  size_t remaining() const { return size_ - pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  int bool_bit_ = 0;  // next bit within data_[pos_] for GetBools
};

// ---------------------------------------------------------------------------------------------
// DELTA_BINARY_PACKED and friends.

// Decodes a DELTA_BINARY_PACKED stream that must hold exactly n values (T = int32_t or
// int64_t) into *out (replaced). *consumed = bytes the stream occupies, so callers can find
// what follows it (DELTA_LENGTH_BYTE_ARRAY data). Accepts any block size that is a positive
// multiple of 8 values per miniblock (the spec requires 128 / 32; its examples use 8).
template <typename T>
Status DeltaBinaryPackedDecode(const uint8_t* data, size_t size, size_t n, std::vector<T>* out,
                               size_t* consumed);
// Appends a stream with blocks of 128 values in 4 miniblocks (what parquet-mr and Arrow write).
template <typename T>
void DeltaBinaryPackedEncode(const T* values, size_t n, std::string* out);

// n byte arrays; out (replaced) views data.
Status DeltaLengthByteArrayDecode(const uint8_t* data, size_t size, size_t n,
                                  std::vector<std::string_view>* out);
void DeltaLengthByteArrayEncode(const std::string_view* values, size_t n, std::string* out);

// n byte arrays (replaced). Corruption if a prefix is longer than the previous value, or the
// decoded strings would total more than max(64 MiB, 256 * size) bytes (a hostile page could
// otherwise repeat one long prefix n times).
Status DeltaByteArrayDecode(const uint8_t* data, size_t size, size_t n,
                            std::vector<std::string>* out);
void DeltaByteArrayEncode(const std::string_view* values, size_t n, std::string* out);

// n values of `width` bytes into out[0, n * width). The page holds `width` streams of
// size / width bytes each; Corruption unless size is a multiple of width and n fits.
Status ByteStreamSplitDecode(const uint8_t* data, size_t size, size_t n, size_t width,
                             uint8_t* out);
void ByteStreamSplitEncode(const uint8_t* values, size_t n, size_t width, std::string* out);

}  // namespace lakeindex::parquet
