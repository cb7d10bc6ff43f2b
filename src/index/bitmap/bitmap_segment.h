// BitmapSegment: an opened bitmap index segment (bitmap_format.h), answering exactly.
//
// Open() reads the footer and the dictionary (one ranged read of the file's last 64 KiB, a second
// when the dictionary is larger) and keeps the dictionary in memory. A query becomes key intervals
// (index/index_key.h), the intervals the dictionary entries they hold; the entries' bitmaps are
// read (all missing ones in one ReadRanges: one round trip on S3), checked against their XXH64
// and cardinality, and kept for the segment's life. Search answers kExact: true_rows the union of
// the entries' bitmaps, null_rows the NULL rows (IS NULL: true_rows the NULL rows, null_rows
// empty). Count adds the entries' cardinalities from the dictionary: no bitmap is read.
// Thread safety: after Open, every method may be called concurrently. REQUIRES: the store outlives
// the segment.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "index/bitmap/bitmap_format.h"
#include "index/index_key.h"
#include "index/index_kind.h"

namespace lakeindex::index::bitmap {

class BitmapSegment final : public IndexSegment {
 public:
  // NotFound when absent; Corruption naming the file; NotSupported for another format version.
  static Result<std::shared_ptr<BitmapSegment>> Open(ObjectStore* store, const std::string& uuid);

  // `counters`: pages_total += entries (values and NULL), pages_selected and pages_all_match +=
  // entries the query takes, pages_read / bytes_read += bitmaps read from the store.
  Result<SearchResult> Search(const ScalarQuery& query, SearchCounters* counters = nullptr) const override;
  Result<uint64_t> Count(const ScalarQuery& query, SearchCounters* counters = nullptr) const override;
  // Reads every bitmap anew and checks it (checksums, cardinalities, addresses inside the
  // covered fragments, no row in two entries).
  Result<std::string> Verify(const SegmentCoverage& coverage, const std::string& where) const override;
  // The entries' bitmaps, in key order, kept as searches keep them, while they fit in max_bytes.
  Status Prewarm(uint64_t max_bytes, SearchCounters* counters) const override;

  // Every entry's bitmap, the NULL rows' last, read anew (not kept).
  Result<std::vector<std::shared_ptr<const RowSet>>> AllBitmaps() const;

  const Dictionary& dictionary() const { return dict_; }
  const std::string& path() const { return path_; }

 private:
  BitmapSegment(ObjectStore* store, std::string path, Dictionary dict);
  // The entries a query takes (indexes into the dictionary; dict_.keys.size() is the NULL entry).
  Result<std::vector<size_t>> Entries(const ScalarQuery& query) const;
  const BitmapRef& Ref(size_t entry) const;
  // The entries' bitmaps, read when not yet held. `cache`: keep what was read.
  Result<std::vector<std::shared_ptr<const RowSet>>> Bitmaps(const std::vector<size_t>& entries, bool cache,
                                                              SearchCounters* counters) const;

  ObjectStore* store_;
  std::string path_;
  Dictionary dict_;
  KeyArray keys_;  // dict_.keys, for binary search
  mutable std::mutex mu_;
  mutable std::vector<std::shared_ptr<const RowSet>> held_;  // per entry, once read
};

}  // namespace lakeindex::index::bitmap
