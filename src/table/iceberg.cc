#include "table/iceberg.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "common/uuid.h"
#include "format/avro/avro_file.h"
#include "format/parquet/crc32.h"
#include "format/parquet/writer.h"
#include "table/deletion_vector.h"
#include "table/iceberg_files.h"

namespace lakeindex::table::iceberg {
namespace {

using nlohmann::json;

// The Avro schemas of Iceberg v2 manifests and manifest lists (spec, "Manifests" and "Manifest
// Lists"), with the field ids readers resolve fields by. Maps with int keys are arrays of
// key/value records, as the spec lays them out.
std::string IntMap(const char* name, int id, int key_id, int value_id, const char* value_type) {
  return std::string(R"({"name":")") + name + R"(","type":["null",{"type":"array","logicalType":"map","items":{"type":"record","name":"k)" +
         std::to_string(key_id) + "_v" + std::to_string(value_id) + R"(","fields":[{"name":"key","type":"int","field-id":)" +
         std::to_string(key_id) + R"(},{"name":"value","type":")" + value_type + R"(","field-id":)" +
         std::to_string(value_id) + R"(}]}}],"default":null,"field-id":)" + std::to_string(id) + "}";
}

// Format version 3 adds to a data file (data files and deletion vectors) its first row id
// (inherited when null) and, for a deletion vector, the data file it applies to and where its
// blob is in its Puffin file.
const char* kV3DataFileFields =
    R"(,{"name":"first_row_id","type":["null","long"],"default":null,"field-id":142})"
    R"(,{"name":"referenced_data_file","type":["null","string"],"default":null,"field-id":143})"
    R"(,{"name":"content_offset","type":["null","long"],"default":null,"field-id":144})"
    R"(,{"name":"content_size_in_bytes","type":["null","long"],"default":null,"field-id":145})";

std::string ManifestEntrySchemaOf(int format) {
  std::string schema =
      R"({"type":"record","name":"manifest_entry","fields":[)"
      R"({"name":"status","type":"int","field-id":0},)"
      R"({"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},)"
      R"({"name":"sequence_number","type":["null","long"],"default":null,"field-id":3},)"
      R"({"name":"file_sequence_number","type":["null","long"],"default":null,"field-id":4},)"
      R"({"name":"data_file","type":{"type":"record","name":"r2","fields":[)"
      R"({"name":"content","type":"int","field-id":134},)"
      R"({"name":"file_path","type":"string","field-id":100},)"
      R"({"name":"file_format","type":"string","field-id":101},)"
      R"({"name":"partition","type":{"type":"record","name":"r102","fields":[]},"field-id":102},)"
      R"({"name":"record_count","type":"long","field-id":103},)"
      R"({"name":"file_size_in_bytes","type":"long","field-id":104},)" +
      IntMap("column_sizes", 108, 117, 118, "long") + "," + IntMap("value_counts", 109, 119, 120, "long") + "," + IntMap("null_value_counts", 110, 121, 122, "long") + "," +
      IntMap("nan_value_counts", 137, 138, 139, "long") + "," + IntMap("lower_bounds", 125, 126, 127, "bytes") + "," +
      IntMap("upper_bounds", 128, 129, 130, "bytes") +
      R"(,{"name":"sort_order_id","type":["null","int"],"default":null,"field-id":140})" +
      std::string(format >= 3 ? kV3DataFileFields : "") + R"(]},"field-id":2}]})";
  return schema;
}

std::string ManifestFileSchemaOf(int format) {
  std::string schema =
      R"({"type":"record","name":"manifest_file","fields":[)"
      R"({"name":"manifest_path","type":"string","field-id":500},)"
      R"({"name":"manifest_length","type":"long","field-id":501},)"
      R"({"name":"partition_spec_id","type":"int","field-id":502},)"
      R"({"name":"content","type":"int","field-id":517},)"
      R"({"name":"sequence_number","type":"long","field-id":515},)"
      R"({"name":"min_sequence_number","type":"long","field-id":516},)"
      R"({"name":"added_snapshot_id","type":"long","field-id":503},)"
      R"({"name":"added_files_count","type":"int","field-id":504},)"
      R"({"name":"existing_files_count","type":"int","field-id":505},)"
      R"({"name":"deleted_files_count","type":"int","field-id":506},)"
      R"({"name":"added_rows_count","type":"long","field-id":512},)"
      R"({"name":"existing_rows_count","type":"long","field-id":513},)"
      R"({"name":"deleted_rows_count","type":"long","field-id":514},)"
      R"({"name":"partitions","type":["null",{"type":"array","items":{"type":"record","name":"r508","fields":[)"
      R"({"name":"contains_null","type":"boolean","field-id":509},)"
      R"({"name":"contains_nan","type":["null","boolean"],"default":null,"field-id":518},)"
      R"({"name":"lower_bound","type":["null","bytes"],"default":null,"field-id":510},)"
      R"({"name":"upper_bound","type":["null","bytes"],"default":null,"field-id":511}]},"element-id":508}],)"
      R"("default":null,"field-id":507})" +
      std::string(format >= 3 ? R"(,{"name":"first_row_id","type":["null","long"],"default":null,"field-id":520})" : "") +
      R"(]})";
  return schema;
}

const char* IcebergType(TypeId t) {
  if (IsDecimal(t)) return TypeName(t);  // "decimal(10,2)", Iceberg's spelling too
  switch (t) {
    case TypeId::kBool: return "boolean";
    case TypeId::kInt32: return "int";
    case TypeId::kInt64: return "long";
    case TypeId::kFloat: return "float";
    case TypeId::kDouble: return "double";
    case TypeId::kString: return "string";
    case TypeId::kDate: return "date";
    case TypeId::kTimestamp: return "timestamp";
    case TypeId::kTimestampTz: return "timestamptz";
    case TypeId::kTimestampNs: return "timestamp_ns";  // Iceberg v3's (PrepareCommit refuses it in v2)
    case TypeId::kBinary: return "binary";
    case TypeId::kUuid: return "uuid";
  }
  return "string";
}

// Field ids: the user's columns 1..n in schema order, then the hidden ones (the OTree's weight),
// so that a layout adding or dropping the weight leaves every user column's id as it was.
struct IdField {
  int id;
  const Field* field;
};
std::vector<IdField> IdFields(const Schema& schema) {
  std::vector<IdField> out;
  int next = 1;
  for (const Field& f : schema.fields()) {
    if (!IsHiddenColumn(f.name)) out.push_back({next++, &f});
  }
  for (const Field& f : schema.fields()) {
    if (IsHiddenColumn(f.name)) out.push_back({next++, &f});
  }
  return out;
}

// Schema 0: the user's columns; schema 1: those and the hidden ones (exposed by name, e.g.
// `_lakeindex_weight`, so that engines can sample an OTree table with `WHERE _lakeindex_weight < f`).
json SchemaJson(const Schema& schema, bool with_hidden, int schema_id) {
  json fields = json::array();
  for (const IdField& f : IdFields(schema)) {
    if (!with_hidden && IsHiddenColumn(f.field->name)) continue;
    fields.push_back({{"id", f.id},
                      {"name", f.field->name},
                      {"required", !f.field->nullable && !IsHiddenColumn(f.field->name)},
                      {"type", IcebergType(f.field->type)}});
  }
  return {{"type", "struct"}, {"schema-id", schema_id}, {"fields", fields}};
}
bool HasHidden(const Schema& schema) {
  return std::any_of(schema.fields().begin(), schema.fields().end(),
                     [](const Field& f) { return IsHiddenColumn(f.name); });
}
int SchemaId(const Schema& schema) { return HasHidden(schema) ? 1 : 0; }

std::string Absolute(const json& state, const std::string& path) {
  return state.at("location").get<std::string>() + "/" + path;
}

template <typename T>
std::string LittleEndian(T v) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));  // every target lakeindex builds for is little endian
  return out;
}

