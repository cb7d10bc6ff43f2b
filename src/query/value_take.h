// Point reads that cost the values they return: the rows a take wants from an uncached data page
// stored PLAIN, uncompressed and fixed width (the writer's skip_incompressible stores random
// doubles and timestamps so) are read value by value (ParquetReader::ReadValues: the page's
// header, its levels in an OPTIONAL column, and the values) instead of the page being read and
// decoded whole. Used by GatherRows (row_gather.h).
//
// When: the page holds at most kMaxValueRowsPerPage of the wanted rows, its decoded form is not
// in the cache (then it costs nothing more) and no take of it has been read value by value
// before (a page asked for twice is decoded and kept, so that a hot key costs no reads), what
// the values' reads take is at most a quarter of
// the page, and the take touches at most kMaxValuePages pages of the chunk (a wide take reads
// pages whole, in fewer requests, and keeps them in the cache for the next).
// Thread safety: functions; the reader may be shared.
#pragma once

#include <cstddef>
#include <vector>

#include "format/parquet/reader.h"
#include "lakeindex/batch.h"
#include "query/row_gather.h"

namespace lakeindex::query {

inline constexpr size_t kMaxValueRowsPerPage = 16;
inline constexpr size_t kMaxValuePages = 256;

// The pages a take read value by value, with their wanted rows.
struct ValueTake {
  std::vector<int> pages;        // ascending
  std::vector<Column> columns;   // columns[i]: the wanted rows of pages[i], in order

  // The column of page p and, in *from, the position of its next `n` rows (the rows are handed
  // out in order); nullptr when p was not read value by value. Pages must be asked in ascending
  // order.
  const Column* Next(int p, size_t n, size_t* from);

 private:
  size_t at_ = 0;                // position in pages of the last page asked for
  std::vector<size_t> used_;     // rows of columns[i] handed out
};

// Reads those of `*pages` (the pages of chunk (rg, column) holding rows of `ranges`, ascending)
// that qualify value by value, and removes them from *pages. `chunk` is the reader's
// SharedChunk(rg, column).
Result<ValueTake> TakeValues(const parquet::ParquetReader& reader, const parquet::ParquetReader::ChunkPages& chunk,
                             int rg, int column, const Ranges& ranges, std::vector<int>* pages);

}  // namespace lakeindex::query
