// The page map: a fixed-width directory of a data file's pages that a lookup reads in part.
//
// A lookup of row r of a column chunk needs the one page holding r: its offset and size. The
// OffsetIndex says it, but only as a thrift list of variable-width entries that must be read and
// parsed whole (for a 1M-row table file, about 119 KB for its nine columns), which was most of
// what a cold point lookup read. The page map holds the same locations as plain little-endian
// u32s, page-major, in blocks of kPageMapBlockPages pages with a CRC each, so that a lookup reads
// the one block of its page (about 600 bytes) for every column at once.
//
// Where: an unreferenced region after the OffsetIndexes and before the footer, which Parquet
// readers never visit (they follow the footer's offsets). Only the manifest says where it is
// (table/data_tail.h); a file opened without it is read through its OffsetIndexes as any file.
//
// Format (little-endian), written by ParquetWriter when WriteOptions::page_map is set:
//   blocks, row group by row group, then the header, which ends where the footer begins.
//   header:  "LKPM" | u32 version (1) | u32 page_rows | u32 block_pages | u32 row groups |
//            per row group: u64 file offset of its first block | u32 K | K x u32 column
//   A row group's mapped columns are the K chunks whose data pages each hold page_rows rows
//   (the last one the rest): P = ceil(rows / page_rows) pages; the others are read through their
//   OffsetIndex. Block b of a row group covers pages [b B, min(b B + B, P)) for B = block_pages:
//   n + 1 rows of K u32s (row i: for each mapped column, page b B + i's offset from the chunk's
//   first byte; row n: the next page's offsets, or the chunk lengths after the last page), then
//   a u32 CRC-32 (crc32.h) of those rows. Every block but a row group's last has B + 1 rows, so
//   block b starts at the row group's offset + b (4 K (B + 1) + 4).
// Thread safety: functions of values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/parquet/metadata.h"
#include "lakeindex/status.h"

namespace lakeindex::parquet {

inline constexpr uint32_t kPageMapBlockPages = 16;
inline constexpr uint32_t kPageMapVersion = 1;

struct PageMap {
  uint32_t page_rows = 0;
  uint32_t block_pages = 0;
  struct RowGroup {
    uint64_t blocks_offset = 0;     // file offset of block 0
    std::vector<uint32_t> columns;  // mapped columns, ascending
    uint32_t num_pages = 0;         // P (derived from the row group's rows)
    uint32_t num_blocks() const;
  };
  std::vector<RowGroup> row_groups;

  // Position of `column` among row group rg's mapped columns, or -1.
  int Slot(int rg, int column) const;
  // [offset, offset + length) of block b of row group rg, and the number of pages it covers.
  struct Block {
    uint64_t offset, length;
    uint32_t first_page, pages;
  };
  Block BlockAt(int rg, uint32_t b) const;
};

// The page map of a file the writer has laid out: `meta` with its final chunk offsets,
// `offset_indexes[rg][c]` each chunk's OffsetIndex (nullptr when it has none), the region to
// start at file offset `at`. Appends the blocks and then the header to *out and returns the
// header's offset within what was appended. Chunks that are not uniform (see above) or are
// 4 GiB or more are left out; an empty map is still written (zero columns).
uint64_t AppendPageMap(const FileMetaData& meta, const std::vector<std::vector<const OffsetIndex*>>& offset_indexes,
                       uint32_t page_rows, uint64_t at, std::string* out);

// Parses the header [header_offset, header_offset + size) of a file whose footer is `meta` and
// whose blocks lie in [blocks_offset, header_offset): Corruption naming `path` when it is
// malformed, names a column or row group the footer lacks, or puts a block outside that range.
Result<PageMap> ParsePageMapHeader(const uint8_t* data, size_t size, const FileMetaData& meta, uint64_t blocks_offset,
                                   uint64_t header_offset, const std::string& path);

// Checks block b of row group rg (`data`, `map.BlockAt(rg, b).length` bytes) against its CRC and
// returns its (pages + 1) x K offsets, row-major. Corruption naming `path`, the row group and the
// block otherwise.
Result<std::vector<uint32_t>> DecodePageMapBlock(const PageMap& map, int rg, uint32_t b, const uint8_t* data,
                                                 size_t size, const std::string& path);

}  // namespace lakeindex::parquet
