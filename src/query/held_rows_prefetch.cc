#include "query/held_rows_prefetch.h"

#include <algorithm>
#include <memory>
#include <mutex>

namespace lakeindex::query {

void PrefetchHeldRows(const parquet::ParquetReader& reader, int rg, const std::vector<int>& columns, const Ranges& ranges) {
  if (ranges.empty() || RangeRows(ranges) > kPrefetchHeldRowsMax) return;
  // 1. The chunks' tables: a cache probe each, under the cache's lock.
  std::vector<std::shared_ptr<const parquet::ParquetReader::ChunkPages>> chunks;  // keep the pages alive
  chunks.reserve(columns.size());
  for (int column : columns) {
    auto chunk = reader.SharedChunk(rg, column);
    if (chunk.ok()) chunks.push_back(std::move(*chunk));
  }
  // 2. With no lock until step 3: each chunk's page locations, then, where pages are of one row
  // count (found without a search), the rows' entries in them and their slots in the chunk's
  // table of decoded pages (the slots' addresses only: a slot is read under the table's lock).
  for (const auto& chunk : chunks) __builtin_prefetch(chunk->locations.get());
  for (const auto& chunk : chunks) {
    const parquet::PageIndex& index = *chunk->locations;
    if (index.uniform_rows <= 0) continue;
    for (const auto& range : ranges) {
      const size_t p = size_t(range.first / uint64_t(index.uniform_rows));
      if (p >= index.pages.size()) break;
      __builtin_prefetch(index.pages.data() + p);
      if (p < index.row_ends.size()) __builtin_prefetch(index.row_ends.data() + p);
      __builtin_prefetch(chunk->pages.data() + p);
    }
  }
  // 3. The held pages of the rows (each chunk's table under its lock: the misses asked for in
  // step 2 are all in flight by now).
  struct Held {
    const Column* page;
    size_t row;  // the first asked for in the page
  };
  std::vector<Held> held;
  for (const auto& chunk : chunks) {
    const parquet::PageIndex& index = *chunk->locations;
    auto pages = PagesOf(index, ranges, reader.path());
    if (!pages.ok()) continue;  // left for GatherRows to report
    std::lock_guard<std::mutex> lock(chunk->mu);
    size_t r = 0;  // the first range reaching into the page
    for (int p : *pages) {
      const Column* page = chunk->pages[size_t(p)].get();
      if (page == nullptr) continue;
      const uint64_t first = uint64_t(index.pages[size_t(p)].first_row_index);
      while (r + 1 < ranges.size() && ranges[r].second <= first) ++r;
      held.push_back({page, size_t(std::max(ranges[r].first, first) - first)});
    }
  }
  // 4. Then, with no lock between them, every page's header, every row's values and validity,
  // and a string's characters where its offsets (now on their way) say.
  for (const Held& h : held) __builtin_prefetch(h.page);
  for (const Held& h : held) h.page->Prefetch(h.row);
  for (const Held& h : held) {
    if (IsBytes(h.page->type()) && h.row < h.page->length()) __builtin_prefetch(h.page->chars().data() + h.page->offsets()[h.row]);
  }
}

}  // namespace lakeindex::query
