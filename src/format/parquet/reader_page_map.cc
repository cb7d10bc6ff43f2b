// ParquetReader's use of a file's page map (page_map.h): chunks located page by page from its
// blocks, and verify's check of every block against the OffsetIndexes.
#include <algorithm>
#include <string>

#include "format/parquet/reader.h"

namespace lakeindex::parquet {

std::shared_ptr<PageIndex> ParquetReader::MapSkeleton(int rg, int column) const {
  if (!page_map_) return nullptr;
  if (page_map_->Slot(rg, column) < 0) return nullptr;
  const PageMap::RowGroup& g = page_map_->row_groups[size_t(rg)];
  const int64_t rows = row_group_num_rows(rg), per = int64_t(page_map_->page_rows);
  auto index = std::make_shared<PageIndex>();
  index->pages.resize(g.num_pages);
  index->row_ends.resize(g.num_pages);
  for (uint32_t p = 0; p < g.num_pages; ++p) {
    PageIndexEntry& e = index->pages[p];
    e.first_row_index = int64_t(p) * per;
    e.num_rows = std::min(per, rows - e.first_row_index);
    index->row_ends[p] = e.first_row_index + e.num_rows;
  }
  index->uniform_rows = per;
  // Data pages' bytes: the chunk without what precedes its first data page (ChunkRange is
  // checked when a page is read; here a bad footer only misprices a take).
  const ColumnMetaData& m = *meta_.row_groups[size_t(rg)].columns[size_t(column)].meta_data;
  const auto range = ChunkRange(rg, column);
  if (range.ok()) {
    const uint64_t first = uint64_t(std::max<int64_t>(m.data_page_offset, 0));
    const uint64_t head = std::min(range->second, first > range->first ? first - range->first : 0);
    index->total_bytes = range->second - head;
  }
  return index;
}

Result<std::vector<std::shared_ptr<const std::vector<uint32_t>>>> ParquetReader::MapBlocks(
    int rg, const std::vector<uint32_t>& blocks) const {
  std::vector<std::shared_ptr<const std::vector<uint32_t>>> out(blocks.size());
  std::lock_guard<std::mutex> lock(map_mu_);
  std::vector<size_t> missing;
  std::vector<ObjectStore::ByteRange> ranges;
  for (size_t i = 0; i < blocks.size(); ++i) {
    auto it = map_blocks_.find({rg, blocks[i]});
    if (it != map_blocks_.end()) {
      out[i] = it->second;
      continue;
    }
    const PageMap::Block b = page_map_->BlockAt(rg, blocks[i]);
    // Neighbouring blocks are one read (the store splits nothing it is given).
    if (!missing.empty() && blocks[missing.back()] + 1 == blocks[i] && ranges.back().offset + ranges.back().length == b.offset) {
      ranges.back().length += b.length;
    } else {
      ranges.push_back({b.offset, b.length});
    }
    missing.push_back(i);
  }
  if (missing.empty()) return out;
  ASSIGN_OR_RETURN(std::vector<std::string> bytes, store_->ReadRanges(path_, ranges));
  size_t r = 0, at = 0;  // range, and position in it
  for (size_t i : missing) {
    const PageMap::Block b = page_map_->BlockAt(rg, blocks[i]);
    while (r < ranges.size() && at >= ranges[r].length) {
      ++r;
      at = 0;
    }
    if (r >= bytes.size() || bytes[r].size() != ranges[r].length) {
      return Status::Corruption("parquet file '" + path_ + "': short read of the page map at offset " + std::to_string(b.offset));
    }
    map_bytes_read_ += b.length;
    ASSIGN_OR_RETURN(std::vector<uint32_t> rows,
                     DecodePageMapBlock(*page_map_, rg, blocks[i], reinterpret_cast<const uint8_t*>(bytes[r].data()) + at,
                                        size_t(b.length), path_));
    at += b.length;
    out[i] = map_blocks_[{rg, blocks[i]}] = std::make_shared<const std::vector<uint32_t>>(std::move(rows));
  }
  return out;
}

Status ParquetReader::FillFromMap(PageIndex* index, int rg, int column, const std::vector<int>& pages) const {
  const int slot = page_map_->Slot(rg, column);
  const PageMap::RowGroup& g = page_map_->row_groups[size_t(rg)];
  const size_t k = g.columns.size();
  std::vector<uint32_t> blocks;
  for (int p : pages) {
    const uint32_t b = uint32_t(p) / page_map_->block_pages;
    if (blocks.empty() || blocks.back() != b) blocks.push_back(b);
  }
  ASSIGN_OR_RETURN(auto got, MapBlocks(rg, blocks));
  ASSIGN_OR_RETURN(const auto range, ChunkRange(rg, column));
  const ColumnMetaData& m = *meta_.row_groups[size_t(rg)].columns[size_t(column)].meta_data;
  size_t bi = 0;
  for (int p : pages) {
    const uint32_t b = uint32_t(p) / page_map_->block_pages;
    while (blocks[bi] != b) ++bi;
    const std::vector<uint32_t>& rows = *got[bi];
    const size_t i = size_t(uint32_t(p) - b * page_map_->block_pages);
    const uint64_t begin = rows[i * k + size_t(slot)], end = rows[(i + 1) * k + size_t(slot)];
    const bool first_ok = p != 0 || range.first + begin == uint64_t(m.data_page_offset);
    const bool last_ok = uint32_t(p) + 1 != g.num_pages || end == range.second;
    if (begin >= end || end > range.second || !first_ok || !last_ok || end - begin > uint64_t(INT32_MAX)) {
      return Status::Corruption(Where(rg, column) + ": page map block " + std::to_string(b) + " puts page " +
                                std::to_string(p) + " at [" + std::to_string(begin) + ", " + std::to_string(end) +
                                ") of a chunk of " + std::to_string(range.second) + " bytes");
    }
    PageIndexEntry& e = index->pages[size_t(p)];
    e.offset = int64_t(range.first + begin);
    e.compressed_size = int32_t(end - begin);
  }
  return Status::OK();
}

Status ParquetReader::LocatePages(const ChunkPages& chunk, int rg, int column, const std::vector<int>& pages) const {
  if (chunk.unlocated == nullptr) return Status::OK();
  std::lock_guard<std::mutex> lock(chunk.mu);
  std::vector<int> missing;
  for (int p : pages) {
    if (p < 0 || size_t(p) >= chunk.located.size()) {
      return Status::InvalidArgument(Where(rg, column) + ": no page " + std::to_string(p));
    }
    if (!chunk.located[size_t(p)]) missing.push_back(p);
  }
  if (missing.empty()) return Status::OK();
  bool indexed;  // the OffsetIndexes are held (a scan pruned by page statistics read them): no block to read
  {
    std::lock_guard<std::mutex> region(offset_indexes_.mu);
    indexed = offset_indexes_.bytes != nullptr;
  }
  if (indexed) {
    ASSIGN_OR_RETURN(std::shared_ptr<const PageIndex> full, CachedPageIndex(rg, column, false));
    if (full->pages.size() != chunk.located.size()) {
      return Status::Corruption(Where(rg, column) + ": the offset index has " + std::to_string(full->pages.size()) +
                                " pages, the page map " + std::to_string(chunk.located.size()));
    }
    for (int p : missing) {
      const PageIndexEntry& e = full->pages[size_t(p)];
      PageIndexEntry& out = chunk.unlocated->pages[size_t(p)];
      if (e.first_row_index != out.first_row_index || e.num_rows != out.num_rows) {
        return Status::Corruption(Where(rg, column) + ": the offset index disagrees with the page map on page " +
                                  std::to_string(p) + "'s rows");
      }
      out.offset = e.offset;
      out.compressed_size = e.compressed_size;
      chunk.located[size_t(p)] = true;
    }
    return Status::OK();
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  RETURN_IF_ERROR(FillFromMap(chunk.unlocated, rg, column, missing));
  for (int p : missing) chunk.located[size_t(p)] = true;
  return Status::OK();
}

Status ParquetReader::CheckPageMap() const {
  if (!page_map_) return Status::OK();
  for (int rg = 0; rg < num_row_groups(); ++rg) {
    const PageMap::RowGroup& g = page_map_->row_groups[size_t(rg)];
    std::vector<int> all(g.num_pages);
    for (uint32_t p = 0; p < g.num_pages; ++p) all[p] = int(p);
    for (uint32_t column : g.columns) {
      ASSIGN_OR_RETURN(std::shared_ptr<const PageIndex> truth, CachedPageIndex(rg, int(column), false));
      std::shared_ptr<PageIndex> mapped = MapSkeleton(rg, int(column));
      RETURN_IF_ERROR(FillFromMap(mapped.get(), rg, int(column), all));
      if (truth->pages.size() != mapped->pages.size()) {
        return Status::Corruption(Where(rg, int(column)) + ": the page map has " + std::to_string(mapped->pages.size()) +
                                  " pages, the offset index " + std::to_string(truth->pages.size()));
      }
      for (size_t p = 0; p < mapped->pages.size(); ++p) {
        const PageIndexEntry &a = truth->pages[p], &b = mapped->pages[p];
        if (a.offset != b.offset || a.compressed_size != b.compressed_size || a.first_row_index != b.first_row_index ||
            a.num_rows != b.num_rows) {
          return Status::Corruption(Where(rg, int(column)) + ": the page map disagrees with the offset index on page " +
                                    std::to_string(p));
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace lakeindex::parquet
