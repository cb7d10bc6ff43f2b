// Maintenance of immutable BTree segments: merging sorted pages with new data, merging segments,
// and remapping row addresses after compaction. Every operation writes a NEW segment (new uuid
// unless options.uuid is set) and never edits the old one; the caller swaps the segments in the
// manifest and deletes the old files once no version references them.
//
// Merging streams the old segments' leaf pages in order (uncached reads, one page per segment in
// memory at a time) through the builder's final k-way merge beside the new data, which the
// builder sorts within its memory budget; the result equals a rebuild from all rows (same pages,
// same directory). NULL bitmaps are unioned. options.page_rows applies to the new segment (pass
// the old segment's page_rows to keep it).
// Remap rebuilds a segment given old address -> new address (nullopt: the row is gone, e.g.
// deleted before a compaction). Remapped entries are re-sorted (a remap need not preserve
// address order within equal values), so it runs through the builder's bounded sort.
// Thread safety: the functions may run concurrently on different inputs; segments are shared
// read-only.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "index/btree/btree_builder.h"
#include "index/btree/btree_reader.h"

namespace lakeindex::index::btree {

// The (key, address) entries of `segment`'s leaf pages in order.
std::unique_ptr<SortedStream> SegmentStream(std::shared_ptr<const BTreeSegment> segment);

// Adds every row of `segment` (its pages as a sorted source, its NULL rows) to `builder`, or with
// `keep_fragments`, only the rows whose fragment (address >> 32) is in it: dropping the rows of
// fragments that a compaction removed keeps the stream sorted, so nothing is re-sorted.
// InvalidArgument when the value types differ.
Status AddSegmentTo(BTreeBuilder* builder, std::shared_ptr<const BTreeSegment> segment,
                    const std::set<uint32_t>* keep_fragments = nullptr);

// A new segment holding `old`'s rows plus `values[i]` at `addresses[i]`.
Result<BTreeSegmentInfo> MergeSegment(ObjectStore* store, std::shared_ptr<const BTreeSegment> old,
                                      const Column& values, const std::vector<uint64_t>& addresses,
                                      BTreeBuildOptions options = {});

// A new segment holding the rows of all `segments` (same value type; at least one).
Result<BTreeSegmentInfo> MergeSegments(ObjectStore* store,
                                       const std::vector<std::shared_ptr<const BTreeSegment>>& segments,
                                       BTreeBuildOptions options = {});

using AddressMap = std::function<std::optional<uint64_t>(uint64_t old_address)>;

// A new segment where each row's address is map(old address); rows mapped to nullopt vanish.
Result<BTreeSegmentInfo> Remap(ObjectStore* store, const BTreeSegment& segment, const AddressMap& map,
                               BTreeBuildOptions options = {});

}  // namespace lakeindex::index::btree