// Appends one {key, value} item to an int-keyed map field that the caller has set non-null.
Status AppendMapItem(avro_value_t* map, int key, const std::function<int(avro_value_t*)>& set_value) {
  avro_value_t item;
  if (avro_value_append(map, &item, nullptr) != 0) return Status::Internal("avro: map item");
  RETURN_IF_ERROR(avro::SetInt(&item, "key", key));
  avro_value_t value;
  if (avro_value_get_by_name(&item, "value", &value, nullptr) != 0 || set_value(&value) != 0) {
    return Status::Internal("avro: map value");
  }
  return Status::OK();
}

// The non-null branch of a ["null", long] / ["null", string] field, set to `v`.
Status SetOptionalLong(avro_value_t* record, const char* field, int64_t v) {
  ASSIGN_OR_RETURN(avro_value_t branch, avro::SetNonNull(record, field));
  if (avro_value_set_long(&branch, v) != 0) return Status::Internal(std::string("avro: ") + field);
  return Status::OK();
}
Status SetOptionalString(avro_value_t* record, const char* field, const std::string& v) {
  ASSIGN_OR_RETURN(avro_value_t branch, avro::SetNonNull(record, field));
  if (avro_value_set_string(&branch, v.c_str()) != 0) return Status::Internal(std::string("avro: ") + field);
  return Status::OK();
}

Status FillCounts(avro_value_t* file, const char* field, const std::map<int, int64_t>& counts) {
  if (counts.empty()) return avro::SetNull(file, field);
  ASSIGN_OR_RETURN(avro_value_t map, avro::SetNonNull(file, field));
  for (const auto& [id, n] : counts) {
    RETURN_IF_ERROR(AppendMapItem(&map, id, [n = n](avro_value_t* v) { return avro_value_set_long(v, n); }));
  }
  return Status::OK();
}
Status FillBounds(avro_value_t* file, const char* field, const std::map<int, std::string>& bounds) {
  if (bounds.empty()) return avro::SetNull(file, field);
  ASSIGN_OR_RETURN(avro_value_t map, avro::SetNonNull(file, field));
  for (const auto& [id, b] : bounds) {
    RETURN_IF_ERROR(AppendMapItem(&map, id, [&b = b](avro_value_t* v) {
      return avro_value_set_bytes(v, const_cast<char*>(b.data()), b.size());
    }));
  }
  return Status::OK();
}

// The schema JSON a manifest carries (its statistics are keyed by its field ids).
std::string ManifestSchemaKey(const Schema& schema) {
  const int schema_id = SchemaId(schema);
  return SchemaJson(schema, schema_id == 1, schema_id).dump();
}

}  // namespace

Result<WrittenManifest> WriteManifest(ObjectStore* store, const Manifest& next, const std::vector<Entry>& entries,
                                      int content, const std::string& path) {
  const int schema_id = SchemaId(next.schema);
  const int format = FormatVersion(next.iceberg);
  ASSIGN_OR_RETURN(auto w, avro::ContainerWriter::Make(
                               ManifestEntrySchemaOf(format),
                               {{"schema", ManifestSchemaKey(next.schema)},
                                {"schema-id", std::to_string(schema_id)},
                                {"partition-spec", "[]"},
                                {"partition-spec-id", "0"},
                                {"format-version", std::to_string(format)},
                                {"content", content == 0 ? "data" : "deletes"}}));
  WrittenManifest out;
  out.path = path;
  out.content = content;
  out.seq = next.version;
  out.min_seq = next.version;
  out.schema = ManifestSchemaKey(next.schema);
  for (const Entry& e : entries) {
    avro_value_t* r = w->record();
    const bool added = e.seq == next.version;
    RETURN_IF_ERROR(avro::SetInt(r, "status", added ? 1 : 0));  // ADDED or EXISTING
    for (const char* f : {"snapshot_id", "sequence_number", "file_sequence_number"}) {
      ASSIGN_OR_RETURN(avro_value_t v, avro::SetNonNull(r, f));
      avro_value_set_long(&v, int64_t(e.seq));
    }
    ASSIGN_OR_RETURN(avro_value_t file, avro::Field(r, "data_file"));
    RETURN_IF_ERROR(avro::SetInt(&file, "content", e.content));
    RETURN_IF_ERROR(avro::SetString(&file, "file_path", e.path));
    RETURN_IF_ERROR(avro::SetString(&file, "file_format", e.puffin ? "PUFFIN" : "PARQUET"));
    RETURN_IF_ERROR(avro::SetLong(&file, "record_count", int64_t(e.rows)));
    RETURN_IF_ERROR(avro::SetLong(&file, "file_size_in_bytes", int64_t(e.size)));
    // Never null (an empty map for files whose sizes were not recorded): PyIceberg's
    // inspect.entries() takes a null map for an error.
    if (e.column_sizes.empty()) {
      RETURN_IF_ERROR(avro::SetNonNull(&file, "column_sizes").status());
    } else {
      RETURN_IF_ERROR(FillCounts(&file, "column_sizes", e.column_sizes));
    }
    RETURN_IF_ERROR(FillCounts(&file, "value_counts", e.value_counts));
    RETURN_IF_ERROR(FillCounts(&file, "null_value_counts", e.null_counts));
    RETURN_IF_ERROR(FillCounts(&file, "nan_value_counts", e.nan_counts));
    RETURN_IF_ERROR(FillBounds(&file, "lower_bounds", e.lower));
    RETURN_IF_ERROR(FillBounds(&file, "upper_bounds", e.upper));
    // Data files are in the table's sort order 0, "unsorted" (the spec: position delete files
    // leave it null, being sorted by file and position).
    if (e.content == 0) {
      ASSIGN_OR_RETURN(avro_value_t order, avro::SetNonNull(&file, "sort_order_id"));
      avro_value_set_int(&order, 0);
    } else {
      RETURN_IF_ERROR(avro::SetNull(&file, "sort_order_id"));
    }
    if (format >= 3) {
      RETURN_IF_ERROR(avro::SetNull(&file, "first_row_id"));  // inherited from the manifest's
      if (e.puffin) {
        RETURN_IF_ERROR(SetOptionalString(&file, "referenced_data_file", e.referenced));
        RETURN_IF_ERROR(SetOptionalLong(&file, "content_offset", int64_t(e.offset)));
        RETURN_IF_ERROR(SetOptionalLong(&file, "content_size_in_bytes", int64_t(e.length)));
      } else {
        for (const char* f : {"referenced_data_file", "content_offset", "content_size_in_bytes"}) {
          RETURN_IF_ERROR(avro::SetNull(&file, f));
        }
      }
    }
    RETURN_IF_ERROR(w->Append());
    out.min_seq = std::min(out.min_seq, e.seq);
    (added ? out.added : out.existing) += 1;
    (added ? out.added_rows : out.existing_rows) += e.rows;
  }
  ASSIGN_OR_RETURN(std::string bytes, w->Finish());
  out.length = bytes.size();
  RETURN_IF_ERROR(store->Write(path, bytes));
  return out;
}

