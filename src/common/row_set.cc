// RowSet and Kleene logic over row sets.
//
// Serialized form: CRoaring's portable 64-bit format (little-endian):
//   u64 bucket_count, then per bucket (keys strictly ascending):
//     u32 high_bits, then a 32-bit roaring bitmap in the portable format
//     (https://github.com/RoaringBitmap/RoaringFormatSpec).
// CRoaring 0.2.x's Roaring64Map::readSafe trusts the bucket count, throws, and re-derives
// positions from the parsed bitmap, so Deserialize validates the whole input first with the
// checked parser below and only then hands it to CRoaring.

#include "lakeindex/row_set.h"

#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace lakeindex {

namespace {

constexpr uint32_t kCookieNoRuns = 12346;   // followed by u32 container count
constexpr uint32_t kCookieRuns = 12347;     // low 16 bits; high 16 bits = container count - 1
constexpr uint32_t kNoOffsetThreshold = 4;  // run-format bitmaps with fewer containers omit offsets
constexpr uint32_t kMaxArrayCardinality = 4096;
constexpr size_t kBitmapContainerBytes = 8192;

// Bounds-checked little-endian reader over one input buffer.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  size_t pos() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }
  bool Skip(size_t n) {
    if (n > remaining()) return false;
    pos_ += n;
    return true;
  }
  bool U16(uint16_t* v) { return Le(v); }
  bool U32(uint32_t* v) { return Le(v); }
  bool U64(uint64_t* v) { return Le(v); }
  const uint8_t* At(size_t pos) const { return data_ + pos; }

 private:
  template <typename T>
  bool Le(T* v) {
    if (remaining() < sizeof(T)) return false;
    T out = 0;
    for (size_t i = 0; i < sizeof(T); ++i) out |= T(data_[pos_ + i]) << (8 * i);
    *v = out;
    pos_ += sizeof(T);
    return true;
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

Status Bad(size_t offset, const std::string& what) {
  return Status::Corruption("row set at byte " + std::to_string(offset) + ": " + what);
}

uint16_t LoadU16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }

// Validates one portable 32-bit bitmap starting at r->pos() and advances past it. Accepts
// exactly the canonical form CRoaring writes, so that its own parser (which recomputes sizes
// from the parsed bitmap) walks the same bytes.
Status ValidateBitmap32(ByteReader* r) {
  const size_t start = r->pos();
  uint32_t cookie = 0;
  if (!r->U32(&cookie)) return Bad(start, "truncated bitmap header");
  uint32_t n = 0;
  std::vector<uint8_t> run_flags;
  const bool has_runs = (cookie & 0xFFFF) == kCookieRuns;
  if (has_runs) {
    n = (cookie >> 16) + 1;
    const size_t flag_bytes = (n + 7) / 8;
    if (r->remaining() < flag_bytes) return Bad(r->pos(), "truncated run flags");
    run_flags.assign(r->At(r->pos()), r->At(r->pos()) + flag_bytes);
    r->Skip(flag_bytes);
    bool any = false;
    for (uint8_t f : run_flags) any |= f != 0;
    if (!any) return Bad(start, "run-container cookie without run containers");
  } else if (cookie == kCookieNoRuns) {
    if (!r->U32(&n)) return Bad(r->pos(), "truncated container count");
    if (n > 65536) return Bad(start, "container count " + std::to_string(n) + " > 65536");
  } else {
    return Bad(start, "bad bitmap cookie " + std::to_string(cookie));
  }
  // Each container needs 4 header bytes; check before reading so a huge n fails fast.
  if (r->remaining() / 4 < n) return Bad(r->pos(), "truncated container headers");
  std::vector<uint16_t> keys(n);
  std::vector<uint32_t> cards(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint16_t key = 0, card_minus_one = 0;
    r->U16(&key);
    r->U16(&card_minus_one);
    if (i > 0 && key <= keys[i - 1]) return Bad(r->pos() - 4, "container keys not ascending");
    keys[i] = key;
    cards[i] = uint32_t(card_minus_one) + 1;
  }
  const bool has_offsets = !has_runs || n >= kNoOffsetThreshold;
  const size_t offsets_pos = r->pos();
  if (has_offsets && !r->Skip(size_t(n) * 4)) return Bad(offsets_pos, "truncated offsets");
  for (uint32_t i = 0; i < n; ++i) {
    const size_t cpos = r->pos();
    if (has_offsets) {
      const uint8_t* o = r->At(offsets_pos + 4 * size_t(i));
      const uint32_t offset =
          uint32_t(o[0]) | uint32_t(o[1]) << 8 | uint32_t(o[2]) << 16 | uint32_t(o[3]) << 24;
      if (offset != cpos - start) return Bad(cpos, "container offset mismatch");
    }
    const bool is_run = has_runs && (run_flags[i / 8] >> (i % 8)) & 1;
    if (is_run) {
      uint16_t runs = 0;
      if (!r->U16(&runs)) return Bad(cpos, "truncated run count");
      if (runs == 0) return Bad(cpos, "run container without runs");
      if (r->remaining() / 4 < runs) return Bad(cpos, "truncated runs");
      uint32_t total = 0;
      int64_t prev_end = -1;
      for (uint32_t j = 0; j < runs; ++j) {
        const uint8_t* p = r->At(r->pos() + 4 * size_t(j));
        const uint32_t run_start = LoadU16(p);
        const uint32_t run_end = run_start + LoadU16(p + 2);  // inclusive
        if (run_end > 0xFFFF) return Bad(cpos, "run past the end of its container");
        if (int64_t(run_start) <= prev_end) return Bad(cpos, "runs overlap or are unsorted");
        prev_end = run_end;
        total += run_end - run_start + 1;
      }
      r->Skip(4 * size_t(runs));
      if (total != cards[i]) return Bad(cpos, "run container cardinality mismatch");
    } else if (cards[i] <= kMaxArrayCardinality) {
      const size_t bytes = 2 * size_t(cards[i]);
      if (r->remaining() < bytes) return Bad(cpos, "truncated array container");
      const uint8_t* p = r->At(cpos);
      for (uint32_t j = 1; j < cards[i]; ++j) {
        if (LoadU16(p + 2 * j) <= LoadU16(p + 2 * (j - 1))) {
          return Bad(cpos, "array container not strictly ascending");
        }
      }
      r->Skip(bytes);
    } else {
      if (r->remaining() < kBitmapContainerBytes) return Bad(cpos, "truncated bitmap container");
      uint32_t popcount = 0;
      const uint8_t* p = r->At(cpos);
      for (size_t j = 0; j < kBitmapContainerBytes; ++j) popcount += __builtin_popcount(p[j]);
      if (popcount != cards[i]) return Bad(cpos, "bitmap container cardinality mismatch");
      r->Skip(kBitmapContainerBytes);
    }
  }
  return Status::OK();
}

// Iterates the set bits from the first one >= `start`. CRoaring 0.2.x's iterator move() can
// stop on an empty bucket (operator&= and -= leave them behind) without a value; step past it.
class SetBitCursor : public roaring::Roaring64Map::const_iterator {
 public:
  SetBitCursor(const roaring::Roaring64Map& bits, uint64_t start)
      : roaring::Roaring64Map::const_iterator(bits) {
    if (!move(start)) {
      map_iter = map_end;
    } else if (!i.has_value) {
      ++*this;
    }
  }
  bool Valid() const { return map_iter != map_end; }
};

}  // namespace

