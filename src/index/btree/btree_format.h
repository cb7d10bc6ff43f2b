// On-store layout of one BTree segment, shared by the builder (writer) and the reader.
//
//   _indices/{uuid}/page_lookup.parquet   the page directory: one row per leaf page
//       columns  min        <column type>  REQUIRED  smallest value of the page
//                max        <column type>  REQUIRED  largest value of the page
//                null_count int64          REQUIRED  always 0 (see "NULLs" below; kept so the
//                                                    directory reads like Lance's)
//                page_idx   int32          REQUIRED  == row number == row group in page_data
//                rows       int32          REQUIRED  values in the page, 1..page_rows
//       format version 2 adds where each leaf page lies in page_data, so that a reader fetches
//       and decodes a page without reading page_data's footer (one Parquet row group per page:
//       parsing it cost most of a cold lookup):
//                offset     int64          REQUIRED  first byte of the page's row group
//                bytes      int32          REQUIRED  its length (value chunk, then address chunk)
//                codecs     int32          REQUIRED  the value chunk's Parquet codec | the
//                                                    address chunk's << 8
//       one row group; key-value metadata (all values are text):
//         lakeindex.btree.magic           "lakeindex-btree"
//         lakeindex.btree.format_version  "2" (written; "1", without the locations, is read)
//         lakeindex.btree.value_type      TypeName(), e.g. "int64"
//         lakeindex.btree.page_rows       target rows per leaf page (every page but the last)
//         lakeindex.btree.num_rows        non-NULL rows (sum of `rows`)
//         lakeindex.btree.null_count      NULL rows (cardinality of null_rows)
//         lakeindex.btree.null_rows       base64 of RowSet::Serialize() of the NULL row addresses
//         lakeindex.btree.data_bytes      size of page_data.parquet in bytes
//         lakeindex.btree.checksum        16 lowercase hex digits: XXH64 (seed 0) of the
//                                         canonical bytes described at LookupChecksum()
//   _indices/{uuid}/page_data.parquet     the leaf pages
//       columns  value        <column type>  REQUIRED
//                row_address  int64          REQUIRED  (u64 row address, same bits)
//       ONE ROW GROUP PER LEAF PAGE (row group i == page i), one data page per column chunk, so
//       a leaf page is one contiguous byte range of the file. Rows sorted by (value in
//       CompareValues order, row_address). Parquet page CRCs are written.
//       key-value metadata: magic, format_version, value_type as above, plus
//         lakeindex.btree.segment         the segment uuid (a page_data of another segment is
//                                         refused, as is one whose size differs from data_bytes)
//       page_data is written before page_lookup: a segment whose lookup exists is complete.
//
// NULLs: NULL row addresses live only in the null_rows bitmap; leaf pages hold non-NULL values
// only. IS NULL is answered from the bitmap without reading a page, every other query returns
// the bitmap as its UNKNOWN rows without reading a page, and min/max are never NULL, so the
// directory is one sorted sequence (Lance sorts NULLs first into partly-NULL pages that every
// query must read to keep NOT/OR three-valued).
// Floats are stored canonically: -0.0 as +0.0, every NaN as one quiet NaN (see index/index_key.h).
//
// Thread safety: values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/index_key.h"
#include "lakeindex/row_set.h"
#include "lakeindex/status.h"
#include "lakeindex/types.h"

