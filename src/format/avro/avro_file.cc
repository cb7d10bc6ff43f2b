#include "format/avro/avro_file.h"

#include <xxhash.h>

#include <cstdio>
#include <cstdlib>

#include "format/parquet/bit_util.h"

namespace lakeindex::avro {
namespace {

std::string AvroError(const std::string& what) { return "avro: " + what + ": " + avro_strerror(); }

// Avro's long: zig-zag, then ULEB128.
void PutLong(int64_t v, std::string* out) { parquet::bits::WriteUleb128(parquet::bits::ZigZagEncode(v), out); }
void PutBytes(const std::string& s, std::string* out) {
  PutLong(int64_t(s.size()), out);
  out->append(s);
}

}  // namespace

Result<std::unique_ptr<ContainerWriter>> ContainerWriter::Make(
    std::string schema_json, std::vector<std::pair<std::string, std::string>> metadata) {
  std::unique_ptr<ContainerWriter> w(new ContainerWriter());
  if (avro_schema_from_json_length(schema_json.data(), schema_json.size(), &w->schema_) != 0) {
    w->schema_ = nullptr;
    return Status::InvalidArgument(AvroError("schema"));
  }
  w->iface_ = avro_generic_class_from_schema(w->schema_);
  if (w->iface_ == nullptr || avro_generic_value_new(w->iface_, &w->record_) != 0) {
    return Status::Internal(AvroError("record of the schema"));
  }
  w->record_made_ = true;
  w->schema_json_ = std::move(schema_json);
  w->metadata_ = std::move(metadata);
  return w;
}

ContainerWriter::~ContainerWriter() {
  if (record_made_) avro_value_decref(&record_);
  if (iface_ != nullptr) avro_value_iface_decref(iface_);
  if (schema_ != nullptr) avro_schema_decref(schema_);
}

Status ContainerWriter::Append() {
  size_t size = 0;
  if (avro_value_sizeof(&record_, &size) != 0) return Status::InvalidArgument(AvroError("record size"));
  const size_t at = block_.size();
  block_.resize(at + size);
  avro_writer_t writer = avro_writer_memory(block_.data() + at, int64_t(size));
  const int rc = avro_value_write(writer, &record_);
  avro_writer_free(writer);
  if (rc != 0) return Status::InvalidArgument(AvroError("record"));
  ++count_;
  if (avro_value_reset(&record_) != 0) return Status::Internal(AvroError("reset"));
  return Status::OK();
}

Result<std::string> ContainerWriter::Finish() {
  std::string out("Obj\x01", 4);
  // File metadata: a map<bytes> in one block, then the end-of-map zero.
  std::vector<std::pair<std::string, std::string>> meta = metadata_;
  meta.emplace_back("avro.schema", schema_json_);
  meta.emplace_back("avro.codec", "null");
  PutLong(int64_t(meta.size()), &out);
  for (const auto& [k, v] : meta) {
    PutBytes(k, &out);
    PutBytes(v, &out);
  }
  PutLong(0, &out);
  // The sync marker: a hash of everything else the file holds, not random bytes, so that the
  // same records make the same file (a lost Iceberg metadata file written again matches the
  // checksum recorded for it: table/iceberg_repair.h). The spec asks only that it be unlikely to
  // occur in the blocks.
  std::string sync;
  for (uint64_t seed : {0, 1}) {
    const uint64_t h = XXH64(block_.data(), block_.size(), XXH64(out.data(), out.size(), seed));
    for (int i = 0; i < 8; ++i) sync.push_back(char(h >> (8 * i)));
  }
  out.append(sync);
  if (count_ > 0) {
    PutLong(int64_t(count_), &out);
    PutBytes(block_, &out);
    out.append(sync);
  }
  block_.clear();
  count_ = 0;
  return out;
}

namespace {
Result<avro_value_t> Named(avro_value_t* record, const char* field) {
  avro_value_t v;
  if (avro_value_get_by_name(record, field, &v, nullptr) != 0) {
    return Status::InvalidArgument(AvroError(std::string("no field ") + field));
  }
  return v;
}
Status Check(int rc, const char* field) {
  return rc == 0 ? Status::OK() : Status::InvalidArgument(AvroError(std::string("field ") + field));
}
}  // namespace

Status SetInt(avro_value_t* record, const char* field, int32_t v) {
  ASSIGN_OR_RETURN(avro_value_t f, Named(record, field));
  return Check(avro_value_set_int(&f, v), field);
}
Status SetLong(avro_value_t* record, const char* field, int64_t v) {
  ASSIGN_OR_RETURN(avro_value_t f, Named(record, field));
  return Check(avro_value_set_long(&f, v), field);
}
Status SetString(avro_value_t* record, const char* field, const std::string& v) {
  ASSIGN_OR_RETURN(avro_value_t f, Named(record, field));
  return Check(avro_value_set_string_len(&f, v.c_str(), v.size() + 1), field);
}
Status SetBool(avro_value_t* record, const char* field, bool v) {
  ASSIGN_OR_RETURN(avro_value_t f, Named(record, field));
  return Check(avro_value_set_boolean(&f, v ? 1 : 0), field);
}
Status SetNull(avro_value_t* record, const char* field) {
  ASSIGN_OR_RETURN(avro_value_t f, Named(record, field));
  avro_value_t branch;
  RETURN_IF_ERROR(Check(avro_value_set_branch(&f, 0, &branch), field));
  return Check(avro_value_set_null(&branch), field);
}
Result<avro_value_t> SetNonNull(avro_value_t* record, const char* field) {
  ASSIGN_OR_RETURN(avro_value_t f, Named(record, field));
  avro_value_t branch;
  RETURN_IF_ERROR(Check(avro_value_set_branch(&f, 1, &branch), field));
  return branch;
}
Result<avro_value_t> Field(avro_value_t* record, const char* field) { return Named(record, field); }

Result<ReadBack> ReadContainer(const std::string& file) {
  // avro-c leaks its header reader when the header is bad: refuse what is no container first.
  if (file.compare(0, 4, "Obj\x01", 4) != 0) return Status::Corruption("avro: not an object container file (no magic)");
  FILE* fp = fmemopen(const_cast<char*>(file.data()), file.size(), "rb");
  if (fp == nullptr) return Status::Internal("avro: fmemopen failed");
  avro_file_reader_t reader;
  if (avro_file_reader_fp(fp, "memory", /*should_close=*/1, &reader) != 0) {
    return Status::Corruption(AvroError("container header"));
  }
  ReadBack out;
  avro_schema_t schema = avro_file_reader_get_writer_schema(reader);
  char buf[1 << 16];
  avro_writer_t json = avro_writer_memory(buf, sizeof(buf));
  if (avro_schema_to_json(schema, json) == 0) out.schema_json.assign(buf, size_t(avro_writer_tell(json)));
  avro_writer_free(json);
  avro_value_iface_t* iface = avro_generic_class_from_schema(schema);
  avro_value_t value;
  avro_generic_value_new(iface, &value);
  Status st = Status::OK();
  for (;;) {
    const int rc = avro_file_reader_read_value(reader, &value);
    if (rc == EOF) break;
    if (rc != 0) {
      st = Status::Corruption(AvroError("record " + std::to_string(out.records.size())));
      break;
    }
    char* text = nullptr;
    if (avro_value_to_json(&value, /*one_line=*/1, &text) != 0) {
      st = Status::Internal(AvroError("to json"));
      break;
    }
    out.records.emplace_back(text);
    free(text);
  }
  avro_value_decref(&value);
  avro_value_iface_decref(iface);
  avro_schema_decref(schema);
  avro_file_reader_close(reader);
  RETURN_IF_ERROR(st);
  return out;
}

}  // namespace lakeindex::avro
