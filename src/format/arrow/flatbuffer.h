// A FlatBuffers writer just big enough for Arrow's IPC messages (arrow.cc): tables of scalars,
// strings, sub-tables, vectors of tables and vectors of 16-byte structs (two int64s). The
// encoding follows https://flatbuffers.dev/internals/: each table is preceded by its vtable
// (field offsets, 16 bits each), referenced objects are written after the fields that point to
// them (uoffsets are unsigned and forward), scalars are aligned to their size, the buffer to 8.
#pragma once

#include <cstdint>
#include <string>
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
