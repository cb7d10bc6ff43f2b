// The first level of a BTree search: a query as sorted key intervals, and the candidate leaf
// pages those intervals select from the page directory (no I/O).
//
// QueryIntervals: = v -> [v, v]; range -> one interval (open, inclusive or exclusive ends);
// IN -> one point per value (ScalarQuery::In sorts and dedups; they are re-sorted here by key
// order anyway); LIKE 'p%' -> [p, PrefixSuccessor(p)) or [p, +inf); IS NULL -> none (answered
// from the NULL bitmap). Empty intervals (lower > upper, or equal with an exclusive end) are
// dropped; the result is sorted and disjoint.
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

struct KeyInterval {
  std::optional<std::string> lower, upper;  // absent: unbounded
  bool lower_inclusive = true, upper_inclusive = true;

  bool AboveLower(std::string_view key) const;  // key satisfies the lower bound
  bool BelowUpper(std::string_view key) const;  // key satisfies the upper bound
};

// InvalidArgument for a literal of the wrong type or a prefix query on a non-string column.
Result<std::vector<KeyInterval>> QueryIntervals(TypeId type, const ScalarQuery& query);

struct PageTask {
  uint32_t page = 0;
  bool all = false;              // every row of the page matches
  uint32_t first_interval = 0;   // intervals [first_interval, end_interval) touch the page
  uint32_t end_interval = 0;
};

// Candidate pages in ascending page order, each listed once.
std::vector<PageTask> PlanPages(const PageDirectory& dir, const std::vector<KeyInterval>& intervals);

// Positions [begin, end) of `keys` (sorted) inside `interval`.
std::pair<size_t, size_t> KeysInInterval(const KeyArray& keys, const KeyInterval& interval);

}  // namespace lakeindex::index::btree
