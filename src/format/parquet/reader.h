// ParquetReader: reads flat Parquet files through an ObjectStore with ranged reads.
//
// Open() costs three requests: Size, the last 8 bytes (footer length + "PAR1"), the footer.
// Open() with OpenOptions::tail_offset costs two (one when the size is known): the whole tail
// (page index + footer) is read at once, checked by the caller's hook before any of it is
// parsed, and later page-index reads are served from it. With offset_index_offset as well, only
// the OffsetIndexes and the footer are read at open; the ColumnIndexes (page statistics, which
// only page pruning needs) are read with one more request the first time any is asked for.
// ReadRowGroup() reads each selected column chunk with one ranged read; ReadPage() reads the
// page index (cached), the chunk's dictionary page if any, and the one page.
// See schema_mapping.h for the type mapping and column_reader.h for supported encodings.
// Nested/repeated schemas, encrypted files, columns stored in other files and the types
// listed as unsupported in schema_mapping.h make Open() fail with NotSupported naming the
// column. Corrupt input gives Corruption naming the file, and where known the column, row
// group and byte offset.
//
// Thread safety: after Open, every method may be called concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/lru_cache.h"
#include "format/parquet/metadata.h"
#include "format/parquet/page_map.h"
#include "format/parquet/schema_mapping.h"
#include "lakeindex/batch.h"
#include "lakeindex/object_store.h"
#include "lakeindex/types.h"

namespace lakeindex::parquet {

struct PageDictionary;  // column_reader.h

// Statistics of one column chunk (or page). min/max are absent when the file has none, they
// are NaN, or they are in an order lakeindex cannot trust (e.g. legacy signed string stats).
struct ColumnStatistics {
  std::optional<Value> min, max;
  std::optional<int64_t> null_count;
};

// Where a data page lies (32 bytes: a lookup's page index is mostly these).
struct PageIndexEntry {
  int64_t first_row_index = 0;  // within the row group
  int64_t num_rows = 0;
  int64_t offset = 0;            // file offset of the page header
  int32_t compressed_size = 0;   // header + compressed page bytes
};

// What a page's statistics say of it.
struct PageStatistics {
  std::optional<Value> min, max;
  std::optional<int64_t> null_count;
  bool null_page = false;        // known to hold only NULLs
};

struct PageIndex {
  std::vector<PageIndexEntry> pages;  // data pages in file order
  // One per page when has_statistics (a page without statistics has empty fields), else empty:
  // a reader that needs only locations does not decode (or hold) them.
  std::vector<PageStatistics> stats;
  // True when min/max/null_page came from a ColumnIndex (or page header statistics when the
  // file has no page index and the pages were scanned instead).
  bool has_statistics = false;
  // pages[i].first_row_index + pages[i].num_rows for each page: the compact array that row
  // lookups binary-search (a PageIndexEntry spans two cache lines). Filled by the reader.
  std::vector<int64_t> row_ends;
  uint64_t total_bytes = 0;  // sum of compressed_size (with row_ends)
  // When every page but the last holds this many rows (as our writers cut them), row r lies in
  // page r / uniform_rows: no search. 0 otherwise. Filled by the reader with row_ends.
  int64_t uniform_rows = 0;
  // With statistics of a number or temporal column (FillPageBounds): each page's min and max as
  // plain numbers, so that page pruning compares them without touching a Value.
  struct Bound {
    enum State : uint8_t { kUnknown, kNullPage, kBounded };  // kUnknown: no usable min/max
    State state = kUnknown;
    double min_d = 0, max_d = 0;    // float and double columns
    int64_t min_i = 0, max_i = 0;   // integer and temporal columns
  };
  std::vector<Bound> bounds;  // empty, or one per page
};
// Fills index->bounds from index->stats when the pages' min/max are numbers (their Values' type
// is float/double, or an integer or temporal type); leaves it empty otherwise.
void FillPageBounds(PageIndex* index);

// The tail of a Parquet file: [first byte of its page index (of its footer when it has none),
// end of file). It holds every byte of metadata that no page CRC covers. `data` is a whole file
// held in memory (a writer's output); Corruption when it does not end in a valid footer.
Result<uint64_t> TailOffset(const uint8_t* data, size_t size, std::string_view path);

struct OpenOptions {
  // When set, Open reads [tail_offset, end of file) with one request and passes those bytes to
  // `check_tail` (if any) before parsing them; an error from it is returned as is.
  std::optional<uint64_t> tail_offset;
  std::function<Status(const uint8_t* data, size_t size)> check_tail;
  // With tail_offset: where the OffsetIndexes start, the tail's ColumnIndexes lying in
  // [tail_offset, offset_index_offset). Open then reads [offset_index_offset, end of file) only
  // and passes that to `check_tail`; the ColumnIndexes are read whole, with one request, when a
  // page index with statistics is first asked for, and passed to `check_column_indexes` before
  // any is parsed (the hook is kept by the reader: it must own what it captures). A file whose
  // page index lies elsewhere is Corruption.
  std::optional<uint64_t> offset_index_offset;
  std::function<Status(const uint8_t* data, size_t size)> check_column_indexes;
  // With offset_index_offset: the file's page map (page_map.h), its blocks from blocks_offset and
  // its header from header_offset to the footer. Open then reads [header_offset, end of file)
  // only (passed to `check_tail`); a lookup reads the blocks it needs (LocatePages); the
  // OffsetIndexes [offset_index_offset, blocks_offset) are read whole, with one request, when a
  // chunk's full page index is first asked for, and passed to `check_offset_indexes` (kept, as
  // check_column_indexes) before any is parsed.
  struct PageMapAt {
    uint64_t blocks_offset = 0, header_offset = 0;
  };
  std::optional<PageMapAt> page_map;
  std::function<Status(const uint8_t* data, size_t size)> check_offset_indexes;
  // The file's size when the caller knows it (saves the Size request); a file of another size
  // then reads as damaged.
  std::optional<uint64_t> file_size;
  // Where page indexes, decoded dictionaries and (with cache_pages) decoded data pages are kept;
  // nullptr = LruCache::Default(). Entries are keyed by a fresh owner id per opened reader.
  LruCache* cache = nullptr;
  // Keep the data pages that ReadPages decodes in the cache (tables' data files: random access
  // then decodes a page once, not once per lookup). ReadRowGroup never caches.
  bool cache_pages = false;
};

class ParquetReader {
 public:
  static Result<std::unique_ptr<ParquetReader>> Open(ObjectStore* store, std::string path);
  static Result<std::unique_ptr<ParquetReader>> Open(ObjectStore* store, std::string path,
                                                     const OpenOptions& options);

