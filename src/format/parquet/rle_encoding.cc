// RLE / bit-packing hybrid (Encodings.md "Run Length Encoding / Bit-Packing Hybrid"):
//   run := bit-packed-run | rle-run
//   bit-packed-run := ULEB128(groups << 1 | 1) then groups * bit_width bytes (8 values/group)
//   rle-run        := ULEB128(count << 1) then the value in ceil(bit_width / 8) bytes, LE
#include <algorithm>
#include <cassert>

#include "format/parquet/bit_util.h"
#include "format/parquet/encoding.h"

namespace lakeindex::parquet {
namespace {

// Spec: run lengths are in [1, 2^31 - 1]; we accept 0 (harmless) but not more.
constexpr uint64_t kMaxRunLength = (uint64_t{1} << 31) - 1;
// One-byte header for bit-packed runs: (63 << 1 | 1) = 127 < 128.
constexpr size_t kMaxLiteralGroups = 63;

}  // namespace

int BitWidth(uint64_t max_value) { return max_value == 0 ? 0 : 64 - std::countl_zero(max_value); }

RleEncoder::RleEncoder(int bit_width) : bit_width_(bit_width) {
  assert(bit_width >= 0 && bit_width <= 32);
}

void RleEncoder::FlushRleRun() {
  const int value_bytes = (bit_width_ + 7) / 8;
  uint64_t left = repeat_count_;
  while (left > 0) {
    const uint64_t run = std::min(left, kMaxRunLength);
    bits::WriteUleb128(run << 1, &out_);
    for (int i = 0; i < value_bytes; ++i)
      out_.push_back(static_cast<char>(current_value_ >> (8 * i)));
    left -= run;
  }
  repeat_count_ = 0;
}

void RleEncoder::EndLiteralRun() {
  out_[literal_header_] = static_cast<char>((literal_groups_ << 1) | 1);
  literal_groups_ = 0;
}

void RleEncoder::FlushBuffered() {
  if (repeat_count_ >= 8) {
    // The 8 buffered values are the start of an RLE run (runs start on group boundaries).
    num_buffered_ = 0;
    if (literal_groups_ > 0) EndLiteralRun();
    return;
  }
  AppendLiteralGroup(buffered_);
  num_buffered_ = 0;
  repeat_count_ = 0;
}

void RleEncoder::AppendLiteralGroup(const uint32_t* group) {
  if (literal_groups_ == 0) {
    literal_header_ = out_.size();
    out_.push_back(0);  // patched by EndLiteralRun
  }
  bits::Pack(group, 8, bit_width_, &out_);
  if (++literal_groups_ == kMaxLiteralGroups) EndLiteralRun();
}

void RleEncoder::Put(const uint32_t* values, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (num_buffered_ == 0 && repeat_count_ == 0 && n - i >= 8) {
      // On a group boundary outside any run: a group that is not all one value is a
      // bit-packed group, exactly as 8 single Puts would decide.
      const uint32_t* g = values + i;
      uint32_t diff = 0;
      for (int j = 1; j < 8; ++j) diff |= g[j] ^ g[0];
      if (diff != 0) {
        AppendLiteralGroup(g);
        current_value_ = g[7];
        i += 8;
        continue;
      }
    } else if (repeat_count_ >= 8) {
      size_t j = i;
      while (j < n && values[j] == current_value_) ++j;
      repeat_count_ += j - i;
      i = j;
      if (i == n) break;
    }
    Put(values[i++]);
  }
}

std::string RleEncoder::Finish() {
  if (repeat_count_ >= 8) {
    FlushRleRun();
  } else if (num_buffered_ > 0) {
    if (literal_groups_ == 0 && repeat_count_ == static_cast<uint64_t>(num_buffered_)) {
      FlushRleRun();  // a short tail of equal values
    } else {
      // Pad the last group with zeros; readers stop after the values they expect.
      std::fill(buffered_ + num_buffered_, buffered_ + 8, 0u);
      AppendLiteralGroup(buffered_);
    }
  }
  if (literal_groups_ > 0) EndLiteralRun();
  num_buffered_ = 0;
  repeat_count_ = 0;
  current_value_ = 0;
  std::string result = std::move(out_);
  out_.clear();
  return result;
}

