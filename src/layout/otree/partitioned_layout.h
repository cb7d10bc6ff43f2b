// The OTree layout built in parts (lakeindex.dask runs the parts on worker processes): the same
// result as LayoutTable — every row keeps the `_lakeindex_weight` and lands in the cube LayoutTable gives it,
// and the revision (transformations, cubes, max weights) is identical — with each part reading only
// its own fragments. Only the files differ: each part writes its own files (a cube may then have
// one block per part, as after an append).
//
// The protocol, driver (one process) and parts (any processes that open the same table version):
//  1. driver: PartitionFragments cuts the live fragments into parts of consecutive fragments;
//     a part knows its first row's position in the whole table, which fixes its rows' weights.
//  2. parts: SampleLayoutColumns -> driver: FitPartitionedTransforms (exact column statistics
//     and the same every-stride-th-row sample as LayoutTable).
//  3. parts: ComputePartitionPoints (coordinates and weights, kept by the part between rounds);
//     then one round per tree level: the driver's PartitionedTreeBuilder asks for the cubes of
//     one depth, each part answers LevelWeights (per cube reached: its row count and its
//     cube_rows + 1 lightest weights), the driver merges them into the exact max weights.
//     A row reaches a cube iff its weight is at least every ancestor's max weight, and a cube's
//     max weight is the (cube_rows+1)-th lightest weight reaching it, so the merge is exact.
//  4. parts: WriteLayoutPartition places their rows into the finished tree and writes blocks,
//     returning a description of the files (nothing committed) -> driver:
//     CommitPartitionedLayout commits them all as one version. A part that fails leaves only
//     unreferenced files (vacuum removes them); the table keeps its version.
// Thread safety: functions; PartitionedTreeBuilder as a value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layout/otree/layout_meta.h"
#include "layout/otree/layout_writer.h"
#include "lakeindex/column_stats.h"
#include "table/table.h"

namespace lakeindex::layout {

struct LayoutPartition {
  std::vector<uint32_t> fragments;  // ids, in manifest order, consecutive in it
  uint64_t first_row = 0;           // live rows of the version before the first of them
};

// The table's fragments cut into at most `parts` (>= 1) parts of consecutive fragments with
// about equal live rows (fragments without live rows are left out). Empty for an empty table.
std::vector<LayoutPartition> PartitionFragments(const table::Table& table, size_t parts);

// What the transformations are fitted on, per layout column: the exact statistics and the
// values of the rows at multiples of the sampling stride (LayoutTable's sample).
struct ColumnSample {
  ColumnStats stats;
  std::vector<Value> sample;
};

// What steps 2 and 3 read of a part: its live rows' layout columns, then `_lakeindex_weight`
// when the table has one. A part that keeps it between the steps (the Dask layout does) passes
// it as `read` and reads the table twice in all: this, and its whole rows in step 4.
Result<Batch> ReadLayoutColumns(const table::Table& table, const LayoutOptions& options, const LayoutPartition& part);

// ReadLayoutColumns' batch as bytes (an in-memory Parquet file) for a worker to keep between the
// steps, and back (Corruption for bytes that are not such a file).
Result<std::string> EncodeLayoutColumns(const Batch& read);
Result<Batch> DecodeLayoutColumns(std::string_view bytes);

// Step 2 on a part, from `read` (ReadLayoutColumns' batch of this part) or else the table:
// InvalidArgument for bad options (as LayoutTable) or a `read` that is not this part's,
// NotFound for fragments the version lacks.
Result<std::vector<ColumnSample>> SampleLayoutColumns(const table::Table& table, const LayoutOptions& options,
                                                      const LayoutPartition& part, const Batch* read = nullptr);
// Step 2 on the driver: `parts` in partition order.
Result<std::vector<otree::Transform>> FitPartitionedTransforms(const table::Table& table, const LayoutOptions& options,
                                                               const std::vector<std::vector<ColumnSample>>& parts);

// A part's rows as points: coords[d][i], weights[i] of its live rows in order.
struct PartitionPoints {
  std::vector<std::vector<uint32_t>> coords;
  std::vector<double> weights;
  otree::Points points() const;
  size_t size() const { return weights.size(); }
  double weight(size_t i) const { return weights[i]; }
};
// Step 3's start on a part, from `read` as SampleLayoutColumns takes it, or else the table.
Result<PartitionPoints> ComputePartitionPoints(const table::Table& table, const LayoutOptions& options,
                                               const LayoutPartition& part,
                                               const std::vector<otree::Transform>& transforms,
                                               const Batch* read = nullptr);

// The rows of one part that reach a cube: how many, and the lightest min(rows, cube_rows + 1)
// of their weights (ascending).
struct CubeWeights {
  otree::CubeId id;
  uint64_t rows = 0;
  std::vector<double> lightest;
};
// Step 3 on a part: the cubes at `depth` that its rows reach through `tree` (whose cubes above
// `depth` have their final max weights), in CubeId order. REQUIRES points.coords.size() == dims.
std::vector<CubeWeights> LevelWeights(const PartitionPoints& points, const otree::Tree& tree, int depth);

// A cube of one level as the driver decides it: the rows reaching it, and its max weight (the
// (cube_rows + 1)-th lightest of their weights; 1 when at most cube_rows reach it).
struct CubeMax {
  otree::CubeId id;
  uint64_t rows = 0;
  double max_weight = 1;
};

// Step 3 on the driver: builds the tree level by level from the parts' LevelWeights.
class PartitionedTreeBuilder {
 public:
  PartitionedTreeBuilder(int dims, uint64_t cube_rows);
  // Whether the tree is finished (no cube at depth() has rows going further down).
  bool done() const { return done_; }
  // The depth whose LevelWeights AddLevel wants next (0 first).
  int depth() const { return depth_; }
  // The cubes decided so far (what parts walk in LevelWeights).
  const otree::Tree& tree() const { return tree_; }
  // Merges every part's LevelWeights of depth(): adds those cubes (in LayoutTable's cube order)
  // with their max weights. InvalidArgument for cubes that are not children of the previous
  // level's inner cubes.
  Status AddLevel(const std::vector<std::vector<CubeWeights>>& parts);
  // The same with each cube's max weight decided by the caller (one entry per cube reached).
  Status AddLevelMaxWeights(std::vector<CubeMax> level);

