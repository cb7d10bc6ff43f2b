// Pieces of LayoutTable (layout_writer.cc) that the partitioned build (partitioned_layout.h) runs
// part by part, so that both produce the same weights, transformations, tree and blocks.
// Internal to layout/: callers outside use layout_writer.h or partitioned_layout.h.
// Thread safety: functions over caller-owned values.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "layout/otree/layout_meta.h"
#include "layout/otree/layout_writer.h"
#include "lakeindex/column_stats.h"
#include "table/table.h"

namespace lakeindex::layout::parts {

// Values per column the quantile transformation is fitted on: every stride-th row of the table
// (in ReadAll order), stride = max(1, rows / kSampleValues).
inline constexpr size_t kSampleValues = 100000;

// Rows being placed: the table's columns with `_lakeindex_weight` last, and their coordinates.
struct Placed {
  Batch rows;
  int weight_column = -1;
  std::vector<std::vector<uint32_t>> coords;  // per layout column
  // LayoutTable's rows as read, one batch per fragment (the table's columns), for the columns
  // listed in `from_pieces`: those are empty in `rows` (not joined, so not sealed) until
  // GroupRows builds them from the pieces as it regroups the rows, which saves joining the
  // fragments first (a copy of the whole table). Empty elsewhere.
  std::vector<Batch> pieces;
  std::vector<int> from_pieces;

  // Whether column c waits in the pieces.
  bool InPieces(size_t c) const {
    return std::find(from_pieces.begin(), from_pieces.end(), int(c)) != from_pieces.end();
  }
  // Column c of the rows as pieces in row order: its pieces, or the column of `rows`.
  std::vector<const Column*> ColumnPieces(size_t c) const {
    if (!InPieces(c)) return {&rows.column(c)};
    std::vector<const Column*> out;
    for (const Batch& piece : pieces) out.push_back(&piece.column(c));
    return out;
  }

