// Memory-level parallelism for warm lookups: before a take weighs (take_cost.h) and gathers
// (row_gather.h) a few rows column by column, everything of them the cache already holds — each
// chunk's page locations, the rows' pages and their values — is requested from memory for every
// column at once. A warm point lookup is bound by memory latency (a chunk's table, its page
// locations, the page's header, then its values, validity and string offsets are dependent cache
// misses), and the column-by-column walk serializes them: each column's cache probes take a lock,
// a full fence that waits for every miss in flight. Requested together, the misses of the nine
// columns of a whole-row lookup overlap.
// Thread safety: as GatherRows (the reader may be shared).
#pragma once

#include <vector>

#include "format/parquet/reader.h"
#include "query/row_gather.h"

namespace lakeindex::query {

// Rows up to which PrefetchHeldRows works (beyond it GatherRows' own page-ahead prefetch takes over,
// and the pass would cost more than it saves).
inline constexpr uint64_t kPrefetchHeldRowsMax = 8;

// Asks the CPU for the rows of `ranges` in the decoded pages held for chunks (rg, c), c in
// `columns`. Reads nothing from the store, decodes nothing, and changes no result: pages not held
// are left for GatherRows; an error is left for it to report.
void PrefetchHeldRows(const parquet::ParquetReader& reader, int rg, const std::vector<int>& columns, const Ranges& ranges);

}  // namespace lakeindex::query