// `first_row_id`: format 3's first row id of the snapshot.
Status WriteManifestList(ObjectStore* store, const Manifest& next, const json& state,
                         const std::vector<WrittenManifest>& manifests, const std::string& path, uint64_t first_row_id) {
  const int format = FormatVersion(state);
  std::vector<std::pair<std::string, std::string>> meta = {{"snapshot-id", std::to_string(next.version)},
                                                           {"sequence-number", std::to_string(next.version)},
                                                           {"format-version", std::to_string(format)}};
  const json& snapshot = state.value("snapshot", json());
  meta.emplace_back("parent-snapshot-id", snapshot.is_object() ? std::to_string(next.parent_version) : "null");
  if (format >= 3) meta.emplace_back("first-row-id", std::to_string(first_row_id));
  ASSIGN_OR_RETURN(auto w, avro::ContainerWriter::Make(ManifestFileSchemaOf(format), std::move(meta)));
  for (const WrittenManifest& m : manifests) {
    avro_value_t* r = w->record();
    RETURN_IF_ERROR(avro::SetString(r, "manifest_path", Absolute(state, m.path)));
    RETURN_IF_ERROR(avro::SetLong(r, "manifest_length", int64_t(m.length)));
    RETURN_IF_ERROR(avro::SetInt(r, "partition_spec_id", 0));
    RETURN_IF_ERROR(avro::SetInt(r, "content", m.content));
    RETURN_IF_ERROR(avro::SetLong(r, "sequence_number", int64_t(m.seq)));
    RETURN_IF_ERROR(avro::SetLong(r, "min_sequence_number", int64_t(m.min_seq)));
    RETURN_IF_ERROR(avro::SetLong(r, "added_snapshot_id", int64_t(m.seq)));
    RETURN_IF_ERROR(avro::SetInt(r, "added_files_count", m.added));
    RETURN_IF_ERROR(avro::SetInt(r, "existing_files_count", m.existing));
    RETURN_IF_ERROR(avro::SetInt(r, "deleted_files_count", 0));
    RETURN_IF_ERROR(avro::SetLong(r, "added_rows_count", int64_t(m.added_rows)));
    RETURN_IF_ERROR(avro::SetLong(r, "existing_rows_count", int64_t(m.existing_rows)));
    RETURN_IF_ERROR(avro::SetLong(r, "deleted_rows_count", 0));
    // The unpartitioned spec's summaries: none, as an empty list (Iceberg Java writes one; Trino's
    // $manifests failed on a missing one).
    RETURN_IF_ERROR(avro::SetNonNull(r, "partitions").status());
    if (format >= 3) {
      if (m.first_row_id) {
        RETURN_IF_ERROR(SetOptionalLong(r, "first_row_id", int64_t(*m.first_row_id)));
      } else {
        RETURN_IF_ERROR(avro::SetNull(r, "first_row_id"));
      }
    }
    RETURN_IF_ERROR(w->Append());
  }
  ASSIGN_OR_RETURN(std::string bytes, w->Finish());
  return store->Write(path, bytes);
}

Result<json> WriteDeleteFile(ObjectStore* store, const json& state, const FragmentMeta& fragment, const std::string& path) {
  ASSIGN_OR_RETURN(std::string dv_bytes, store->Read(fragment.deletion->file));
  ASSIGN_OR_RETURN(DeletionVector dv, DecodeDeletionVector(reinterpret_cast<const uint8_t*>(dv_bytes.data()),
                                                           dv_bytes.size(), fragment.deletion->file));
  Schema schema({Field{"file_path", TypeId::kString, false}, Field{"pos", TypeId::kInt64, false}});
  Batch batch(schema);
  const std::string data_path = Absolute(state, fragment.file);
  const uint64_t n = dv.deleted.cardinality();
  batch.mutable_column(0).Reserve(n);
  int64_t* pos = batch.mutable_column(1).AppendValues<int64_t>(n);
  size_t i = 0;
  for (uint32_t offset : dv.deleted) {
    RETURN_IF_ERROR(batch.mutable_column(0).AppendString(data_path));
    pos[i++] = offset;
  }
  RETURN_IF_ERROR(batch.Seal());
  parquet::WriteOptions options;
  options.field_ids = {kDeleteFilePathId, kDeletePosId};
  options.delta_integers = true;  // ascending positions: a few bits each
  options.page_header_statistics = false;
  ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Make(schema, options));
  RETURN_IF_ERROR(writer->Write(batch));
  ASSIGN_OR_RETURN(std::string file, writer->Finish());
  RETURN_IF_ERROR(store->Write(path, file));
  json out{{"dv", fragment.deletion->file}, {"file", path}, {"size", file.size()}, {"rows", n}};
  if (n > 0) {
    out["min_pos"] = dv.deleted.minimum();
    out["max_pos"] = dv.deleted.maximum();
  }
  return out;
}

