#include "index/btree/btree_page_cache.h"

#include <atomic>

namespace lakeindex::index::btree {

PageCache* PageCache::Default() {
  static PageCache* cache = new PageCache(size_t(256) << 20);  // leaked: outlives static teardown
  return cache;
}

uint64_t PageCache::NewSegmentId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1);
}

PageCache::PagePtr PageCache::Lookup(uint64_t segment_id, uint32_t page) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find({segment_id, page});
  if (it == entries_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  return it->second.page;
}

Result<PageCache::PagePtr> PageCache::GetOrLoad(uint64_t segment_id, uint32_t page, const Loader& loader,
                                                bool* loaded) {
  if (loaded != nullptr) *loaded = false;
  const Key key{segment_id, page};
  std::shared_ptr<Flight> flight;
  {
    std::unique_lock<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second.lru);
      return it->second.page;
    }
    auto f = flights_.find(key);
    if (f != flights_.end()) {
      std::shared_ptr<Flight> waiting = f->second;
      flight_done_.wait(lock, [&] { return waiting->done; });
      return waiting->result;
    }
    flight = std::make_shared<Flight>();
    flights_[key] = flight;
  }
  Result<PagePtr> result = loader();
  if (result.ok() && *result == nullptr) result = Status::Internal("page loader returned no page");
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (result.ok()) InsertLocked(key, *result);
    flight->result = result;
    flight->done = true;
    flights_.erase(key);
  }
  flight_done_.notify_all();
  if (loaded != nullptr) *loaded = true;
  return result;
}

void PageCache::InsertLocked(const Key& key, PagePtr page) {
  const size_t bytes = page->MemoryBytes();
  if (bytes > capacity_) return;
  lru_.push_front(key);
  entries_[key] = Entry{std::move(page), bytes, lru_.begin()};
  bytes_ += bytes;
  while (bytes_ > capacity_ && !lru_.empty()) {
    auto victim = entries_.find(lru_.back());
    bytes_ -= victim->second.bytes;
    entries_.erase(victim);
    lru_.pop_back();
  }
}

size_t PageCache::size_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

size_t PageCache::num_pages() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

}  // namespace lakeindex::index::btree
