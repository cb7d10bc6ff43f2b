// PageCache: decoded BTree leaf pages in an LruCache (common/lru_cache.h): bounded by bytes (LRU),
// with single-flight loading: when several threads miss on the same page at once, one runs the
// loader and the others wait for its result, so a cold page is read from the store once.
//
// Keys are (segment instance id, page number). Every opened BTreeSegment takes a fresh id from
// NewSegmentId(), so one cache may be shared by all segments of the process (Default(): the process's LruCache)
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

#include "common/lru_cache.h"
#include "index/index_key.h"
#include "lakeindex/status.h"

namespace lakeindex::index::btree {

// One decoded leaf page: keys (index/index_key.h encoding) ascending, and the row address of each.
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

  // A cache of its own of `capacity_bytes` (one shard: exact LRU order).
  explicit PageCache(size_t capacity_bytes);
  PageCache(const PageCache&) = delete;
  PageCache& operator=(const PageCache&) = delete;

  // Pages in the process's shared LruCache::Default(), charged against the one budget of every
  // cached page, index and dictionary.
  static PageCache* Default();
  static uint64_t NewSegmentId() { return LruCache::NewOwnerId(); }

  // The cached page, or the result of `loader` (run by at most one caller per key at a time).
  // `*loaded` (optional) is set to whether this call ran the loader.
  Result<PagePtr> GetOrLoad(uint64_t segment_id, uint32_t page, const Loader& loader, bool* loaded = nullptr);
  // The cached page or nullptr; never loads, never waits.
  PagePtr Lookup(uint64_t segment_id, uint32_t page);

  size_t capacity_bytes() const { return cache_->capacity_bytes(); }
  size_t size_bytes() const { return cache_->size_bytes(); }
  size_t num_pages() const { return cache_->num_entries(); }

 private:
  explicit PageCache(LruCache* shared) : cache_(shared) {}
  std::unique_ptr<LruCache> own_;
  LruCache* cache_;
};

}  // namespace lakeindex::index::btree