 private:
  int dims_;
  uint64_t cube_rows_;
  int depth_ = 0;
  bool done_ = false;
  otree::Tree tree_;
  nlohmann::json cubes_ = nlohmann::json::array();  // tree_ as its JSON cube list
};

// The revision a partitioned layout writes (id 1, the fitted transformations, the finished tree).
// JSON form {"transforms": [...], "tree": {...}} for sending it to the parts.
std::string RevisionToJson(const Revision& revision);
Result<Revision> RevisionFromJson(const std::string& text, const table::Table& table, const LayoutOptions& options);

// Step 4 on a part: writes its rows as blocks of `revision`; returns the files written as the
// text of a partial manifest (its fragments and a layout holding only their blocks).
Result<std::string> WriteLayoutPartition(const table::Table& table, const LayoutOptions& options,
                                         const LayoutPartition& part, const Revision& revision);
// Step 4 on the driver: commits the files of every part (WriteLayoutPartition's texts) as one
// new version "layout", replacing every fragment of the table's version. Conflict if the table
// changed since; Corruption for a text that is not a part's output.
Result<LayoutReport> CommitPartitionedLayout(table::Table* table, const LayoutOptions& options, Revision revision,
                                             const std::vector<std::string>& written);

// Steps 1-3 in this process, one part at a time, and LayoutTable's path for tables over its
// memory limit. Each part's points are computed once and kept for the tree's levels: held, while
// the parts' points held take at most hold_points_bytes, else spilled to a temporary object and
// read back by each later pass — compactly either way (4 bytes a coordinate, and a weight's 32
// bits when it is a multiple of 2^-32, as every weight drawn since the weights have 32 bits).
// Each level's max weights come from one pass over the points holding nothing per row (in chunks
// on the shared pool): it counts each cube's rows and collects the weights in a narrow window
// where the (cube_rows + 1)-th lightest must lie by the counts of the level above (two more
// passes, by a histogram of weights, for a cube where it does not) — memory is the points held
// plus a few thousand weights per cube of the level. The points are let go when
// the tree is built. Step 4 differs from the distributed protocol's: the files are those of the
// one-piece layout (PackCubes over the whole table's cubes); each part's rows are read again,
// placed in the tree (their points computed anew from the rows) and spilled grouped by the file
// they go to (a Parquet object, a row group per file), then the files are written a batch at a
// time from their runs in part order — the same files and blocks as LayoutTable in one piece,
// two parts' worth of rows in memory at a time (the next part is read while one is spilled).
// Temporaries live under the table's _tmp/ and are removed when the layout ends, whether it
// succeeds or fails (vacuum removes those of a killed one).
Result<LayoutReport> LayoutTablePartitioned(table::Table* table, const LayoutOptions& options, size_t parts,
                                            uint64_t hold_points_bytes = UINT64_MAX);
// How wide the window of weights is that a level's one pass collects, in standard deviations
// each side (8). For tests: 0 sends every inner cube through the two further passes.
extern double weight_window_sigmas;
// The most prefix bits (dims x (depth - 1)) for which a level's passes find the cube above each
// point in a table instead of walking down from the root (16). For tests: 0 always walks.
extern int reach_table_bits;

// A comparison layout (sort / zorder / hilbert) sorted externally in `parts` parts of the table,
// one at a time: the transformations from the parts' statistics and samples (as the OTree's); a
// histogram of the rows' order keys by their top 16 bits, over the layout columns of every part,
// cut into key ranges of at most a part's rows (rows of equal key share a range; a range can be
// larger only when one 16-bit prefix holds more); each part's rows spilled grouped by key range
// (BucketRuns); then each range read from every run in part order, ordered as LayoutTable orders
// the whole table (CurveOrder is stable, so rows of equal key keep table order), and streamed
// into files of rows_per_file rows and row groups of cube_rows — the same files and row groups as
// LayoutTable. Temporaries as above.
Result<LayoutReport> LayoutOrderedPartitioned(table::Table* table, const LayoutOptions& options, size_t parts);

}  // namespace lakeindex::layout
