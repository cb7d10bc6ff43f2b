#include "format/parquet/thrift_compact.h"

#include <cstring>

namespace lakeindex::parquet::thrift {

namespace {
bool IsBoolType(CType t) { return t == CType::kBoolTrue || t == CType::kBoolFalse; }
}  // namespace

// ---------------------------------------------------------------------------------------------
// CompactWriter

void CompactWriter::Varint(uint64_t v) {
  while (v >= 0x80) {
    out_->push_back(char(uint8_t(v) | 0x80));
    v >>= 7;
  }
  out_->push_back(char(uint8_t(v)));
}

void CompactWriter::ZigZag(int64_t v) { Varint((uint64_t(v) << 1) ^ uint64_t(v >> 63)); }

void CompactWriter::FieldHeader(int16_t id, CType type) {
  int delta = int(id) - int(last_id_);
  if (delta > 0 && delta <= 15) {
    out_->push_back(char(uint8_t(delta << 4) | uint8_t(type)));
  } else {
    out_->push_back(char(uint8_t(type)));
    ZigZag(id);
  }
  last_id_ = id;
}

void CompactWriter::StructBegin() {
  id_stack_.push_back(last_id_);
  last_id_ = 0;
}

void CompactWriter::StructEnd() {
  out_->push_back(char(CType::kStop));
  last_id_ = id_stack_.empty() ? 0 : id_stack_.back();
  if (!id_stack_.empty()) id_stack_.pop_back();
}

void CompactWriter::FieldBool(int16_t id, bool v) {
  FieldHeader(id, v ? CType::kBoolTrue : CType::kBoolFalse);
}
void CompactWriter::FieldI8(int16_t id, int8_t v) {
  FieldHeader(id, CType::kByte);
  out_->push_back(char(v));
}
void CompactWriter::FieldI16(int16_t id, int16_t v) {
  FieldHeader(id, CType::kI16);
  ZigZag(v);
}
void CompactWriter::FieldI32(int16_t id, int32_t v) {
  FieldHeader(id, CType::kI32);
  ZigZag(v);
}
void CompactWriter::FieldI64(int16_t id, int64_t v) {
  FieldHeader(id, CType::kI64);
  ZigZag(v);
}
void CompactWriter::FieldDouble(int16_t id, double v) {
  FieldHeader(id, CType::kDouble);
  char b[8];
  std::memcpy(b, &v, 8);  // little-endian host assumed (x86-64, aarch64)
  out_->append(b, 8);
}
void CompactWriter::FieldBinary(int16_t id, std::string_view v) {
  FieldHeader(id, CType::kBinary);
  ElementBinary(v);
}
void CompactWriter::FieldStructBegin(int16_t id) {
  FieldHeader(id, CType::kStruct);
  StructBegin();
}
void CompactWriter::FieldListBegin(int16_t id, CType elem_type, size_t size) {
  FieldHeader(id, CType::kList);
  if (size < 15) {
    out_->push_back(char(uint8_t(size << 4) | uint8_t(elem_type)));
  } else {
    out_->push_back(char(0xF0 | uint8_t(elem_type)));
    Varint(size);
  }
}

void CompactWriter::ElementBool(bool v) {
  out_->push_back(char(v ? CType::kBoolTrue : CType::kBoolFalse));
}
void CompactWriter::ElementI32(int32_t v) { ZigZag(v); }
void CompactWriter::ElementI64(int64_t v) { ZigZag(v); }
void CompactWriter::ElementBinary(std::string_view v) {
  Varint(v.size());
  out_->append(v.data(), v.size());
}

// ---------------------------------------------------------------------------------------------
// CompactReader

Status CompactReader::Error(std::string_view what) const {
  return Status::Corruption("thrift: " + std::string(what) + " at offset " +
                            std::to_string(base_ + pos_));
}

Status CompactReader::Expect(CType got, CType want, const char* what) const {
  if (got == want) return Status::OK();
  return Error(std::string("field '") + what + "' has wire type " + std::to_string(int(got)) +
               ", expected " + std::to_string(int(want)));
}

Status CompactReader::Byte(uint8_t* b) {
  if (pos_ >= size_) return Error("unexpected end of data");
  *b = data_[pos_++];
  return Status::OK();
}

Status CompactReader::Varint(uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos_ >= size_) return Error("truncated varint");
    uint8_t b = data_[pos_++];
    if (shift == 63 && b > 1) return Error("varint overflows 64 bits");
    result |= uint64_t(b & 0x7F) << shift;
    if ((b & 0x80) == 0) {
      *v = result;
      return Status::OK();
    }
  }
  return Error("varint longer than 10 bytes");
}