  const std::string& path() const { return path_; }
  const Schema& schema() const { return schema_; }
  int num_row_groups() const { return int(meta_.row_groups.size()); }
  // Sum of the row groups' row counts.
  int64_t num_rows() const { return num_rows_; }
  // REQUIRES: 0 <= rg < num_row_groups().
  int64_t row_group_num_rows(int rg) const { return meta_.row_groups[size_t(rg)].num_rows; }
  // Chunk statistics; empty when rg/column are out of range.
  ColumnStatistics column_statistics(int rg, int column) const;
  const std::vector<std::pair<std::string, std::string>>& key_value_metadata() const {
    return key_value_metadata_;
  }
  const FileMetaData& metadata() const { return meta_; }
  // Bytes this reader holds: the file's tail when opened with OpenOptions::tail_offset (footer
  // and page indexes: megabytes for a file of small pages; the ColumnIndexes only once read) and
  // its parsed footer (estimated).
  size_t MemoryBytes() const;
  // Bytes of ColumnIndexes read from the store so far (explain and tests): 0 until page
  // statistics are first needed, when opened with OpenOptions::offset_index_offset.
  uint64_t column_index_bytes_read() const { return column_indexes_.read.load(); }
  // The same for the OffsetIndexes of a file opened with a page map, and the map's blocks.
  uint64_t offset_index_bytes_read() const { return offset_indexes_.read.load(); }
  uint64_t page_map_bytes_read() const { return map_bytes_read_.load(); }
  bool has_page_map() const { return page_map_ != nullptr; }
  // With OpenOptions::offset_index_offset: reads (and checks) the ColumnIndexes now if they are
  // not held yet (with a page map, the OffsetIndexes too, in the same request), so that a remote
  // scan fetches them together with its pages. OK otherwise.
  Status LoadColumnIndexes() const;

  // Reads the listed columns (schema indexes, any order, no duplicates) of one row group; an
  // empty list means every column. The Batch's schema holds the listed fields in that order.
  Result<Batch> ReadRowGroup(int rg, const std::vector<int>& columns) const;
  // Every row group, concatenated.
  Result<Batch> ReadAll(const std::vector<int>& columns = {}) const;

