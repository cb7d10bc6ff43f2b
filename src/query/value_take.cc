#include "query/value_take.h"

#include <algorithm>
#include <mutex>

#include "format/parquet/value_reader.h"

namespace lakeindex::query {

const Column* ValueTake::Next(int p, size_t n, size_t* from) {
  if (used_.size() != pages.size()) used_.assign(pages.size(), 0);
  while (at_ < pages.size() && pages[at_] < p) ++at_;
  if (at_ == pages.size() || pages[at_] != p) return nullptr;
  *from = used_[at_];
  used_[at_] += n;
  return &columns[at_];
}

Result<ValueTake> TakeValues(const parquet::ParquetReader& reader, const parquet::ParquetReader::ChunkPages& chunk,
                             int rg, int column, const Ranges& ranges, std::vector<int>* pages) {
  ValueTake take;
  if (pages->empty() || pages->size() > kMaxValuePages) return take;
  const size_t width = reader.ValueWidth(rg, column);
  if (width == 0) return take;
  const bool nullable = reader.schema().field(size_t(column)).nullable;
  const parquet::PageIndex& index = *chunk.locations;
  std::vector<parquet::ParquetReader::ValueWant> wants;
  {
    std::unique_lock<std::mutex> lock(chunk.mu, std::defer_lock);
    if (chunk.cached) lock.lock();
    size_t r = 0;  // first range that may reach the page
    for (int p : *pages) {
      if (chunk.cached && chunk.pages[size_t(p)]) continue;  // decoded already: free
      // Read value by value before: a page asked for again is worth decoding once and keeping.
      if (chunk.cached && !chunk.read_by_value.empty() && chunk.read_by_value[size_t(p)]) continue;
      const parquet::PageIndexEntry& e = index.pages[size_t(p)];
      const uint64_t begin = uint64_t(e.first_row_index), end = begin + uint64_t(e.num_rows);
      while (r < ranges.size() && ranges[r].second <= begin) ++r;
      parquet::ParquetReader::ValueWant want{p, {}};
      bool few = true;
      for (size_t q = r; few && q < ranges.size() && ranges[q].first < end; ++q) {
        const uint64_t lo = std::max(begin, ranges[q].first), hi = std::min(end, ranges[q].second);
        few = want.rows.size() + (hi - lo) <= kMaxValueRowsPerPage;
        for (uint64_t row = lo; few && row < hi; ++row) want.rows.push_back(uint32_t(row - begin));
      }
      const uint64_t prefix = parquet::ValuePagePrefix(nullable, width, e);
      if (!few || want.rows.empty() || prefix == 0) continue;
      if (4 * (prefix + want.rows.size() * width) > uint64_t(e.compressed_size)) continue;
      wants.push_back(std::move(want));
    }
  }
  if (wants.empty()) return take;
  std::vector<std::optional<Column>> got;
  RETURN_IF_ERROR(reader.ReadValues(rg, column, index, wants, &got));
  std::vector<int> rest;
  size_t k = 0;
  for (int p : *pages) {
    while (k < wants.size() && wants[k].page < p) ++k;
    if (k < wants.size() && wants[k].page == p && got[k]) {
      take.pages.push_back(p);
      take.columns.push_back(std::move(*got[k]));
    } else {
      rest.push_back(p);
    }
  }
  *pages = std::move(rest);
  if (chunk.cached && !take.pages.empty()) {
    std::lock_guard<std::mutex> lock(chunk.mu);
    if (chunk.read_by_value.empty()) chunk.read_by_value.resize(index.pages.size());
    for (int p : take.pages) chunk.read_by_value[size_t(p)] = true;
  }
  return take;
}

}  // namespace lakeindex::query