Status CompactReader::ZigZag64(int64_t* v) {
  uint64_t u = 0;
  RETURN_IF_ERROR(Varint(&u));
  *v = int64_t(u >> 1) ^ -int64_t(u & 1);
  return Status::OK();
}

Status CompactReader::ZigZag32(int32_t* v) {
  uint64_t u = 0;
  RETURN_IF_ERROR(Varint(&u));
  if (u > 0xFFFFFFFFull) return Error("i32 value out of range");
  uint32_t w = uint32_t(u);
  *v = int32_t(w >> 1) ^ -int32_t(w & 1);
  return Status::OK();
}

bool CompactReader::TryReadIntStruct(const CType* types, int n, int64_t* out) {
  size_t pos = pos_;
  for (int i = 0; i < n; ++i) {
    if (pos >= size_ || data_[pos] != (0x10 | uint8_t(types[i]))) return false;
    ++pos;
    uint64_t u = 0;
    int shift = 0;
    while (true) {
      if (pos >= size_ || shift > 63) return false;  // truncated or overlong: the general path
      uint8_t b = data_[pos++];
      if (shift == 63 && b > 1) return false;
      u |= uint64_t(b & 0x7F) << shift;
      if ((b & 0x80) == 0) break;
      shift += 7;
    }
    if (types[i] == CType::kI32) {
      if (u > 0xFFFFFFFFull) return false;
      uint32_t w = uint32_t(u);
      out[i] = int32_t(w >> 1) ^ -int32_t(w & 1);
    } else if (types[i] == CType::kI64) {
      out[i] = int64_t(u >> 1) ^ -int64_t(u & 1);
    } else {
      return false;
    }
  }
  if (pos >= size_ || data_[pos] != 0) return false;
  pos_ = pos + 1;
  return true;
}

Status CompactReader::StructBegin() {
  if (depth_ >= kMaxDepth) return Error("structures nested too deeply");
  ++depth_;
  id_stack_.push_back(last_id_);
  last_id_ = 0;
  return Status::OK();
}

Status CompactReader::StructEnd() {
  if (depth_ == 0 || id_stack_.empty()) return Error("unbalanced struct end");
  --depth_;
  last_id_ = id_stack_.back();
  id_stack_.pop_back();
  return Status::OK();
}

Status CompactReader::FieldHeader(int16_t* id, CType* type) {
  uint8_t b = 0;
  RETURN_IF_ERROR(Byte(&b));
  uint8_t t = b & 0x0F;
  if (t > uint8_t(CType::kStruct)) return Error("unknown field type " + std::to_string(t));
  *type = CType(t);
  if (*type == CType::kStop) {
    if (b != 0) return Error("malformed stop byte");
    *id = 0;
    return Status::OK();
  }
  uint8_t delta = b >> 4;
  if (delta != 0) {
    int next = int(last_id_) + delta;
    if (next > INT16_MAX) return Error("field id overflows i16");
    *id = int16_t(next);
  } else {
    int32_t raw;
    RETURN_IF_ERROR(ZigZag32(&raw));
    if (raw < INT16_MIN || raw > INT16_MAX) return Error("field id out of range");
    *id = int16_t(raw);
  }
  last_id_ = *id;
  return Status::OK();
}

Status CompactReader::ReadBool(CType type, bool* v) {
  if (!IsBoolType(type)) return Expect(type, CType::kBoolTrue, "bool");
  *v = type == CType::kBoolTrue;
  return Status::OK();
}

