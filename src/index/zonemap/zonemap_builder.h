// ZoneMapBuilder: cuts the rows of each fragment into zones of `zone_rows` rows (row order,
// never crossing a fragment), keeps min/max/null_count/nan_count per zone, and writes one
// segment file (zonemap_format.h) with Finish().
//
// Rows arrive as whole fragment columns (AddFragment) or streamed in chunks (Add): consecutive
// Add() calls with the same fragment id continue that fragment at the next row offset; a call
// with another id ends the current fragment. A fragment may be added once; fragments may come in
// any order (the file is written in ascending fragment id). Zone offsets are the offsets of the
// rows as given, so callers must pass every row of a fragment, deleted ones included.
// Errors are sticky: after one, every later call returns it.
// Thread safety: none; one builder per thread.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "index/zonemap/zonemap_format.h"
#include "lakeindex/batch.h"
#include "lakeindex/column_stats.h"
#include "lakeindex/object_store.h"
#include "lakeindex/status.h"

namespace lakeindex::index::zonemap {

// What a finished segment holds, for the index's manifest entry.
struct ZoneMapSegmentInfo {
  std::string uuid;
  std::string path;             // ZoneMapPath(uuid), relative to the store root
  TypeId type = TypeId::kInt64;
  uint32_t zone_rows = kDefaultZoneRows;
  uint64_t zones = 0;
  uint64_t rows = 0;            // rows covered (sum of the fragments' rows)
  std::vector<uint32_t> fragments;  // fragment ids covered, ascending (0-row fragments included)
  uint64_t file_size = 0;
};

class ZoneMapBuilder {
 public:
  // `zone_rows` must be in [1, kMaxZoneRows]; otherwise every call returns InvalidArgument.
  explicit ZoneMapBuilder(TypeId type, uint32_t zone_rows = kDefaultZoneRows);

  // Appends `chunk` (of the builder's type) to fragment `fragment_id`. InvalidArgument for a
  // type mismatch, a fragment added again after another one, or a fragment beyond
  // kMaxFragmentRows rows.
  Status Add(uint32_t fragment_id, const Column& chunk);
  // Ends the fragment being added (its last zone may be short). No-op when none is open.
  Status EndFragment();
  // Add(fragment_id, values) + EndFragment(): `values` is the whole fragment column.
  Status AddFragment(uint32_t fragment_id, const Column& values);

  TypeId type() const { return type_; }
  uint32_t zone_rows() const { return zone_rows_; }

  // Zones built so far (ended fragments, in the order added).
  const std::vector<Zone>& zones() const { return zones_; }

  // Ends the open fragment, writes ZoneMapPath(uuid) to `store` (replacing any object there)
  // and returns what the segment holds. `uuid` must be non-empty and contain no '/'.
  // The builder cannot be used afterwards.
  Result<ZoneMapSegmentInfo> Finish(ObjectStore* store, const std::string& uuid);
  // The segment's contents, sorted by fragment id (what Finish writes); ends the open fragment.
  Result<ZoneMapContents> FinishContents();

 private:
  void FlushZone();

  TypeId type_;
  uint32_t zone_rows_;
  Status status_;  // sticky
  bool finished_ = false;

  bool open_ = false;          // a fragment is being added
  uint32_t current_ = 0;       // its id
  uint64_t fragment_rows_ = 0; // rows of it so far
  ColumnStats pending_;        // the current, not yet full zone
  std::vector<Zone> zones_;
  std::set<uint32_t> fragments_;
  uint64_t rows_ = 0;
};

}  // namespace lakeindex::index::zonemap
