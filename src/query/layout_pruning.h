// OTree block selection: which blocks (row groups of data files) a filter and a sample fraction
// may need, from the layout in the manifest alone (docs/otree.md).
//
// The filter becomes one box per OR branch in each revision's coordinate space: every predicate
// on a layout column that compares it with a literal of its type (=, <, <=, >, >=, BETWEEN, IN,
// IS NULL, LIKE 'prefix%' / exact) bounds that dimension through the revision's monotone
// transformation; anything else leaves the dimension whole (so the boxes always cover every
// row that may match). The tree walk keeps the cubes meeting a box; a sample f keeps only blocks
// whose smallest weight is below f. The executor still evaluates the whole filter (and
// `_lakeindex_weight < f`) on the rows read, so results stay exact.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "layout/otree/layout_meta.h"
#include "query/expr.h"

namespace lakeindex::query {

// Boxes (in the space of `transforms`, one per layout column `columns[d]`, table column
// indexes) that together contain every row for which `bound` may be TRUE. Null filter: the
// whole space. Empty result: no row can match.
std::vector<layout::otree::Box> FilterBoxes(const Expr* bound, const std::vector<int>& columns,
                                            const std::vector<layout::otree::Transform>& transforms);

struct BlockSelection {
  std::map<uint32_t, std::set<int>> row_groups;  // fragment -> row groups to read
  uint64_t blocks_total = 0;
  uint64_t blocks_selected = 0;
  uint64_t cubes_total = 0;
  uint64_t cubes_selected = 0;
  std::vector<std::string> explain;
};

// REQUIRES: layout.is_otree(); `bound` bound to `schema` (may be null). With `sample`, only blocks
// holding weights in [sample_from, sample).
Result<BlockSelection> SelectBlocks(const layout::LayoutMeta& layout, const Schema& schema, const Expr* bound,
                                    std::optional<double> sample, double sample_from = 0);

}  // namespace lakeindex::query
