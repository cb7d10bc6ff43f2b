// Writing a table in a layout: the OTree (docs/otree.md) and, for comparison, the sort / Z-order /
// Hilbert layouts that Delta, Iceberg and ClickHouse users know.
//
// LayoutTable rewrites every live row of the table's current version into the layout and commits
// it as one new version ("layout"): the old fragments are removed (time travel still reads
// them), deleted rows are dropped, and the OTree layout adds the hidden `_lakeindex_weight` column (kept
// when the table already has it, so weights survive rewrites and samples stay nested).
//  * otree: fits one transformation per column (a revision), builds the ideal tree over the
//    rows' coordinates and weights, and writes every cube in tree pre-order as a block of
//    weight slices (one row group each, Hilbert-ordered, pages of page_rows rows), rolling cubes
//    up into files of about rows_per_file rows (a cube never spans two files).
//  * sort / zorder / hilbert: orders all rows by the columns / the Z-order / the Hilbert key of
//    their coordinates and writes row groups of cube_rows rows, pages of page_rows rows.
// AppendToLayout places new rows into an OTree table's existing tree as new blocks (never
// rewriting old files), a chunk of the input at a time under WriteConfig::memory_limit (each
// chunk's blocks; weights and cubes as in one piece); rows outside the newest revision's range go
// to a new revision fitted on them (those are held until the input ends). OptimizeLayout rewrites the files holding blocks of overfull cubes (re-placing their
// rows down the tree) and rolls small files' blocks up into full files.
// Every operation either commits one new version or leaves the table as it was. A concurrent
// commit in between gives Conflict (layout changes are not rebased).
// Thread safety: as Table writers (one writer per Table object).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "layout/otree/layout_meta.h"
#include "table/batch_source.h"
#include "table/table.h"

namespace lakeindex::layout {

struct LayoutOptions {
  std::string kind = "otree";         // otree | sort | zorder | hilbert
  std::vector<std::string> columns;   // 1 to 6
  std::string transform = "default";  // default | linear | quantile
  uint64_t cube_rows = 100000;        // otree: target rows per cube; others: rows per row group
  int slices = 8;                     // otree: weight slices per cube
  // otree: row groups by weight slice (kRowGroupsBySlice) or by region (kRowGroupsByRegion: for
  // engines that skip only row groups; layout_meta.h). Empty: by slice here; ops::Layout and the
  // front ends take DefaultRowGroups (by region for tables that keep Iceberg metadata).
  std::string row_groups;
  uint64_t page_rows = 0;             // rows per Parquet page of the layout columns (0: PageRows' default)
  uint64_t seed = 42;                 // weights for rows that have none yet
  table::WriteConfig write;           // rows_per_file and Parquet options (row group / page sizes are set here)
  // Progress: (step, done, total), e.g. ("writing", rows written, rows).
  std::function<void(const std::string&, uint64_t, uint64_t)> progress;
  // Memory the layout may take (bytes; 0: DefaultMemoryLimit()). An OTree layout of rows that
  // would not fit (EstimateLayoutMemory) is built in parts of the table, one at a time
  // (LayoutTablePartitioned: the same weights, cubes, revision, files and blocks, with
  // temporary objects under the table's _tmp/); the comparison layouts are refused.
  uint64_t memory_limit = 0;
};

// options.page_rows, or by default 64 — 32 for an OTree on three or more columns: a page spans
// (its rows / its slice's rows)^(1/d) of its cube's side in each of d dimensions, so the same
// rows make coarser pages as d grows. 10M events rows, a box on (x, y) covering 1% of the plane
// of a tree on (x, y, z): 64-row pages read 2.48x the rows it returned (the tree on (x, y):
// 1.34x); 32-row cell pages 1.83x, the files 5.7% larger (docs/otree.md).
uint64_t PageRows(const LayoutOptions& options);

// A quarter of the machine's physical memory, at least 256 MiB and at most
// kMaxDefaultMemoryLimit (2 GiB): more does not make a layout faster — 100M events rows took
// 179 s and 2.5 GiB at 6 GiB (a quarter of 24), 104–110 s and 1.4 GiB at 2 GiB — and a shared
// machine keeps the rest. `--memory-limit` sets more.
inline constexpr uint64_t kMaxDefaultMemoryLimit = uint64_t(2) << 30;
uint64_t DefaultMemoryLimit();
// What LayoutTable would hold for `table`: the rows decoded (the Parquet row groups'
// uncompressed sizes, plus string offsets) twice, as they are regrouped column by column, and per
// row its coordinates, weight and bucket numbers.
Result<uint64_t> EstimateLayoutMemory(const table::Table& table, const LayoutOptions& options);

struct LayoutReport {
  uint64_t rows = 0;
  size_t files = 0;
  size_t blocks = 0;  // row groups written
  size_t cubes = 0;   // otree
  int depth = 0;      // otree
};

Result<LayoutReport> LayoutTable(table::Table* table, const LayoutOptions& options);

// REQUIRES: the table has an OTree layout; `source` has the table's visible columns (no `_lakeindex_weight`).
Result<LayoutReport> AppendToLayout(table::Table* table, table::BatchSource* source, const table::WriteConfig& config);

// Returns the files rewritten (0: nothing to do, no new version).
Result<size_t> OptimizeLayout(table::Table* table, const table::WriteConfig& config);

// The table schema without hidden columns (what `append` sources provide).
Schema VisibleSchema(const Schema& schema);

}  // namespace lakeindex::layout