  // Page locations and statistics of one column chunk, from the OffsetIndex/ColumnIndex, or by
  // scanning the chunk's page headers when the file has no OffsetIndex.
  Result<PageIndex> ReadPageIndex(int rg, int column) const;
  // The rows of one data page (0-based among the chunk's data pages).
  Result<Column> ReadPage(int rg, int column, int page) const;
  // The rows of several data pages of one chunk (ascending page numbers, no repeats), one Column
  // per page, fetched in the runs PlanRuns cuts with `hint` (normally the store's read_hint()):
  // pages at most hint.max_hole bytes apart share one ranged read (the hole read and dropped).
  Result<std::vector<Column>> ReadPages(int rg, int column, const std::vector<int>& pages,
                                        const ObjectStore::ReadHint& hint) const;
  // The same without copies: pages held by the cache are shared, the others are read (with
  // `hint` as above), decoded and, with OpenOptions::cache_pages, kept. `*loaded` (optional)
  // is incremented by the number of pages that were read from the store. The pages stay valid as
  // long as the returned span lives.
  struct PageSpan {
    std::vector<const Column*> pages;    // one per requested page
    std::shared_ptr<const void> owner;   // keeps them alive
  };
  // One column chunk as the cache holds it: its page locations and the table of its decoded
  // pages, found with one cache probe. A lookup that visits a chunk gets it once (SharedChunk)
  // and passes it to the calls below, which then probe nothing more.
  struct ChunkPages {
    explicit ChunkPages(std::shared_ptr<const PageIndex> locations, bool cached)
        : locations(std::move(locations)), cached(cached), pages(this->locations->pages.size()) {}
    std::shared_ptr<const PageIndex> locations;  // statistics may be absent
    bool cached;                                 // held by the cache (else this read's own)
    mutable std::mutex mu;
    mutable std::vector<std::shared_ptr<const Column>> pages;  // decoded pages; guarded by mu
    // Pages a take has read value by value (query/value_take.h; empty until one has): the next
    // take of such a page decodes it whole, and the cache keeps it. Guarded by mu.
    mutable std::vector<bool> read_by_value;
    // A chunk located through the file's page map: `unlocated` is `locations` itself, whose
    // entries' rows are known and whose offsets and sizes are filled by LocatePages, page by page,
    // as takes need them; located[p] says which are. Both guarded by mu. Null and empty for a
    // chunk located by its OffsetIndex (every entry known).
    PageIndex* unlocated = nullptr;
    mutable std::vector<bool> located;
    size_t MemoryBytes() const;
  };
  // Makes the entries of `pages` (valid page numbers of the chunk) in chunk.locations hold their
  // offsets and sizes, reading the page map's blocks that say them (one ReadRanges for all that
  // are missing; a block serves every mapped column of its row group and is kept). The methods
  // below that take a ChunkPages call it; a caller that reads an entry's offset or size itself
  // calls it first. OK at once for chunks without a page map. Corruption naming the block when
  // its CRC or its offsets are wrong.
  Status LocatePages(const ChunkPages& chunk, int rg, int column, const std::vector<int>& pages) const;
  // For verify: every block of the page map checked (CRC) and compared with the OffsetIndexes.
  // OK for a file opened without a page map.
  Status CheckPageMap() const;
  Result<std::shared_ptr<const ChunkPages>> SharedChunk(int rg, int column) const;
  Result<PageSpan> ReadPagesShared(const std::shared_ptr<const ChunkPages>& chunk, int rg, int column,
                                   const std::vector<int>& pages, const ObjectStore::ReadHint& hint,
                                   uint64_t* loaded = nullptr) const;
  Result<PageSpan> ReadPagesShared(int rg, int column, const std::vector<int>& pages, const ObjectStore::ReadHint& hint,
                                   uint64_t* loaded = nullptr) const;
  // The pages of several chunks of this file that are not loaded yet, with the chunks'
  // dictionaries, fetched by one ReadRanges (on a remote store: requests sent together, nearby
  // ranges merged) and kept as ReadPagesShared keeps them (OpenOptions::cache_pages): for a scan
  // that knows its blocks before it reads them, one round trip instead of one or two per chunk.
  // `pages` ascending, no repeats; an error names the chunk, as ReadPagesShared's do.
  struct ChunkWant {
    int rg;
    int column;
    std::vector<int> pages;
  };
  Status LoadPages(const std::vector<ChunkWant>& wanted, const ObjectStore::ReadHint& hint) const;
  // One ranged read of pages of a chunk (the reader's own planning; public for its helpers).
  struct PageRun {
    size_t first, stop;  // positions in the chunk's missing pages
    uint64_t offset, length;
  };
  // The store's hint for cutting reads of this file (ObjectStore::read_hint).
  ObjectStore::ReadHint read_hint() const { return store_->read_hint(); }
  // What ReadPagesShared(chunk, rg, column, pages, hint) would fetch: the bytes and requests of
  // the runs of the pages the cache does not hold, and of the dictionary when it is not cached.
  struct ReadCost {
    uint64_t bytes = 0, requests = 0;
  };
  Result<ReadCost> PagesReadCost(const ChunkPages& chunk, int rg, int column, const std::vector<int>& pages,
                                 const ObjectStore::ReadHint& hint) const;
  // Compressed bytes of a column chunk (its pages, dictionary included), from the footer.
  uint64_t ChunkBytes(int rg, int column) const;
  // Compressed bytes of those of `pages` (valid page numbers of the chunk) whose decoded form the
  // cache does not hold: what ReadPagesShared would read for them.
  Result<uint64_t> UncachedPageBytes(const ChunkPages& chunk, int rg, int column, const std::vector<int>& pages) const;
  // Per-value reads (value_reader.h; defined in value_reader.cc). ValueWidth: the bytes of one
  // value of chunk (rg, column) when its footer allows pages that ReadValues can address (fixed
  // width, uncompressed, no dictionary; on a remote store, REQUIRED only), else 0.
  size_t ValueWidth(int rg, int column) const;
  struct ValueWant {
    int page;                     // data page number in the chunk
    std::vector<uint32_t> rows;   // offsets within the page, ascending, no repeats
  };
  // The rows of `wants` read value by value from the chunk's pages (located by `index`, its
  // SharedPageIndex): (*out)[k] holds want k's rows in order, decoded as the page decode would,
  // or nullopt when its page is not addressable (ParseValuePage) and must be decoded whole.
  // Costs one ReadRanges (REQUIRED: headers and values together) or two (OPTIONAL: headers and
  // levels, then values). A read error or short read is returned; no page CRC is checked.
  Status ReadValues(int rg, int column, const PageIndex& index, const std::vector<ValueWant>& wants,
                    std::vector<std::optional<Column>>* out) const;
  // The page index as kept in the cache (no copy).
  // With `statistics` false only the page locations are needed (min/max/null counts may be
  // absent): a lookup of a column the filter does not test skips decoding its ColumnIndex.
  Result<std::shared_ptr<const PageIndex>> SharedPageIndex(int rg, int column, bool statistics = true) const {
    return CachedPageIndex(rg, column, statistics);
  }

