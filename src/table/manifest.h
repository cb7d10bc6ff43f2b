// Manifest: the JSON document that defines one immutable version of a table.
//
// Stored at `_versions/{version:020}.manifest`, created with an atomic create-if-absent so that
// exactly one writer wins each version. Layout (JSON object, keys sorted):
//   "format": "lakeindex-manifest"      magic
//   "format_version": 1                 bumped on incompatible changes
//   "version", "parent_version", "timestamp_ms", "operation"
//   "schema": [{"name","type","nullable"}...]
//   "next_fragment_id": u32             fragment ids are never reused
//   "fragments": [{"id","file","rows","file_size","deletion":{"file","count"}|null,
//                  "stats":{column: {"min","max","null_count","nan_count"}},
//                  "tail":{"offset","xxh64":"<16 hex>",      "tail" optional (older manifests)
//                          "oi_offset","ci_xxh64","oi_xxh64"}}]  optional, all three or none
//   "indexes": [...], "layout": {...}|null   owned by index/ and layout/ (opaque JSON here)
//   "iceberg": {...}                    present when the table keeps Iceberg metadata; owned by
//                                       table/iceberg.h (opaque JSON here)
//   "checksum": "xxh64:<16 hex>"        XXH64 of the compact dump of the object without this key
// Stats "min"/"max" are JSON numbers (ints, finite doubles), strings, or booleans; absent when
// unknown (then nothing is pruned on them). Dates/timestamps are stored as their integer value.
// Thread safety: values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lakeindex/column_stats.h"
#include "lakeindex/object_store.h"
#include "lakeindex/status.h"
#include "lakeindex/types.h"

namespace lakeindex::table {

inline constexpr const char* kManifestMagic = "lakeindex-manifest";
inline constexpr int kManifestFormatVersion = 1;
inline constexpr const char* kVersionsDir = "_versions/";
// A hint, not a commit: the number of a recent version, rewritten after each commit (and before
// versions expire), so that opening the newest version costs a few requests however many
// versions there are (on S3, a listing of 10,000 versions is 10 requests). Readers only trust it
// as a place to start probing forward (table.cc, LatestVersion). Its text is the number, then,
// when the manifest is at most kMaxHintedManifestBytes, a newline and a copy of that version's
// manifest: one GET then gives what the open needs, confirmed in one more round trip (the next
// version absent, the hinted one there with the copy's size).
inline constexpr const char* kLatestHintPath = "_versions/_latest";
inline constexpr uint64_t kMaxHintedManifestBytes = 1ull << 20;
inline constexpr const char* kDataDir = "data/";
inline constexpr const char* kDeletionsDir = "_deletions/";
// Temporary objects of an operation in progress (a layout's spilled points and runs): removed by
// the operation when it ends, whether it succeeds or fails, and by vacuum after a kill; written
// without durability (the stores' scratch space, kScratchPrefix).
inline constexpr const char* kTempDir = "_tmp/";
static_assert(std::string_view(kTempDir) == kScratchPrefix, "temporaries are the stores' scratch space");
// A manifest is read whole on every open, so its size is bounded: a commit that would write a
// larger one is refused (merge fragments with optimize, or lay the table out in fewer files), and
// a larger object at a version's path is Corruption, not a reason to allocate its size.
inline constexpr uint64_t kMaxManifestBytes = 64ull << 20;

struct DeletionRef {
  std::string file;    // "_deletions/{fragment}-{uuid}.bin"
  uint64_t count = 0;  // deleted rows in this fragment
  bool operator==(const DeletionRef&) const = default;
};

// The metadata tail of a data file (page index + footer, parquet::TailOffset): no page CRC covers
// it, so its XXH64 is recorded when the file is written and checked whenever it is opened.
// The tail is the ColumnIndexes (page statistics), then the OffsetIndexes (page locations), then
// the footer. When `split` is recorded, a data file is opened by reading [oi_offset, file_size)
// only, checked against oi_xxh64, and its ColumnIndexes [offset, oi_offset) are read when page
// pruning first needs them, checked against ci_xxh64 (table/data_tail.h): an index take never
// reads them. `xxh64` of the whole tail stays, for readers that predate the split, and `verify`
// checks all three.
// When `split->map` is recorded, the file has a page map (format/parquet/page_map.h) between its
// OffsetIndexes and its footer: an open reads only [map.header_offset, file_size) (the map's
// header and the footer, checked against map.header_xxh64), a lookup reads the map's blocks it
// needs (each with its own CRC), and the OffsetIndexes [oi_offset, map.offset) are read, checked
// against map.oi_xxh64, only when something needs every page of a chunk. oi_xxh64 still covers
// [oi_offset, file_size), so readers that predate the map open the file as before.
struct DataTail {
  uint64_t offset = 0;  // first byte of the tail; it runs to the end of the file
  uint64_t xxh64 = 0;   // XXH64 (seed 0) of [offset, file_size)
  struct Split {
    uint64_t oi_offset = 0;  // first byte of the OffsetIndexes: offset <= oi_offset < file_size
    uint64_t ci_xxh64 = 0;   // XXH64 (seed 0) of [offset, oi_offset)
    uint64_t oi_xxh64 = 0;   // XXH64 (seed 0) of [oi_offset, file_size)
    struct PageMap {
      uint64_t offset = 0;         // first byte of its blocks: oi_offset <= offset <= header_offset
      uint64_t header_offset = 0;  // its header, which runs to the footer: < file_size
      uint64_t oi_xxh64 = 0;       // XXH64 (seed 0) of [oi_offset, offset): the OffsetIndexes alone
      uint64_t header_xxh64 = 0;   // XXH64 (seed 0) of [header_offset, file_size)
      bool operator==(const PageMap&) const = default;
    };
    std::optional<PageMap> map;  // absent for files without one, and in older manifests
    bool operator==(const Split&) const = default;
  };
  std::optional<Split> split;  // absent in manifests written before it existed
  bool operator==(const DataTail&) const = default;
};

struct FragmentMeta {
  uint32_t id = 0;
  std::string file;  // "data/{uuid}.parquet"
  uint64_t rows = 0;
  uint64_t file_size = 0;
  std::optional<DeletionRef> deletion;
  std::map<std::string, ColumnStats> stats;  // by column name
  std::optional<DataTail> tail;              // absent in manifests written before it existed
  // Bytes of each column's chunks in the file, compressed (by column name; empty in manifests
  // written before they were kept): Iceberg's column_sizes.
  std::map<std::string, uint64_t> column_bytes;

