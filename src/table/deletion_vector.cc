#include "table/deletion_vector.h"

#include <xxhash.h>

#include <cstring>

namespace lakeindex::table {

namespace {
void PutU32(std::string* out, uint32_t v) { out->append(reinterpret_cast<const char*>(&v), 4); }
uint32_t GetU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
}  // namespace

std::string EncodeDeletionVector(const DeletionVector& dv) {
  roaring::Roaring bits = dv.deleted;
  bits.runOptimize();
  std::string payload(bits.getSizeInBytes(/*portable=*/true), '\0');
  bits.write(payload.data(), /*portable=*/true);
  std::string out(kDeletionMagic, 4);
  PutU32(&out, kDeletionFormatVersion);
  PutU32(&out, dv.fragment_id);
  PutU32(&out, dv.fragment_rows);
  PutU32(&out, uint32_t(bits.cardinality()));
  PutU32(&out, uint32_t(payload.size()));
  out += payload;
  uint64_t h = XXH64(out.data(), out.size(), 0);
  out.append(reinterpret_cast<const char*>(&h), 8);
  return out;
}

Result<DeletionVector> DecodeDeletionVector(const uint8_t* data, size_t size, std::string_view source) {
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption(std::string(source) + ": deletion vector " + what);
  };
  if (size < kDeletionHeaderSize + 8) return corrupt("truncated (" + std::to_string(size) + " bytes)");
  if (std::memcmp(data, kDeletionMagic, 4) != 0) return corrupt("has a bad magic number");
  if (GetU32(data + 4) != kDeletionFormatVersion) {
    return Status::NotSupported(std::string(source) + ": deletion vector format version " +
                                std::to_string(GetU32(data + 4)));
  }
  uint32_t payload_len = GetU32(data + 20);
  if (uint64_t(payload_len) + kDeletionHeaderSize + 8 != size) return corrupt("length does not match the file size");
  uint64_t stored;
  std::memcpy(&stored, data + kDeletionHeaderSize + payload_len, 8);
  if (XXH64(data, kDeletionHeaderSize + payload_len, 0) != stored) return corrupt("checksum mismatch");
  DeletionVector dv;
  dv.fragment_id = GetU32(data + 8);
  dv.fragment_rows = GetU32(data + 12);
  uint32_t count = GetU32(data + 16);
  // CRoaring 0.2 trusts a bitmap's container headers: an empty run container crashed its
  // iterator, a wrong cardinality gave a wrong count (both found by deletion_vector_fuzz).
  Status valid = RowSet::ValidatePortableBitmap32(data + kDeletionHeaderSize, payload_len);
  if (!valid.ok()) return corrupt("payload: " + valid.message());
  roaring_bitmap_t* r = roaring_bitmap_portable_deserialize_safe(
      reinterpret_cast<const char*>(data + kDeletionHeaderSize), payload_len);
  if (r == nullptr) return corrupt("payload is malformed");
  dv.deleted = roaring::Roaring(r);
  // Defence in depth behind the validation: the values must increase strictly, stay below
  // fragment_rows and number `count`.
  uint64_t seen = 0;
  int64_t previous = -1;
  for (uint32_t offset : dv.deleted) {
    if (int64_t(offset) <= previous) return corrupt("payload is not in increasing order");
    if (offset >= dv.fragment_rows) return corrupt("deletes row " + std::to_string(offset) + " beyond the fragment");
    previous = offset;
    ++seen;
  }
  if (seen != count || dv.deleted.cardinality() != count) return corrupt("row count does not match its payload");
  return dv;
}

}  // namespace lakeindex::table
