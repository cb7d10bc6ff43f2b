// Thrift compact protocol: the encoding of every Parquet metadata structure (footer, page
// headers, page index).
//
// Wire format (https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md):
//   field header  1 byte: (id delta 1..15) << 4 | type, or type followed by a zigzag varint id
//   bool field    the value is the header's type (1 = true, 2 = false), no payload
//   i8            1 raw byte;  i16/i32/i64: zigzag varint;  double: 8 bytes little endian
//   binary        unsigned varint length + bytes
//   list/set      1 byte: size << 4 | elem type (size < 15), else 0xF0 | type + varint size;
//                 bool elements are one byte each (1 = true, anything else = false)
//   map           varint size, then (if size > 0) 1 byte key type << 4 | value type
//   struct        fields, then a STOP byte (0); field ids restart from 0 inside a nested struct
//
// CompactReader parses a buffer it does not own; every length is checked against the bytes
// left, nesting is limited to kMaxDepth, and errors are Corruption naming the byte offset.
// Thread safety: none (one reader/writer per thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/status.h"

namespace lakeindex::parquet::thrift {

// Compact-protocol type codes as they appear on the wire.
enum class CType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

// Maximum struct/list/map nesting accepted by the reader (Parquet needs ~6).
inline constexpr int kMaxDepth = 64;

class CompactWriter {
 public:
  // Appends to *out, which must outlive the writer.
  explicit CompactWriter(std::string* out) : out_(out) {}

  // Top-level or list-element structs: StructBegin ... StructEnd (writes STOP).
  void StructBegin();
  void StructEnd();

  // Fields of the current struct; ids must be written in increasing order for the short form
  // (any order is still valid thrift, just longer).
  void FieldBool(int16_t id, bool v);
  void FieldI8(int16_t id, int8_t v);
  void FieldI16(int16_t id, int16_t v);
  void FieldI32(int16_t id, int32_t v);
  void FieldI64(int16_t id, int64_t v);
  void FieldDouble(int16_t id, double v);
  void FieldBinary(int16_t id, std::string_view v);
  // A struct-valued field: FieldStructBegin(id) ... StructEnd().
  void FieldStructBegin(int16_t id);
  // Only the header of a struct-valued field; the value follows as StructBegin ... StructEnd
  // (e.g. written by the value's own Write()).
  void FieldStructHeader(int16_t id) { FieldHeader(id, CType::kStruct); }
  // A list-valued field followed by exactly `size` elements written with the Element* calls
  // (struct elements: StructBegin ... StructEnd).
  void FieldListBegin(int16_t id, CType elem_type, size_t size);

  void ElementBool(bool v);
  void ElementI32(int32_t v);
  void ElementI64(int64_t v);
  void ElementBinary(std::string_view v);

 private:
  void FieldHeader(int16_t id, CType type);
  void Varint(uint64_t v);
  void ZigZag(int64_t v);

  std::string* out_;
  int16_t last_id_ = 0;
  std::vector<int16_t> id_stack_;
};

class CompactReader {
 public:
  // Reads data[0, size); `base_offset` is added to offsets in error messages (e.g. the footer's
  // position in the file).
  CompactReader(const uint8_t* data, size_t size, uint64_t base_offset = 0)
      : data_(data), size_(size), base_(base_offset) {}

  Status StructBegin();
  Status StructEnd();
  // Next field of the current struct; *type == kStop at its end (then call StructEnd).
  Status FieldHeader(int16_t* id, CType* type);

  // Field values. `type` is the field header's type; a mismatch is Corruption.
  Status ReadBool(CType type, bool* v);  // field form: value is in the type
  Status ReadI8(CType type, int8_t* v);
  Status ReadI16(CType type, int16_t* v);
  Status ReadI32(CType type, int32_t* v);
  Status ReadI64(CType type, int64_t* v);
  Status ReadDouble(CType type, double* v);
  // View into the reader's buffer (lives as long as the buffer).
  Status ReadBinary(CType type, std::string_view* v);
  Status ReadString(CType type, std::string* v);
  // List header of a field of type `type`; *size is bounded by the bytes left.
  Status ListBegin(CType type, CType* elem_type, uint32_t* size);

