// LruCache: the process's one cache of decoded things — BTree leaf pages, Parquet data pages,
// page indexes and dictionary pages — bounded by the bytes charged to it (LevelDB's Cache idea:
// each entry carries a charge, the least recently used entries go when the total passes the
// capacity; recency is kept by "second chance": a hit only marks its entry, and a marked entry
// at the back of the list is moved to the front instead of evicted, so hits write no list
// nodes — a lookup touching thousands of pages is bound by memory latency), with single-flight loading: when several threads miss on one key at once, one runs
// the loader and the others wait for its result, so a cold item is read from the store once.
//
// Keys are two 64-bit words: `owner` from NewOwnerId() (each opened file or segment takes a
// fresh one, so a re-opened or rewritten object never sees stale entries; entries of closed
// objects simply age out) and `item`, whose meaning the owner chooses. The cache is split into
// shards by key hash, each with its share of the capacity and its own lock, so concurrent
// queries rarely wait on each other; an entry larger than its shard's capacity is returned and
// not kept. Failed loads are not cached (the next lookup retries) but are handed to the threads
// that waited on them.
//
// Default(): shared by every table, index and query of the process; its capacity is
// kDefaultCacheBytes (1 GiB) or a quarter of the machine's memory if that is less, or
// LAKEINDEX_CACHE_MB (mebibytes; 0 turns caching off) read once at first use; SetCapacity
// changes it at run time. Only what queries read is held: a one-shot command fills it with the
// pages it touched and no more.
// Thread safety: every method may be called concurrently. Returned values are immutable and stay
// valid as long as the caller holds the shared_ptr, even after eviction.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lakeindex/status.h"

namespace lakeindex {

inline constexpr size_t kDefaultCacheBytes = size_t(1) << 30;

class LruCache {
 public:
  struct Key {
    uint64_t owner = 0;
    uint64_t item = 0;
    bool operator==(const Key& o) const { return owner == o.owner && item == o.item; }
  };
  using Value = std::shared_ptr<const void>;
  // A loaded value and the bytes it is charged.
  struct Loaded {
    Value value;
    size_t charge = 0;
  };
  using Loader = std::function<Result<Loaded>()>;

  // `shards` >= 1; with one shard eviction is exactly least-recently-used over the whole cache.
  explicit LruCache(size_t capacity_bytes, size_t shards = 1);
  LruCache(const LruCache&) = delete;
  LruCache& operator=(const LruCache&) = delete;

  static LruCache* Default();
  static uint64_t NewOwnerId();

  // The cached value, or the result of `loader` (run by at most one caller per key at a time).
  // `*loaded` (optional) is set to whether this call ran the loader.
  Result<Value> GetOrLoad(const Key& key, const Loader& loader, bool* loaded = nullptr);
  // The cached value or nullptr; never loads, never waits.
  Value Lookup(const Key& key);
  // Whether `key` is held (no recency change, never waits).
  bool Contains(const Key& key);
  // Adds `delta` bytes to the charge of a held entry (a value that grows after it was inserted,
  // such as a chunk's table of decoded pages); evicts as needed. No-op when `key` is not held.
  void AddCharge(const Key& key, size_t delta);
  // Typed forms: T must be the type the value was stored with. `load` returns
  // Result<std::pair<std::shared_ptr<const T>, size_t>> (the value and its charge). A hit costs
  // one probe: no std::function is made unless the value must be loaded.
  template <typename T, typename Load>
  Result<std::shared_ptr<const T>> GetOrLoadAs(const Key& key, Load&& load, bool* loaded = nullptr) {
    if (Value held = Lookup(key)) {
      if (loaded != nullptr) *loaded = false;
      return std::static_pointer_cast<const T>(std::move(held));
    }
    ASSIGN_OR_RETURN(Value v, GetOrLoad(key, [&]() -> Result<Loaded> {
      ASSIGN_OR_RETURN(auto got, load());
      return Loaded{std::move(got.first), got.second};
    }, loaded));
    return std::static_pointer_cast<const T>(std::move(v));
  }
  template <typename T>
  std::shared_ptr<const T> LookupAs(const Key& key) {
    return std::static_pointer_cast<const T>(Lookup(key));
  }

  // New capacity (split evenly over the shards); entries beyond it are evicted now.
  void SetCapacity(size_t capacity_bytes);
  size_t capacity_bytes() const { return capacity_.load(); }
  size_t size_bytes() const;  // bytes charged by the entries held
  size_t num_entries() const;
  // Counters since construction (for explain/stats and tests).
  uint64_t hits() const;
  uint64_t misses() const;

 private:
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = k.owner * 0x9E3779B97F4A7C15ull ^ (k.item + 0x632BE59BD9B4E019ull + (k.owner << 6));
      h ^= h >> 29;
      h *= 0xBF58476D1CE4E5B9ull;
      return size_t(h ^ (h >> 32));
    }
  };
  struct Entry {
    Value value;
    size_t charge = 0;
    std::list<Key>::iterator lru;
    bool referenced = false;  // hit since it last reached the back of the list
  };
  struct Flight {
    bool done = false;
    Result<Value> result = Status::Internal("cache load not finished");
  };
  struct Shard {
    std::mutex mu;
    std::condition_variable flight_done;
    std::unordered_map<Key, Entry, KeyHash> entries;
    std::list<Key> lru;  // front = most recently used
    std::unordered_map<Key, std::shared_ptr<Flight>, KeyHash> flights;
    size_t bytes = 0;
    size_t capacity = 0;
    uint64_t hits = 0, misses = 0;  // per shard: no counter line shared by all threads
  };

  Shard& ShardOf(const Key& key) { return *shards_[KeyHash()(key) % shards_.size()]; }
  static void InsertLocked(Shard& s, const Key& key, Value value, size_t charge);
  static void EvictLocked(Shard& s);
  // f(shard) added over the shards, each read under its lock.
  template <typename F>
  uint64_t Sum(F&& f) const {
    uint64_t n = 0;
    for (const auto& s : shards_) {
      std::lock_guard<std::mutex> lock(s->mu);
      n += f(*s);
    }
    return n;
  }

  std::atomic<size_t> capacity_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace lakeindex
