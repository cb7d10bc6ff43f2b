#include "format/parquet/page_map.h"

#include <cstring>
#include <limits>

#include "format/parquet/crc32.h"

namespace lakeindex::parquet {
namespace {

constexpr char kMapMagic[4] = {'L', 'K', 'P', 'M'};

void PutU32(uint32_t v, std::string* out) {
  char b[4];
  std::memcpy(b, &v, 4);  // little-endian hosts only (as the rest of the format code)
  out->append(b, 4);
}

void PutU64(uint64_t v, std::string* out) {
  char b[8];
  std::memcpy(b, &v, 8);
  out->append(b, 8);
}

uint32_t GetU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

uint64_t GetU64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

uint32_t PagesOf(int64_t rows, uint32_t page_rows) {
  return uint32_t((uint64_t(rows) + page_rows - 1) / page_rows);
}

}  // namespace

uint32_t PageMap::RowGroup::num_blocks() const { return num_pages == 0 ? 0 : (num_pages - 1) / kPageMapBlockPages + 1; }

int PageMap::Slot(int rg, int column) const {
  if (rg < 0 || size_t(rg) >= row_groups.size()) return -1;
  const std::vector<uint32_t>& cols = row_groups[size_t(rg)].columns;
  for (size_t k = 0; k < cols.size(); ++k) {
    if (cols[k] == uint32_t(column)) return int(k);
  }
  return -1;
}

PageMap::Block PageMap::BlockAt(int rg, uint32_t b) const {
  const RowGroup& g = row_groups[size_t(rg)];
  const uint64_t k = g.columns.size();
  Block out;
  out.first_page = b * block_pages;
  out.pages = std::min(block_pages, g.num_pages - out.first_page);
  out.offset = g.blocks_offset + uint64_t(b) * (4 * k * (block_pages + 1) + 4);
  out.length = 4 * k * (out.pages + 1) + 4;
  return out;
}

uint64_t AppendPageMap(const FileMetaData& meta, const std::vector<std::vector<const OffsetIndex*>>& offset_indexes,
                       uint32_t page_rows, uint64_t at, std::string* out) {
  const size_t begin = out->size();
  std::string header(kMapMagic, 4);
  PutU32(kPageMapVersion, &header);
  PutU32(page_rows, &header);
  PutU32(kPageMapBlockPages, &header);
  PutU32(uint32_t(meta.row_groups.size()), &header);
  for (size_t rg = 0; rg < meta.row_groups.size(); ++rg) {
    const RowGroup& g = meta.row_groups[rg];
    const uint32_t pages = page_rows == 0 ? 0 : PagesOf(g.num_rows, page_rows);
    // The uniform chunks: their pages start at k page_rows, and each is below 4 GiB.
    std::vector<uint32_t> columns;
    std::vector<const OffsetIndex*> indexes;
    for (size_t c = 0; pages > 0 && rg < offset_indexes.size() && c < offset_indexes[rg].size() && c < g.columns.size(); ++c) {
      const OffsetIndex* oi = offset_indexes[rg][c];
      const auto& m = g.columns[c].meta_data;
      if (oi == nullptr || !m || oi->page_locations.size() != pages ||
          uint64_t(m->total_compressed_size) > std::numeric_limits<uint32_t>::max()) {
        continue;
      }
      bool uniform = true;
      for (size_t p = 0; uniform && p < pages; ++p) {
        uniform = oi->page_locations[p].first_row_index == int64_t(p) * int64_t(page_rows);
      }
      if (!uniform) continue;
      columns.push_back(uint32_t(c));
      indexes.push_back(oi);
    }
    PutU64(at + (out->size() - begin), &header);
    PutU32(uint32_t(columns.size()), &header);
    for (uint32_t c : columns) PutU32(c, &header);
    if (columns.empty()) continue;
    for (uint32_t first = 0; first < pages; first += kPageMapBlockPages) {
      const uint32_t n = std::min(kPageMapBlockPages, pages - first);
      const size_t block = out->size();
      for (uint32_t p = first; p <= first + n; ++p) {
        for (size_t k = 0; k < columns.size(); ++k) {
          const ColumnMetaData& m = *g.columns[columns[k]].meta_data;
          const uint64_t rel = p < pages ? uint64_t(indexes[k]->page_locations[p].offset - m.chunk_start())
                                         : uint64_t(m.total_compressed_size);
          PutU32(uint32_t(rel), out);
        }
      }
      PutU32(Crc32(reinterpret_cast<const uint8_t*>(out->data() + block), out->size() - block), out);
    }
  }
  const uint64_t header_at = out->size() - begin;
  out->append(header);
  return header_at;
}

Result<PageMap> ParsePageMapHeader(const uint8_t* data, size_t size, const FileMetaData& meta, uint64_t blocks_offset,
                                   uint64_t header_offset, const std::string& path) {
  auto bad = [&](const std::string& what) {
    return Status::Corruption("parquet file '" + path + "': page map header at offset " + std::to_string(header_offset) +
                              ": " + what);
  };
  size_t pos = 0;
  auto need = [&](size_t n) { return size - pos >= n; };
  if (!need(20) || std::memcmp(data, kMapMagic, 4) != 0) return bad("bad magic");
  if (GetU32(data + 4) != kPageMapVersion) return bad("version " + std::to_string(GetU32(data + 4)) + " is not 1");
  PageMap map;
  map.page_rows = GetU32(data + 8);
  map.block_pages = GetU32(data + 12);
  const uint32_t groups = GetU32(data + 16);
  pos = 20;
  if (map.page_rows == 0) return bad("page_rows is 0");
  if (map.block_pages != kPageMapBlockPages) return bad("block of " + std::to_string(map.block_pages) + " pages");
  if (groups != meta.row_groups.size()) {
    return bad(std::to_string(groups) + " row groups, the footer " + std::to_string(meta.row_groups.size()));
  }
  uint64_t next = blocks_offset;  // row groups' blocks are back to back
  for (uint32_t rg = 0; rg < groups; ++rg) {
    if (!need(12)) return bad("truncated");
    PageMap::RowGroup g;
    g.blocks_offset = GetU64(data + pos);
    const uint32_t k = GetU32(data + pos + 8);
    pos += 12;
    const size_t columns = meta.row_groups[rg].columns.size();
    if (k > columns || !need(size_t(k) * 4)) return bad("row group " + std::to_string(rg) + ": " + std::to_string(k) + " columns");
    for (uint32_t i = 0; i < k; ++i, pos += 4) {
      const uint32_t c = GetU32(data + pos);
      if (c >= columns || (!g.columns.empty() && c <= g.columns.back())) {
        return bad("row group " + std::to_string(rg) + ": column " + std::to_string(c));
      }
      g.columns.push_back(c);
    }
    const int64_t rows = meta.row_groups[rg].num_rows;
    if (rows < 0) return bad("row group " + std::to_string(rg) + " has negative rows");
    g.num_pages = k == 0 ? 0 : PagesOf(rows, map.page_rows);
    if (g.blocks_offset != next) return bad("row group " + std::to_string(rg) + "'s blocks are not where the last ended");
    map.row_groups.push_back(std::move(g));
    const uint32_t blocks = map.row_groups.back().num_blocks();
    if (blocks > 0) {
      const PageMap::Block last = map.BlockAt(int(rg), blocks - 1);
      next = last.offset + last.length;
      if (next > header_offset) return bad("row group " + std::to_string(rg) + "'s blocks run past the header");
    }
  }
  if (next != header_offset) return bad("the blocks end at " + std::to_string(next));
  if (pos != size) return bad(std::to_string(size - pos) + " bytes after it");
  return map;
}

Result<std::vector<uint32_t>> DecodePageMapBlock(const PageMap& map, int rg, uint32_t b, const uint8_t* data,
                                                 size_t size, const std::string& path) {
  const PageMap::Block block = map.BlockAt(rg, b);
  auto where = [&] {
    return "parquet file '" + path + "': page map row group " + std::to_string(rg) + " block " + std::to_string(b) +
           " [" + std::to_string(block.offset) + ", +" + std::to_string(block.length) + ")";
  };
  if (size != block.length) return Status::Corruption(where() + ": short read");
  if (Crc32(data, size - 4) != GetU32(data + size - 4)) return Status::Corruption(where() + ": CRC mismatch");
  std::vector<uint32_t> out((size - 4) / 4);
  std::memcpy(out.data(), data, out.size() * 4);
  return out;
}

}  // namespace lakeindex::parquet
