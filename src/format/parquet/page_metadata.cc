// Page-level metadata structs: page headers and the page index (ColumnIndex, OffsetIndex).
#include "format/parquet/metadata.h"
#include "format/parquet/metadata_internal.h"

namespace lakeindex::parquet {

using thrift::CompactReader;
using thrift::CompactWriter;
using thrift::CType;

namespace {
template <typename T>
Status ReadOptStruct(CompactReader& r, CType t, std::optional<T>* out) {
  if (t != CType::kStruct) return r.Error("expected a struct field");
  out->emplace();
  return (*out)->Read(r);
}

template <typename T>
void WriteOptStruct(CompactWriter& w, int16_t id, const std::optional<T>& v) {
  if (!v) return;
  w.FieldStructHeader(id);
  v->Write(w);
}
}  // namespace

void DataPageHeader::Write(CompactWriter& w) const {
  w.StructBegin();
  w.FieldI32(1, num_values);
  w.FieldI32(2, int32_t(encoding));
  w.FieldI32(3, int32_t(definition_level_encoding));
  w.FieldI32(4, int32_t(repetition_level_encoding));
  WriteOptStruct(w, 5, statistics);
  w.StructEnd();
}

Status DataPageHeader::Read(CompactReader& r) {
  RequiredFields req(r, "DataPageHeader");
  RETURN_IF_ERROR(thrift::ReadStruct(r, [&](int16_t id, CType t) -> Status {
    req.Saw(id);
    switch (id) {
      case 1: return r.ReadI32(t, &num_values);
      case 2: return ReadEnum(r, t, &encoding);
      case 3: return ReadEnum(r, t, &definition_level_encoding);
      case 4: return ReadEnum(r, t, &repetition_level_encoding);
      case 5: return ReadOptStruct(r, t, &statistics);
      default: return r.Skip(t);
    }
  }));
  return req.Check({1, 2});
}

void DictionaryPageHeader::Write(CompactWriter& w) const {
  w.StructBegin();
  w.FieldI32(1, num_values);
  w.FieldI32(2, int32_t(encoding));
  if (is_sorted) w.FieldBool(3, *is_sorted);
  w.StructEnd();
}

Status DictionaryPageHeader::Read(CompactReader& r) {
  RequiredFields req(r, "DictionaryPageHeader");
  RETURN_IF_ERROR(thrift::ReadStruct(r, [&](int16_t id, CType t) -> Status {
    req.Saw(id);
    switch (id) {
      case 1: return r.ReadI32(t, &num_values);
      case 2: return ReadEnum(r, t, &encoding);
      case 3: return ReadOpt(r, t, &is_sorted);
      default: return r.Skip(t);
    }
  }));
  return req.Check({1});
}

void DataPageHeaderV2::Write(CompactWriter& w) const {
  w.StructBegin();
  w.FieldI32(1, num_values);
  w.FieldI32(2, num_nulls);
  w.FieldI32(3, num_rows);
  w.FieldI32(4, int32_t(encoding));
  w.FieldI32(5, definition_levels_byte_length);
  w.FieldI32(6, repetition_levels_byte_length);
  w.FieldBool(7, is_compressed);
  WriteOptStruct(w, 8, statistics);
  w.StructEnd();
}

Status DataPageHeaderV2::Read(CompactReader& r) {
  RequiredFields req(r, "DataPageHeaderV2");
  RETURN_IF_ERROR(thrift::ReadStruct(r, [&](int16_t id, CType t) -> Status {
    req.Saw(id);
    switch (id) {
      case 1: return r.ReadI32(t, &num_values);
      case 2: return r.ReadI32(t, &num_nulls);
      case 3: return r.ReadI32(t, &num_rows);
      case 4: return ReadEnum(r, t, &encoding);
      case 5: return r.ReadI32(t, &definition_levels_byte_length);
      case 6: return r.ReadI32(t, &repetition_levels_byte_length);
      case 7: return r.ReadBool(t, &is_compressed);
      case 8: return ReadOptStruct(r, t, &statistics);
      default: return r.Skip(t);
    }
  }));
  return req.Check({1, 2, 3, 4, 5, 6});
}

void PageHeader::Write(CompactWriter& w) const {
  w.StructBegin();
  w.FieldI32(1, int32_t(type));
  w.FieldI32(2, uncompressed_page_size);
  w.FieldI32(3, compressed_page_size);
  if (crc) w.FieldI32(4, *crc);
  WriteOptStruct(w, 5, data_page_header);
  WriteOptStruct(w, 7, dictionary_page_header);
  WriteOptStruct(w, 8, data_page_header_v2);
  w.StructEnd();
}

Status PageHeader::Read(CompactReader& r) {
  RequiredFields req(r, "PageHeader");
  RETURN_IF_ERROR(thrift::ReadStruct(r, [&](int16_t id, CType t) -> Status {
    req.Saw(id);
    switch (id) {
      case 1: return ReadEnum(r, t, &type);
      case 2: return r.ReadI32(t, &uncompressed_page_size);
      case 3: return r.ReadI32(t, &compressed_page_size);
      case 4: return ReadOpt(r, t, &crc);
      case 5: return ReadOptStruct(r, t, &data_page_header);
      case 7: return ReadOptStruct(r, t, &dictionary_page_header);
      case 8: return ReadOptStruct(r, t, &data_page_header_v2);
      default: return r.Skip(t);
    }
  }));
  RETURN_IF_ERROR(req.Check({1, 2, 3}));
  if (uncompressed_page_size < 0 || compressed_page_size < 0) {
    return r.Error("negative page size");
  }
  return Status::OK();
}

void PageLocation::Write(CompactWriter& w) const {
  w.StructBegin();
  w.FieldI64(1, offset);
  w.FieldI32(2, compressed_page_size);
  w.FieldI64(3, first_row_index);
  w.StructEnd();
}

Status PageLocation::Read(CompactReader& r) {
  RequiredFields req(r, "PageLocation");
  RETURN_IF_ERROR(thrift::ReadStruct(r, [&](int16_t id, CType t) -> Status {
    req.Saw(id);
    switch (id) {
      case 1: return r.ReadI64(t, &offset);
      case 2: return r.ReadI32(t, &compressed_page_size);
      case 3: return r.ReadI64(t, &first_row_index);
      default: return r.Skip(t);
    }
  }));
  return req.Check({1, 2, 3});
}

namespace {

// A column chunk's offset index holds one PageLocation per page (about a thousand in a
// table file), parsed on a cold lookup of a single row: the three integers are read by
// TryReadIntStruct, anything unusual by PageLocation::Read.
Status ReadPageLocations(CompactReader& r, CType type, std::vector<PageLocation>* out) {
  static constexpr CType kTypes[3] = {CType::kI64, CType::kI32, CType::kI64};
  return thrift::ReadStructList(r, type, out, [&](PageLocation* loc) {
    int64_t v[3];
    if (!r.TryReadIntStruct(kTypes, 3, v)) return loc->Read(r);
    loc->offset = v[0];
    loc->compressed_page_size = int32_t(v[1]);
    loc->first_row_index = v[2];
    return Status::OK();
  });
}

}  // namespace

void OffsetIndex::Write(CompactWriter& w) const {
  w.StructBegin();
  WriteStructList(w, 1, page_locations);
  if (!unencoded_byte_array_data_bytes.empty()) {
    w.FieldListBegin(2, CType::kI64, unencoded_byte_array_data_bytes.size());
    for (int64_t v : unencoded_byte_array_data_bytes) w.ElementI64(v);
  }
  w.StructEnd();
}

Status OffsetIndex::Read(CompactReader& r) {
  RequiredFields req(r, "OffsetIndex");
  RETURN_IF_ERROR(thrift::ReadStruct(r, [&](int16_t id, CType t) -> Status {
    req.Saw(id);
    switch (id) {
      case 1: return ReadPageLocations(r, t, &page_locations);
      case 2: return thrift::ReadI64List(r, t, &unencoded_byte_array_data_bytes);
      default: return r.Skip(t);
    }
  }));
  return req.Check({1});
}

void ColumnIndex::Write(CompactWriter& w) const {
  w.StructBegin();
  w.FieldListBegin(1, CType::kBoolTrue, null_pages.size());
  for (bool b : null_pages) w.ElementBool(b);
  w.FieldListBegin(2, CType::kBinary, min_values.size());
  for (const auto& v : min_values) w.ElementBinary(v);
  w.FieldListBegin(3, CType::kBinary, max_values.size());
  for (const auto& v : max_values) w.ElementBinary(v);
  w.FieldI32(4, int32_t(boundary_order));
  if (null_counts) {
    w.FieldListBegin(5, CType::kI64, null_counts->size());
    for (int64_t v : *null_counts) w.ElementI64(v);
  }
  if (nan_counts) {
    w.FieldListBegin(8, CType::kI64, nan_counts->size());
    for (int64_t v : *nan_counts) w.ElementI64(v);
  }
  w.StructEnd();
}

Status ColumnIndex::Read(CompactReader& r) {
  RequiredFields req(r, "ColumnIndex");
  RETURN_IF_ERROR(thrift::ReadStruct(r, [&](int16_t id, CType t) -> Status {
    req.Saw(id);
    switch (id) {
      case 1: return thrift::ReadBoolList(r, t, &null_pages);
      case 2: return thrift::ReadStringList(r, t, &min_values);
      case 3: return thrift::ReadStringList(r, t, &max_values);
      case 4: return ReadEnum(r, t, &boundary_order);
      case 5: null_counts.emplace(); return thrift::ReadI64List(r, t, &*null_counts);
      case 8: nan_counts.emplace(); return thrift::ReadI64List(r, t, &*nan_counts);
      default: return r.Skip(t);
    }
  }));
  RETURN_IF_ERROR(req.Check({1, 2, 3}));
  if (min_values.size() != null_pages.size() || max_values.size() != null_pages.size() ||
      (null_counts && null_counts->size() != null_pages.size())) {
    return r.Error("ColumnIndex lists differ in length");
  }
  return Status::OK();
}

}  // namespace lakeindex::parquet
