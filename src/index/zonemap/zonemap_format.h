// Zone map segment file: what the builder writes and the reader validates (docs/zonemap.md).
//
// One Parquet file per segment, `_indices/{uuid}/zonemap.parquet`, one row per zone:
//
//   column       type                 repetition  meaning
//   min          the column's type    OPTIONAL    smallest non-NULL, non-NaN value of the zone
//   max          the column's type    OPTIONAL    largest  non-NULL, non-NaN value of the zone
//   null_count   int64                REQUIRED    NULL rows in the zone
//   nan_count    int64                REQUIRED    NaN rows (float/double only, else 0)
//   fragment_id  int32 (u32 bits)     REQUIRED    fragment the zone belongs to
//   zone_start   int32                REQUIRED    first row offset of the zone in its fragment
//   zone_length  int32                REQUIRED    rows in the zone, 1..zone_rows
//
// min and max are both NULL exactly when every row of the zone is NULL or NaN. Zones are in row
// order: ascending fragment id (as u32), and within a fragment contiguous from offset 0, every
// zone but the fragment's last holding exactly zone_rows rows; a zone never crosses a fragment.
// Offsets are the fragment's ORIGINAL row offsets (deleted rows included), so row addresses
// `fragment_id << 32 | offset` stay valid whatever is deleted later.
//
// Key-value metadata (all values are text):
//   lakeindex.zonemap                 "lakeindex-zonemap" (magic)
//   lakeindex.zonemap.format_version  "1" (a reader refuses others with NotSupported)
//   lakeindex.zonemap.column_type     TypeName() of the indexed column ("int64", "string", ...)
//   lakeindex.zonemap.zone_rows       decimal, 1..kMaxZoneRows
//   lakeindex.zonemap.zones           decimal number of zones (= rows of the file)
//   lakeindex.zonemap.checksum        "xxh64:<16 hex>" of ZoneChecksumInput(): the header and
//                                     every zone in a canonical little-endian byte form
//
// Thread safety: values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lakeindex/batch.h"
#include "lakeindex/status.h"
#include "lakeindex/types.h"

namespace lakeindex::index::zonemap {

inline constexpr char kZoneMapMagicKey[] = "lakeindex.zonemap";
inline constexpr char kZoneMapMagic[] = "lakeindex-zonemap";
inline constexpr char kFormatVersionKey[] = "lakeindex.zonemap.format_version";
inline constexpr char kColumnTypeKey[] = "lakeindex.zonemap.column_type";
inline constexpr char kZoneRowsKey[] = "lakeindex.zonemap.zone_rows";
inline constexpr char kZonesKey[] = "lakeindex.zonemap.zones";
inline constexpr char kChecksumKey[] = "lakeindex.zonemap.checksum";
inline constexpr int kZoneMapFormatVersion = 1;

inline constexpr uint32_t kDefaultZoneRows = 8192;
// zone_start/zone_length are int32 columns, so a fragment can hold at most this many rows.
inline constexpr uint32_t kMaxZoneRows = 0x7FFFFFFF;
inline constexpr uint64_t kMaxFragmentRows = 0x7FFFFFFF;

inline constexpr char kFileName[] = "zonemap.parquet";

// Column names, in file order.
inline constexpr const char* kColumnNames[] = {"min",         "max",        "null_count", "nan_count",
                                               "fragment_id", "zone_start", "zone_length"};

// Statistics of one zone: rows [start, start + length) of fragment `fragment_id`.
struct Zone {
  uint32_t fragment_id = 0;
  uint32_t start = 0;
  uint32_t length = 0;
  uint64_t null_count = 0;
  uint64_t nan_count = 0;
  std::optional<Value> min, max;  // over non-NULL, non-NaN values; both absent when none
  bool operator==(const Zone&) const = default;
};

// A decoded, validated segment file.
struct ZoneMapContents {
  TypeId type = TypeId::kInt64;
  uint32_t zone_rows = kDefaultZoneRows;
  std::vector<Zone> zones;
};

// "_indices/{uuid}/zonemap.parquet", relative to the table's store root.
std::string ZoneMapPath(std::string_view uuid);

// The file's schema for a column of type `type`.
Schema ZoneMapSchema(TypeId type);

// The bytes the checksum covers: type id (u8), zone_rows (u32), zone count (u64), then per zone
// fragment_id, start, length (u32 each), null_count, nan_count (u64 each), and min then max as
// a presence byte followed, when present, by the value: i64 for integer/temporal types, the
// IEEE-754 bits of the double for float/double, one byte for bool, u32 length + bytes for
// strings. All integers little-endian.
std::string ZoneChecksumInput(const ZoneMapContents& contents);
// "xxh64:<16 lowercase hex>" of ZoneChecksumInput(contents).
std::string ZoneChecksum(const ZoneMapContents& contents);

// The rows and key-value metadata of the file for `contents`.
// REQUIRES: contents is valid (ValidateZones passes); the builder guarantees it.
Result<Batch> EncodeZones(const ZoneMapContents& contents);
std::vector<std::pair<std::string, std::string>> ZoneMapMetadata(const ZoneMapContents& contents);

// Decodes what a Parquet reader returned for a segment file and checks everything above
// (magic, version, type, schema, zone count, checksum, per-zone invariants). Corruption naming
// `source` and the zone; NotSupported for another format version. Does no I/O.
Result<ZoneMapContents> DecodeZones(const Batch& rows, const std::vector<std::pair<std::string, std::string>>& metadata,
                                    std::string_view source);

// The per-zone invariants alone (counts within the zone, bounds present together and ordered,
// no NaN bounds, row order, zones not crossing fragments). Corruption naming `source`.
Status ValidateZones(const ZoneMapContents& contents, std::string_view source);

}  // namespace lakeindex::index::zonemap
