// Index planning: splits a bound filter into a part that scalar indexes answer and a residual,
// asks the indexes, and combines their answers under SQL three-valued logic.
//
// A predicate is index-served when it compares an indexed column with literals of its type (or
// numbers with numbers): =, !=, <, <=, >, >=, BETWEEN, IN (without NULL), IS [NOT] NULL,
// LIKE 'prefix%'. AND / OR / NOT of index-served parts are served too, but NOT only over exact
// answers (NOT of a superset is not a superset), as Lance's planner does. Top-level conjuncts
// that are not served form the residual.
// Thread safety: a Plan is a value; IndexHandle::search must be thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "index/scalar_index.h"
#include "query/expr.h"

namespace lakeindex::query {

// One logical index of the table, ready to search (all of its segments).
struct IndexHandle {
  std::string name;
  std::string column;
  std::string type;                // its kind's name
  bool exact = false;              // its kind answers exactly (else AtMost: rechecked, no NOT)
  std::string unit = "pages";      // what a count from its directory inspects (explain)
  // Fragments its segments cover, and its search; shared, so that a query copies a handle
  // without allocating.
  std::shared_ptr<const std::set<uint32_t>> fragments;
  std::function<Result<index::SearchResult>(const index::ScalarQuery&, index::SearchCounters*)> search;
  // An exact index whose segments hold rows of `fragments` only (no segment over a fragment the
  // version no longer has): how many of their rows match, from the index's directory (BTree
  // pages inside the answer are counted, not read). Empty otherwise.
  std::function<Result<uint64_t>(const index::ScalarQuery&, index::SearchCounters*)> count;
  // An exact index: for each of its segments, the addresses of its first k rows in key order
  // (descending: from the largest) that `keep` accepts (BTreeSegment::FirstRows), concatenated;
  // the first k of the table are among them. Empty otherwise.
  std::function<Result<std::vector<uint64_t>>(bool descending, uint64_t k, const std::function<bool(uint64_t)>& keep,
                                              index::SearchCounters*)>
      first_rows;
  // Reads what its segments read lazily into the process cache, within `max_bytes` in all
  // (IndexSegment::Prewarm).
  std::function<Status(uint64_t max_bytes, index::SearchCounters*)> prewarm;
};

struct IndexPlan {
  bool used = false;                 // some part of the filter is served by indexes
  bool exact = false;                // the served part's answer is exact
  bool residual = true;              // some conjunct was not served (or the answer is inexact)
  std::set<uint32_t> covered;        // fragments every used index covers
  // Rows that may pass (true_rows), authoritative for covered fragments only: rows of other
  // fragments it may hold (a stale segment's, or another index's) mean nothing.
  RowSet candidates;
  index::SearchCounters counters;
  std::vector<std::string> explain;  // one line per decision
};

// The filter as one query of one index, when it is exactly that: a single index-served
// predicate (ranges on one column merged: "a >= 1 AND a < 5" is one), with no residual, no NOT,
// AND or OR of several. Points into `indexes`.
struct SingleIndexQuery {
  const IndexHandle* index = nullptr;
  index::ScalarQuery query;
};
std::optional<SingleIndexQuery> AsSingleIndexQuery(const Expr& filter, const std::vector<IndexHandle>& indexes);

// `filter` must be bound to the table schema. `fragment_rows` gives the row count of every
// fragment (for NOT). Fragments outside `covered` must be scanned with the full filter.
Result<IndexPlan> PlanWithIndexes(const Expr& filter, const std::vector<IndexHandle>& indexes,
                                  const std::map<uint32_t, uint64_t>& fragment_rows);

}  // namespace lakeindex::query
