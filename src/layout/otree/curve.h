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
};

// The weight cuts between the slices of a cube whose weights span [lo, hi]: `slices` slices of
// equal width, with cuts moved onto (or, when none is within half a slice, added at) the
// fractions of the 1-2-5 series from 0.01% to 50% (0.01%, 0.02%, 0.05%, 0.1%, ... 50%) inside the range, so that a
// sample at such a fraction never reads part of a slice it does not need. Ascending.
std::vector<double> SliceCuts(double lo, double hi, int slices);

// Orders the rows `rows` of one cube (at depth `depth`) for writing: cut by weight into at most
// about `slices` slices (SliceCuts; fewer when the cube is small: a slice below `min_slice_rows`
// rows joins its neighbour), each slice sorted by its Hilbert key below the cube's depth (ties
// in the order of `rows`). Deterministic.
std::vector<Slice> PlanSlices(const std::vector<uint32_t>& rows, const Points& points, int depth, int slices,
                              size_t min_slice_rows);

}  // namespace lakeindex::layout::otree
