// Helpers shared by the lakeindex commands: exit codes, file paths as (store, key) pairs,
// progress on stderr.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/text.h"  // Grouped
#include "lakeindex/object_store.h"
#include "table/table.h"
#include "lakeindex/status.h"

namespace lakeindex::cli {

using table::OpenTableStore;  // the table directory as a counting store

// docs/user-guide.md "Conventions of every command": 0 on success, 1 on a user error (one-line
// message), 2 on internal failure (nothing of the command is visible), 3 when a write's outcome
// could not be learned (its version may or may not be there: `lakeindex versions` tells).
inline constexpr int kExitOk = 0;
inline constexpr int kExitUserError = 1;
inline constexpr int kExitInternal = 2;
inline constexpr int kExitOutcomeUnknown = 3;
// A permission error (EACCES, EPERM, EROFS; S3's access denied) is a user error: exit 1.
int ExitCodeFor(const Status& status);
// An IOError that says the file system (or S3) refused the access.
bool IsPermissionRefusal(const Status& status);

// An output file written as it is produced, in bounded memory (`gen`, `query --output`): a
// regular file (or a new one) is written to a temporary file beside it and renamed over it by
// Close, so a failure, a kill or an abandoned output leaves the previous file, never a partial
// one (the temporary is removed, or after a kill left as PATH.tmp-PID-N); /dev/stdout, FIFOs and
// devices are written in place. An ObjectWriter, so the Parquet writer streams into it.
class OutputFile final : public ObjectWriter {
 public:
  static Result<std::unique_ptr<OutputFile>> Open(const std::string& path);
  ~OutputFile() override;

 private:
  OutputFile(std::string path, std::string tmp, FILE* file) : ObjectWriter(std::move(path)), tmp_(std::move(tmp)), file_(file) {}
  Status DoAppend(std::string_view data) override;
  Status DoClose() override;

  std::string tmp_;  // empty when writing in place, and once renamed
  FILE* file_ = nullptr;
};

// Writes `data` to the file at `path` (an OutputFile).
Status WriteOutputFile(const std::string& path, std::string_view data);

// A size as users write it: "1073741824", "512M", "2G", "2GiB", "1.5g" (K, M, G, T: powers of
// 1024; a trailing "B" or "iB" allowed). InvalidArgument naming `option` otherwise, or for 0.
Result<uint64_t> ParseByteSize(const std::string& text, const std::string& option);

// Lowercase extension without the dot ("parquet", "csv"), or "".
std::string FileExtension(const std::string& path);

// Where SQL beyond lakeindex's subset runs (function calls, arithmetic, HAVING, joins, ...):
// DuckDB over a query's output, as the refusals of such SQL say (docs/expressions.md).
inline constexpr const char* kSqlRoute =
    "lakeindex query TABLE [--where ...] --format parquet --output t.parquet, then "
    "duckdb -c \"SELECT ... FROM 't.parquet'\" (docs/expressions.md, \"Beyond the subset\")";

// The command line's words for a library parameter (Status::parameter): "select" -> "--select",
// "aggregates" -> "--agg", "kind" -> "--type", ...
std::string FlagFor(std::string_view parameter);
// An error as the command line prints it: "<code>: <message>", the message after the flag the
// error is about; a refusal of SQL beyond the subset (query::IsBeyondSubset) followed by kSqlRoute.
std::string ErrorText(const Status& status);

// A table opened for one command, through a store that counts every request (explain).
struct TableHandle {
  std::shared_ptr<InstrumentedStore> store;
  std::unique_ptr<table::Table> table;
};
// Opens the table at `path` (the newest version, or `version`), through table::OpenTableStore.
// `query_filter`: the command reads rows through this filter (may be empty), so a remote table's
// index directories and data file footers are fetched in the open's round trips
// (query::PrefetchForQueries).
Result<TableHandle> OpenTable(const std::string& path, std::optional<uint64_t> version = std::nullopt,
                              const std::optional<std::string>& query_filter = std::nullopt);

// Whether `command` (argv[1]) allocates enough fresh memory that its heap on huge pages pays for
// the tool's second start (main.cc): the commands that write or build (create, append, optimize,
// layout, index, iceberg, gen, demo), not the reads.
bool HugePagesPay(std::string_view command);

// A CLI11 check for options taking a count: decimal digits only, at least `min`, at most 2^64-1
// ("-1", "1e3", "0x10" and 2^64 are refused naming the value, instead of wrapping around).
CLI::Validator WholeNumber(uint64_t min = 0);

class Progress;
// Write settings of create/append/optimize/layout with progress reported to `progress`.
table::WriteConfig MakeWriteConfig(uint64_t rows_per_file, std::shared_ptr<Progress> progress);

// Draws "label: step [=====     ] 50% 5,000,000/10,000,000 1.2M rows/s ETA 0:04" on stderr at most
// every 200 ms, only when stderr is a terminal (a pipe or file gets none). Clear (or the
// destructor) clears the line, so what is printed next starts a line of its own: call it before
// the command's report, as copies of the progress callback may keep the bar alive. Rate and ETA
// count from the step's start.
class Progress {
 public:
  Progress(std::string label, uint64_t total);
  ~Progress();
  void Update(uint64_t done);
  // Clears the bar's line; no bar is drawn after it.
  void Clear();
  // A new step of the work (layout: reading, building the tree, writing): its own count and rate.
  // total 0 keeps the current total.
  void Step(const std::string& step, uint64_t total);

 private:
  std::string label_, step_;
  uint64_t total_;
  bool enabled_;
  bool printed_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

// Progress's line (without the bar's carriage return).
std::string FormatProgress(const std::string& label, const std::string& step, uint64_t done, uint64_t total,
                           double seconds);

}  // namespace lakeindex::cli