namespace {

std::string BigEndian32(uint32_t v) {
  return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}

}  // namespace

// `fragment`'s deletion vector as Iceberg v3 has one: a Puffin file (puffin-spec) of one
// deletion-vector-v1 blob — its length (big-endian), the magic D1 D3 39 64 and the positions as a
// portable 64-bit Roaring bitmap (a count of 32-bit buckets, then each bucket's key and portable
// 32-bit bitmap), then the CRC-32 of magic and bitmap (big-endian) — applying to the data file.
Result<json> WriteDeletionVectorFile(ObjectStore* store, const json& state, const FragmentMeta& fragment,
                                     const std::string& path) {
  ASSIGN_OR_RETURN(std::string dv_bytes, store->Read(fragment.deletion->file));
  ASSIGN_OR_RETURN(DeletionVector dv, DecodeDeletionVector(reinterpret_cast<const uint8_t*>(dv_bytes.data()),
                                                           dv_bytes.size(), fragment.deletion->file));
  std::string body = "\xD1\xD3\x39\x64";
  body += LittleEndian<uint64_t>(dv.deleted.isEmpty() ? 0 : 1);  // positions are below 2^32: one bucket, key 0
  if (!dv.deleted.isEmpty()) {
    body += LittleEndian<uint32_t>(0);
    std::string bitmap(dv.deleted.getSizeInBytes(/*portable=*/true), '\0');
    dv.deleted.write(bitmap.data(), /*portable=*/true);
    body += bitmap;
  }
  const std::string blob = BigEndian32(uint32_t(body.size())) + body +
                           BigEndian32(parquet::Crc32(reinterpret_cast<const uint8_t*>(body.data()), body.size()));
  const std::string data_path = Absolute(state, fragment.file);
  const uint64_t n = dv.deleted.cardinality();
  const json footer = {
      {"blobs", json::array({{{"type", "deletion-vector-v1"},
                              {"fields", json::array({kDeletePosId})},
                              {"snapshot-id", -1},
                              {"sequence-number", -1},
                              {"offset", 4},
                              {"length", blob.size()},
                              {"properties", {{"referenced-data-file", data_path}, {"cardinality", std::to_string(n)}}}}})},
      {"properties", {{"created-by", parquet::kCreatedBy}}}};
  const std::string payload = footer.dump();
  const std::string file = "PFA1" + blob + "PFA1" + payload + LittleEndian<uint32_t>(uint32_t(payload.size())) +
                           LittleEndian<uint32_t>(0) + "PFA1";
  RETURN_IF_ERROR(store->Write(path, file));
  return json{{"dv", fragment.deletion->file}, {"file", path}, {"size", file.size()}, {"rows", n},
              {"puffin", true}, {"offset", 4}, {"length", blob.size()}};
}

Entry DataEntry(const json& state, const Manifest& next, const FragmentMeta& f, uint64_t seq) {
  Entry e;
  e.path = Absolute(state, f.file);
  e.rows = f.rows;
  e.size = f.file_size;
  e.seq = seq;
  for (const IdField& c : IdFields(next.schema)) {
    if (auto bytes = f.column_bytes.find(c.field->name); bytes != f.column_bytes.end()) {
      e.column_sizes[c.id] = int64_t(bytes->second);
    }
    auto it = f.stats.find(c.field->name);
    if (it == f.stats.end()) continue;
    const ColumnStats& s = it->second;
    e.value_counts[c.id] = int64_t(f.rows);
    e.null_counts[c.id] = int64_t(s.null_count);
    if (IsFloating(c.field->type)) e.nan_counts[c.id] = int64_t(s.nan_count);
    if (s.min && s.max) {
      Value min = *s.min, max = *s.max;
      // Iceberg orders -0.0 before 0.0 (Java's Float.compare) while the statistics count them
      // equal: widen the bounds so that neither zero is pruned.
      if (IsFloating(c.field->type) && min.double_value() == 0) min = Value::Double(-0.0);
      if (IsFloating(c.field->type) && max.double_value() == 0) max = Value::Double(0.0);
      std::optional<std::string> lo = BoundBytes(min, c.field->type), hi = BoundBytes(max, c.field->type);
      if (lo && hi) {  // both or neither ("" is a string's bound)
        e.lower[c.id] = std::move(*lo);
        e.upper[c.id] = std::move(*hi);
      }
    }
  }
  return e;
}

Entry DeleteEntry(const json& state, const FragmentMeta& f, const json& del) {
  Entry e;
  e.content = 1;
  e.path = Absolute(state, del.at("file").get<std::string>());
  e.rows = del.at("rows").get<uint64_t>();
  e.size = del.at("size").get<uint64_t>();
  e.seq = del.at("seq").get<uint64_t>();
  // Bounds on file_path name the one data file the deletes apply to (readers skip the file
  // for the others); pos's bounds its deleted rows.
  if (del.value("puffin", false)) {  // a deletion vector names its data file itself
    e.puffin = true;
    e.referenced = Absolute(state, f.file);
    e.offset = del.at("offset").get<uint64_t>();
    e.length = del.at("length").get<uint64_t>();
    return e;
  }
  e.lower[kDeleteFilePathId] = e.upper[kDeleteFilePathId] = Absolute(state, f.file);
  if (del.value("min_pos", json()).is_number_unsigned() && del.value("max_pos", json()).is_number_unsigned()) {
    // (absent for delete files written before they were kept)
    e.lower[kDeletePosId] = *BoundBytes(Value::Int64(del["min_pos"].get<int64_t>()), TypeId::kInt64);
    e.upper[kDeletePosId] = *BoundBytes(Value::Int64(del["max_pos"].get<int64_t>()), TypeId::kInt64);
  }
  e.value_counts[kDeleteFilePathId] = e.value_counts[kDeletePosId] = int64_t(e.rows);
  e.null_counts[kDeleteFilePathId] = e.null_counts[kDeletePosId] = 0;
  return e;
}

namespace {

const char* SnapshotOperation(size_t added, size_t removed, bool deletes_changed) {
  if (added > 0 && removed == 0) return "append";
  if (added == 0 && removed == 0 && deletes_changed) return "delete";
  if (added > 0 && removed > 0) return "replace";
  return removed > 0 ? "delete" : "replace";
}

}  // namespace

std::string MetadataPath(uint64_t version) {
  return std::string(kMetadataDir) + "v" + std::to_string(version) + ".metadata.json";
}

