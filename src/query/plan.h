// The plan of a scan as data: one step per decision the scanner makes about a fragment or a row
// group. Plain `explain` records the fragment decisions without reading anything; `--analyze`
// records the same fragment decisions (the one function Scanner::DecideFragment makes both) and
// the row-group decisions taken while reading. Steps are plain values, rendered to text only when
// explain asks, so that a lookup pays nothing for its plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lakeindex::query {

enum class StepKind : uint8_t {
  kNote,                   // planner text (indexes, layout, the scan's header)
  kFragmentEmpty,          // every row deleted
  kFragmentSkippedByStats, // manifest statistics rule the filter out
  kFragmentSkippedByLayout,
  kFragmentSkippedByIndex, // the index answer has no row in it
  kFragmentTake,           // read only the index's candidate rows (`rows` of them)
  kFragmentScan,           // read, pruning row groups and pages by Parquet statistics (`rows` live)
  kRowGroupSkippedByStats,
  kRowGroupSkippedByPageIndex,
  kRowGroupTake,           // candidate rows read page by page (`rows` rows, `pages` pages of the first column)
  kRowGroupPages,          // pages selected by the page index (`rows` rows)
  kRowGroupWhole,          // whole column chunks (`rows` rows)
  kRowGroupScan,           // plain explain: the index's candidates here are not taken (`rows` rows scanned)
};

struct PlanStep {
  StepKind kind = StepKind::kNote;
  uint32_t fragment = 0;
  int row_group = -1;
  uint64_t rows = 0;
  uint64_t pages = 0;
  std::string note;  // kNote only
  // A row group holding the index's candidates (take_cost.h's choice): the `candidates` lie on
  // `pages` of `pages_total` pages of the first column read; taking them would read `bytes` in
  // `requests` requests (runs with holes of up to `hole` bytes), scanning `bytes_total`.
  uint64_t candidates = 0;
  uint64_t pages_total = 0;
  uint64_t bytes = 0, bytes_total = 0;
  uint64_t requests = 0, hole = 0;

  bool is_fragment_decision() const { return kind >= StepKind::kFragmentEmpty && kind <= StepKind::kFragmentScan; }
  std::string ToString() const;
};

inline PlanStep Note(std::string text) {
  PlanStep s;
  s.note = std::move(text);
  return s;
}

}  // namespace lakeindex::query
