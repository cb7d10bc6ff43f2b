#include "format/parquet/metadata.h"

#include <gtest/gtest.h>

namespace lakeindex::parquet {
namespace {

template <typename T>
T RoundTrip(const T& v) {
  std::string bytes;
  thrift::SerializeStruct(v, &bytes);
  T out;
  size_t consumed = 0;
  Status st = thrift::ParseStruct(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &out, &consumed);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(consumed, bytes.size());
  return out;
}

TEST(MetadataTest, PageHeaderHasTheWireBytesOfParquetThrift) {
  PageHeader h;
  h.type = PageType::kDataPage;
  h.uncompressed_page_size = 10;
  h.compressed_page_size = 5;
  h.crc = -1;
  std::string bytes;
  thrift::SerializeStruct(h, &bytes);
  // fields 1,2,3,4 are i32 (type 5) with deltas of 1; zigzag(0)=0, (10)=20, (5)=10, (-1)=1.
  EXPECT_EQ(bytes, std::string("\x15\x00\x15\x14\x15\x0a\x15\x01\x00", 9));
}

TEST(MetadataTest, FileMetaDataRoundTrip) {
  FileMetaData m;
  m.version = 1;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 3;
  m.schema.push_back(root);
  SchemaElement ts;
  ts.name = "ts";
  ts.type = PhysicalType::kInt64;
  ts.repetition_type = Repetition::kOptional;
  ts.logical_type.emplace();
  ts.logical_type->kind = LogicalType::kTimestamp;
  ts.logical_type->unit = TimeUnit::kNanos;
  ts.logical_type->is_adjusted_to_utc = true;
  m.schema.push_back(ts);
  SchemaElement u8;
  u8.name = "u8";
  u8.type = PhysicalType::kInt32;
  u8.logical_type.emplace();
  u8.logical_type->kind = LogicalType::kInteger;
  u8.logical_type->bit_width = 8;
  u8.logical_type->is_signed = false;
  u8.converted_type = ConvertedType::kUint8;
  m.schema.push_back(u8);
  SchemaElement dec;
  dec.name = "dec";
  dec.type = PhysicalType::kInt64;
  dec.logical_type.emplace();
  dec.logical_type->kind = LogicalType::kDecimal;
  dec.logical_type->scale = 2;
  dec.logical_type->precision = 18;
  m.schema.push_back(dec);
  m.num_rows = 1234567890123;
  RowGroup rg;
  rg.num_rows = 7;
  rg.total_byte_size = 99;
  ColumnChunk cc;
  cc.file_offset = 4;
  ColumnMetaData& md = cc.meta_data.emplace();
  md.type = PhysicalType::kInt64;
  md.encodings = {Encoding::kPlain, Encoding::kRleDictionary};
  md.path_in_schema = {"ts"};
  md.codec = 6;
  md.num_values = 7;
  md.data_page_offset = 40;
  md.dictionary_page_offset = 4;
  md.key_value_metadata = {{"k", std::nullopt}};
  Statistics& s = md.statistics.emplace();
  s.min_value = std::string("\x01\x00", 2);
  s.max_value = "zz";
  s.null_count = 0;
  s.nan_count = 3;
  s.is_max_value_exact = true;
  cc.offset_index_offset = 1000;
  cc.offset_index_length = 20;
  rg.columns.push_back(cc);
  m.row_groups.push_back(rg);
  m.key_value_metadata = {{"a", "b"}};
  m.created_by = "me";
  m.column_orders = {ColumnOrder::kTypeDefined, ColumnOrder::kIeee754Total, ColumnOrder::kTypeDefined};

  FileMetaData r = RoundTrip(m);
  ASSERT_EQ(r.schema.size(), 4u);
  EXPECT_EQ(r.schema[0].num_children, 3);
  EXPECT_EQ(r.schema[1].logical_type->kind, LogicalType::kTimestamp);
  EXPECT_EQ(r.schema[1].logical_type->unit, TimeUnit::kNanos);
  EXPECT_TRUE(r.schema[1].logical_type->is_adjusted_to_utc);
  EXPECT_EQ(r.schema[2].logical_type->bit_width, 8);
  EXPECT_FALSE(r.schema[2].logical_type->is_signed);
  EXPECT_EQ(r.schema[2].converted_type, ConvertedType::kUint8);
  EXPECT_EQ(r.schema[3].logical_type->precision, 18);
  EXPECT_EQ(r.num_rows, 1234567890123);
  const ColumnMetaData& rm = *r.row_groups[0].columns[0].meta_data;
  EXPECT_EQ(rm.encodings, md.encodings);
  EXPECT_EQ(rm.dictionary_page_offset, 4);
  EXPECT_EQ(rm.key_value_metadata[0].key, "k");
  EXPECT_FALSE(rm.key_value_metadata[0].value.has_value());
  EXPECT_EQ(rm.statistics->min_value, s.min_value);
  EXPECT_EQ(rm.statistics->max_value, "zz");
  EXPECT_EQ(rm.statistics->nan_count, 3);
  EXPECT_EQ(rm.statistics->is_max_value_exact, true);
  EXPECT_FALSE(rm.statistics->is_min_value_exact.has_value());
  EXPECT_EQ(r.row_groups[0].columns[0].offset_index_length, 20);
  EXPECT_EQ(r.column_orders, m.column_orders);
  EXPECT_EQ(r.created_by, "me");
}

TEST(MetadataTest, PageHeadersAndPageIndexRoundTrip) {
  PageHeader h;
  h.type = PageType::kDataPageV2;
  h.uncompressed_page_size = 100;
  h.compressed_page_size = 80;
  DataPageHeaderV2& v2 = h.data_page_header_v2.emplace();
  v2.num_values = 10;
  v2.num_nulls = 2;
  v2.num_rows = 10;
  v2.encoding = Encoding::kDeltaBinaryPacked;
  v2.definition_levels_byte_length = 3;
  v2.is_compressed = false;
  PageHeader r = RoundTrip(h);
  ASSERT_TRUE(r.data_page_header_v2.has_value());
  EXPECT_EQ(r.data_page_header_v2->num_nulls, 2);
  EXPECT_EQ(r.data_page_header_v2->encoding, Encoding::kDeltaBinaryPacked);
  EXPECT_FALSE(r.data_page_header_v2->is_compressed);

  ColumnIndex ci;
  ci.null_pages = {false, true};
  ci.min_values = {"a", ""};
  ci.max_values = {"b", ""};
  ci.boundary_order = BoundaryOrder::kAscending;
  ci.null_counts = std::vector<int64_t>{0, 5};
  ColumnIndex rci = RoundTrip(ci);
  EXPECT_EQ(rci.null_pages, ci.null_pages);
  EXPECT_EQ(rci.max_values, ci.max_values);
  EXPECT_EQ(rci.boundary_order, BoundaryOrder::kAscending);
  EXPECT_EQ(rci.null_counts, ci.null_counts);

  OffsetIndex oi;
  oi.page_locations = {{4, 100, 0}, {104, 50, 10}};
  OffsetIndex roi = RoundTrip(oi);
  ASSERT_EQ(roi.page_locations.size(), 2u);
  EXPECT_EQ(roi.page_locations[1].offset, 104);
  EXPECT_EQ(roi.page_locations[1].first_row_index, 10);
}

TEST(MetadataTest, MissingRequiredFieldsAndUnknownFieldsAreHandled) {
  // PageHeader with only field 1: lacks uncompressed/compressed sizes.
  std::string bytes("\x15\x00\x00", 3);
  PageHeader h;
  Status st = thrift::ParseStruct(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &h);
  EXPECT_TRUE(st.IsCorruption());
  EXPECT_NE(st.message().find("required field 2"), std::string::npos) << st.message();
  // An unknown field (id 100, a nested struct) is skipped.
  KeyValue kv;
  std::string with_unknown;
  thrift::CompactWriter w(&with_unknown);
  w.StructBegin();
  w.FieldBinary(1, "key");
  w.FieldStructBegin(100);
  w.FieldI64(1, 5);
  w.StructEnd();
  w.StructEnd();
  ASSERT_TRUE(thrift::ParseStruct(reinterpret_cast<const uint8_t*>(with_unknown.data()), with_unknown.size(), &kv).ok());
  EXPECT_EQ(kv.key, "key");
}

}  // namespace
}  // namespace lakeindex::parquet