std::optional<std::string> BoundBytes(const Value& v, TypeId type) {
  if (v.is_null()) return std::nullopt;
  if (IsDecimal(type)) {  // the unscaled value: big-endian two's complement, in as few bytes as hold it
    const int64_t x = v.int_value();
    std::string out;
    for (int shift = 56; shift >= 0; shift -= 8) out.push_back(char(uint8_t(uint64_t(x) >> shift)));
    while (out.size() > 1 && ((out[0] == '\0' && !(uint8_t(out[1]) & 0x80)) || (out[0] == '\xff' && (uint8_t(out[1]) & 0x80)))) {
      out.erase(0, 1);
    }
    return out;
  }
  switch (type) {
    case TypeId::kBool: return std::string(1, v.bool_value() ? '\1' : '\0');
    case TypeId::kInt32:
    case TypeId::kDate: return LittleEndian(int32_t(v.int_value()));
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: return LittleEndian(int64_t(v.int_value()));
    case TypeId::kFloat: return LittleEndian(float(v.double_value()));
    case TypeId::kDouble: return LittleEndian(v.double_value());
    case TypeId::kString:
    case TypeId::kBinary:
      if (v.string_value().size() > kMaxStringBoundBytes) return std::nullopt;
      return v.string_value();
    // None: the spec's bounds (16 bytes, big-endian, compared unsigned) are what Iceberg Java
    // compares as signed longs (apache/iceberg#14216, open in 1.10), so Spark skipped every file
    // for `u = '<uuid>'` on bounds that hold both signs. Without bounds engines read the files.
    case TypeId::kUuid: return std::nullopt;
  }
  return std::nullopt;
}

Result<json> NewState(const std::string& location, int format) {
  if (format != 2 && format != 3) {
    return Status::InvalidArgument("must be 2 or 3 (Iceberg's format versions written), got " + std::to_string(format))
        .About("iceberg_format");
  }
  const size_t scheme = location.find("://");
  if (scheme == std::string::npos || scheme == 0 || location.size() <= scheme + 3) {
    return Status::InvalidArgument("iceberg: the table's location '" + location +
                                   "' is not an absolute URI (file:///abs/path, s3://bucket/prefix)");
  }
  std::string loc = location;
  while (loc.size() > scheme + 3 && loc.back() == '/') loc.pop_back();
  std::string u = NewUuid();
  u = u.substr(0, 8) + "-" + u.substr(8, 4) + "-" + u.substr(12, 4) + "-" + u.substr(16, 4) + "-" + u.substr(20);
  json state{{"table_uuid", u}, {"location", loc}};
  if (format != 2) state["format"] = format;  // absent: 2, as in states written before there was a choice
  return state;
}

int FormatVersion(const json& state) { return state.value("format", 2); }  // absent: 2

void FileReplaced(Manifest* next, uint32_t id) {
  if (!next->iceberg.is_object()) return;
  for (const char* key : {"data", "deletes"}) {
    if (auto it = next->iceberg.find(key); it != next->iceberg.end() && it->is_object()) it->erase(std::to_string(id));
  }
}

