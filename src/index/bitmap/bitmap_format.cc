#include "index/bitmap/bitmap_format.h"

#include <cstring>

#include <xxhash.h>

#include "index/index_key.h"

namespace lakeindex::index::bitmap {
namespace {

template <typename T>
void Put(std::string* out, T v) {
  char b[sizeof(T)];
  for (size_t i = 0; i < sizeof(T); ++i) b[i] = char(uint64_t(v) >> (8 * i));
  out->append(b, sizeof(T));
}

void PutRef(std::string* out, const BitmapRef& r) {
  Put<uint64_t>(out, r.offset);
  Put<uint32_t>(out, r.size);
  Put<uint64_t>(out, r.cardinality);
  Put<uint64_t>(out, r.xxh64);
}

// Reads little-endian fields, checking each length; the first short read is remembered.
class Cursor {
 public:
  Cursor(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  template <typename T>
  bool Get(T* v) {
    if (size_ - pos_ < sizeof(T)) return false;
    uint64_t x = 0;
    for (size_t i = 0; i < sizeof(T); ++i) x |= uint64_t(data_[pos_ + i]) << (8 * i);
    *v = T(x);
    pos_ += sizeof(T);
    return true;
  }
  bool Bytes(size_t n, std::string* out) {
    if (size_ - pos_ < n) return false;
    out->assign(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return true;
  }
  bool Ref(BitmapRef* r) { return Get(&r->offset) && Get(&r->size) && Get(&r->cardinality) && Get(&r->xxh64); }
  size_t pos() const { return pos_; }
  size_t left() const { return size_ - pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

bool KnownType(TypeId type) { return uint8_t(type) <= uint8_t(TypeId::kUuid) || IsDecimal(type); }

}  // namespace

std::string BitmapPath(std::string_view uuid) { return "_indices/" + std::string(uuid) + "/" + kFileName; }

std::string EncodeDictionary(const Dictionary& d) {
  std::string out;
  Put<uint8_t>(&out, uint8_t(d.type));
  Put<uint64_t>(&out, d.rows);
  Put<uint32_t>(&out, uint32_t(d.keys.size()));
  for (size_t i = 0; i < d.keys.size(); ++i) {
    Put<uint32_t>(&out, uint32_t(d.keys[i].size()));
    out += d.keys[i];
    PutRef(&out, d.bitmaps[i]);
  }
  PutRef(&out, d.nulls);
  return out;
}

std::string EncodeFooter(const Footer& f) {
  std::string out;
  Put<uint64_t>(&out, f.dictionary_offset);
  Put<uint32_t>(&out, f.dictionary_size);
  Put<uint64_t>(&out, f.dictionary_xxh64);
  Put<uint32_t>(&out, kFormatVersion);
  out.append(kMagic, sizeof(kMagic));
  return out;
}

Result<Footer> DecodeFooter(const uint8_t* data, size_t size, uint64_t file_size, std::string_view source) {
  auto corrupt = [&](const std::string& what) { return Status::Corruption(std::string(source) + ": " + what); };
  if (size != kFooterSize || file_size < kFooterSize) return corrupt("shorter than the 32-byte footer");
  if (std::memcmp(data + kFooterSize - sizeof(kMagic), kMagic, sizeof(kMagic)) != 0) {
    return corrupt("not a bitmap index file (bad magic)");
  }
  Cursor c(data, size);
  Footer f;
  uint32_t version = 0;
  c.Get(&f.dictionary_offset);
  c.Get(&f.dictionary_size);
  c.Get(&f.dictionary_xxh64);
  c.Get(&version);
  if (version != kFormatVersion) {
    return Status::NotSupported(std::string(source) + ": bitmap index format version " + std::to_string(version) +
                                " (this build reads " + std::to_string(kFormatVersion) + ")");
  }
  if (f.dictionary_offset > file_size - kFooterSize || f.dictionary_size != file_size - kFooterSize - f.dictionary_offset) {
    return corrupt("footer places the dictionary at [" + std::to_string(f.dictionary_offset) + ", +" +
                   std::to_string(f.dictionary_size) + ") in a file of " + std::to_string(file_size) + " bytes");
  }
  return f;
}

Result<Dictionary> DecodeDictionary(const uint8_t* data, size_t size, const Footer& footer, std::string_view source) {
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption(std::string(source) + ": dictionary " + what);
  };
  if (size != footer.dictionary_size) return corrupt("size differs from the footer's");
  if (XXH64(data, size, 0) != footer.dictionary_xxh64) return corrupt("checksum mismatch");
  Cursor c(data, size);
  Dictionary d;
  uint8_t type = 0;
  uint32_t n = 0;
  if (!c.Get(&type) || !c.Get(&d.rows) || !c.Get(&n)) return corrupt("header is cut short");
  d.type = TypeId(type);
  if (!KnownType(d.type)) return corrupt("has unknown column type " + std::to_string(type));
  // Each entry takes at least 32 bytes: bound n before reserving.
  if (n > c.left() / 32) return corrupt("claims " + std::to_string(n) + " values in " + std::to_string(size) + " bytes");
  d.keys.reserve(n);
  d.bitmaps.reserve(n);
  uint64_t next = 0, rows = 0;
  auto check_ref = [&](const BitmapRef& r, const std::string& what) -> Status {
    if (r.offset != next || r.size > footer.dictionary_offset - r.offset) {
      return corrupt(what + "'s bitmap at [" + std::to_string(r.offset) + ", +" + std::to_string(r.size) +
                     ") is out of place (expected at " + std::to_string(next) + ")");
    }
    next = r.offset + r.size;
    rows += r.cardinality;
    return Status::OK();
  };
  for (uint32_t i = 0; i < n; ++i) {
    const std::string what = "entry " + std::to_string(i);
    uint32_t len = 0;
    std::string key;
    BitmapRef ref;
    if (!c.Get(&len) || !c.Bytes(len, &key) || !c.Ref(&ref)) return corrupt(what + " is cut short");
    if (!d.keys.empty() && !(d.keys.back() < key)) return corrupt(what + "'s key is not above the one before");
    if (!DecodeKey(d.type, key).ok()) return corrupt(what + "'s key is no " + TypeName(d.type));
    RETURN_IF_ERROR(check_ref(ref, what));
    d.keys.push_back(std::move(key));
    d.bitmaps.push_back(ref);
  }
  if (!c.Ref(&d.nulls)) return corrupt("NULL entry is cut short");
  RETURN_IF_ERROR(check_ref(d.nulls, "the NULL entry"));
  if (c.left() != 0) return corrupt("has " + std::to_string(c.left()) + " bytes after its last entry");
  if (next != footer.dictionary_offset) return corrupt("bitmaps end at " + std::to_string(next) + ", before the dictionary at " + std::to_string(footer.dictionary_offset));
  if (rows != d.rows) return corrupt("bitmaps hold " + std::to_string(rows) + " rows, the header says " + std::to_string(d.rows));
  return d;
}

}  // namespace lakeindex::index::bitmap
