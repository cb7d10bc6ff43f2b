// BTreeBuilder: builds one immutable BTree segment (layout in btree_format.h) from batches of
// (column values, row addresses) given in any order.
//
// Non-NULL values are encoded as keys (index/index_key.h) and sorted by (value, row address) with an
// external merge sort bounded by `memory_budget_bytes` (btree_sorter.h: beyond the budget,
// sorted runs are spilled to local scratch files in `spill_dir` and merged). NULL addresses go to
// a roaring bitmap (not counted in the budget; a few bytes per NULL at worst). The sorted stream
// is cut into leaf pages of `page_rows`; Finish() writes page_data then page_lookup under
// `_indices/{uuid}/` of the store and returns the segment's summary.
// page_data is streamed to the store page by page (btree_segment_writer.h). Not bounded by the
// budget: the page directory (two keys per page) and page_data's Parquet footer.
// Errors are sticky: after a failure every call returns it. Thread safety: none.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "index/btree/btree_format.h"
#include "index/btree/btree_sorter.h"
#include "lakeindex/batch.h"
#include "lakeindex/object_store.h"
#include "lakeindex/row_set.h"

namespace lakeindex::index::btree {

struct BTreeBuildOptions {
  uint32_t page_rows = kDefaultPageRows;               // rows per leaf page, 1..kMaxPageRows
  // The build's memory bound: the sort buffer gets half of it, the rest is left for the batches
  // being read, the table's cached readers (up to 64 MiB), page writing and the process itself
  // (at 7/8, a build over 110M rows of an OTree table peaked at 705 MiB).
  uint64_t memory_budget_bytes = uint64_t(512) << 20;
  std::string spill_dir;                               // empty: the system temp dir ($TMPDIR)
  // Values that will be added, if known (0: unknown): the sort buffer is sized for them at once
  // (within the budget) instead of growing by doubling.
  uint64_t expected_rows = 0;
  std::string uuid;                                    // empty: a new random uuid
  // Called with the entries written to pages so far while Finish writes them (may be empty).
  std::function<void(uint64_t written)> progress;
};

class BTreeBuilder {
 public:
  // REQUIRES: store outlives the builder. InvalidArgument for page_rows out of range.
  static Result<std::unique_ptr<BTreeBuilder>> Make(ObjectStore* store, TypeId type, BTreeBuildOptions options = {});

  // Adds values[i] for row_addresses[i], i < values.length(). InvalidArgument when the column
  // type differs from the builder's or the lengths differ.
  Status Add(const Column& values, const std::vector<uint64_t>& row_addresses);
  Status Add(const Column& values, const uint64_t* row_addresses, size_t count);
  // One already-encoded key (used by merge/remap).
  Status AddKey(std::string_view key, uint64_t address);
  Status AddNull(uint64_t address);
  void AddNulls(const RowSet& addresses);
  // Entries already in (key, address) order, merged in at Finish() without buffering
  // (an existing segment's pages, see btree_merge.h). The source must stay valid until Finish().
  void AddSortedSource(std::unique_ptr<SortedStream> source);

  Result<BTreeSegmentInfo> Finish();

  const std::string& uuid() const { return options_.uuid; }
  TypeId type() const { return type_; }
  // Sorted runs written to scratch files so far (0 when everything fit in the budget).
  size_t runs_spilled() const { return sorter_.runs_spilled(); }

 private:
  BTreeBuilder(ObjectStore* store, TypeId type, BTreeBuildOptions options);
  // Adds the non-NULL values of a fixed-width column as integer keys (to_key: IntKey/DoubleKey).
  template <typename T, typename ToKey>
  Status AddFixedKeys(const Column& values, const uint64_t* row_addresses, ToKey to_key);

  ObjectStore* store_;
  TypeId type_;
  BTreeBuildOptions options_;
  ExternalSorter sorter_;
  RowSet nulls_;
  Status status_;
  bool finished_ = false;
};

}  // namespace lakeindex::index::btree
