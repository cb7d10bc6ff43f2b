// Avro object container files (Avro spec, "Object Container Files"), written in memory.
//
// Records are encoded by avro-c (Debian's libavro-dev) from the schema's JSON. The container's
// header is written here rather than by avro-c's file writer, because that writer keeps neither
// attributes it does not know — Iceberg puts a "field-id" on every field of its manifest schemas,
// and readers such as PyIceberg resolve fields by it — nor any metadata of the caller's (Iceberg
// stores the table schema and partition spec there): the header carries `schema_json` verbatim
// and the caller's key-value pairs. Blocks use the "null" codec.
// Thread safety: one writer per thread.
#pragma once

#include <avro.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lakeindex/status.h"

namespace lakeindex::avro {

class ContainerWriter {
 public:
  // InvalidArgument when avro-c cannot parse `schema_json`.
  static Result<std::unique_ptr<ContainerWriter>> Make(std::string schema_json,
                                                       std::vector<std::pair<std::string, std::string>> metadata);
  ~ContainerWriter();
  ContainerWriter(const ContainerWriter&) = delete;
  ContainerWriter& operator=(const ContainerWriter&) = delete;

  // The record to fill before the next Append (reset to its schema's zero values each time).
  avro_value_t* record() { return &record_; }
  // Encodes the record as the file's next one.
  Status Append();
  // The whole file: header, one block of every record appended (none when there are none), sync.
  // The writer cannot be used afterwards.
  Result<std::string> Finish();

 private:
  ContainerWriter() = default;
  std::string schema_json_;
  std::vector<std::pair<std::string, std::string>> metadata_;
  avro_schema_t schema_ = nullptr;
  avro_value_iface_t* iface_ = nullptr;
  avro_value_t record_{};
  bool record_made_ = false;
  std::string block_;  // records encoded so far
  uint64_t count_ = 0;
};

// Helpers for filling avro-c records by field name; each reports the field it could not set.
Status SetInt(avro_value_t* record, const char* field, int32_t v);
Status SetLong(avro_value_t* record, const char* field, int64_t v);
Status SetString(avro_value_t* record, const char* field, const std::string& v);
Status SetBool(avro_value_t* record, const char* field, bool v);
// A union ["null", T] field: the null branch, or T's branch filled by the caller.
Status SetNull(avro_value_t* record, const char* field);
Result<avro_value_t> SetNonNull(avro_value_t* record, const char* field);
// A field (or union branch) that is a record: the sub-record to fill.
Result<avro_value_t> Field(avro_value_t* record, const char* field);

// Reads a container file back with avro-c's own reader (tests use it as a second reader of
// what ContainerWriter writes): the schema avro-c found and every record as JSON text.
struct ReadBack {
  std::string schema_json;
  std::vector<std::string> records;
};
Result<ReadBack> ReadContainer(const std::string& file);

}  // namespace lakeindex::avro
