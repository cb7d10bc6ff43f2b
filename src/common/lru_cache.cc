#include "common/lru_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace lakeindex {

namespace {

// Shards of the default cache. One: its largest entries are whole chunks' tables of decoded
// pages (megabytes), and split shards, each with a fixed share of the budget, evicted them while
// the whole cache still had room (a hot 1% range of 10M rows thrashed at 16 shards). A lookup
// takes the lock a few dozen times (once per column chunk and index page it touches), so one lock
// is not the bottleneck at the thread counts of this machine.
constexpr size_t kDefaultShards = 1;

size_t DefaultCapacity() {
  size_t bytes = kDefaultCacheBytes;
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) bytes = std::min(bytes, size_t(pages) * size_t(page_size) / 4);
  const char* mb = std::getenv("LAKEINDEX_CACHE_MB");
  if (mb == nullptr || *mb == '\0') return bytes;
  char* end = nullptr;
  unsigned long long v = std::strtoull(mb, &end, 10);
  if (end == mb || *end != '\0') return bytes;
  return size_t(v) << 20;
}

}  // namespace

LruCache::LruCache(size_t capacity_bytes, size_t shards) : capacity_(capacity_bytes) {
  if (shards == 0) shards = 1;
  for (size_t i = 0; i < shards; ++i) shards_.push_back(std::make_unique<Shard>());
  for (auto& s : shards_) s->capacity = capacity_bytes / shards;
}

LruCache* LruCache::Default() {
  static LruCache* cache = new LruCache(DefaultCapacity(), kDefaultShards);  // leaked: outlives static teardown
  return cache;
}

uint64_t LruCache::NewOwnerId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1);
}

LruCache::Value LruCache::Lookup(const Key& key) {
  Shard& s = ShardOf(key);
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.entries.find(key);
  if (it == s.entries.end()) return nullptr;
  it->second.referenced = true;
  ++s.hits;
  return it->second.value;
}

bool LruCache::Contains(const Key& key) {
  Shard& s = ShardOf(key);
  std::lock_guard<std::mutex> lock(s.mu);
  return s.entries.count(key) > 0;
}

void LruCache::AddCharge(const Key& key, size_t delta) {
  Shard& s = ShardOf(key);
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.entries.find(key);
  if (it == s.entries.end()) return;
  it->second.charge += delta;
  s.bytes += delta;
  if (it->second.charge > s.capacity) {  // grew past its shard: dropped (its holders keep it)
    s.bytes -= it->second.charge;
    s.lru.erase(it->second.lru);
    s.entries.erase(it);
    return;
  }
  EvictLocked(s);
}

Result<LruCache::Value> LruCache::GetOrLoad(const Key& key, const Loader& loader, bool* loaded) {
  if (loaded != nullptr) *loaded = false;
  Shard& s = ShardOf(key);
  std::shared_ptr<Flight> flight;
  {
    std::unique_lock<std::mutex> lock(s.mu);
    auto it = s.entries.find(key);
    if (it != s.entries.end()) {
      it->second.referenced = true;
      ++s.hits;
      return it->second.value;
    }
    auto f = s.flights.find(key);
    if (f != s.flights.end()) {
      std::shared_ptr<Flight> waiting = f->second;
      s.flight_done.wait(lock, [&] { return waiting->done; });
      return waiting->result;
    }
    flight = std::make_shared<Flight>();
    s.flights[key] = flight;
    ++s.misses;
  }
  Result<Loaded> got = loader();
  Result<Value> result = got.ok() ? Result<Value>(got->value) : Result<Value>(got.status());
  if (result.ok() && *result == nullptr) result = Status::Internal("cache loader returned no value");
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (result.ok()) InsertLocked(s, key, *result, got->charge);
    flight->result = result;
    flight->done = true;
    s.flights.erase(key);
  }
  s.flight_done.notify_all();
  if (loaded != nullptr) *loaded = true;
  return result;
}

void LruCache::InsertLocked(Shard& s, const Key& key, Value value, size_t charge) {
  if (charge > s.capacity) return;
  auto it = s.entries.find(key);
  if (it != s.entries.end()) {  // replaced (a racing Insert); keep one charge
    s.bytes -= it->second.charge;
    s.lru.erase(it->second.lru);
    s.entries.erase(it);
  }
  s.lru.push_front(key);
  s.entries.emplace(key, Entry{std::move(value), charge, s.lru.begin()});
  s.bytes += charge;
  EvictLocked(s);
}

void LruCache::EvictLocked(Shard& s) {
  while (s.bytes > s.capacity && !s.lru.empty()) {
    auto victim = s.entries.find(s.lru.back());
    if (victim->second.referenced) {  // second chance: used since it was last here
      victim->second.referenced = false;
      s.lru.splice(s.lru.begin(), s.lru, victim->second.lru);
      continue;
    }
    s.bytes -= victim->second.charge;
    s.entries.erase(victim);
    s.lru.pop_back();
  }
}

void LruCache::SetCapacity(size_t capacity_bytes) {
  capacity_.store(capacity_bytes);
  for (auto& s : shards_) {
    std::lock_guard<std::mutex> lock(s->mu);
    s->capacity = capacity_bytes / shards_.size();
    EvictLocked(*s);
  }
}

size_t LruCache::size_bytes() const {
  return Sum([](const Shard& s) { return uint64_t(s.bytes); });
}

uint64_t LruCache::hits() const {
  return Sum([](const Shard& s) { return uint64_t(s.hits); });
}

uint64_t LruCache::misses() const {
  return Sum([](const Shard& s) { return uint64_t(s.misses); });
}

size_t LruCache::num_entries() const {
  return Sum([](const Shard& s) { return uint64_t(s.entries.size()); });
}

}  // namespace lakeindex
