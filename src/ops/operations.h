// Operations: one function per user-level write, each doing the whole job — data, layout and
// index maintenance — and ending in exactly one commit (docs/architecture.md, "The layers").
//
// Before this layer the front ends committed the data and then, separately, the index update:
// two versions, of which the second could lose a race after the first was visible (an append
// reported Conflict although its rows were in, and retrying duplicated them). Here the index
// segments of the new fragments are written on every attempt to commit, for the manifest being
// committed (query::MaintainIndexes as table::WriteConfig::before_commit), so the rows and their
// index entries become visible together, or nothing does.
//
// Conflict rules (docs/concurrency.md has the whole table): an append rebases onto any
// concurrent commit that kept the table's schema (its fragments are new, so nothing of the other
// commit is undone; indexes created or dropped meanwhile are followed: the new fragments get
// segments of the indexes the committed version has); a concurrent schema change (a layout adding
// `_lakeindex_weight`) is a Conflict with nothing committed. Optimize and delete conflict when a concurrent
// commit rewrote or changed deletions of a fragment they change. Layout changes conflict with any
// concurrent commit. Conflict always means: nothing of the operation is visible.
// Thread safety: as Table writers (one writer per Table object; processes may race freely).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "layout/otree/layout_writer.h"
#include "layout/otree/partitioned_layout.h"
#include "query/index_manager.h"
#include "table/batch_source.h"
#include "table/iceberg_repair.h"
#include "table/table.h"