void RowSet::AddRange(uint64_t begin, uint64_t end) {
  if (begin >= end) return;
  // Roaring64Map 0.2.x has no addRange and its 64-bit flip() skips the last value of each
  // 2^32 bucket, so fill bucket by bucket with same-bucket flips (exclusive end) of an empty
  // map, then add each bucket's last value separately when the range reaches it.
  const uint64_t last = end - 1;  // inclusive
  roaring::Roaring64Map range;
  for (uint64_t high = begin >> 32; high <= last >> 32; ++high) {
    const uint64_t base = high << 32;
    const uint64_t lo = high == (begin >> 32) ? begin : base;
    const uint64_t hi = high == (last >> 32) ? last : base | 0xFFFFFFFFull;  // inclusive
    range.flip(lo, hi);                                                      // adds [lo, hi)
    range.add(hi);
  }
  bits_ |= range;
}

RowSet RowSet::Range(uint32_t fragment_id, uint32_t begin, uint32_t end) {
  RowSet out;
  out.AddRange(MakeRowAddress(fragment_id, begin), MakeRowAddress(fragment_id, 0) + end);
  return out;
}

RowSet RowSet::Of(const std::vector<uint64_t>& addresses) {
  RowSet out;
  if (!addresses.empty()) out.bits_.addMany(addresses.size(), addresses.data());
  return out;
}

bool RowSet::operator==(const RowSet& o) const {
  // Equal sizes and no element of this outside `o`. Set operations leave empty buckets behind,
  // which CRoaring 0.2.x's own operator== and isSubset mishandle.
  if (bits_.cardinality() != o.bits_.cardinality()) return false;
  roaring::Roaring64Map diff = bits_;
  diff -= o.bits_;
  return diff.isEmpty();
}

