// Memory-level parallelism for warm lookups: before a take gathers a few rows column by column,
// the decoded pages the cache already holds for those rows are found for every column, and their
// values requested from memory all at once. A warm point lookup is bound by memory latency —
// each column's page header, then its values, validity and string offsets are dependent cache
// misses — and gathering column after column serializes them (each column's cache probes take
// a lock, a full fence that waits for every miss in flight). Requested together, the misses of
// the nine columns of a whole-row lookup overlap.
// Thread safety: as GatherRows (the reader may be shared).
#pragma once

#include <vector>

#include "format/parquet/reader.h"
#include "query/row_gather.h"

namespace lakeindex::query {

// Rows up to which PrefetchHeldRows works (beyond it GatherRows' own page-ahead prefetch takes over).
inline constexpr uint64_t kPrefetchHeldRowsMax = 8;

// Asks the CPU for the rows of `ranges` in the decoded pages held for chunks (rg, c), c in
// `columns`. Reads nothing from the store, decodes nothing, and changes no result: pages not held
// are left for GatherRows; an error is left for it to report.
void PrefetchHeldRows(const parquet::ParquetReader& reader, int rg, const std::vector<int>& columns, const Ranges& ranges);

}  // namespace lakeindex::query
