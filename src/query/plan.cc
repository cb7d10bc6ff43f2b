#include "query/plan.h"

#include "common/text.h"

namespace lakeindex::query {
namespace {

// The take-or-scan choice's numbers (query/take_cost.h): "(index would read X of a Y-byte scan:
// taking; R requests, holes of up to H bytes)".
std::string Choice(const PlanStep& s) {
  const bool taking = s.kind == StepKind::kRowGroupTake;
  return " (index would read " + Grouped(s.bytes) + " of a " + Grouped(s.bytes_total) + "-byte scan: " +
         (taking ? "taking; " : "scanning; ") + Grouped(s.requests) + " requests, holes of up to " + Grouped(s.hole) +
         " bytes)";
}

// Why a row group holding the index's candidates was not read by taking them.
std::string NotTaken(const PlanStep& s) {
  if (s.candidates == 0) return "";
  return ", not the index's " + Grouped(s.candidates) + " candidate rows on " + Grouped(s.pages) + " of " +
         Grouped(s.pages_total) + " pages" + Choice(s);
}

}  // namespace

std::string PlanStep::ToString() const {
  const std::string f = "fragment " + std::to_string(fragment);
  const std::string rg = f + " row group " + std::to_string(row_group);
  switch (kind) {
    case StepKind::kNote:
      return note;
    case StepKind::kFragmentEmpty:
      return f + ": every row deleted";
    case StepKind::kFragmentSkippedByStats:
      return f + ": skipped by manifest statistics";
    case StepKind::kFragmentSkippedByLayout:
      return f + ": skipped by the OTree layout";
    case StepKind::kFragmentSkippedByIndex:
      return f + ": skipped by the index";
    case StepKind::kFragmentTake:
      return f + ": take " + std::to_string(rows) + " candidate rows from the index";
    case StepKind::kFragmentScan:
      return f + ": scan (" + std::to_string(rows) + " live rows; row groups and pages pruned by Parquet statistics)";
    case StepKind::kRowGroupSkippedByStats:
      return rg + ": skipped by row-group statistics";
    case StepKind::kRowGroupSkippedByPageIndex:
      return rg + ": skipped by the page index";
    case StepKind::kRowGroupTake:
      return rg + ": take " + std::to_string(rows) + " rows from " + std::to_string(pages) + " pages" +
             (bytes_total > 0 ? Choice(*this) : "");
    case StepKind::kRowGroupPages:
      return rg + ": read " + std::to_string(rows) + " rows of the pages the page index kept" + NotTaken(*this);
    case StepKind::kRowGroupWhole:
      return rg + ": read whole (" + std::to_string(rows) + " rows)" + NotTaken(*this);
    case StepKind::kRowGroupScan:
      return rg + ": scan (" + std::to_string(rows) + " rows)" + NotTaken(*this);
  }
  return note;
}

}  // namespace lakeindex::query
