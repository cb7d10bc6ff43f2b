// File-level metadata structs (footer). Page-level structs are in page_metadata.cc.
#include "format/parquet/metadata.h"

#include "format/parquet/metadata_internal.h"

namespace lakeindex::parquet {

using thrift::CompactReader;
using thrift::CompactWriter;
using thrift::CType;

const char* EncodingName(Encoding e) {
  switch (e) {
    case Encoding::kPlain: return "PLAIN";
    case Encoding::kPlainDictionary: return "PLAIN_DICTIONARY";
    case Encoding::kRle: return "RLE";
    case Encoding::kBitPacked: return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked: return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray: return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray: return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary: return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit: return "BYTE_STREAM_SPLIT";
  }
  return "unknown encoding";
}

// --- LogicalType ------------------------------------------------------------------------------

namespace {
// Empty struct value, e.g. StringType {}.
void WriteEmpty(CompactWriter& w, int16_t id) {
  w.FieldStructBegin(id);
  w.StructEnd();
}

// TimeUnit union -> unit (the union's single field id).
Status ReadTimeUnit(CompactReader& r, CType type, TimeUnit* unit) {
  if (type != CType::kStruct) return r.Error("TimeUnit is not a struct");
  int16_t which = 0;
  RETURN_IF_ERROR(thrift::ReadStruct(r, [&](int16_t id, CType t) -> Status {
    which = id;
    return r.Skip(t);
  }));
  if (which < 1 || which > 3) return r.Error("unknown TimeUnit " + std::to_string(which));
  *unit = TimeUnit(which);
  return Status::OK();
}

void WriteTimeUnit(CompactWriter& w, int16_t id, TimeUnit unit) {
  w.FieldStructBegin(id);
  WriteEmpty(w, int16_t(unit));
  w.StructEnd();
}
}  // namespace

void LogicalType::Write(CompactWriter& w) const {
  w.StructBegin();
  switch (kind) {
    case kTimestamp:
    case kTime:
      w.FieldStructBegin(kind);
      w.FieldBool(1, is_adjusted_to_utc);
      WriteTimeUnit(w, 2, unit);
      w.StructEnd();
      break;
    case kInteger:
      w.FieldStructBegin(kind);
      w.FieldI8(1, bit_width);
      w.FieldBool(2, is_signed);
      w.StructEnd();
      break;
    case kDecimal:
      w.FieldStructBegin(kind);
      w.FieldI32(1, scale);
      w.FieldI32(2, precision);
      w.StructEnd();
      break;
    case kNone:
      break;
    default:
      WriteEmpty(w, kind);
      break;
  }
  w.StructEnd();
}

Status LogicalType::Read(CompactReader& r) {
  return thrift::ReadStruct(r, [&](int16_t id, CType type) -> Status {
    kind = id;
    if (type != CType::kStruct) return r.Skip(type);
    switch (id) {
      case kTimestamp:
      case kTime:
        return thrift::ReadStruct(r, [&](int16_t fid, CType t) -> Status {
          if (fid == 1) return r.ReadBool(t, &is_adjusted_to_utc);
          if (fid == 2) return ReadTimeUnit(r, t, &unit);
          return r.Skip(t);
        });
      case kInteger:
        return thrift::ReadStruct(r, [&](int16_t fid, CType t) -> Status {
          if (fid == 1) return r.ReadI8(t, &bit_width);
          if (fid == 2) return r.ReadBool(t, &is_signed);
          return r.Skip(t);
        });
      case kDecimal:
        return thrift::ReadStruct(r, [&](int16_t fid, CType t) -> Status {
          if (fid == 1) return r.ReadI32(t, &scale);
          if (fid == 2) return r.ReadI32(t, &precision);
          return r.Skip(t);
        });
      default:
        return r.Skip(type);  // parameterless or unknown member: recorded by id only
    }
  });
}

// --- Statistics ---------------------------------------------------------------------------------

void Statistics::Write(CompactWriter& w) const {
  w.StructBegin();
  if (max) w.FieldBinary(1, *max);
  if (min) w.FieldBinary(2, *min);
  if (null_count) w.FieldI64(3, *null_count);
  if (distinct_count) w.FieldI64(4, *distinct_count);
  if (max_value) w.FieldBinary(5, *max_value);
  if (min_value) w.FieldBinary(6, *min_value);
  if (is_max_value_exact) w.FieldBool(7, *is_max_value_exact);
  if (is_min_value_exact) w.FieldBool(8, *is_min_value_exact);
  if (nan_count) w.FieldI64(9, *nan_count);
  w.StructEnd();
}

Status Statistics::Read(CompactReader& r) {
  return thrift::ReadStruct(r, [&](int16_t id, CType type) -> Status {
    switch (id) {
      case 1: return ReadOptString(r, type, &max);
      case 2: return ReadOptString(r, type, &min);
      case 3: return ReadOpt(r, type, &null_count);
      case 4: return ReadOpt(r, type, &distinct_count);
      case 5: return ReadOptString(r, type, &max_value);
      case 6: return ReadOptString(r, type, &min_value);
      case 7: return ReadOpt(r, type, &is_max_value_exact);
      case 8: return ReadOpt(r, type, &is_min_value_exact);
      case 9: return ReadOpt(r, type, &nan_count);
      default: return r.Skip(type);
    }
  });
}

// --- SchemaElement ------------------------------------------------------------------------------

void SchemaElement::Write(CompactWriter& w) const {
  w.StructBegin();
  if (type) w.FieldI32(1, int32_t(*type));
  if (type_length) w.FieldI32(2, *type_length);
  if (repetition_type) w.FieldI32(3, int32_t(*repetition_type));
  w.FieldBinary(4, name);
  if (num_children) w.FieldI32(5, *num_children);
  if (converted_type) w.FieldI32(6, int32_t(*converted_type));
  if (scale) w.FieldI32(7, *scale);
  if (precision) w.FieldI32(8, *precision);
  if (field_id) w.FieldI32(9, *field_id);
  if (logical_type) {
    w.FieldStructHeader(10);
    logical_type->Write(w);
  }
  w.StructEnd();
}

Status SchemaElement::Read(CompactReader& r) {
  RequiredFields req(r, "SchemaElement");
  RETURN_IF_ERROR(thrift::ReadStruct(r, [&](int16_t id, CType type) -> Status {
    req.Saw(id);
    switch (id) {
      case 1: return ReadOptEnum(r, type, &this->type);
      case 2: return ReadOpt(r, type, &type_length);
      case 3: return ReadOptEnum(r, type, &repetition_type);
      case 4: return r.ReadString(type, &name);
      case 5: return ReadOpt(r, type, &num_children);
      case 6: return ReadOptEnum(r, type, &converted_type);
      case 7: return ReadOpt(r, type, &scale);
      case 8: return ReadOpt(r, type, &precision);
      case 9: return ReadOpt(r, type, &field_id);
      case 10:
        if (type != CType::kStruct) return r.Skip(type);
        logical_type.emplace();
        return logical_type->Read(r);
      default: return r.Skip(type);
    }
  }));
  return req.Check({4});
}

// --- KeyValue -----------------------------------------------------------------------------------

void KeyValue::Write(CompactWriter& w) const {
  w.StructBegin();
  w.FieldBinary(1, key);
  if (value) w.FieldBinary(2, *value);
  w.StructEnd();
}

Status KeyValue::Read(CompactReader& r) {
  RequiredFields req(r, "KeyValue");
  RETURN_IF_ERROR(thrift::ReadStruct(r, [&](int16_t id, CType type) -> Status {
    req.Saw(id);
    if (id == 1) return r.ReadString(type, &key);
    if (id == 2) return ReadOptString(r, type, &value);
    return r.Skip(type);
  }));
  return req.Check({1});
}

// --- ColumnMetaData -----------------------------------------------------------------------------

void ColumnMetaData::Write(CompactWriter& w) const {
  w.StructBegin();
  w.FieldI32(1, int32_t(type));
  w.FieldListBegin(2, CType::kI32, encodings.size());
  for (Encoding e : encodings) w.ElementI32(int32_t(e));
  w.FieldListBegin(3, CType::kBinary, path_in_schema.size());
  for (const auto& p : path_in_schema) w.ElementBinary(p);
  w.FieldI32(4, codec);
  w.FieldI64(5, num_values);
  w.FieldI64(6, total_uncompressed_size);
  w.FieldI64(7, total_compressed_size);
  if (!key_value_metadata.empty()) WriteStructList(w, 8, key_value_metadata);
  w.FieldI64(9, data_page_offset);
  if (index_page_offset) w.FieldI64(10, *index_page_offset);
  if (dictionary_page_offset) w.FieldI64(11, *dictionary_page_offset);
  if (statistics) {
    w.FieldStructHeader(12);
    statistics->Write(w);
  }
  w.StructEnd();
}

Status ColumnMetaData::Read(CompactReader& r) {
  RequiredFields req(r, "ColumnMetaData");
  RETURN_IF_ERROR(thrift::ReadStruct(r, [&](int16_t id, CType t) -> Status {
    req.Saw(id);
    switch (id) {
      case 1: return ReadEnum(r, t, &type);
      case 2: {
        std::vector<int32_t> raw;
        RETURN_IF_ERROR(thrift::ReadI32List(r, t, &raw));
        encodings.clear();
        for (int32_t e : raw) encodings.push_back(Encoding(e));
        return Status::OK();
      }
      case 3: return thrift::ReadStringList(r, t, &path_in_schema);
      case 4: return r.ReadI32(t, &codec);
      case 5: return r.ReadI64(t, &num_values);
      case 6: return r.ReadI64(t, &total_uncompressed_size);
      case 7: return r.ReadI64(t, &total_compressed_size);
      case 8: return thrift::ReadStructList(r, t, &key_value_metadata);
      case 9: return r.ReadI64(t, &data_page_offset);
      case 10: return ReadOpt(r, t, &index_page_offset);
      case 11: return ReadOpt(r, t, &dictionary_page_offset);
      case 12:
        if (t != CType::kStruct) return r.Skip(t);
        statistics.emplace();
        return statistics->Read(r);
      default: return r.Skip(t);
    }
  }));
  return req.Check({1, 4, 5, 6, 7, 9});
}

// --- ColumnChunk ------------------------------------------------------------------------------

void ColumnChunk::Write(CompactWriter& w) const {
  w.StructBegin();
  if (file_path) w.FieldBinary(1, *file_path);
  w.FieldI64(2, file_offset);
  if (meta_data) {
    w.FieldStructHeader(3);
    meta_data->Write(w);
  }
  if (offset_index_offset) w.FieldI64(4, *offset_index_offset);
  if (offset_index_length) w.FieldI32(5, *offset_index_length);
  if (column_index_offset) w.FieldI64(6, *column_index_offset);
  if (column_index_length) w.FieldI32(7, *column_index_length);
  w.StructEnd();
}

Status ColumnChunk::Read(CompactReader& r) {
  return thrift::ReadStruct(r, [&](int16_t id, CType t) -> Status {
    switch (id) {
      case 1: return ReadOptString(r, t, &file_path);
      case 2: return r.ReadI64(t, &file_offset);
      case 3:
        if (t != CType::kStruct) return r.Skip(t);
        meta_data.emplace();
        return meta_data->Read(r);
      case 4: return ReadOpt(r, t, &offset_index_offset);
      case 5: return ReadOpt(r, t, &offset_index_length);
      case 6: return ReadOpt(r, t, &column_index_offset);
      case 7: return ReadOpt(r, t, &column_index_length);
      case 8:
      case 9: encrypted = true; return r.Skip(t);
      default: return r.Skip(t);
    }
  });
}

// --- RowGroup -----------------------------------------------------------------------------------

void RowGroup::Write(CompactWriter& w) const {
  w.StructBegin();
  WriteStructList(w, 1, columns);
  w.FieldI64(2, total_byte_size);
  w.FieldI64(3, num_rows);
  if (file_offset) w.FieldI64(5, *file_offset);
  if (total_compressed_size) w.FieldI64(6, *total_compressed_size);
  if (ordinal) w.FieldI16(7, *ordinal);
  w.StructEnd();
}

Status RowGroup::Read(CompactReader& r) {
  RequiredFields req(r, "RowGroup");
  RETURN_IF_ERROR(thrift::ReadStruct(r, [&](int16_t id, CType t) -> Status {
    req.Saw(id);
    switch (id) {
      case 1: return thrift::ReadStructList(r, t, &columns);
      case 2: return r.ReadI64(t, &total_byte_size);
      case 3: return r.ReadI64(t, &num_rows);
      case 5: return ReadOpt(r, t, &file_offset);
      case 6: return ReadOpt(r, t, &total_compressed_size);
      case 7: return ReadOpt(r, t, &ordinal);
      default: return r.Skip(t);
    }
  }));
  return req.Check({1, 3});
}

// --- FileMetaData -------------------------------------------------------------------------------

void FileMetaData::Write(CompactWriter& w) const {
  w.StructBegin();
  w.FieldI32(1, version);
  WriteStructList(w, 2, schema);
  w.FieldI64(3, num_rows);
  WriteStructList(w, 4, row_groups);
  if (!key_value_metadata.empty()) WriteStructList(w, 5, key_value_metadata);
  if (created_by) w.FieldBinary(6, *created_by);
  if (!column_orders.empty()) {
    w.FieldListBegin(7, CType::kStruct, column_orders.size());
    for (ColumnOrder o : column_orders) {
      w.StructBegin();
      WriteEmpty(w, int16_t(o));
      w.StructEnd();
    }
  }
  w.StructEnd();
}

Status FileMetaData::Read(CompactReader& r) {
  RequiredFields req(r, "FileMetaData");
  RETURN_IF_ERROR(thrift::ReadStruct(r, [&](int16_t id, CType t) -> Status {
    req.Saw(id);
    switch (id) {
      case 1: return r.ReadI32(t, &version);
      case 2: return thrift::ReadStructList(r, t, &schema);
      case 3: return r.ReadI64(t, &num_rows);
      case 4: return thrift::ReadStructList(r, t, &row_groups);
      case 5: return thrift::ReadStructList(r, t, &key_value_metadata);
      case 6: return ReadOptString(r, t, &created_by);
      case 7: {
        CType elem;
        uint32_t n;
        RETURN_IF_ERROR(r.ListBegin(t, &elem, &n));
        if (elem != CType::kStruct) return r.Error("column_orders is not a list of structs");
        column_orders.clear();
        for (uint32_t i = 0; i < n; ++i) {
          int16_t which = 0;
          RETURN_IF_ERROR(thrift::ReadStruct(r, [&](int16_t fid, CType ft) -> Status {
            which = fid;
            return r.Skip(ft);
          }));
          column_orders.push_back(which >= 1 && which <= 3 ? ColumnOrder(which)
                                                           : ColumnOrder::kUnknown);
        }
        return Status::OK();
      }
      case 8: encrypted = true; return r.Skip(t);
      default: return r.Skip(t);
    }
  }));
  return req.Check({2, 3, 4});
}

}  // namespace lakeindex::parquet