namespace {

// Data manifests a snapshot lists at most before they are merged into one.
constexpr size_t kMaxDataManifests = 16;

// Where a new position delete file (or Puffin deletion vector, `ext` ".puffin") of `f` goes.
std::string NewDeleteFilePath(const FragmentMeta& f, const char* ext) {
  return std::string(kMetadataDir) + "deletes/" + std::to_string(f.id) + "-" + NewUuid() + ext;
}

// A position delete file carried over from the previous version must be one of ours.
bool IsDeleteFilePath(const std::string& p) { return IsMetadataFilePath(p, std::string(kMetadataDir) + "deletes/"); }

Status PrepareCommitUnchecked(ObjectStore* store, Manifest* next) {
  for (const Field& f : next->schema.fields()) {
    if (f.type == TypeId::kTimestampNs) {  // the commit fails, nothing of it visible
      return Status::NotSupported("iceberg: column '" + f.name +
                                  "' is a timestamp_ns, which Iceberg's format version 2 (the one written) has not; "
                                  "keep the table without Iceberg metadata or store the column as timestamp");
    }
  }
  json& state = next->iceberg;
  if (!state.is_object() || !state.contains("location") || !state.contains("table_uuid")) {
    return Status::Corruption("iceberg: the manifest's 'iceberg' object lacks 'location' or 'table_uuid'");
  }
  const int format = FormatVersion(state);
  const json old_data = state.value("data", json::object());
  const json old_deletes = state.value("deletes", json::object());
  json data = json::object(), deletes = json::object();
  std::vector<Entry> data_entries, delete_entries;
  size_t added = 0;
  bool deletes_changed = false;
  uint64_t total_rows = 0, total_deleted = 0;
  for (const FragmentMeta& f : next->fragments) {
    const std::string id = std::to_string(f.id);
    uint64_t seq = next->version;
    if (auto it = old_data.find(id); it != old_data.end() && it->is_number_unsigned()) seq = it->get<uint64_t>();
    else ++added;
    data[id] = seq;
    data_entries.push_back(DataEntry(state, *next, f, seq));
    total_rows += f.rows;
    if (!f.deletion) continue;
    json del;
    if (auto it = old_deletes.find(id); it != old_deletes.end() && it->is_object() && it->value("dv", "") == f.deletion->file &&
                                        it->value("puffin", false) == (format >= 3)) {
      del = *it;
      if (!IsDeleteFilePath(del.value("file", ""))) {
        return Status::Corruption("iceberg: fragment " + id + "'s position delete file '" + del.value("file", "") +
                                  "' is not under metadata/deletes/");
      }
    } else {
      if (format >= 3) {
        ASSIGN_OR_RETURN(del, WriteDeletionVectorFile(store, state, f, NewDeleteFilePath(f, ".puffin")));
      } else {
        ASSIGN_OR_RETURN(del, WriteDeleteFile(store, state, f, NewDeleteFilePath(f, ".parquet")));
      }
      del["seq"] = next->version;
      deletes_changed = true;
    }
    deletes[id] = del;
    delete_entries.push_back(DeleteEntry(state, f, del));
    total_deleted += f.deletion->count;
  }
  size_t removed = 0;
  for (const auto& [id, seq] : old_data.items()) removed += data.contains(id) ? 0 : 1;
  for (const auto& [id, del] : old_deletes.items()) deletes_changed |= !deletes.contains(id);

  // Data manifests of the previous version whose files all stay are listed again as they are
  // (Iceberg's fast append); the files of the others, and the new ones, go into one new
  // manifest. More than kMaxDataManifests: all are merged into one.
  const std::string schema_key = ManifestSchemaKey(next->schema);
  std::vector<WrittenManifest> manifests;
  std::set<uint32_t> listed;
  for (const json& j : state.value("data_manifests", json::array())) {
    std::optional<WrittenManifest> m = WrittenManifest::FromJson(j);
    if (!m || m->content != 0 || m->schema != schema_key || m->fragments.empty()) continue;
    const bool whole = std::all_of(m->fragments.begin(), m->fragments.end(), [&](uint32_t id) {
      return old_data.contains(std::to_string(id)) && data.contains(std::to_string(id)) && !listed.count(id);
    });
    if (!whole) continue;
    listed.insert(m->fragments.begin(), m->fragments.end());
    manifests.push_back(std::move(*m));
  }
  if (manifests.size() + 1 > kMaxDataManifests) {
    manifests.clear();
    listed.clear();
  }
  const std::string stem = std::string(kMetadataDir) + NewUuid();
  std::vector<Entry> unlisted;
  std::vector<uint32_t> unlisted_ids;
  for (size_t i = 0; i < next->fragments.size(); ++i) {
    if (listed.count(next->fragments[i].id)) continue;
    unlisted.push_back(std::move(data_entries[i]));
    unlisted_ids.push_back(next->fragments[i].id);
  }
  if (!unlisted.empty() || manifests.empty()) {  // an empty table lists one empty manifest
    ASSIGN_OR_RETURN(WrittenManifest dm, WriteManifest(store, *next, unlisted, 0, stem + "-m0.avro"));
    dm.fragments = std::move(unlisted_ids);
    manifests.push_back(std::move(dm));
  }
  // Row lineage (format 3): each data manifest listed for the first time gets the next row ids,
  // as many as it lists rows; the snapshot says the first and how many it assigned.
  const uint64_t first_row_id = state.value("next_row_id", uint64_t(0));
  uint64_t next_row_id = first_row_id;
  if (format >= 3) {
    for (WrittenManifest& m : manifests) {
      if (m.first_row_id) continue;
      m.first_row_id = next_row_id;
      next_row_id += m.added_rows + m.existing_rows;
    }
  }
  json data_manifests = json::array();
  for (const WrittenManifest& m : manifests) data_manifests.push_back(m.ToJson());
  // The delete manifest is listed again while the delete files stay the same.
  if (!delete_entries.empty()) {
    std::optional<WrittenManifest> del = WrittenManifest::FromJson(state.value("delete_manifest", json()));
    if (deletes_changed || !del || del->content != 1 || del->schema != schema_key) {
      ASSIGN_OR_RETURN(del, WriteManifest(store, *next, delete_entries, 1, stem + "-m1.avro"));
    }
    state["delete_manifest"] = del->ToJson();
    manifests.push_back(std::move(*del));
  } else {
    state.erase("delete_manifest");
  }
  state["data_manifests"] = std::move(data_manifests);
  const std::string list_path =
      std::string(kMetadataDir) + "snap-" + std::to_string(next->version) + "-" + NewUuid() + ".avro";
  RETURN_IF_ERROR(WriteManifestList(store, *next, state, manifests, list_path, first_row_id));

  json snapshot = {{"snapshot-id", next->version},
                   {"sequence-number", next->version},
                   {"timestamp-ms", next->timestamp_ms},
                   {"manifest-list", Absolute(state, list_path)},
                   {"schema-id", SchemaId(next->schema)},
                   {"summary",
                    {{"operation", SnapshotOperation(added, removed, deletes_changed)},
                     {"lakeindex.operation", next->operation},
                     {"lakeindex.version", std::to_string(next->version)},
                     {"lakeindex.commit-id", next->commit_id},
                     {"added-data-files", std::to_string(added)},
                     {"deleted-data-files", std::to_string(removed)},
                     {"total-data-files", std::to_string(next->fragments.size())},
                     {"total-delete-files", std::to_string(delete_entries.size())},
                     {"total-records", std::to_string(total_rows)},
                     {"total-position-deletes", std::to_string(total_deleted)},
                     {"total-equality-deletes", "0"}}}};
  if (state.value("snapshot", json()).is_object()) snapshot["parent-snapshot-id"] = next->parent_version;
  if (format >= 3) {
    snapshot["first-row-id"] = first_row_id;
    snapshot["added-rows"] = next_row_id - first_row_id;
    state["next_row_id"] = next_row_id;
  }
  state["data"] = std::move(data);
  state["deletes"] = std::move(deletes);
  json manifest_paths = json::array();
  for (const auto& m : manifests) manifest_paths.push_back(m.path);
  state["manifests"] = std::move(manifest_paths);
  state["manifest_list"] = list_path;
  state["snapshot"] = std::move(snapshot);
  return Status::OK();
}

// nlohmann::json throws on a value of the wrong type; a hostile or damaged "iceberg" object or
// metadata file must give Corruption, never an exception across the API.
template <typename F>
auto NoThrow(const char* what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    return Status::Corruption(std::string("iceberg: ") + what + " is malformed (" + e.what() + ")");
  }
}

}  // namespace

Status PrepareCommit(ObjectStore* store, Manifest* next) {
  return NoThrow("the manifest's 'iceberg' object", [&] { return PrepareCommitUnchecked(store, next); });
}