 private:
  ParquetReader(ObjectStore* store, std::string path) : store_(store), path_(std::move(path)) {}
  Status Init(const OpenOptions& options);
  // Parses the footer [footer_start_, file_size_ - 8) and validates the schema and row groups.
  Status ParseFooter(const uint8_t* footer, size_t size);
  Status CheckChunk(int rg, int column) const;
  // With lazy ColumnIndexes: every ColumnIndex lies in their region and every OffsetIndex in the
  // tail read at open (or, with a page map, in their own region), so that no page-index byte is
  // read unchecked.
  Status CheckIndexRegions() const;
  // [start, start + length) of a column chunk's pages in the file, validated.
  Result<std::pair<uint64_t, uint64_t>> ChunkRange(int rg, int column) const;
  Status ReadChunkInto(int rg, int column, Column* out) const;
  Result<std::shared_ptr<const PageIndex>> CachedPageIndex(int rg, int column, bool statistics = true) const;
  Result<PageIndex> LoadPageIndex(int rg, int column, bool statistics) const;
  Result<PageIndex> ScanPageHeaders(int rg, int column) const;
  Result<std::vector<int>> ResolveColumns(const std::vector<int>& columns) const;
  Status Error(const std::string& message) const;
  std::string Where(int rg, int column) const;

