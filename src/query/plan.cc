#include "query/plan.h"

namespace lakeindex::query {

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
      return rg + ": take " + std::to_string(rows) + " rows from " + std::to_string(pages) + " pages";
    case StepKind::kRowGroupPages:
      return rg + ": read " + std::to_string(rows) + " rows of the pages the page index kept";
    case StepKind::kRowGroupWhole:
      return rg + ": read whole (" + std::to_string(rows) + " rows)";
  }
  return note;
}

}  // namespace lakeindex::query
