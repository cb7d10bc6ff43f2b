// Result output of the command line: `--format table` (aligned, for people), csv, json.
#pragma once

#include <string>

#include "lakeindex/batch.h"

namespace lakeindex::cli {

// Aligned columns with a header and a rule; NULL printed as "NULL"; long values are cut at
// `max_width` characters (code points) with "…" (TablePrinter, every row).
std::string FormatTable(const Batch& batch, size_t max_width = 40);
// One JSON object per row ({"col": value, ...}\n); NULL, NaN and ±infinity as null (JSON has no
// NaN: as DuckDB's and pandas' to_json write them).
std::string FormatJsonLines(const Batch& batch);

// The --format an output file's extension names, as DuckDB's COPY takes it: "parquet", "csv",
// "json" (.json, .jsonl, .ndjson), "arrow" (.arrow, .arrows, .ipc); "" for any other.
std::string FormatForExtension(const std::string& path);

// An estimate for people: "value ± half-width", both to the decimal place of the half-width's
// second significant digit ("52.137 ± 0.041", "1203400 ± 5400").
std::string FormatEstimate(double value, double half_width);
// `batch` with every column named "<name> ±" folded into the column before it as
// FormatEstimate's strings (NULL stays NULL): query --agg's estimates in --format table.
Result<Batch> JoinIntervals(const Batch& batch);

}  // namespace lakeindex::cli