  ObjectStore* store_;
  std::string path_;
  uint64_t file_size_ = 0;
  uint64_t footer_start_ = 0;
  // Bytes [tail_offset_, file_size_) when opened with OpenOptions::tail_offset, else empty
  // (with offset_index_offset, tail_offset_ is that: the ColumnIndexes lie before it; with a page
  // map too, tail_offset_ is the map's header).
  uint64_t tail_offset_ = 0;
  std::string tail_;
  // A part of the tail read whole, on first need, checked and kept: with
  // OpenOptions::offset_index_offset, every ColumnIndex; with a page map too, every OffsetIndex.
  struct LazyRegion {
    bool active = false;
    uint64_t begin = 0, end = 0;
    std::function<Status(const uint8_t* data, size_t size)> check;
    mutable std::mutex mu;
    mutable std::shared_ptr<const std::string> bytes;  // guarded by mu
    mutable std::atomic<uint64_t> read{0};
    bool Holds(uint64_t offset) const { return active && offset >= begin && offset < end; }
  };
  LazyRegion column_indexes_, offset_indexes_;
  // Reads the regions not held yet: the OffsetIndexes', and with `with_column_indexes` the
  // ColumnIndexes' (both in one request), each checked before it is kept.
  Status LoadIndexRegions(bool with_column_indexes) const;
  // `region` (column_indexes_ or offset_indexes_) held, read if need be.
  Result<std::shared_ptr<const std::string>> Region(const LazyRegion& region) const;
  // The page map (OpenOptions::page_map), its blocks as read so far (by row group and block).
  std::unique_ptr<PageMap> page_map_;
  mutable std::mutex map_mu_;
  mutable std::map<std::pair<int, uint32_t>, std::shared_ptr<const std::vector<uint32_t>>> map_blocks_;  // map_mu_
  mutable std::atomic<uint64_t> map_bytes_read_{0};
  // Blocks `blocks` (ascending) of row group rg, read (those not held: one ReadRanges) and checked.
  Result<std::vector<std::shared_ptr<const std::vector<uint32_t>>>> MapBlocks(int rg, const std::vector<uint32_t>& blocks) const;
  // A chunk's locations as the page map gives them before any block is read: every page's rows,
  // no offsets. nullptr when the chunk is not mapped.
  std::shared_ptr<PageIndex> MapSkeleton(int rg, int column) const;
  // Fills entries `pages` of `index` (a MapSkeleton) from the blocks; called with chunk.mu held.
  Status FillFromMap(PageIndex* index, int rg, int column, const std::vector<int>& pages) const;
  FileMetaData meta_;
  Schema schema_;
  std::vector<LeafColumn> leaves_;
  int64_t num_rows_ = 0;
  std::vector<std::pair<std::string, std::string>> key_value_metadata_;

  // The chunk's decoded dictionary (nullptr when it has none), read and decoded once per cache
  // lifetime of the entry: decoding any page of a dictionary-encoded chunk needs it.
  // `head`: the bytes of DictionaryRange when the caller has read them (else they are read).
  Result<std::shared_ptr<const PageDictionary>> CachedDictionary(int rg, int column,
                                                                  const std::string* head = nullptr) const;
  // [start, start + length) of the pages before a chunk's first data page (its dictionary page):
  // nullopt when there are none.
  Result<std::optional<std::pair<uint64_t, uint64_t>>> DictionaryRange(int rg, int column) const;
  // DictionaryRange when the cache does not hold the chunk's dictionary: a read of pages fetches
  // it with them, in the same ReadRanges.
  Result<std::optional<std::pair<uint64_t, uint64_t>>> UncachedDictionaryRange(int rg, int column) const;
  // The pages at positions `missing` of `pages` decoded from `run_bytes` (the ranges of `runs`)
  // into `out` and, when the chunk is cached, its table of pages; `head` as for CachedDictionary.
  Status DecodeRuns(const std::shared_ptr<const ChunkPages>& shared, int rg, int column, const std::vector<int>& pages,
                    const std::vector<size_t>& missing, const std::vector<PageRun>& runs,
                    const std::vector<std::string>& run_bytes, const std::string* head, PageSpan* out) const;
  // The cache key of one item of this file; nullopt when rg/column/page exceed the key's fields
  // (then the item is not cached).
  // kChunkPages: one entry per column chunk, the table of its decoded data pages (ChunkPages in
  // reader.cc), so that a lookup costs one cache probe per chunk, not one per page.
  enum class CacheItem : uint64_t { kPageIndex = 1, kDictionary = 2, kChunkPages = 3, kPageLocations = 4 };
  std::optional<LruCache::Key> CacheKey(CacheItem item, int rg, int column, int page) const;

  LruCache* cache_ = nullptr;
  uint64_t cache_owner_ = 0;
  bool cache_pages_ = false;
};

}  // namespace lakeindex::parquet