RleDecoder::RleDecoder(const uint8_t* data, size_t size, int bit_width)
    : data_(data), size_(size), bit_width_(bit_width) {}

Status RleDecoder::NextRun() {
  if (bit_width_ < 0 || bit_width_ > 32) {
    return Status::Corruption("RLE bit width " + std::to_string(bit_width_) + " is not in 0..32");
  }
  const size_t header_pos = pos_;
  uint64_t header;
  if (!bits::ReadUleb128(data_, size_, &pos_, &header)) {
    pos_ = size_;
    return Status::Corruption(
        header_pos >= size_ ? "RLE/bit-packed data ends at byte " + std::to_string(size_) +
                                  " before all values were read"
                            : "RLE run header truncated at byte " + std::to_string(header_pos));
  }
  const uint64_t count = header >> 1;
  if ((header & 1) != 0) {
    if (count > kMaxRunLength / 8) {
      return Status::Corruption("bit-packed run of " + std::to_string(count) + " groups at byte " +
                                std::to_string(header_pos) + " is too long");
    }
    const uint64_t bytes = count * static_cast<uint64_t>(bit_width_);
    const size_t avail = static_cast<size_t>(std::min<uint64_t>(bytes, size_ - pos_));
    literal_ = data_ + pos_;
    literal_bit_ = 0;
    literal_left_ =
        bit_width_ == 0 ? count * 8 : std::min<uint64_t>(count * 8, avail * 8 / bit_width_);
    pos_ += avail;
    if (literal_left_ == 0 && count > 0) {
      return Status::Corruption("bit-packed run at byte " + std::to_string(header_pos) +
                                " is truncated");
    }
    return Status::OK();
  }
  if (count > kMaxRunLength) {
    return Status::Corruption("RLE run of " + std::to_string(count) + " values at byte " +
                              std::to_string(header_pos) + " is too long");
  }
  const size_t value_bytes = static_cast<size_t>((bit_width_ + 7) / 8);
  if (size_ - pos_ < value_bytes) {
    pos_ = size_;
    return Status::Corruption("RLE run value truncated at byte " + std::to_string(header_pos));
  }
  uint32_t value = 0;
  for (size_t i = 0; i < value_bytes; ++i) value |= uint32_t{data_[pos_ + i]} << (8 * i);
  pos_ += value_bytes;
  if (bit_width_ < 32 && (value >> bit_width_) != 0) {
    return Status::Corruption("RLE run value " + std::to_string(value) + " at byte " +
                              std::to_string(header_pos) + " exceeds bit width " +
                              std::to_string(bit_width_));
  }
  rle_value_ = value;
  rle_left_ = count;
  return Status::OK();
}

Status RleDecoder::Get(uint32_t* out, size_t n) {
  while (n > 0) {
    if (rle_left_ > 0) {
      const size_t k = static_cast<size_t>(std::min<uint64_t>(n, rle_left_));
      std::fill(out, out + k, rle_value_);
      out += k;
      n -= k;
      rle_left_ -= k;
    } else if (literal_left_ > 0) {
      const size_t k = static_cast<size_t>(std::min<uint64_t>(n, literal_left_));
      // Bytes after the run are readable too (the fast path loads past a group's end).
      bits::Unpack(literal_, static_cast<size_t>(data_ + size_ - literal_), literal_bit_,
                   bit_width_, k, out);
      literal_bit_ += static_cast<uint64_t>(k) * bit_width_;
      out += k;
      n -= k;
      literal_left_ -= k;
    } else {
      RETURN_IF_ERROR(NextRun());
    }
  }
  return Status::OK();
}

Status RleDecoder::Skip(size_t n) {
  while (n > 0) {
    if (rle_left_ > 0) {
      const size_t k = static_cast<size_t>(std::min<uint64_t>(n, rle_left_));
      n -= k;
      rle_left_ -= k;
    } else if (literal_left_ > 0) {
      const size_t k = static_cast<size_t>(std::min<uint64_t>(n, literal_left_));
      literal_bit_ += static_cast<uint64_t>(k) * bit_width_;
      n -= k;
      literal_left_ -= k;
    } else {
      RETURN_IF_ERROR(NextRun());
    }
  }
  return Status::OK();
}

}  // namespace lakeindex::parquet