namespace {

// Entries of the metadata log kept (Iceberg's write.metadata.previous-versions-max default).
constexpr size_t kMaxMetadataLog = 100;

// The metadata JSON of `committed`, given the previous version's (null when there is none),
// whose snapshots of expired versions the caller has dropped.
json BuildMetadata(const Manifest& committed, const json& previous) {
  const json& state = committed.iceberg;
  json snapshots = json::array(), snapshot_log = json::array(), metadata_log = json::array();
  if (previous.is_object()) {
    for (const json& s : previous.value("snapshots", json::array())) snapshots.push_back(s);
    // Earlier metadata files, of the versions still listed, the newest kMaxMetadataLog.
    metadata_log = previous.value("metadata-log", json::array());
    metadata_log.push_back({{"timestamp-ms", previous.value("last-updated-ms", int64_t(0))},
                            {"metadata-file", Absolute(state, MetadataPath(committed.parent_version))}});
    if (metadata_log.size() > kMaxMetadataLog) {
      metadata_log.erase(metadata_log.begin(), metadata_log.begin() + std::ptrdiff_t(metadata_log.size() - kMaxMetadataLog));
    }
  }
  snapshots.push_back(state.at("snapshot"));
  for (const json& s : snapshots) {
    snapshot_log.push_back({{"timestamp-ms", s.at("timestamp-ms")}, {"snapshot-id", s.at("snapshot-id")}});
  }
  json mapping = json::array();
  for (const IdField& f : IdFields(committed.schema)) mapping.push_back({{"field-id", f.id}, {"names", {f.field->name}}});
  // A table whose schema never had hidden columns lists only schema 0; once a layout added one,
  // both stay listed (older snapshots name schema 0).
  json schemas = json::array({SchemaJson(committed.schema, false, 0)});
  if (previous.is_object() && !HasHidden(committed.schema)) {
    for (const json& s : previous.value("schemas", json::array())) {
      if (s.value("schema-id", 0) == 1) schemas.push_back(s);
    }
  }
  if (HasHidden(committed.schema)) schemas.push_back(SchemaJson(committed.schema, true, 1));
  int last_column_id = 0;
  for (const json& s : schemas) {
    for (const json& f : s.at("fields")) last_column_id = std::max(last_column_id, f.at("id").get<int>());
  }
  const uint64_t v = committed.version;
  json out{{"format-version", FormatVersion(state)},
              {"table-uuid", state.at("table_uuid")},
              {"location", state.at("location")},
              {"last-sequence-number", v},
              {"last-updated-ms", committed.timestamp_ms},
              {"last-column-id", last_column_id},
              {"current-schema-id", SchemaId(committed.schema)},
              {"schemas", schemas},
              {"default-spec-id", 0},
              {"partition-specs", json::array({{{"spec-id", 0}, {"fields", json::array()}}})},
              {"last-partition-id", 999},
              {"default-sort-order-id", 0},
              {"sort-orders", json::array({{{"order-id", 0}, {"fields", json::array()}}})},
              {"properties",
               {{"schema.name-mapping.default", mapping.dump()},
                {"write.format.default", "parquet"},
                {"lakeindex.version", std::to_string(v)}}},
              {"current-snapshot-id", v},
              {"refs", {{"main", {{"snapshot-id", v}, {"type", "branch"}}}}},
              {"snapshots", snapshots},
              {"snapshot-log", snapshot_log},
              {"metadata-log", metadata_log}};
  if (FormatVersion(state) >= 3) out["next-row-id"] = state.value("next_row_id", uint64_t(0));
  return out;
}

// A metadata file's JSON, Corruption naming `path` when it is not one (no "snapshots" array).
Result<json> ParseMetadataFile(const std::string& text, const std::string& path) {
  json metadata = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!metadata.is_object() || !metadata.value("snapshots", json()).is_array()) {
    return Status::Corruption(path + ": not an Iceberg metadata JSON object");
  }
  return metadata;
}

// Drops from `metadata` the snapshots of versions that expired — below `expired_before`, or
// whose manifests are gone (oldest first, as versions expire) — their snapshot-log entries and
// the metadata-log entries of their files.
Status DropExpired(json* metadata, const Versions& versions, uint64_t expired_before, const std::string& source) {
  json& snapshots = (*metadata)["snapshots"];
  while (!snapshots.empty()) {
    const json id = snapshots.front().is_object() ? snapshots.front().value("snapshot-id", json()) : json();
    if (!id.is_number_unsigned()) return Status::Corruption(source + ": a snapshot without an id");
    if (id.get<uint64_t>() >= expired_before) {
      ASSIGN_OR_RETURN(bool there, versions.exists(id.get<uint64_t>()));
      if (there) break;
    }
    snapshots.erase(snapshots.begin());
  }
  std::set<uint64_t> kept;
  for (const json& sn : snapshots) kept.insert(sn.value("snapshot-id", uint64_t(0)));
  for (const char* log : {"snapshot-log", "metadata-log"}) {
    if (!metadata->contains(log) || !(*metadata)[log].is_array()) continue;
    json& entries = (*metadata)[log];
    json out = json::array();
    for (const json& e : entries) {
      if (!e.is_object()) continue;
      uint64_t v = 0;
      if (e.contains("snapshot-id")) {
        v = e.value("snapshot-id", uint64_t(0));
      } else {  // ".../metadata/v{N}.metadata.json"
        const std::string file = e.value("metadata-file", "");
        const size_t at = file.rfind("/v");
        if (at != std::string::npos) v = std::strtoull(file.c_str() + at + 2, nullptr, 10);
      }
      if (kept.count(v)) out.push_back(e);
    }
    entries = std::move(out);
  }
  return Status::OK();
}

// Versions back that PublishMetadata rolls forward at most; beyond, the history starts again.
constexpr int kMaxRollForward = 64;

// A metadata file checks itself: its property "lakeindex.checksum" is the XXH64 of the file's
// bytes with that value written as 16 zeros (written after the commit, the file cannot be in the
// manifest's checksums). Iceberg readers ignore the property.
constexpr const char* kChecksumProperty = "lakeindex.checksum";
constexpr const char* kChecksumPlaceholder = "0000000000000000";

std::string ChecksumField(const char* value) { return std::string("\"") + kChecksumProperty + "\": \"" + value + "\""; }

std::string Sealed(json metadata) {
  metadata["properties"][kChecksumProperty] = kChecksumPlaceholder;
  std::string text = metadata.dump(1);
  const size_t at = text.find(ChecksumField(kChecksumPlaceholder));
  text.replace(at, ChecksumField(kChecksumPlaceholder).size(),
               ChecksumField(Hex16(XXH64(text.data(), text.size(), 0)).c_str()));
  return text;
}

// Whether a metadata file's bytes are as sealed: false when damaged; nullopt when it carries no
// checksum (written before checksums existed).
std::optional<bool> SealIntact(std::string text) {
  const std::string prefix = std::string("\"") + kChecksumProperty + "\": \"";
  const size_t at = text.find(prefix);
  if (at == std::string::npos) return std::nullopt;
  if (text.size() < at + prefix.size() + 17) return false;
  const std::string recorded = text.substr(at + prefix.size(), 16);
  text.replace(at + prefix.size(), 16, kChecksumPlaceholder);
  return recorded == Hex16(XXH64(text.data(), text.size(), 0));
}

// The lakeindex commit a metadata file describes: its current snapshot's "lakeindex.commit-id"
// ("" when it names none: written before commit ids, or not by lakeindex).
std::string DescribedCommit(const json& metadata) {
  const json current = metadata.value("current-snapshot-id", json());
  for (const json& s : metadata.value("snapshots", json::array())) {
    if (!s.is_object() || s.value("snapshot-id", json()) != current) continue;
    const json summary = s.value("summary", json::object());
    return summary.is_object() ? summary.value("lakeindex.commit-id", std::string()) : std::string();
  }
  return std::string();
}