namespace lakeindex::ops {

// Creates a table in `store` (which must hold none) from the rows of `source`: version 1, one commit.
Result<std::unique_ptr<table::Table>> Create(std::shared_ptr<ObjectStore> store, table::BatchSource* source,
                                             table::WriteConfig config);
// The same at `path` (as table::OpenTableStore takes it), as `lakeindex create` and Python's
// Table.create do. A local table's parent directory must exist (NotFound naming it otherwise:
// like mkdir and DuckDB, a create makes one directory, not a path of them). A create that fails
// removes the directory it made itself, unless a version is there by then (another writer's);
// a directory that was there before is left as it was. `store`: the table's store, when set.
Result<std::unique_ptr<table::Table>> CreateAt(const std::string& path, table::BatchSource* source,
                                               table::WriteConfig config,
                                               std::shared_ptr<InstrumentedStore>* store = nullptr);

struct AppendResult {
  uint64_t rows = 0;             // rows appended
  bool otree = false;            // placed into the table's OTree (else plain fragments)
  layout::LayoutReport layout;   // with otree
  size_t index_segments = 0;     // index segments written for the new fragments
};

// Appends the rows of `source` (the table's visible columns on an OTree table, else all of its
// columns) as one commit with their index segments. No rows: no new version.
Result<AppendResult> Append(table::Table* table, table::BatchSource* source, table::WriteConfig config);

// Opens the rows to append with the columns the table takes from its users (its visible ones).
using SourceOpener = std::function<Result<std::unique_ptr<table::BatchSource>>(const Schema& columns)>;
// Operations that fail with Conflict have committed nothing; those that can be run again from the
// newest version (an append from a source it can re-read, optimize, layout) start over, up to this
// many attempts in all, then report Conflict. `table` then views the newest version.
inline constexpr int kStartOverAttempts = 8;

// The same from a source that can be read again: when the commit cannot be rebased (another
// commit changed the OTree the rows were placed into, or the schema), the append starts over from
// the newest version — the rows are placed into its tree.
Result<AppendResult> Append(table::Table* table, const SourceOpener& open, table::WriteConfig config);

struct OptimizeResult {
  size_t rewritten = 0;          // fragments (files, on an OTree table) rewritten; 0: no new version
  size_t index_segments = 0;     // index segments written (every index merged into one segment)
};

// Compacts small fragments and drops deleted rows (OTree tables: rewrites overfull cubes' files and
// rolls small files up), re-indexing the rewritten rows and merging each index's segments, in one
// commit; starts over from the newest version when overtaken.
Result<OptimizeResult> Optimize(table::Table* table, table::WriteConfig config);

struct LayoutResult {
  layout::LayoutReport report;
  size_t index_segments = 0;
  // The data files' bytes of the version laid out and of the new one: a layout regroups rows by
  // its columns, so columns that followed the old order (time-ordered data) compress worse, and
  // the files can grow severalfold (front ends say so: kLayoutGrowthToTell).
  uint64_t bytes_before = 0, bytes_after = 0;
};
// Growth of the data files a front end tells the user about after a layout.
inline constexpr double kLayoutGrowthToTell = 1.25;

// Rewrites the table in a layout (layout_writer.h) and re-indexes its rows, in one commit; starts
// over from the newest version (rows appended meanwhile included) when overtaken.
Result<LayoutResult> Layout(table::Table* table, layout::LayoutOptions options);
// The same for a layout whose parts were written by other processes (partitioned_layout.h, step
// 4: `written` are WriteLayoutPartition's texts).
Result<LayoutResult> CommitPartitionedLayout(table::Table* table, layout::LayoutOptions options,
                                             layout::Revision revision, const std::vector<std::string>& written);

// Deletes the rows matching the filter `where` (deletion vectors; the indexes the filter can use
// find them), in one commit; starts over from the newest version when a concurrent commit changed
// a fragment it changes. Returns the rows deleted; 0: no new version.
Result<uint64_t> Delete(table::Table* table, const std::string& where);

// The index commands, one commit each (query/index_manager.h has what each writes). Updating
// starts over from the newest version when overtaken; creating and dropping do too, so that a
// name taken or dropped meanwhile is reported as such.
Status CreateIndex(table::Table* table, const query::IndexOptions& options);
Result<size_t> UpdateIndexes(table::Table* table, const std::string& name, const query::UpdateOptions& options);
Status DropIndex(table::Table* table, const std::string& name);

// A writer's files exist before its commit names them, so vacuum must not take a file for garbage
// while its writer may still commit. Large layouts and appends take minutes: the default grace is
// a day (Delta keeps 7 days, Lance's cleanup 14), and less than an hour needs `force`.
inline constexpr double kDefaultVacuumGraceHours = 24;
inline constexpr double kMinVacuumGraceHours = 1;
struct VacuumOptions {
  double older_than_hours = kDefaultVacuumGraceHours;  // only files (and versions) older than this go
  bool force = false;                                  // allow older_than_hours < kMinVacuumGraceHours
  std::optional<uint64_t> keep_versions;               // expire all but the newest N versions first
};
struct VacuumResult {
  std::vector<uint64_t> expired;      // versions expired, oldest first
  std::vector<std::string> removed;   // files removed
  std::vector<std::string> warnings;  // what was left undone after the expiry's commit
};
// Expires old versions (with keep_versions: one commit, table::Table::ExpireVersions) and removes
// the files no kept version references. Once the expiry committed, what fails after it (deleting
// the expired manifests, removing files) is a warning, not an error: the table changed.
Result<VacuumResult> Vacuum(table::Table* table, const VacuumOptions& options);

// Starts keeping Iceberg metadata (table::Table::EnableIceberg; `move` as there). Data files
// that engines would refuse or read wrong — written before, with encodings their vectorized
// readers lack or with min/max of uuid columns (parquet::WriteOptions::portable_encodings) — are
// first written anew, the same rows in the same row groups, and replaced in the same commit
// (also on a table that keeps Iceberg metadata already). `config.progress` is told the rows
// rewritten so far.
Result<table::IcebergEnabled> EnableIceberg(table::Table* table, const std::string& location, bool move,
                                            table::WriteConfig config = {}, std::optional<int> format = {});

// Reads and checks every file the version references: manifest, data files, deletion vectors
// (table::Table::Verify) and index files (query::IndexChecks), and runs every check a query's
// opening of the version runs (the layout section). One line per file or segment; damage is one
// Corruption error naming every damaged or missing file.
Result<std::vector<std::string>> Verify(const table::Table& table);
// Writes again the Iceberg metadata files of the version that the store lost (its manifest list,
// manifests and delete files, the same bytes at the same paths: table/iceberg_repair.h), so that engines
// read that snapshot again. Commits nothing and changes no data.
Result<table::iceberg::Rewritten> RepairIceberg(const table::Table& table);

}  // namespace lakeindex::ops