std::vector<uint64_t> RowSet::ToVector() const {
  std::vector<uint64_t> out(bits_.cardinality());
  if (!out.empty()) bits_.toUint64Array(out.data());
  return out;
}

uint64_t RowSet::CardinalityIn(uint32_t fragment_id) const {
  const uint64_t last = MakeRowAddress(fragment_id, UINT32_MAX);
  const uint64_t before = fragment_id == 0 ? 0 : bits_.rank(MakeRowAddress(fragment_id, 0) - 1);
  return bits_.rank(last) - before;
}

std::vector<uint32_t> RowSet::OffsetsIn(uint32_t fragment_id) const {
  std::vector<uint32_t> out;
  for (SetBitCursor it(bits_, MakeRowAddress(fragment_id, 0));
       it.Valid() && RowAddressFragment(*it) == fragment_id; ++it) {
    out.push_back(RowAddressOffset(*it));
  }
  return out;
}

std::string RowSet::Serialize() const {
  roaring::Roaring64Map copy = bits_;
  copy.runOptimize();
  const size_t size = copy.getSizeInBytes(/*portable=*/true);
  // write() stores the bucket count through a uint64_t*, so give it an aligned buffer.
  std::vector<uint64_t> buf(size / 8 + 1);  // (size + 7) / 8 trips a GCC -O3 false positive
  const size_t written = copy.write(reinterpret_cast<char*>(buf.data()), /*portable=*/true);
  return std::string(reinterpret_cast<const char*>(buf.data()), written);
}

Status RowSet::ValidatePortableBitmap32(const uint8_t* data, size_t size) {
  ByteReader r(data, size);
  RETURN_IF_ERROR(ValidateBitmap32(&r));
  if (r.remaining() != 0) return Bad(r.pos(), std::to_string(r.remaining()) + " trailing bytes");
  return Status::OK();
}

Result<RowSet> RowSet::Deserialize(const uint8_t* data, size_t size) {
  ByteReader r(data, size);
  uint64_t buckets = 0;
  if (!r.U64(&buckets))
    return Bad(0, "truncated bucket count (" + std::to_string(size) + " bytes)");
  // Every bucket takes at least 12 bytes (key + cookie + count).
  if (buckets > r.remaining() / 12) {
    return Bad(0, "bucket count " + std::to_string(buckets) + " exceeds the input");
  }
  int64_t prev_key = -1;
  for (uint64_t i = 0; i < buckets; ++i) {
    uint32_t key = 0;
    if (!r.U32(&key)) return Bad(r.pos(), "truncated bucket key");
    if (int64_t(key) <= prev_key) return Bad(r.pos() - 4, "bucket keys not ascending");
    prev_key = key;
    RETURN_IF_ERROR(ValidateBitmap32(&r));
  }
  if (r.remaining() != 0) {
    return Bad(r.pos(), std::to_string(r.remaining()) + " trailing bytes");
  }
  // The input is canonical now; CRoaring reads the count through a uint64_t*, so align it.
  std::vector<uint64_t> buf(size / 8 + 1);  // (size + 7) / 8 trips a GCC -O3 false positive
  std::memcpy(buf.data(), data, size);
  try {
    return RowSet(roaring::Roaring64Map::readSafe(reinterpret_cast<const char*>(buf.data()), size));
  } catch (const std::exception& e) {
    return Status::Corruption(std::string("row set: ") + e.what());
  }
}

NullableRowSet NullableRowSet::And(const NullableRowSet& a, const NullableRowSet& b) {
  // TRUE needs both TRUE; UNKNOWN needs neither FALSE (both in TRUE ∪ UNKNOWN) and not TRUE.
  NullableRowSet out;
  out.true_rows = a.true_rows & b.true_rows;
  out.null_rows = ((a.true_rows | a.null_rows) & (b.true_rows | b.null_rows)) - out.true_rows;
  return out;
}

NullableRowSet NullableRowSet::Or(const NullableRowSet& a, const NullableRowSet& b) {
  // TRUE if either is TRUE; UNKNOWN if either is UNKNOWN and neither is TRUE.
  NullableRowSet out;
  out.true_rows = a.true_rows | b.true_rows;
  out.null_rows = (a.null_rows | b.null_rows) - out.true_rows;
  return out;
}

NullableRowSet NullableRowSet::Not(const NullableRowSet& a, const RowSet& universe) {
  // REQUIRES: a's rows lie in `universe` (they were evaluated over it).
  NullableRowSet out;
  out.true_rows = universe - a.true_rows - a.null_rows;
  out.null_rows = a.null_rows;
  return out;
}

}  // namespace lakeindex
