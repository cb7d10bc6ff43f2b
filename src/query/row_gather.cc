#include "query/row_gather.h"

#include "common/thread_pool.h"
#include "query/value_take.h"

#include <algorithm>
#include <string>

namespace lakeindex::query {

uint64_t RangeRows(const Ranges& r) {
  uint64_t n = 0;
  for (const auto& [b, e] : r) n += e - b;
  return n;
}

Ranges Intersect(const Ranges& a, const Ranges& b) {
  Ranges out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    uint64_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (lo < hi) out.emplace_back(lo, hi);
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return out;
}

Ranges RangesOf(const uint32_t* offsets, size_t n) {
  Ranges out;
  for (size_t i = 0; i < n; ++i) {
    if (!out.empty() && out.back().second == offsets[i]) {
      ++out.back().second;
    } else {
      out.emplace_back(offsets[i], uint64_t(offsets[i]) + 1);
    }
  }
  return out;
}

namespace {

// Index of the first page at or after `from` whose end is past `row`.
size_t PageAt(const parquet::PageIndex& index, uint64_t row, size_t from) {
  if (index.uniform_rows > 0 && index.row_ends.size() == index.pages.size()) {
    const size_t p = size_t(row / uint64_t(index.uniform_rows));
    if (p >= index.pages.size() || row >= uint64_t(index.row_ends[p])) return index.pages.size();  // past the end
    return std::max(from, p);
  }
  const auto& ends = index.row_ends;
  if (ends.size() == index.pages.size()) {
    return size_t(std::upper_bound(ends.begin() + std::ptrdiff_t(from), ends.end(), int64_t(row)) - ends.begin());
  }
  const auto& pages = index.pages;
  return size_t(std::upper_bound(pages.begin() + std::ptrdiff_t(from), pages.end(), row,
                                 [](uint64_t r, const parquet::PageIndexEntry& pg) {
                                   return r < uint64_t(pg.first_row_index + pg.num_rows);
                                 }) - pages.begin());
}

// Calls visit(page, from, to) for the rows [from, to) of each page that `ranges` cover, in order.
template <typename Visit>
Status WalkPages(const parquet::PageIndex& index, const Ranges& ranges, const std::string& file, Visit&& visit) {
  const auto& pages = index.pages;
  size_t p = 0;
  for (const auto& [b, e] : ranges) {
    p = PageAt(index, b, p);
    uint64_t at = b;
    while (at < e) {
      if (p >= pages.size()) return Status::Corruption(file + ": page index does not cover row " + std::to_string(at));
      const uint64_t pe = uint64_t(pages[p].first_row_index + pages[p].num_rows);
      const uint64_t to = std::min(e, pe);
      visit(p, at, to);
      at = to;
      if (at == pe) ++p;
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<int>> PagesOf(const parquet::PageIndex& index, const Ranges& ranges, const std::string& file) {
  std::vector<int> out;
  RETURN_IF_ERROR(WalkPages(index, ranges, file, [&](size_t p, uint64_t, uint64_t) {
    if (out.empty() || out.back() != int(p)) out.push_back(int(p));
  }));
  return out;
}

uint64_t PageBytes(const parquet::PageIndex& index, const std::vector<int>& pages) {
  uint64_t n = 0;
  for (int p : pages) n += uint64_t(index.pages[size_t(p)].compressed_size);
  return n;
}

uint64_t ChunkBytes(const parquet::PageIndex& index) {
  if (index.row_ends.size() == index.pages.size() && !index.pages.empty()) return index.total_bytes;
  uint64_t n = 0;
  for (const auto& p : index.pages) n += uint64_t(p.compressed_size);
  return n;
}

void PrefetchColumns(const parquet::ParquetReader& reader, int rg, const std::vector<int>& columns, const Ranges& ranges) {
  std::vector<parquet::ParquetReader::ChunkWant> wanted;
  for (int column : columns) {
    auto chunk = reader.SharedChunk(rg, column);
    if (!chunk.ok()) continue;
    auto pages = PagesOf(*(*chunk)->locations, ranges, reader.path());
    if (pages.ok()) wanted.push_back({rg, column, std::move(*pages)});
  }
  (void)reader.LoadPages(wanted, reader.read_hint());
}

Status GatherRows(const parquet::ParquetReader& reader, int rg, int column, const Ranges& ranges, Column* out,
                  GatherCounters* counters) {
  ASSIGN_OR_RETURN(std::shared_ptr<const parquet::ParquetReader::ChunkPages> chunk, reader.SharedChunk(rg, column));
  const parquet::PageIndex* index = chunk->locations.get();
  ASSIGN_OR_RETURN(std::vector<int> pages, PagesOf(*index, ranges, reader.path()));
  RETURN_IF_ERROR(reader.LocatePages(*chunk, rg, column, pages));  // a page map's chunk: where they lie
  out->Reserve(out->length() + size_t(RangeRows(ranges)));
  counters->pages_total += index->pages.size();
  counters->pages_read += pages.size();
  ASSIGN_OR_RETURN(ValueTake values, TakeValues(reader, *chunk, rg, column, ranges, &pages));  // value_take.h
  counters->pages_by_value += values.pages.size();
  ASSIGN_OR_RETURN(parquet::ParquetReader::PageSpan decoded,
                   reader.ReadPagesShared(chunk, rg, column, pages, reader.read_hint(), &counters->pages_loaded));
  // Calls visit(page, first row, rows) for each run of `ranges` within one decoded page, in order.
  auto walk = [&](auto&& visit) {
    size_t k = 0;
    return WalkPages(*index, ranges, reader.path(), [&](size_t p, uint64_t from, uint64_t to) {
      size_t at = 0;
      if (const Column* page = values.Next(int(p), size_t(to - from), &at)) return visit(page, at, size_t(to - from));
      while (pages[k] != int(p)) ++k;  // pages ascend with the rows
      visit(decoded.pages[k], size_t(from - uint64_t(index->pages[p].first_row_index)), size_t(to - from));
    });
  };
  if (decoded.pages.size() + values.pages.size() <= 1) {  // a lookup's one page: nothing to overlap
    return walk([&](const Column* page, size_t from, size_t n) { out->AppendSlice(*page, from, n); });
  }
  // Page visits are bound by memory latency (the page's Column, then its values: dependent cache
  // misses, and a scattered take visits thousands of cached pages). The visits are listed first,
  // then made with the Column of the visit kFar ahead and the values of the visit kNear ahead
  // requested from memory, so that the misses of different pages overlap.
  struct Visit {
    const Column* page;
    size_t from, count;
  };
  std::vector<Visit> visits;
  visits.reserve(decoded.pages.size() + values.pages.size());
  RETURN_IF_ERROR(walk([&](const Column* page, size_t from, size_t n) { visits.push_back({page, from, n}); }));
  constexpr size_t kFar = 16, kNear = 8;
  for (size_t i = 0; i < std::min(kFar, visits.size()); ++i) __builtin_prefetch(visits[i].page);
  for (size_t i = 0; i < visits.size(); ++i) {
    if (i + kFar < visits.size()) __builtin_prefetch(visits[i + kFar].page);
    if (i + kNear < visits.size()) visits[i + kNear].page->Prefetch(visits[i + kNear].from);
    out->AppendSlice(*visits[i].page, visits[i].from, visits[i].count);
  }
  return Status::OK();
}

}  // namespace lakeindex::query
