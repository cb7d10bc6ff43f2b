// BTreeSegment: an opened, immutable BTree segment answering ScalarQuery exactly.
//
// Open() reads page_lookup.parquet whole (one request) and validates it (btree_format.h); the
// directory and the NULL bitmap stay in memory. A leaf page is one ranged read of its row group
// in page_data.parquet, decoded as is: page_lookup (format version 2) says where it lies, so
// page_data's footer (a row group per page: 256 KB on 10M rows) is never read; the first page
// read also checks page_data's size (one Size request). Version 1 segments open page_data's
// footer lazily on the first page-cache miss (three requests: size, footer tail, footer).
//
// Search(): every query kind becomes a sorted list of disjoint key intervals (= is [v, v], IN is
// one point per value, LIKE 'p%' is [p, successor(p)), IS NULL has none) that is walked against
// the directory once: binary search for the first page whose max reaches the interval, then
// pages while their min is inside it. A page whose min and max both lie inside one interval is
// taken whole ("All": its row addresses, no comparisons); others are binary-searched per
// interval. Candidate pages missing from the cache are loaded and searched in parallel on the
// thread pool. The answer is kExact: true_rows as above, null_rows = the segment's NULL rows
// (IS NULL: true_rows = NULL rows, null_rows empty) — no page is read for NULL bookkeeping.
//
// Thread safety: after Open, every method may be called concurrently. REQUIRES: the store (and
// any cache/pool given in the options) outlive the segment.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "format/parquet/schema_mapping.h"
#include "index/btree/btree_format.h"
#include "index/btree/btree_page_cache.h"
#include "index/index_kind.h"
#include "index/scalar_index.h"
#include "lakeindex/object_store.h"

namespace lakeindex {
class ThreadPool;
namespace parquet {
class ParquetReader;
}
}  // namespace lakeindex

namespace lakeindex::index::btree {

struct BTreeSegmentOptions {
  PageCache* cache = nullptr;  // nullptr: PageCache::Default() (process-wide, 256 MiB)
  ThreadPool* pool = nullptr;  // nullptr: ThreadPool::Default()
  bool parallel = true;        // false: search candidate pages on the calling thread only
};

class BTreeSegment final : public IndexSegment {
 public:
  // NotFound when the segment has no page_lookup; Corruption naming the file when it is damaged.
  static Result<std::shared_ptr<BTreeSegment>> Open(ObjectStore* store, std::string_view uuid,
                                                    BTreeSegmentOptions options = {});
  ~BTreeSegment() override;

  // Exact answer over the segment's rows. InvalidArgument for a literal of the wrong type or a
  // prefix query on a non-string column; Corruption (naming page_data and the page) when a leaf
  // page is damaged. `counters` (optional) are added to.
  Result<SearchResult> Search(const ScalarQuery& query, SearchCounters* counters = nullptr) const override;

  // How many rows Search would answer, from the directory: pages wholly inside an interval
  // count their rows unread, only the pages an interval cuts are read (a range: at most two).
  Result<uint64_t> Count(const ScalarQuery& query, SearchCounters* counters = nullptr) const override;

  // ORDER BY the key LIMIT k: the addresses of the first `k` rows in key order (descending:
  // from the largest key) that `keep` accepts, reading leaf pages from that end until they are
  // found; NULL keys are never among them. Equal keys come in address order.
  Result<std::vector<uint64_t>> FirstRows(bool descending, uint64_t k, const std::function<bool(uint64_t)>& keep,
                                          SearchCounters* counters = nullptr) const override;

  // Reads page_data's footer and every leaf page uncached (CRCs, order, min/max, row counts) and
  // checks each address lies in a fragment of `coverage`, and the rows add up.
  Result<std::string> Verify(const SegmentCoverage& coverage, const std::string& where) const override;
  // Leaf pages from the first, through the cache, while the bytes read stay within max_bytes.
  Status Prewarm(uint64_t max_bytes, SearchCounters* counters) const override;

  const BTreeSegmentInfo& info() const { return info_; }
  const PageDirectory& directory() const { return dir_; }
  const RowSet& null_rows() const { return dir_.null_rows; }

  // Leaf page `page` through the cache (counters: pages_read/bytes_read on a miss).
  Result<std::shared_ptr<const LeafPage>> ReadPage(uint32_t page, SearchCounters* counters = nullptr) const;
  // Opens page_data's footer — which lookups of format 2 segments never read — and checks it
  // against the directory (magic, segment uuid, value type, one row group per page with the
  // page's rows): `verify`'s work, so that other Parquet readers find a sound file too.
  Status CheckDataFooter() const { return DataReader().status(); }
  // Leaf page `page` straight from the store, bypassing the cache (whole-segment streaming by
  // merge/remap must not flush the cache).
  Result<std::shared_ptr<const LeafPage>> ReadPageUncached(uint32_t page) const;

 private:
  BTreeSegment(ObjectStore* store, std::string uuid, PageDirectory dir, BTreeSegmentOptions options);
  Result<const parquet::ParquetReader*> DataReader() const;
  Result<std::shared_ptr<const LeafPage>> LoadPage(uint32_t page, uint64_t* bytes_read) const;
  // Format version 2: one ranged read of the page's location, decoded without page_data's footer.
  Status ReadLocatedPage(uint32_t page, Column* values, Column* addresses, uint64_t* bytes_read) const;
  // Format version 1: the page's row group through page_data's footer (opened on first use).
  Result<Batch> ReadPageThroughFooter(uint32_t page, uint64_t* bytes_read) const;
  // Once per segment, before the first located read: page_data's size is the directory's.
  Status CheckDataSize() const;
  // Corruption unless page_data holds `size` bytes, as the directory says.
  Status DataSizeMatches(uint64_t size) const;

  std::unique_ptr<ObjectStore> window_store_;  // the store seen by the page_data reader
  ObjectStore* store_;
  std::string uuid_;
  std::string data_path_;
  PageDirectory dir_;
  BTreeSegmentInfo info_;
  BTreeSegmentOptions options_;
  uint64_t cache_id_;

  parquet::LeafColumn value_leaf_, address_leaf_;  // page_data's columns (located reads)

  mutable std::mutex data_mu_;
  mutable std::unique_ptr<parquet::ParquetReader> data_reader_;
  mutable bool data_size_checked_ = false;
};

}  // namespace lakeindex::index::btree