  // List elements (the element type was returned by ListBegin and is checked here).
  Status ElementBool(CType elem_type, bool* v);
  Status ElementI32(CType elem_type, int32_t* v);
  Status ElementI64(CType elem_type, int64_t* v);
  Status ElementBinary(CType elem_type, std::string_view* v);

  // Fast path for the commonest small structs (e.g. a page index's PageLocation): a struct
  // whose fields are exactly ids 1..n in order, each an integer of the type in types[i]
  // (kI32 or kI64), in the short field-header form, then STOP. Reads them into out[i] and
  // returns true; on anything else consumes nothing and returns false, so the caller parses the
  // struct the general way (which also reports any corruption).
  bool TryReadIntStruct(const CType* types, int n, int64_t* out);

  // Skips a field value of type `type` (any type, nested up to kMaxDepth).
  Status Skip(CType type) { return SkipValue(type, /*in_list=*/false, depth_); }

  size_t position() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }
  // Corruption "thrift: <what> at offset N".
  Status Error(std::string_view what) const;

 private:
  Status Expect(CType got, CType want, const char* what) const;
  Status Varint(uint64_t* v);
  Status ZigZag64(int64_t* v);
  Status ZigZag32(int32_t* v);
  Status Byte(uint8_t* b);
  Status SkipValue(CType type, bool in_list, int depth);

  const uint8_t* data_;
  size_t size_;
  uint64_t base_;
  size_t pos_ = 0;
  int16_t last_id_ = 0;
  int depth_ = 0;
  std::vector<int16_t> id_stack_;
};

// Reads one struct: StructBegin, then on_field(id, type) for every field until STOP, StructEnd.
// on_field must consume the value (read it or r.Skip(type)).
template <typename Fn>
Status ReadStruct(CompactReader& r, Fn&& on_field) {
  RETURN_IF_ERROR(r.StructBegin());
  while (true) {
    int16_t id;
    CType type;
    RETURN_IF_ERROR(r.FieldHeader(&id, &type));
    if (type == CType::kStop) break;
    RETURN_IF_ERROR(on_field(id, type));
  }
  return r.StructEnd();
}

// A list<T> of structs, each read by read_one(T*). Grows with the data actually parsed, never
// by the declared size.
template <typename T, typename ReadOne>
Status ReadStructList(CompactReader& r, CType type, std::vector<T>* out, ReadOne&& read_one) {
  CType elem;
  uint32_t n;
  RETURN_IF_ERROR(r.ListBegin(type, &elem, &n));
  if (elem != CType::kStruct) return r.Error("expected a list of structs");
  out->clear();
  out->reserve(n);  // n is bounded by the bytes left (ListBegin)
  for (uint32_t i = 0; i < n; ++i) {
    out->emplace_back();
    RETURN_IF_ERROR(read_one(&out->back()));
  }
  return Status::OK();
}

// The same for a T with `Status Read(CompactReader&)`.
template <typename T>
Status ReadStructList(CompactReader& r, CType type, std::vector<T>* out) {
  return ReadStructList(r, type, out, [&](T* e) { return e->Read(r); });
}

Status ReadI32List(CompactReader& r, CType type, std::vector<int32_t>* out);
Status ReadI64List(CompactReader& r, CType type, std::vector<int64_t>* out);
Status ReadBoolList(CompactReader& r, CType type, std::vector<bool>* out);
Status ReadStringList(CompactReader& r, CType type, std::vector<std::string>* out);

// Serializes a struct T (with `void Write(CompactWriter&) const`) as a top-level message.
template <typename T>
void SerializeStruct(const T& v, std::string* out) {
  CompactWriter w(out);
  v.Write(w);
}

// Parses a top-level struct T (with `Status Read(CompactReader&)`) from data[0, size);
// *consumed (if given) receives the bytes used. base_offset only shapes error messages.
template <typename T>
Status ParseStruct(const uint8_t* data, size_t size, T* out, size_t* consumed = nullptr,
                   uint64_t base_offset = 0) {
  CompactReader r(data, size, base_offset);
  *out = T();
  RETURN_IF_ERROR(out->Read(r));
  if (consumed != nullptr) *consumed = r.position();
  return Status::OK();
}

}  // namespace lakeindex::parquet::thrift
