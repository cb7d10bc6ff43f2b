// Row gathering: reads chosen rows of one column chunk page by page, so that the cost of a
// lookup follows the rows it returns, not the size of the file.
//
// Rows are given as sorted, disjoint ranges of offsets inside the row group. Every data page
// holding some of them is fetched and decoded once (through the reader's LruCache, so a hot
// page is not decoded again by the next query), pages are fetched in the runs the store's
// read_hint() asks for (ObjectStore::ReadHint: no holes locally, 1 MiB ones on S3), and the rows
// are appended in order. A few rows of a page that stores fixed-width values PLAIN and
// uncompressed are read value by value instead (value_take.h).
// Thread safety: functions; the reader may be shared.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "format/parquet/reader.h"
#include "lakeindex/batch.h"

namespace lakeindex::query {

using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;  // sorted, disjoint [begin, end)

uint64_t RangeRows(const Ranges& r);
Ranges Intersect(const Ranges& a, const Ranges& b);
// Sorted offsets (ascending, no repeats) as ranges of consecutive offsets.
Ranges RangesOf(const uint32_t* offsets, size_t n);

struct GatherCounters {
  uint64_t pages_total = 0;  // data pages of the chunks gathered from
  uint64_t pages_read = 0;   // pages that held requested rows
  uint64_t pages_loaded = 0; // of those, read from the store (not in the cache)
  uint64_t pages_by_value = 0;  // of those, read value by value (value_take.h), not loaded
};

// Which pages of `index` hold rows of `ranges`: page numbers ascending. Corruption naming `file`
// when the index does not cover a row.
Result<std::vector<int>> PagesOf(const parquet::PageIndex& index, const Ranges& ranges, const std::string& file);
// Compressed bytes of `pages` of `index`.
uint64_t PageBytes(const parquet::PageIndex& index, const std::vector<int>& pages);
// Compressed bytes of every page of `index`.
uint64_t ChunkBytes(const parquet::PageIndex& index);

// On a remote store: loads the pages of `ranges` of several chunks of row group rg, with their
// dictionaries, into the cache at once (ParquetReader::LoadPages: one batch of requests), so that
// gathering them column by column afterwards costs one round trip instead of one per column.
// Best effort: an error is left for GatherRows to report; chunks the cache cannot hold are skipped.
void PrefetchColumns(const parquet::ParquetReader& reader, int rg, const std::vector<int>& columns, const Ranges& ranges);

// Appends the rows of `ranges` of chunk (rg, column) to *out.
Status GatherRows(const parquet::ParquetReader& reader, int rg, int column, const Ranges& ranges, Column* out,
                  GatherCounters* counters);

}  // namespace lakeindex::query
