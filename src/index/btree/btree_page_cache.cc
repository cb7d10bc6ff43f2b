#include "index/btree/btree_page_cache.h"

namespace lakeindex::index::btree {

PageCache::PageCache(size_t capacity_bytes)
    : own_(std::make_unique<LruCache>(capacity_bytes)), cache_(own_.get()) {}

PageCache* PageCache::Default() {
  static PageCache* cache = new PageCache(LruCache::Default());  // leaked: outlives static teardown
  return cache;
}

PageCache::PagePtr PageCache::Lookup(uint64_t segment_id, uint32_t page) {
  return cache_->LookupAs<LeafPage>({segment_id, page});
}

Result<PageCache::PagePtr> PageCache::GetOrLoad(uint64_t segment_id, uint32_t page, const Loader& loader,
                                                bool* loaded) {
  return cache_->GetOrLoadAs<LeafPage>({segment_id, page}, [&]() -> Result<std::pair<PagePtr, size_t>> {
    ASSIGN_OR_RETURN(PagePtr p, loader());
    if (p == nullptr) return Status::Internal("page loader returned no page");
    const size_t bytes = p->MemoryBytes();
    return std::make_pair(std::move(p), bytes);
  }, loaded);
}

}  // namespace lakeindex::index::btree
