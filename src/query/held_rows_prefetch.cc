#include "query/held_rows_prefetch.h"

#include <algorithm>
#include <memory>
#include <mutex>

namespace lakeindex::query {

void PrefetchHeldRows(const parquet::ParquetReader& reader, int rg, const std::vector<int>& columns, const Ranges& ranges) {
  if (ranges.empty() || RangeRows(ranges) > kPrefetchHeldRowsMax) return;
  struct Held {
    const Column* page;
    size_t row;  // in the page
  };
  std::vector<std::shared_ptr<const parquet::ParquetReader::ChunkPages>> chunks;  // keep the pages alive
  std::vector<Held> held;
  chunks.reserve(columns.size());
  // 1. The pages, under the locks (a cache probe and the chunk's table per column).
  for (int column : columns) {
    auto chunk = reader.SharedChunk(rg, column);
    if (!chunk.ok()) continue;
    const parquet::PageIndex& index = *(*chunk)->locations;
    auto pages = PagesOf(index, ranges, reader.path());
    if (!pages.ok()) continue;
    {
      std::lock_guard<std::mutex> lock((*chunk)->mu);
      for (int p : *pages) {
        const Column* page = (*chunk)->pages[size_t(p)].get();
        if (page == nullptr) continue;
        const uint64_t first = uint64_t(index.pages[size_t(p)].first_row_index);
        size_t r = 0;  // the first range reaching into the page
        while (r + 1 < ranges.size() && ranges[r].second <= first) ++r;
        held.push_back({page, size_t(std::max(ranges[r].first, first) - first)});
      }
    }
    chunks.push_back(std::move(*chunk));
  }
  // 2. Then, with no lock between them, every page's header, and every row's values.
  for (const Held& h : held) __builtin_prefetch(h.page);
  for (const Held& h : held) h.page->Prefetch(h.row);
  for (const Held& h : held) {  // a string's characters, where its offsets (now on their way) say
    if (IsBytes(h.page->type()) && h.row < h.page->length()) __builtin_prefetch(h.page->chars().data() + h.page->offsets()[h.row]);
  }
}

}  // namespace lakeindex::query
