// A FlatBuffers writer just big enough for Arrow's IPC messages (arrow.cc), and a reader of them
// (ipc_reader.cc). The writer: tables of scalars,
// strings, sub-tables, vectors of tables and vectors of 16-byte structs (two int64s). The
// encoding follows https://flatbuffers.dev/internals/: each table is preceded by its vtable
// (field offsets, 16 bits each), referenced objects are written after the fields that point to
// them (uoffsets are unsigned and forward), scalars are aligned to their size, the buffer to 8.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace lakeindex::arrow {

class FlatTable {
 public:
  FlatTable& Bool(int id, bool v) { return Scalar(id, uint64_t(v), 1); }
  FlatTable& UInt8(int id, uint8_t v) { return Scalar(id, v, 1); }
  FlatTable& Int16(int id, int16_t v) { return Scalar(id, uint64_t(uint16_t(v)), 2); }
  FlatTable& Int32(int id, int32_t v) { return Scalar(id, uint64_t(uint32_t(v)), 4); }
  FlatTable& Int64(int id, int64_t v) { return Scalar(id, uint64_t(v), 8); }
  FlatTable& String(int id, std::string v);
  FlatTable& Table(int id, FlatTable v);
  FlatTable& Tables(int id, std::vector<FlatTable> v);
  // A vector of structs of two int64s (Arrow's FieldNode and Buffer).
  FlatTable& Structs(int id, std::vector<std::pair<int64_t, int64_t>> v);

  // The buffer with this table as its root.
  std::string Finish() const;

 private:
  enum class Kind { kScalar, kString, kTable, kTables, kStructs };
  struct Field {
    int id = 0;
    Kind kind = Kind::kScalar;
    uint64_t scalar = 0;
    int size = 0;  // a scalar's bytes; 4 (a uoffset) for the others
    std::string text;
    std::vector<FlatTable> tables;
    std::vector<std::pair<int64_t, int64_t>> structs;
  };
  Field& Add(int id, Kind kind, int size);  // a field of the kind, its value left to the caller
  FlatTable& Scalar(int id, uint64_t v, int size);
  // Appends this table (its vtable, then its fields, then what they point to) to *out and
  // returns the table's position.
  size_t WriteTo(std::string* out) const;
  static size_t WriteObject(const Field& f, std::string* out);

  std::vector<Field> fields_;
};

}  // namespace lakeindex::arrow

namespace lakeindex::arrow {

// A read-only view of one table of a FlatBuffers buffer (Arrow's IPC messages read back). Every
// access is bounds-checked against the buffer: a field that is absent gives the fallback or
// nullopt, one that points outside the buffer gives nullopt and marks the reader bad (a
// malformed message is an error, never a read past its end).
class FlatReader {
 public:
  // The root table of `bytes` (which must outlive the reader and its sub-readers).
  static std::optional<FlatReader> Root(std::string_view bytes);

  bool Has(int id) const { return FieldPos(id) != 0; }
  // A scalar field of type T (int8..int64, uint8..uint64, bool), `fallback` when absent.
  template <typename T>
  std::optional<T> Scalar(int id, T fallback) const {
    const size_t at = FieldPos(id);
    if (at == 0) return fallback;
    if constexpr (std::is_same_v<T, bool>) {  // any byte: not every byte is a valid bool
      uint8_t b;
      if (!Load(at, &b)) return std::nullopt;
      return b != 0;
    } else {
      T v;
      if (!Load(at, &v)) return std::nullopt;
      return v;
    }
  }
  std::optional<FlatReader> Table(int id) const;
  std::optional<std::string_view> String(int id) const;
  // A vector field: its length, each element `elem_size` bytes from `*start`; 0 when absent.
  std::optional<size_t> Vector(int id, size_t elem_size, size_t* start) const;
  // Element i of a vector of tables starting at `start` (from Vector(id, 4, &start)).
  std::optional<FlatReader> TableAt(size_t start, size_t i) const;
  // Loads a T at absolute position `at` (structs inside vectors).
  template <typename T>
  bool Load(size_t at, T* out) const {
    if (at > bytes_.size() || bytes_.size() - at < sizeof(T)) return false;
    std::memcpy(out, bytes_.data() + at, sizeof(T));
    return true;
  }

 private:
  FlatReader(std::string_view bytes, size_t table, size_t vtable, size_t vtable_size)
      : bytes_(bytes), table_(table), vtable_(vtable), vtable_size_(vtable_size) {}
  static std::optional<FlatReader> At(std::string_view bytes, size_t table);
  // The absolute position of field `id`, 0 when absent.
  size_t FieldPos(int id) const;
  // The target of the uoffset stored at `at`.
  std::optional<size_t> Follow(size_t at) const;

  std::string_view bytes_;
  size_t table_ = 0, vtable_ = 0, vtable_size_ = 0;
};

}  // namespace lakeindex::arrow
