// DuckDB as the independent reference reader/writer of the tests.
//
// RunDuckDB runs SQL in a fresh in-memory DuckDB (node + npm @duckdb/node-api, through
// tests/duckdb/run.mjs) and returns the result of the last statement with every value rendered
// as exact text, so that tests compare strings, never lossy doubles:
//   BIGINT/HUGEINT/UBIGINT and INTEGER/SMALLINT/TINYINT -> decimal integer ("-42")
//   DOUBLE -> shortest round-trip text in JavaScript's layout ("0.1", "1e+21", "1e-7");
//   FLOAT  -> shortest text that round-trips as a float ("0.1" for 0.1::FLOAT), same layout;
//             both with "nan", "inf", "-inf" and "-0"
//   BOOLEAN -> "true"/"false"     VARCHAR -> its bytes      NULL -> std::nullopt
//   DATE -> "YYYY-MM-DD" (astronomical years: "-0044-03-15"; "infinity"/"-infinity")
//   TIMESTAMP -> integer microseconds since 1970-01-01 ("1709210096789012")
//   anything else -> DuckDB's own text form ("1.50" for DECIMAL(10,2), "[1, 2]" for a list)
// RenderLikeDuckDB renders a lakeindex Value the same way, so a Batch can be compared with what
// DuckDB read back: EXPECT_EQ(RenderBatchLikeDuckDB(batch), duck->rows).
//
// Each RunDuckDB call starts a node process (~0.2 s): batch work into few calls.
// Thread safety: RunDuckDB may be called from several threads; DuckDBAvailable caches its answer.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/batch.h"
#include "lakeindex/status.h"
#include "lakeindex/types.h"

namespace lakeindex::testing {

using DuckRow = std::vector<std::optional<std::string>>;

struct DuckResult {
  std::vector<std::string> columns;
  std::vector<std::string> types;  // DuckDB type names: "BIGINT", "DECIMAL(10,2)", ...
  std::vector<DuckRow> rows;
};

// True when `node` is on PATH and tests/duckdb/node_modules holds @duckdb/node-api and a trivial
// query runs. Probed once per process.
bool DuckDBAvailable();

// Message for tests to fail with when DuckDB is missing (names scripts/install-deps.sh).
std::string DuckDBMissingMessage();

// Runs `sql` (one or more statements separated by ';'). An SQL error becomes InvalidArgument
// carrying DuckDB's message; a missing or broken DuckDB install becomes IOError.
Result<DuckResult> RunDuckDB(const std::string& sql);

// Any node script of the tests (tests/*/...mjs) run to its end: exit code (-1: killed by a
// signal), stdout, stderr. IOError when node cannot be started.
struct ProcessOutput {
  int exit_code = -1;
  std::string out;
  std::string err;
};
Result<ProcessOutput> RunNodeScript(const std::string& script, const std::vector<std::string>& args,
                                    const std::string& stdin_text = "");
// The checkout's directory (tests/, the node scripts' home).
std::string SourceDir();

// The apache/parquet-testing corpus: $LAKEINDEX_SHARED_DIR/parquet-testing, else the checkout's
// ../shared/parquet-testing (where the project's workspace keeps it; a clone on its own has none).
std::string ParquetTestingDir();
// Why a corpus test cannot run, or empty when the corpus is there. Tests skip with it, unless
// LAKEINDEX_REQUIRE_CORPUS=1 (which .ci/run sets): then they fail with it.
std::string ParquetTestingMissing();
bool ParquetTestingRequired();

// 'text' with each ' doubled: a SQL string literal holding exactly `text`.
std::string SqlQuote(std::string_view text);
// "name" with each " doubled: a SQL identifier.
std::string SqlIdent(std::string_view name);

// A DuckDB SQL expression of type DuckTypeName(v.type()) holding exactly `v` (NULL included):
// "CAST(-9223372036854775808 AS BIGINT)", "CAST('nan' AS DOUBLE)", "DATE '-0044-03-15'",
// "make_timestamp(1709210096789012)", "'it''s'".
std::string SqlLiteral(const Value& v);

// The DuckDB type that a lakeindex type maps to: BOOLEAN, INTEGER, BIGINT, FLOAT, DOUBLE,
// VARCHAR, DATE, TIMESTAMP.
std::string DuckTypeName(TypeId type);

// Text of a double/float exactly as run.mjs renders DOUBLE/FLOAT values.
std::string FormatDoubleLikeDuckDB(double x);
std::string FormatFloatLikeDuckDB(float x);
// Inverse of both: "nan", "inf", "-inf", "-0" and decimal text. Returns false on malformed text.
bool ParseDuckDouble(std::string_view text, double* out);

// A lakeindex value as RunDuckDB renders the DuckDB value of type DuckTypeName(v.type()).
std::optional<std::string> RenderLikeDuckDB(const Value& v);
// Every row of `batch`, rendered by RenderLikeDuckDB.
std::vector<DuckRow> RenderBatchLikeDuckDB(const Batch& batch);

}  // namespace lakeindex::testing
