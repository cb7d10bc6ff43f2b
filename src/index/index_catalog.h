// Index metadata kept in the manifest's "indexes" array, one object per logical index:
//   {"name", "column", "type": <kind: "btree", "zonemap", "bitmap">, "params": {...},
//    "segments": [{"uuid", "fragments": [ids...], "built_at_version", "rows"}]}
// A segment is immutable; it covers the listed fragments. Fragments no segment covers (appended
// after the build, or rewritten by optimize) are scanned. Segment files live under
// `_indices/{uuid}/`.
// Thread safety: values.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lakeindex/status.h"
#include "table/manifest.h"

namespace lakeindex::index {

struct SegmentMeta {
  std::string uuid;
  std::set<uint32_t> fragments;
  uint64_t built_at_version = 0;
  uint64_t rows = 0;
};

struct IndexMeta {
  std::string name;
  std::string column;
  std::string type;  // the kind's name (index/registry/registry.h)
  nlohmann::json params = nlohmann::json::object();
  std::vector<SegmentMeta> segments;

  // Fragments of `m` that some segment covers.
  std::set<uint32_t> CoveredFragments(const table::Manifest& m) const;
};

// Parses m.indexes; Corruption naming the manifest version on malformed entries, unknown
// columns, bad uuids (segment files must stay under _indices/).
Result<std::vector<IndexMeta>> ReadIndexes(const table::Manifest& m);
nlohmann::json IndexesToJson(const std::vector<IndexMeta>& indexes);

// `_indices/{uuid}/`
std::string SegmentDir(const std::string& uuid);

}  // namespace lakeindex::index
