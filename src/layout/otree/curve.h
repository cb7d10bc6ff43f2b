// Space-filling curves and the row order inside a block.
//
// Keys are computed from the coordinate bits *below* a cube's depth (`skip_bits` top bits
// dropped), so rows inside one cube spread over the whole key range. A key uses up to 64 bits:
// floor(64 / dims) bits of each coordinate, the most significant first. Every coordinate value,
// including 0 and 2^32-1, gets a key (no silent loss of rows at the extremes, unlike curve keys
// computed from raw 64-bit values).
#pragma once

#include <cstdint>
#include <vector>

#include "layout/otree/space.h"

namespace lakeindex::layout::otree {

// Hilbert index of the point (dims in [1, kMaxDims]); consecutive keys are adjacent cells.
uint64_t HilbertKey(const uint32_t* coords, int dims, int skip_bits = 0);
// The same key by Skilling's transform (what HilbertKey computes with tables for 2 and 3 dims):
// the reference the tables are derived from and tested against.
uint64_t HilbertKeyByTransform(const uint32_t* coords, int dims, int skip_bits = 0);
// Z-order (Morton) key: bits interleaved, dimension 0 most significant in each group.
uint64_t ZOrderKey(const uint32_t* coords, int dims, int skip_bits = 0);

// One row group of a block: rows in write order and their weight range.
struct Slice {
  std::vector<uint32_t> rows;  // indexes into the caller's points
  double min_weight = 0;       // smallest weight in the slice
  double max_weight = 0;       // largest weight in the slice
  // The rows of its pages, in order (empty unless PlanSlices is given max_page_rows).
  std::vector<uint32_t> pages;
  // By region: the rows of each weight slice's run in it, in order (empty by slice).
  std::vector<uint32_t> runs;
};

// Cuts rows whose curve keys `keys` (ascending, n > 0) all lie in one cell of the curve into
// pages of at most max_rows rows made of whole cells: a cell that fits is one page (with the
// consecutive cells beside it that fit too), one that does not is cut at its children's
// boundaries, recursively. `shift` is the bit position of the cell's children's digit in a key
// (dims bits a level; below 0 the cell is a single point of the finest level). Appends each
// page's rows to `pages`. Pages cut every max_rows rows straddle cells, and their bounds span
// each; pages of whole cells have tight bounds.
void CellPages(const uint64_t* keys, size_t n, int dims, int shift, size_t max_rows, std::vector<uint32_t>* pages);

// The weight cuts between the slices of a cube whose weights span [lo, hi]: `slices` slices of
// equal width, with cuts moved onto (or, when none is within half a slice, added at) the
// fractions of the 1-2-5 series from 0.01% to 50% (0.01%, 0.02%, 0.05%, 0.1%, ... 50%) inside the range, so that a
// sample at such a fraction never reads part of a slice it does not need. Ascending.
std::vector<double> SliceCuts(double lo, double hi, int slices);

// A cube's slices are no narrower than this times its smallest weight. Equal-width slices of a
// cube high in the weights (the leaves, whose weights run to 1) are finer than a sample needs —
// a sample at f reads rows of weights up to the next cut above f, at most (1 + this) times its
// rows there, no more than the worst elsewhere (a sample at 0.3% read 1.25x) — and each slice's
// pages span its whole cube, so coarser slices make finer pages in space. 10M events rows: the
// leaves of the tree on (x, y, z), weights from 0.73, get 2 slices instead of 8, those of the
// tree on (x, y), from 0.85, one; every other cube keeps its 8.
inline constexpr double kSliceWidthOfLowest = 0.25;

// The number of equal-width slices PlanSlices cuts a cube of n rows with weights in [lo, hi]
// into (before SliceCuts adds the 1-2-5 fractions): `slices`, fewer when slices of
// min_slice_rows rows would not make that many, or when they would be narrower than
// kSliceWidthOfLowest * lo; at least 1.
int SliceCount(size_t n, double lo, double hi, int slices, size_t min_slice_rows);

// Orders the rows `rows` of one cube (at depth `depth`) for writing: cut by weight into at most
// about SliceCount slices (SliceCuts; a slice below `min_slice_rows` rows joins its
// neighbour), each slice sorted by its Hilbert key below the cube's depth (ties in the order of
// `rows`) and, when max_page_rows > 0, cut into pages by CellPages. Deterministic.
// Returns the row groups: with region_levels < 0 the slices themselves (each spans the cube's
// region); with region_levels >= 0 one row group per cell of the curve `region_levels` levels
// below the cube that holds rows (the cube itself at 0), in curve order, holding that cell's run
// of every slice, slice after slice, each run cut into its own pages — so a row group's bounds are
// its cell's (what engines that skip only row groups need) and the slices stay apart inside it
// (pages whose weights a sample can skip).
std::vector<Slice> PlanSlices(const std::vector<uint32_t>& rows, const Points& points, int depth, int slices,
                              size_t min_slice_rows, size_t max_page_rows = 0, int region_levels = -1);

}  // namespace lakeindex::layout::otree
