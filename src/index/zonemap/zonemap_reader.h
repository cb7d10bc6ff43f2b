// ZoneMapSegment: an opened zone map segment file, searched in memory.
//
// Open() reads and validates the whole file once (it is small: one row per zone); Search()
// does no I/O. Search answers with Exactness::kAtMost over whole zones:
//   * true_rows  — every zone that may hold a row where the query is TRUE. It contains every
//                  TRUE row of the covered fragments (it is a superset of them on its own).
//   * null_rows  — every zone with null_count > 0: a superset of the UNKNOWN rows (its non-NULL
//                  rows are included too: the set is conservative). It overlaps true_rows where a
//                  zone both may match and has NULLs — AtMost sets are supersets of their own, as
//                  scalar_index.h states, not the disjoint sets of an exact NullableRowSet.
//   Rows of covered fragments in neither set are FALSE.
// For kIsNull, true_rows are the zones with null_count > 0 and null_rows is empty (IS NULL is
// never UNKNOWN). NaN follows CompareValues (NaN = NaN, NaN above every number): a zone with
// nan_count > 0 is kept whenever NaN satisfies the query; min/max never include NaN; a zone
// whose rows are all NULL/NaN has no min/max and is kept only for NULL/NaN reasons.
// Row addresses are `fragment_id << 32 | offset` with the fragment's original offsets.
//
// Because the result is inexact the planner must recheck it, and must not serve NOT over it.
// Thread safety: immutable after Open; Search may be called concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "index/index_kind.h"
#include "index/scalar_index.h"
#include "index/zonemap/zonemap_format.h"
#include "lakeindex/object_store.h"

namespace lakeindex::index::zonemap {

class ZoneMapSegment final : public IndexSegment {
 public:
  // Reads ZoneMapPath(uuid) from `store` (not retained). NotFound if absent; Corruption naming
  // the file for a damaged or foreign file; NotSupported for another format version.
  static Result<std::unique_ptr<ZoneMapSegment>> Open(ObjectStore* store, const std::string& uuid);
  // Same, for a segment file at `path`.
  static Result<std::unique_ptr<ZoneMapSegment>> OpenPath(ObjectStore* store, const std::string& path);
  // From already decoded contents (tests); validated like a file, `source` names it in errors.
  static Result<std::unique_ptr<ZoneMapSegment>> FromContents(ZoneMapContents contents, std::string source);

  const std::string& path() const { return path_; }
  TypeId type() const { return contents_.type; }
  uint32_t zone_rows() const { return contents_.zone_rows; }
  uint64_t ZonesTotal() const { return contents_.zones.size(); }
  uint64_t rows() const { return rows_; }
  uint64_t file_size() const { return file_size_; }  // bytes read by Open (0 for FromContents)
  const std::vector<Zone>& zones() const { return contents_.zones; }
  // Fragment ids with at least one zone, ascending.
  std::vector<uint32_t> Fragments() const;

  // InvalidArgument when the query does not fit the column: a NULL or non-comparable value
  // (e.g. a string against an int64 column), or kPrefix on a non-string column.
  // `counters` (may be null): pages_total += ZonesTotal(), pages_selected += zones in
  // true_rows. The directory is in memory, so pages_read and bytes_read are not changed.
  Result<SearchResult> Search(const ScalarQuery& query, SearchCounters* counters) const override;
  // The file was read and validated whole by Open; checks the rows it covers against `coverage`.
  Result<std::string> Verify(const SegmentCoverage& coverage, const std::string& where) const override;

  // Indexes (into zones()) of the zones that may hold a TRUE row, ascending. Same errors.
  Result<std::vector<size_t>> CandidateZones(const ScalarQuery& query) const;

 private:
  ZoneMapSegment(ZoneMapContents contents, std::string path, uint64_t file_size);
  Status CheckQuery(const ScalarQuery& query) const;
  bool MayMatch(const Zone& zone, const ScalarQuery& query, bool nan_matches) const;

  ZoneMapContents contents_;
  std::string path_;
  uint64_t file_size_ = 0;
  uint64_t rows_ = 0;
};

}  // namespace lakeindex::index::zonemap