Status CompactReader::ReadI8(CType type, int8_t* v) {
  RETURN_IF_ERROR(Expect(type, CType::kByte, "i8"));
  uint8_t b = 0;
  RETURN_IF_ERROR(Byte(&b));
  *v = int8_t(b);
  return Status::OK();
}

Status CompactReader::ReadI16(CType type, int16_t* v) {
  RETURN_IF_ERROR(Expect(type, CType::kI16, "i16"));
  int32_t x;
  RETURN_IF_ERROR(ZigZag32(&x));
  if (x < INT16_MIN || x > INT16_MAX) return Error("i16 value out of range");
  *v = int16_t(x);
  return Status::OK();
}

Status CompactReader::ReadI32(CType type, int32_t* v) {
  RETURN_IF_ERROR(Expect(type, CType::kI32, "i32"));
  return ZigZag32(v);
}

Status CompactReader::ReadI64(CType type, int64_t* v) {
  RETURN_IF_ERROR(Expect(type, CType::kI64, "i64"));
  return ZigZag64(v);
}

Status CompactReader::ReadDouble(CType type, double* v) {
  RETURN_IF_ERROR(Expect(type, CType::kDouble, "double"));
  if (size_ - pos_ < 8) return Error("truncated double");
  std::memcpy(v, data_ + pos_, 8);
  pos_ += 8;
  return Status::OK();
}

Status CompactReader::ReadBinary(CType type, std::string_view* v) {
  RETURN_IF_ERROR(Expect(type, CType::kBinary, "binary"));
  return ElementBinary(CType::kBinary, v);
}

Status CompactReader::ReadString(CType type, std::string* v) {
  std::string_view view;
  RETURN_IF_ERROR(ReadBinary(type, &view));
  v->assign(view);
  return Status::OK();
}

Status CompactReader::ListBegin(CType type, CType* elem_type, uint32_t* size) {
  if (type != CType::kList && type != CType::kSet) return Expect(type, CType::kList, "list");
  uint8_t b = 0;
  RETURN_IF_ERROR(Byte(&b));
  uint8_t t = b & 0x0F;
  if (t > uint8_t(CType::kStruct) || t == 0) return Error("unknown list element type");
  *elem_type = CType(t);
  uint64_t n = b >> 4;
  if (n == 15) RETURN_IF_ERROR(Varint(&n));
  // Every element takes at least one byte, so a longer list cannot fit in what is left.
  if (n > remaining()) return Error("list of " + std::to_string(n) + " elements exceeds data");
  *size = uint32_t(n);
  return Status::OK();
}

Status CompactReader::ElementBool(CType elem_type, bool* v) {
  if (!IsBoolType(elem_type)) return Expect(elem_type, CType::kBoolTrue, "bool element");
  uint8_t b = 0;
  RETURN_IF_ERROR(Byte(&b));
  *v = b == uint8_t(CType::kBoolTrue);
  return Status::OK();
}

Status CompactReader::ElementI32(CType elem_type, int32_t* v) {
  RETURN_IF_ERROR(Expect(elem_type, CType::kI32, "i32 element"));
  return ZigZag32(v);
}

Status CompactReader::ElementI64(CType elem_type, int64_t* v) {
  RETURN_IF_ERROR(Expect(elem_type, CType::kI64, "i64 element"));
  return ZigZag64(v);
}

Status CompactReader::ElementBinary(CType elem_type, std::string_view* v) {
  RETURN_IF_ERROR(Expect(elem_type, CType::kBinary, "binary element"));
  uint64_t n;
  RETURN_IF_ERROR(Varint(&n));
  if (n > remaining()) return Error("binary of " + std::to_string(n) + " bytes exceeds data");
  *v = std::string_view(reinterpret_cast<const char*>(data_ + pos_), size_t(n));
  pos_ += size_t(n);
  return Status::OK();
}