namespace lakeindex::index::btree {

inline constexpr char kIndicesDir[] = "_indices/";
inline constexpr char kLookupFileName[] = "page_lookup.parquet";
inline constexpr char kDataFileName[] = "page_data.parquet";
inline constexpr char kMagic[] = "lakeindex-btree";
inline constexpr uint32_t kFormatVersion = 2;
// The first version whose page_lookup records each page's location (offset, bytes, codecs).
inline constexpr uint32_t kFormatVersionWithLocations = 2;
inline constexpr uint32_t kDefaultPageRows = 4096;
// A page_rows beyond this is refused (keeps a corrupt directory from sizing huge buffers).
inline constexpr uint32_t kMaxPageRows = 1u << 24;

inline constexpr char kKeyMagic[] = "lakeindex.btree.magic";
inline constexpr char kKeyFormatVersion[] = "lakeindex.btree.format_version";
inline constexpr char kKeyValueType[] = "lakeindex.btree.value_type";
inline constexpr char kKeyPageRows[] = "lakeindex.btree.page_rows";
inline constexpr char kKeyNumRows[] = "lakeindex.btree.num_rows";
inline constexpr char kKeyNullCount[] = "lakeindex.btree.null_count";
inline constexpr char kKeyNullRows[] = "lakeindex.btree.null_rows";
inline constexpr char kKeyChecksum[] = "lakeindex.btree.checksum";
inline constexpr char kKeySegment[] = "lakeindex.btree.segment";
inline constexpr char kKeyDataBytes[] = "lakeindex.btree.data_bytes";

// Column order of the two files.
enum LookupColumn : int {
  kLookupMin = 0, kLookupMax, kLookupNullCount, kLookupPageIdx, kLookupRows,
  kLookupOffset, kLookupBytes, kLookupCodecs  // format version 2
};
enum DataColumn : int { kDataValue = 0, kDataRowAddress };

// "_indices/{uuid}/page_lookup.parquet" and ".../page_data.parquet".
std::string SegmentLookupPath(std::string_view uuid);
std::string SegmentDataPath(std::string_view uuid);

// The decoded page directory of a segment (the whole contents of page_lookup.parquet).
struct PageDirectory {
  TypeId type = TypeId::kInt64;
  uint32_t page_rows = kDefaultPageRows;
  uint64_t num_rows = 0;             // non-NULL rows in the leaf pages
  uint64_t data_bytes = 0;           // size of page_data.parquet
  KeyArray mins{kFixedKeyWidth};     // encoded keys (index/index_key.h), one per page
  KeyArray maxs{kFixedKeyWidth};
  std::vector<uint32_t> rows;        // rows per page
  // Where each page lies in page_data (format version 2; empty for a version 1 directory,
  // whose pages are found through page_data's footer).
  struct Location {
    uint64_t offset = 0;         // first byte of the page's row group
    uint32_t bytes = 0;          // its length: the value chunk, then the address chunk
    uint8_t value_codec = 0;     // Parquet codec of each chunk
    uint8_t address_codec = 0;
  };
  std::vector<Location> locations;
  RowSet null_rows;
  uint64_t checksum = 0;             // set by Serialize/ParseLookup

  explicit PageDirectory(TypeId t = TypeId::kInt64)
      : type(t), mins(KeyWidth(t)), maxs(KeyWidth(t)) {}
  size_t num_pages() const { return rows.size(); }
};

// XXH64 of: value type (1 byte), page_rows (u32 LE), num_rows (u64 LE), data_bytes (u64 LE),
// number of pages (u64 LE),
// then per page min and max (each u32 LE length + key bytes) and rows (u32 LE) and, when the
// directory has locations, offset (u64 LE), bytes (u32 LE) and the two codecs (1 byte each),
// then the serialized null bitmap. Keys are the encoded keys of index/index_key.h.
uint64_t LookupChecksum(const PageDirectory& dir, std::string_view null_rows_bytes);

// Writes the directory as page_lookup.parquet bytes (format version 2 when it has a location
// per page, else 1); sets dir->checksum.
Result<std::string> SerializeLookup(PageDirectory* dir);

// Parses page_lookup.parquet bytes and validates everything: magic, version, type, schema,
// page_idx == row, 1 <= rows <= page_rows, sum of rows == num_rows, min <= max within a page
// and max <= next min, locations (version 2) ascending, inside data_bytes and with known codecs,
// null bitmap and its count, checksum. Corruption naming `file_name`
// otherwise; NotSupported for a newer format version. No I/O.
Result<PageDirectory> ParseLookup(const uint8_t* data, size_t size, std::string_view file_name);

// Base64 (RFC 4648, with padding), used for the bitmap in key-value metadata.
std::string Base64Encode(std::string_view bytes);
Result<std::string> Base64Decode(std::string_view text);

// "%016x" of a checksum.
std::string ChecksumHex(uint64_t checksum);

// What a finished segment holds (returned by the builder, kept by the reader).
struct BTreeSegmentInfo {
  std::string uuid;
  TypeId type = TypeId::kInt64;
  uint32_t page_rows = kDefaultPageRows;
  uint64_t num_rows = 0;    // non-NULL rows (in leaf pages)
  uint64_t null_count = 0;  // NULL rows (in the bitmap)
  uint64_t num_pages = 0;
  std::optional<Value> min, max;  // over non-NULL values; absent when there are none
  uint64_t lookup_bytes = 0, data_bytes = 0;
};

}  // namespace lakeindex::index::btree