// Whether a metadata file describes another commit than `commit_id` (a version lost and its
// number reused: the file is of the lost one). Unknown ids (older files) are taken as matching.
bool DescribesAnotherCommit(const json& metadata, const std::string& commit_id) {
  const std::string described = DescribedCommit(metadata);
  return !described.empty() && !commit_id.empty() && described != commit_id;
}

// The metadata file `text` (at `path`) parsed, when it can stand for commit `commit_id`: intact
// and describing that commit. nullopt when it must be written again (damaged, or a lost
// version's).
std::optional<json> UsableMetadata(const std::string& text, const std::string& path, const std::string& commit_id) {
  if (SealIntact(text) == false) return std::nullopt;
  Result<json> parsed = ParseMetadataFile(text, path);
  if (!parsed.ok() || DescribesAnotherCommit(*parsed, commit_id)) return std::nullopt;
  return std::move(*parsed);
}

Result<std::string> Publish(ObjectStore* store, const Manifest& committed, const Versions& versions, int depth) {
  const std::string path = MetadataPath(committed.version);
  if (!Enabled(committed) || !committed.iceberg.contains("snapshot")) {
    return Status::InvalidArgument("version " + std::to_string(committed.version) + " keeps no Iceberg metadata");
  }
  json previous;
  if (committed.iceberg.at("snapshot").contains("parent-snapshot-id")) {
    const uint64_t parent = committed.parent_version;
    const std::string parent_path = MetadataPath(parent);
    Result<std::string> text = store->Read(parent_path);
    // The parent's file is written first when it is missing, damaged, or of a lost commit that had
    // the parent's number (its snapshots would carry the lost rows into this file's history).
    const std::string parent_commit = committed.iceberg.value("parent_commit_id", std::string());
    std::optional<json> usable;
    if (text.ok()) usable = UsableMetadata(*text, parent_path, parent_commit);
    if (!usable && (text.ok() || text.status().IsNotFound()) && depth < kMaxRollForward) {
      Result<Manifest> parent_manifest = versions.load(parent);
      if (parent_manifest.ok()) {
        RETURN_IF_ERROR(Publish(store, *parent_manifest, versions, depth + 1).status());
        text = store->Read(parent_path);
        if (text.ok()) usable = UsableMetadata(*text, parent_path, parent_commit);
      }
    }
    if (!usable && text.ok()) {  // not rewritten: as it is, or Corruption naming it
      ASSIGN_OR_RETURN(json as_is, ParseMetadataFile(*text, parent_path));
      usable = std::move(as_is);
    }
    if (usable) {
      previous = std::move(*usable);
      RETURN_IF_ERROR(DropExpired(&previous, versions, committed.expired_before, parent_path));
    } else if (!text.status().IsNotFound()) {
      return text.status();
    }
  }
  const std::string metadata = Sealed(BuildMetadata(committed, previous));
  Status st = store->CreateIfAbsent(path, metadata);
  if (st.IsAlreadyExists()) {
    // There already: ours (a repeated publish), or a lost version's of the same number, which
    // must give way — Iceberg readers of version N must see what lakeindex's version N holds.
    ASSIGN_OR_RETURN(std::string there, store->Read(path));
    if (!UsableMetadata(there, path, committed.commit_id)) RETURN_IF_ERROR(store->Write(path, metadata));
    return path;
  }
  RETURN_IF_ERROR(st);
  return path;
}

}  // namespace

Result<std::string> PublishMetadata(ObjectStore* store, const Manifest& committed, const Versions& versions) {
  ASSIGN_OR_RETURN(std::string path, NoThrow("the Iceberg metadata", [&] { return Publish(store, committed, versions, 0); }));
  // A later version published already (a slower writer, or a reader repairing an old gap): its
  // publisher writes the hint; writing ours would move the hint back.
  Result<uint64_t> next = store->Size(MetadataPath(committed.version + 1));
  if (next.ok()) return path;
  if (!next.status().IsNotFound()) return next.status();
  RETURN_IF_ERROR(store->Write(kVersionHintPath, std::to_string(committed.version)));
  return path;
}

namespace {
Status VerifyMetadataUnchecked(ObjectStore* store, const Manifest& m) {
  const std::string path = MetadataPath(m.version);
  Result<std::string> text = store->Read(path);
  if (text.status().IsNotFound()) {
    return Status::Corruption(path + " is missing: Iceberg readers see an older version (`iceberg enable` on the "
                              "table, or its next commit, writes it)");
  }
  RETURN_IF_ERROR(text.status());
  const std::optional<bool> intact = SealIntact(*text);
  if (intact && !*intact) return Status::Corruption(path + ": checksum mismatch (the file is damaged)");
  ASSIGN_OR_RETURN(json metadata, ParseMetadataFile(*text, path));
  if (DescribesAnotherCommit(metadata, m.commit_id)) {
    return Status::Corruption(path + " describes another commit than version " + std::to_string(m.version) +
                              " (a lost version of that number): Iceberg readers would read other rows (`iceberg "
                              "enable` on the table rewrites it)");
  }
  if (metadata.value("current-snapshot-id", json()) != json(m.version) ||
      metadata.value("location", json()) != m.iceberg.value("location", json())) {
    return Status::Corruption(path + " does not describe version " + std::to_string(m.version) + " of this table");
  }
  return Status::OK();
}
}  // namespace

Status VerifyMetadata(ObjectStore* store, const Manifest& m) {
  return NoThrow("the Iceberg metadata file", [&] { return VerifyMetadataUnchecked(store, m); });
}

std::vector<std::string> ReferencedFiles(const Manifest& m) {
  std::vector<std::string> out;
  if (!Enabled(m)) return out;
  out.push_back(MetadataPath(m.version));
  out.push_back(kVersionHintPath);
  if (auto it = m.iceberg.find("manifest_list"); it != m.iceberg.end() && it->is_string()) out.push_back(*it);
  if (auto it = m.iceberg.find("manifests"); it != m.iceberg.end() && it->is_array()) {
    for (const json& p : *it) {
      if (p.is_string()) out.push_back(p);
    }
  }
  if (auto it = m.iceberg.find("deletes"); it != m.iceberg.end() && it->is_object()) {
    for (const auto& [id, d] : it->items()) {
      if (d.is_object() && d.contains("file") && d["file"].is_string()) out.push_back(d["file"]);
    }
  }
  return out;
}

}  // namespace lakeindex::table::iceberg
