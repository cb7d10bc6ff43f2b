// The subset of parquet.thrift (apache/parquet-format, src/main/thrift/parquet.thrift) that
// lakeindex reads and writes, with Thrift compact (de)serialization. Field ids in the .cc files
// follow that file exactly; fields not modelled here are skipped on read.
//
// Enums are stored with their wire values (any i32 read from a file is representable, so an
// unknown value is kept and rejected later by the code that interprets it).
// Each struct has `void Write(thrift::CompactWriter&) const` and
// `Status Read(thrift::CompactReader&)`; use thrift::SerializeStruct / thrift::ParseStruct.
// Read checks that the required fields lakeindex relies on are present (Corruption otherwise).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/parquet/thrift_compact.h"
#include "lakeindex/status.h"

namespace lakeindex::parquet {

inline constexpr char kMagic[4] = {'P', 'A', 'R', '1'};
inline constexpr size_t kFooterTailSize = 8;  // 4-byte LE footer length + "PAR1"

enum class PhysicalType : int32_t {
  kBoolean = 0, kInt32 = 1, kInt64 = 2, kInt96 = 3, kFloat = 4, kDouble = 5, kByteArray = 6,
  kFixedLenByteArray = 7,
};

enum class ConvertedType : int32_t {
  kUtf8 = 0, kMap = 1, kMapKeyValue = 2, kList = 3, kEnum = 4, kDecimal = 5, kDate = 6,
  kTimeMillis = 7, kTimeMicros = 8, kTimestampMillis = 9, kTimestampMicros = 10, kUint8 = 11,
  kUint16 = 12, kUint32 = 13, kUint64 = 14, kInt8 = 15, kInt16 = 16, kInt32 = 17, kInt64 = 18,
  kJson = 19, kBson = 20, kInterval = 21,
};

enum class Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

enum class Encoding : int32_t {
  kPlain = 0, kPlainDictionary = 2, kRle = 3, kBitPacked = 4, kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6, kDeltaByteArray = 7, kRleDictionary = 8, kByteStreamSplit = 9,
};
const char* EncodingName(Encoding e);

enum class PageType : int32_t { kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3 };

enum class BoundaryOrder : int32_t { kUnordered = 0, kAscending = 1, kDescending = 2 };

enum class TimeUnit : uint8_t { kMillis = 1, kMicros = 2, kNanos = 3 };  // union field ids

// The LogicalType union. `kind` is the union's field id (kNone when absent/empty); only the
// members lakeindex interprets carry parameters, the rest are recorded by id only.
struct LogicalType {
  enum Kind : int16_t {
    kNone = 0, kString = 1, kMap = 2, kList = 3, kEnum = 4, kDecimal = 5, kDate = 6, kTime = 7,
    kTimestamp = 8, kInteger = 10, kUnknown = 11, kJson = 12, kBson = 13, kUuid = 14,
    kFloat16 = 15,
  };
  int16_t kind = kNone;
  bool is_adjusted_to_utc = false;  // kTime, kTimestamp
  TimeUnit unit = TimeUnit::kMicros;  // kTime, kTimestamp
  int8_t bit_width = 0;               // kInteger
  bool is_signed = true;              // kInteger
  int32_t scale = 0, precision = 0;   // kDecimal

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

struct Statistics {
  std::optional<std::string> max, min;  // legacy, signed order
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  std::optional<std::string> max_value, min_value;  // ColumnOrder order, PLAIN without length
  std::optional<bool> is_max_value_exact, is_min_value_exact;
  std::optional<int64_t> nan_count;

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

struct SchemaElement {
  std::optional<PhysicalType> type;
  std::optional<int32_t> type_length;
  std::optional<Repetition> repetition_type;
  std::string name;
  std::optional<int32_t> num_children;
  std::optional<ConvertedType> converted_type;
  std::optional<int32_t> scale, precision, field_id;
  std::optional<LogicalType> logical_type;

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::kInt32;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  int32_t codec = 0;  // CompressionCodec wire value (see compression.h Codec)
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  std::vector<KeyValue> key_value_metadata;
  int64_t data_page_offset = 0;
  std::optional<int64_t> index_page_offset;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;

  // The chunk's first byte: its dictionary page's when one lies before the data pages.
  int64_t chunk_start() const {
    return dictionary_page_offset && *dictionary_page_offset > 0 && *dictionary_page_offset < data_page_offset
               ? *dictionary_page_offset
               : data_page_offset;
  }

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

struct ColumnChunk {
  std::optional<std::string> file_path;
  int64_t file_offset = 0;
  std::optional<ColumnMetaData> meta_data;
  std::optional<int64_t> offset_index_offset;
  std::optional<int32_t> offset_index_length;
  std::optional<int64_t> column_index_offset;
  std::optional<int32_t> column_index_length;
  bool encrypted = false;  // crypto_metadata or encrypted_column_metadata present

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

// ColumnOrder union, by field id.
enum class ColumnOrder : int16_t { kUnknown = 0, kTypeDefined = 1, kIeee754Total = 2, kInt96 = 3 };

struct FileMetaData {
  int32_t version = 1;
  std::vector<SchemaElement> schema;
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
  std::optional<std::string> created_by;
  std::vector<ColumnOrder> column_orders;
  bool encrypted = false;  // encryption_algorithm present (plaintext-footer encryption)

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

struct DataPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  Encoding definition_level_encoding = Encoding::kRle;
  Encoding repetition_level_encoding = Encoding::kRle;
  std::optional<Statistics> statistics;

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  std::optional<bool> is_sorted;

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  Encoding encoding = Encoding::kPlain;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;
  std::optional<Statistics> statistics;

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<int32_t> crc;  // CRC-32 (zlib polynomial) of the page bytes after the header
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

struct PageLocation {
  int64_t offset = 0;
  int32_t compressed_page_size = 0;  // including the page header
  int64_t first_row_index = 0;

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

struct OffsetIndex {
  std::vector<PageLocation> page_locations;
  std::vector<int64_t> unencoded_byte_array_data_bytes;

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

struct ColumnIndex {
  std::vector<bool> null_pages;
  std::vector<std::string> min_values, max_values;
  BoundaryOrder boundary_order = BoundaryOrder::kUnordered;
  std::optional<std::vector<int64_t>> null_counts;
  std::optional<std::vector<int64_t>> nan_counts;

  void Write(thrift::CompactWriter& w) const;
  Status Read(thrift::CompactReader& r);
};

}  // namespace lakeindex::parquet
