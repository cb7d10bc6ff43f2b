// The planner's take-versus-scan choice for one row group holding an index's candidate rows,
// priced in bytes the way the reads will be cut.
//
// A take reads, for every column it needs, the pages holding candidates in the runs the store's
// read hint cuts (ObjectStore::ReadHint: holes included; pages already decoded in the cache
// free), plus each chunk's dictionary. The scan it would replace reads the filter's columns
// whole, then the other columns for the passing rows (whole chunks when those rows' pages hold
// over 3/4 of the first one's bytes, else those pages, cut by the same hint) — what
// Scanner::ScanRowGroup does. Both are estimated from the page index the open reader already
// holds (with a page map, the blocks that locate the candidates' pages: first priced with every
// page at its chunk's mean size, and scanned without reading any block when the take comes out
// no cheaper so), with no data page read, and the take is chosen only when it reads fewer bytes: an index
// never makes a query read more than the scan it replaces. (The scan's page pruning by statistics
// is not counted: it can lower the filter column's bytes only to the pages that may match, which
// hold every candidate, so the take is never dearer than a pruned scan either.)
// Thread safety: functions; the reader may be shared.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/parquet/reader.h"
#include "lakeindex/object_store.h"
#include "lakeindex/types.h"
#include "query/plan.h"
#include "query/row_gather.h"

namespace lakeindex::query {

// The columns a scan reads, as Scanner keeps them: read column i is file column file_columns[i];
// the first num_filter_columns are the filter's.
struct TakeColumns {
  const std::vector<int>& file_columns;
  size_t num_filter_columns;
  // Per filter column: the output shows it (a take without a residual to evaluate reads only those).
  const std::vector<bool>& filter_output;
  bool residual;  // the index answer leaves something to evaluate: a take reads every filter column
  // The candidates are rows the caller gave (ScanRequest::rows), which no scan of the filter
  // reproduces: always taken (the numbers are still priced, for explain).
  bool given_rows = false;
};

struct TakeChoice {
  bool take = false;
  uint64_t candidates = 0;              // candidate rows in the row group
  uint64_t pages = 0, pages_total = 0;  // of the first read column: pages holding them, all pages
  uint64_t take_bytes = 0, take_requests = 0;
  uint64_t scan_bytes = 0, scan_requests = 0;
  ObjectStore::ReadHint hint;
};

// Prices taking `candidates` (rows of row group rg) against scanning the row group; take is set
// when the take reads fewer bytes. With no column to read the take costs nothing and is taken.
// Errors name the chunk.
Result<TakeChoice> ChooseTake(const parquet::ParquetReader& reader, int rg, const TakeColumns& columns,
                              const Ranges& candidates);

// Records the choice's numbers on a row-group step (explain prints them).
void DescribeChoice(const TakeChoice& choice, PlanStep* step);

// The rows of fragment offsets `offsets` (ascending) that fall in the row group starting at
// rg_first_row, as ranges of row-group rows.
Ranges RowGroupRows(const std::vector<uint32_t>& offsets, uint64_t rg_first_row, uint64_t rg_rows);

// Table columns `read_columns` as columns of the file `reader` reads (the fragment was written
// with the table schema); Corruption naming `file` and the column when one is missing.
Result<std::vector<int>> FileColumnsOf(const parquet::ParquetReader& reader, const Schema& table_schema,
                                       const std::vector<int>& read_columns, const std::string& file);

// Plain explain's row-group lines for a fragment the index takes `candidates` (fragment offsets,
// ascending) from: per row group holding some, the choice the scan will make, from the page
// index alone (no data page read).
Result<std::vector<PlanStep>> PlanTakeSteps(const parquet::ParquetReader& reader, uint32_t fragment,
                                            const TakeColumns& columns, const std::vector<uint32_t>& candidates);

}  // namespace lakeindex::query
