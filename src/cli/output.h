// Result output of the command line: `--format table` (aligned, for people), csv, json.
#pragma once

#include <string>

#include "lakeindex/batch.h"

namespace lakeindex::cli {

// Aligned columns with a header and a rule; NULL printed as "NULL"; long values are cut at
// `max_width` characters (bytes for non-ASCII) with "…".
std::string FormatTable(const Batch& batch, size_t max_width = 40);
// One JSON object per row ({"col": value, ...}\n); NULL as null, non-finite doubles as strings.
std::string FormatJsonLines(const Batch& batch);

// An estimate for people: "value ± half-width", both to the decimal place of the half-width's
// second significant digit ("52.137 ± 0.041", "1203400 ± 5400").
std::string FormatEstimate(double value, double half_width);
// `batch` with every column named "<name> ±" folded into the column before it as
// FormatEstimate's strings (NULL stays NULL): query --agg's estimates in --format table.
Result<Batch> JoinIntervals(const Batch& batch);

}  // namespace lakeindex::cli
