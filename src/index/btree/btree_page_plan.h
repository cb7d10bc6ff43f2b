// The first level of a BTree search: a query as sorted key intervals, and the candidate leaf
// pages those intervals select from the page directory (no I/O).
//
// A query's key intervals come from index/index_key.h's QueryIntervals.
// PlanPages walks the intervals against the directory once, left to right: per interval a binary
// search (from the current page on) for the first page whose max reaches it, then pages while
// their min is inside it. So IN with k values costs O(k log pages + candidates). A page is
// `all` when its min and max lie inside one interval: every row matches, no comparisons needed.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "index/btree/btree_format.h"
#include "index/scalar_index.h"

namespace lakeindex::index::btree {

struct PageTask {
  uint32_t page = 0;
  bool all = false;              // every row of the page matches
  uint32_t first_interval = 0;   // intervals [first_interval, end_interval) touch the page
  uint32_t end_interval = 0;
};

// Candidate pages in ascending page order, each listed once.
std::vector<PageTask> PlanPages(const PageDirectory& dir, const std::vector<KeyInterval>& intervals);

}  // namespace lakeindex::index::btree
