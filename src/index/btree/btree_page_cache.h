// PageCache: decoded BTree leaf pages, bounded by bytes (LRU), with single-flight loading: when
// several threads miss on the same page at once, one runs the loader and the others wait for
// its result, so a cold page is read from the store once.
//
// Keys are (segment instance id, page number). Every opened BTreeSegment takes a fresh id from
// NewSegmentId(), so one cache may be shared by all segments of the process (Default(), 256 MiB)
// and a re-opened or rewritten segment never sees stale pages; pages of closed segments simply
// age out. Failed loads are not cached (the next lookup retries) but are handed to the threads
// that waited on them. A page larger than the whole capacity is returned and not kept.
// Thread safety: every method may be called concurrently. Returned pages are immutable and stay
// valid as long as the caller holds the shared_ptr, even after eviction.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "index/btree/btree_key.h"
#include "lakeindex/status.h"

namespace lakeindex::index::btree {

// One decoded leaf page: keys (btree_key.h encoding) ascending, and the row address of each.
struct LeafPage {
  KeyArray keys;
  std::vector<uint64_t> addresses;
  // Bytes charged to the cache.
  size_t MemoryBytes() const { return sizeof(LeafPage) + keys.MemoryBytes() + addresses.capacity() * 8; }
};

class PageCache {
 public:
  using PagePtr = std::shared_ptr<const LeafPage>;
  using Loader = std::function<Result<PagePtr>()>;

  explicit PageCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}
  PageCache(const PageCache&) = delete;
  PageCache& operator=(const PageCache&) = delete;

  static PageCache* Default();
  static uint64_t NewSegmentId();

  // The cached page, or the result of `loader` (run by at most one caller per key at a time).
  // `*loaded` (optional) is set to whether this call ran the loader.
  Result<PagePtr> GetOrLoad(uint64_t segment_id, uint32_t page, const Loader& loader, bool* loaded = nullptr);
  // The cached page or nullptr; never loads, never waits.
  PagePtr Lookup(uint64_t segment_id, uint32_t page);

  size_t capacity_bytes() const { return capacity_; }
  size_t size_bytes() const;
  size_t num_pages() const;

 private:
  using Key = std::pair<uint64_t, uint32_t>;
  struct Entry {
    PagePtr page;
    size_t bytes = 0;
    std::list<Key>::iterator lru;
  };
  struct Flight {
    bool done = false;
    Result<PagePtr> result = Status::Internal("page load not finished");
  };

  void InsertLocked(const Key& key, PagePtr page);

  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable flight_done_;
  std::map<Key, Entry> entries_;
  std::list<Key> lru_;  // front = most recently used
  std::map<Key, std::shared_ptr<Flight>> flights_;
  size_t bytes_ = 0;
};

}  // namespace lakeindex::index::btree