  uint64_t live_rows() const { return rows - (deletion ? deletion->count : 0); }
  bool operator==(const FragmentMeta&) const = default;
};

struct Manifest {
  uint64_t version = 0;
  uint64_t parent_version = 0;
  int64_t timestamp_ms = 0;
  std::string operation;
  Schema schema;
  uint32_t next_fragment_id = 0;
  std::vector<FragmentMeta> fragments;
  nlohmann::json indexes = nlohmann::json::array();
  nlohmann::json layout;  // null when the table has no layout
  nlohmann::json iceberg;  // null when the table keeps no Iceberg metadata (table/iceberg.h)
  // Random, one per commit attempt (32 hex digits; empty in manifests written before it existed):
  // a writer whose answer was lost reads the version back and knows it by this id
  // (table.cc, CreateManifest). Iceberg metadata names it too, so that a metadata file left by a
  // lost version of the same number is told apart.
  std::string commit_id;
  // XXH64 (seed 0) of every file this version names, whole, taken as each was written: data
  // files, deletion vectors, index files, Iceberg manifest lists and manifests (its vN.metadata.json,
  // written after the commit, carries its own: iceberg.h). `verify` reads each file whole and
  // compares. Files written before checksums existed (or by another process, e.g. Dask workers)
  // have none; verify says so.
  std::map<std::string, uint64_t> checksums;
  // Versions below this one expired (0: none). An expiry (`vacuum --keep-versions`) is a commit
  // of its own that raises it; the expired versions' manifests are deleted after it, and until
  // they are (a vacuum that stopped), readers refuse them by this mark. Later commits carry it.
  uint64_t expired_before = 0;

  const FragmentMeta* FindFragment(uint32_t id) const;
  uint64_t total_rows() const;  // live rows
  uint64_t data_bytes() const;  // the data files' sizes, summed
};

std::string ManifestPath(uint64_t version);
// Parses the version number out of a manifest path; nullopt for other names.
std::optional<uint64_t> ParseManifestPath(std::string_view path);

std::string SerializeManifest(const Manifest& m);
// A checksum as manifests write it: 16 lowercase hex digits.
std::string Hex16(uint64_t v);
// The "checksum" value of a manifest object `body` (which lacks the key): "xxh64:<16 hex>" of its
// compact dump. The fuzz target re-seals mutated manifests with it so that they reach the checks
// behind the checksum.
std::string ManifestChecksum(const nlohmann::json& body);
// `source` names the object in error messages. Corruption for bad JSON, bad checksum, missing or
// mistyped fields, paths escaping the table (".." or absolute), duplicate fragment ids.
Result<Manifest> ParseManifest(const uint8_t* data, size_t size, std::string_view source);

// A column's statistics as a manifest stores them: {"min", "max" (both or neither), "null_count",
// "nan_count", "row_count"}.
nlohmann::json ColumnStatsJson(const ColumnStats& s);

// Value <-> JSON used by manifests and index metadata. A string that is not valid UTF-8 has no
// JSON form: ValueToJson returns null for it (callers then store no statistic).
nlohmann::json ValueToJson(const Value& v);
Result<Value> ValueFromJson(const nlohmann::json& j, TypeId type);

}  // namespace lakeindex::table