  otree::Points points() const {
    otree::Points p;
    p.dims = int(coords.size());
    p.size = rows.num_rows();
    for (size_t d = 0; d < coords.size(); ++d) p.coords[d] = coords[d].data();
    p.weights = rows.column(size_t(weight_column)).data<double>();
    return p;
  }
};

// A data file written for a layout, not yet committed; blocks name it by file until the commit
// assigns fragment ids.
struct WrittenFile {
  table::FragmentMeta meta;
  std::vector<BlockMeta> blocks;
};

// `schema` with `_lakeindex_weight` (double, not nullable) appended unless it has one.
Schema WithWeight(const Schema& schema);
// `rows` (of `schema` without `_lakeindex_weight`, or with it) as a batch of WithWeight(schema), drawing
// the missing weights from `seed`: row i's weight depends only on seed and first_row + i (its
// position in the whole table), so parts of a table get the weights the whole would.
Batch AddWeights(Batch rows, uint64_t seed, uint64_t first_row = 0);
// The weights AddWeights draws for rows first_row .. first_row + n - 1.
Column DrawWeights(uint64_t seed, uint64_t first_row, size_t n);
// The valid values of the rows i of `column` whose position first_row + i is a multiple of stride.
std::vector<Value> SampleColumn(const Column& column, uint64_t first_row, uint64_t stride);
// The transformation of layout column `name` fitted in `mode` (default | linear | quantile) to
// the column's exact statistics and a sample of its values (SampleColumn).
Result<otree::Transform> FitColumnTransform(TypeId type, const std::string& name, const ColumnStats& stats,
                                            std::vector<Value> sample, const std::string& mode);
// Rows read as `pieces` (batches of `table_schema`) as Placed rows: the columns `joined` (schema
// indexes) and `_lakeindex_weight` (the table's, or drawn from `seed` when `weights` asks for them
// and the table has none, the first row at table position first_row) are joined now; the others
// wait in the pieces for GroupRows.
Placed PlacedFromPieces(std::vector<Batch> pieces, const Schema& table_schema, const std::vector<int>& joined,
                        bool weights, uint64_t seed, uint64_t first_row = 0);
// Seals `placed->rows` (unless it waits for pieces) and computes the coordinates of its rows
// appended since the last call.
Status ExtendCoords(Placed* placed, const std::vector<int>& columns, const std::vector<otree::Transform>& transforms);
// Moves the rows and coordinates of `placed` so that the rows of each bucket are consecutive,
// buckets in increasing order and the rows of a bucket in their previous order (a stable
// counting sort), columns in parallel; columns waiting in pieces are built from them. Returns the
// new position of every previous row and sets *start to where each bucket starts (buckets + 1
// entries).
std::vector<uint32_t> GroupRows(Placed* placed, const std::vector<uint32_t>& bucket_of_row, size_t buckets,
                                std::vector<size_t>* start);
// The cubes with rows (rows[c] of cube c) grouped into data files of at most rows_per_file
// rows (a cube larger than that alone), each file's cubes in pre-order, files in pre-order of
// their first cube. Every file holds a cube C and only descendants of C besides, so its rows lie
// in C's region: a planner pruning files by their bounds (Iceberg's manifests) keeps a file only
// when the box meets C's region, and then the OTree reader reads C too — bounds never keep more
// files than the tree. A file takes its top cube and the whole subtrees of as many children as
// fit, smallest first; the other children head files of their own.
std::vector<std::vector<int>> PackCubes(const otree::Tree& tree, const std::vector<uint64_t>& rows,
                                        uint64_t rows_per_file);
// Writes the rows of every cube of `tree` (cube_of_row[i] = cube of row i) as blocks: files as
// PackCubes groups the cubes, or as `files` says when given (PackCubes' grouping of a whole
// table's cubes, of which these rows are some files' rows: every row's cube must be in it), each
// cube as weight slices in Hilbert order. Nothing is committed. Takes `placed` by value: it
// regroups the rows cube by cube in place, so callers that are done with theirs move it in.
Result<std::vector<WrittenFile>> WriteCubes(ObjectStore* store, Placed placed, const otree::Tree& tree,
                                            const std::vector<uint32_t>& cube_of_row, int revision,
                                            const LayoutMeta& meta, const table::WriteConfig& config,
                                            const std::vector<std::vector<int>>* files = nullptr);
// Pages of the columns a layout does not order hold this many rows (or page_rows, if more).
inline constexpr size_t kOtherColumnPageRows = 512;
// An OTree's pages in its layout columns are runs of whole cells of the Hilbert curve
// (otree::CellPages) of at most this many rows; they average about page_rows.
inline uint64_t MaxCellPageRows(uint64_t page_rows) { return page_rows + page_rows / 2; }
// The parquet options of layout files: row groups cut only where the writer flushes them (one
// per block), pages of page_rows in the layout `columns` — with `cell_pages`, ending where the
// writer is told, MaxCellPageRows at most — and kOtherColumnPageRows in the others, the page
// index's bounds for the layout columns only.
// `weight_pages`: the weights get page bounds and a page per run of the writer's `runs` (an OTree
// whose row groups go by region holds several weight slices per row group, a run each).
parquet::WriteOptions BlockWriteOptions(const table::WriteConfig& config, const std::vector<std::string>& columns,
                                        uint64_t page_rows, bool cell_pages, bool weight_pages);
// The comparison layouts' row order (kind sort | zorder | hilbert): rows by OrderKey of their
// coordinates, a stable sort (equal keys keep their order), and for `sort` equal first
// coordinates ordered by the columns' values. Returns the rows' indexes in that order.
std::vector<uint32_t> CurveOrder(const Placed& placed, const std::vector<int>& columns, const std::string& kind);
// A point's key in that order: the Z-order or Hilbert key, or for `sort` its first coordinate;
// its significant bits are the low OrderKeyBits(dims, kind).
uint64_t OrderKey(const uint32_t* coords, int dims, const std::string& kind);
int OrderKeyBits(int dims, const std::string& kind);
// Commits a layout change made against the table's version: fragments `removed` go, `files`
// come in, the layout becomes `meta` plus the blocks of `files`. Conflict if another writer
// committed in between. `before_commit` (may be empty) runs last on the manifest (WriteConfig).
Status CommitLayout(table::Table* table, const std::string& operation, std::set<uint32_t> removed,
                    std::vector<WrittenFile> files, LayoutMeta meta, const Schema& schema,
                    const table::CommitHook& before_commit);
// The bytes the live rows of `fragments` take decoded: their row groups' uncompressed sizes (as
// their footers say) plus string offsets and validity.
Result<uint64_t> DecodedBytes(const table::Table& table, const std::vector<const table::FragmentMeta*>& fragments);
// InvalidArgument for bad layout options (columns, kind, transformation, sizes).
Status CheckColumns(const Schema& schema, const LayoutOptions& options);
// The layout record of `options` (kind, columns and parameters; no revisions or blocks yet).
LayoutMeta MetaFor(const LayoutOptions& options);

}  // namespace lakeindex::layout::parts
