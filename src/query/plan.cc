#include "query/plan.h"

#include "common/text.h"

namespace lakeindex::query {
namespace {

// Why a row group holding the index's candidates was not read by taking them: the take rule of
// Scanner::ScanRowGroup (the pages holding them must cost at most 3/4 of the column chunk).
std::string NotTaken(const PlanStep& s) {
  if (s.candidates == 0) return "";
  return ", not the index's " + Grouped(s.candidates) + " candidate rows: they lie on " + Grouped(s.pages) + " of " +
         Grouped(s.pages_total) + " pages (" + Grouped(s.bytes) + " of the column chunk's " + Grouped(s.bytes_total) +
         " bytes to read, over the 3/4 a take may cost), so a scan is cheaper";
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
      return rg + ": take " + std::to_string(rows) + " rows from " + std::to_string(pages) + " pages";
    case StepKind::kRowGroupPages:
      return rg + ": read " + std::to_string(rows) + " rows of the pages the page index kept" + NotTaken(*this);
    case StepKind::kRowGroupWhole:
      return rg + ": read whole (" + std::to_string(rows) + " rows)" + NotTaken(*this);
  }
  return note;
}

}  // namespace lakeindex::query