Status CompactReader::SkipValue(CType type, bool in_list, int depth) {
  if (depth >= kMaxDepth) return Error("values nested too deeply");
  uint64_t u = 0;
  switch (type) {
    case CType::kBoolTrue:
    case CType::kBoolFalse:
      if (in_list) {
        uint8_t b = 0;
        return Byte(&b);
      }
      return Status::OK();
    case CType::kByte: {
      uint8_t b = 0;
      return Byte(&b);
    }
    case CType::kI16:
    case CType::kI32:
    case CType::kI64:
      return Varint(&u);
    case CType::kDouble:
      if (remaining() < 8) return Error("truncated double");
      pos_ += 8;
      return Status::OK();
    case CType::kBinary: {
      std::string_view v;
      return ElementBinary(CType::kBinary, &v);
    }
    case CType::kList:
    case CType::kSet: {
      CType elem;
      uint32_t n;
      RETURN_IF_ERROR(ListBegin(type, &elem, &n));
      for (uint32_t i = 0; i < n; ++i) RETURN_IF_ERROR(SkipValue(elem, true, depth + 1));
      return Status::OK();
    }
    case CType::kMap: {
      RETURN_IF_ERROR(Varint(&u));
      if (u == 0) return Status::OK();
      if (u > remaining()) return Error("map size exceeds data");
      uint8_t kv = 0;
      RETURN_IF_ERROR(Byte(&kv));
      uint8_t kt = kv >> 4, vt = kv & 0x0F;
      if (kt == 0 || vt == 0 || kt > uint8_t(CType::kStruct) || vt > uint8_t(CType::kStruct)) {
        return Error("unknown map key/value type");
      }
      for (uint64_t i = 0; i < u; ++i) {
        RETURN_IF_ERROR(SkipValue(CType(kt), true, depth + 1));
        RETURN_IF_ERROR(SkipValue(CType(vt), true, depth + 1));
      }
      return Status::OK();
    }
    case CType::kStruct: {
      // Field ids inside are irrelevant when skipping; only headers and values are consumed.
      while (true) {
        uint8_t b = 0;
        RETURN_IF_ERROR(Byte(&b));
        uint8_t t = b & 0x0F;
        if (t == 0) {
          if (b != 0) return Error("malformed stop byte");
          return Status::OK();
        }
        if (t > uint8_t(CType::kStruct)) return Error("unknown field type " + std::to_string(t));
        if ((b >> 4) == 0) RETURN_IF_ERROR(Varint(&u));
        RETURN_IF_ERROR(SkipValue(CType(t), false, depth + 1));
      }
    }
    case CType::kStop:
      break;
  }
  return Error("cannot skip a value of type " + std::to_string(int(type)));
}

// ---------------------------------------------------------------------------------------------
// List helpers

namespace {
// Reads a list whose elements `read_element(elem_type, &value)` decodes one at a time.
template <typename T, typename ReadElement>
Status ReadList(CompactReader& r, CType type, std::vector<T>* out, ReadElement read_element) {
  CType elem;
  uint32_t n;
  RETURN_IF_ERROR(r.ListBegin(type, &elem, &n));  // n is bounded by the bytes left
  out->clear();
  out->reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    T v;
    RETURN_IF_ERROR(read_element(elem, &v));
    out->push_back(v);
  }
  return Status::OK();
}
}  // namespace

Status ReadI32List(CompactReader& r, CType type, std::vector<int32_t>* out) {
  return ReadList(r, type, out, [&r](CType e, int32_t* v) { return r.ElementI32(e, v); });
}

Status ReadI64List(CompactReader& r, CType type, std::vector<int64_t>* out) {
  return ReadList(r, type, out, [&r](CType e, int64_t* v) { return r.ElementI64(e, v); });
}

Status ReadBoolList(CompactReader& r, CType type, std::vector<bool>* out) {
  return ReadList(r, type, out, [&r](CType e, bool* v) { return r.ElementBool(e, v); });
}

Status ReadStringList(CompactReader& r, CType type, std::vector<std::string>* out) {
  CType elem;
  uint32_t n;
  RETURN_IF_ERROR(r.ListBegin(type, &elem, &n));
  out->clear();
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view v;
    RETURN_IF_ERROR(r.ElementBinary(elem, &v));
    out->emplace_back(v);
  }
  return Status::OK();
}

}  // namespace lakeindex::parquet::thrift
