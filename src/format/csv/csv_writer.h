// Writes Batches as RFC 4180 CSV that CsvReader reads back to the same values (given the same
// schema; without one, inference may pick a narrower type, e.g. int64 for a double column that
// holds only whole numbers).
//
// Output: an optional header line of column names, then one line per row; lines end in LF.
// A NULL is an empty field and the empty string is "". A field is quoted when it contains the
// delimiter, '"', CR or LF, or starts with a UTF-8 byte order mark; quotes inside are doubled.
// Doubles and floats are printed in their shortest round-trip form (nan, inf, -inf), bools as
// true/false, dates and timestamps by FormatDate/FormatTimestamp (types.h).
// Thread safety: a pure function.
#pragma once

#include <string>

#include "lakeindex/batch.h"

namespace lakeindex::csv {

// Appends `batch` to *out. With no columns nothing is written.
void WriteCsv(const Batch& batch, bool header, std::string* out, char delimiter = ',');

}  // namespace lakeindex::csv
