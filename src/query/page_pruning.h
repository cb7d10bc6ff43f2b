// Page pruning: which pages of one column chunk may hold rows that make a filter TRUE, from the
// chunk's page index (min/max/null counts per page).
//
// The filter's conjuncts on the chunk's column alone decide it. When they are comparisons of the
// column with literals of its own kind (=, <, <=, >, >=, BETWEEN) on a number or temporal column,
// they become one interval and each page costs two typed comparisons; anything else is evaluated
// per page with MayMatch (query/pruning.h), the same answers either way. A small OTree box reads
// a few thousand rows of 64-row pages, and testing every page of its blocks with the general
// evaluator used to be most of its time (2-D 0.01% box at 2M rows: 2.4 ms, about half of it here).
// Thread safety: pure functions.
#pragma once

#include "format/parquet/reader.h"
#include "query/expr.h"
#include "query/row_gather.h"

namespace lakeindex::query {

// Rows (offsets in the row group) of the pages of `index` that may hold a row for which `filter`
// may be TRUE, considering its conjuncts on table column `column` only (the others may prune
// other columns' pages). `nan_known`: the chunk's column is known to hold no NaN. A page
// without statistics is kept.
Ranges PagesMayMatch(const Expr& filter, int column, const parquet::PageIndex& index, bool nan_known);
// The same among the rows `within` (offsets in the row group, sorted and disjoint; the answer
// lies inside them), testing only the pages that meet `within`, and adding to *tested (if given)
// how many pages it tested. A block's later filter columns need this: an OTree block has
// hundreds of pages per column, and the first column's pages leave a few percent of its rows.
Ranges PagesMayMatch(const Expr& filter, int column, const parquet::PageIndex& index, bool nan_known,
                     const Ranges& within, uint64_t* tested = nullptr);

}  // namespace lakeindex::query
