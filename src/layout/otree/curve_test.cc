#include "layout/otree/curve.h"

#include <algorithm>
#include <bit>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include <map>

#include "util/test_util.h"

namespace lakeindex::layout::otree {
namespace {

using lakeindex::testing::Rng;

// Every cell of a grid of 2^bits per side (coordinates in the low bits, keys computed with the
// top 32 - bits bits skipped; random junk in the skipped bits must not matter).
struct Grid {
  int dims, bits;
  std::vector<std::array<uint32_t, kMaxDims>> cells;
  Grid(int d, int b) : dims(d), bits(b) {
    size_t n = size_t(1) << (d * b);
    for (size_t k = 0; k < n; ++k) {
      std::array<uint32_t, kMaxDims> c{};
      for (int i = 0; i < d; ++i) c[size_t(i)] = uint32_t(k >> (i * b)) & ((1u << b) - 1);
      cells.push_back(c);
    }
  }
};

TEST(CurveTest, HilbertIsABijectionOfAdjacentSteps) {
  Rng rng(1);
  for (auto [dims, bits] : {std::pair{1, 6}, {2, 1}, {2, 3}, {2, 4}, {2, 8}, {3, 1}, {3, 3}, {4, 2}, {5, 2}, {6, 2}}) {
    SCOPED_TRACE(std::to_string(dims) + " dims, " + std::to_string(bits) + " bits");
    Grid g(dims, bits);
    int skip = kCoordBits - bits;
    std::vector<const std::array<uint32_t, kMaxDims>*> by_key(g.cells.size(), nullptr);
    for (const auto& c : g.cells) {
      std::array<uint32_t, kMaxDims> junk = c;
      for (int i = 0; i < dims; ++i) junk[size_t(i)] |= uint32_t(rng.Next()) << bits;  // skipped bits
      uint64_t key = HilbertKey(c.data(), dims, skip);
      ASSERT_EQ(HilbertKey(junk.data(), dims, skip), key);
      ASSERT_LT(key, g.cells.size());
      ASSERT_EQ(by_key[key], nullptr) << "key " << key << " twice";
      by_key[key] = &c;
    }
    for (size_t k = 1; k < by_key.size(); ++k) {
      int manhattan = 0;
      for (int i = 0; i < dims; ++i) manhattan += std::abs(int((*by_key[k])[size_t(i)]) - int((*by_key[k - 1])[size_t(i)]));
      ASSERT_EQ(manhattan, 1) << "keys " << k - 1 << " and " << k;
    }
  }
}

TEST(CurveTest, HilbertTablesGiveTheTransformsKeys) {
  // 2 and 3 dims are table-driven; every depth (so every bit count, odd and even), random points
  // and the corners.
  Rng rng(7);
  for (int dims : {2, 3}) {
    for (int skip = 0; skip <= kCoordBits; ++skip) {
      SCOPED_TRACE(std::to_string(dims) + " dims, skip " + std::to_string(skip));
      for (int i = 0; i < 3000; ++i) {
        uint32_t c[3];
        for (uint32_t& v : c) v = i < 8 ? ((i >> (&v - c)) & 1 ? kMaxCoord : 0) : uint32_t(rng.Next());
        ASSERT_EQ(HilbertKey(c, dims, skip), HilbertKeyByTransform(c, dims, skip)) << c[0] << " " << c[1] << " " << c[2];
      }
    }
  }
}

TEST(CurveTest, ZOrderInterleavesDimensionZeroFirst) {
  uint32_t a[2] = {1, 0}, b[2] = {0, 1};
  EXPECT_EQ(ZOrderKey(a, 2, 31), 2u);
  EXPECT_EQ(ZOrderKey(b, 2, 31), 1u);
  uint32_t ones_x[2] = {kMaxCoord, 0}, ones_y[2] = {0, kMaxCoord};
  EXPECT_EQ(ZOrderKey(ones_x, 2), 0xAAAAAAAAAAAAAAAAull);
  EXPECT_EQ(ZOrderKey(ones_y, 2), 0x5555555555555555ull);
  // 3 dims: 21 bits each, the top ones.
  uint32_t c[3] = {0x80000000u, 0x40000000u, 0x00000800u};
  EXPECT_EQ(ZOrderKey(c, 3), (uint64_t(1) << 62) | (uint64_t(1) << 58) | uint64_t(1) << 0);
  // A grid: bijection, and keys follow from bit interleaving.
  Grid g(3, 3);
  std::set<uint64_t> keys;
  for (const auto& cell : g.cells) {
    uint64_t key = ZOrderKey(cell.data(), 3, kCoordBits - 3), want = 0;
    for (int bit = 2; bit >= 0; --bit) {
      for (int i = 0; i < 3; ++i) want = (want << 1) | ((cell[size_t(i)] >> bit) & 1u);
    }
    EXPECT_EQ(key, want);
    keys.insert(key);
  }
  EXPECT_EQ(keys.size(), g.cells.size());
}

TEST(CurveTest, ExtremeCoordinatesGetDistinctKeys) {
  for (int dims = 1; dims <= kMaxDims; ++dims) {
    std::set<uint64_t> hilbert, zorder;
    for (int corner = 0; corner < (1 << dims); ++corner) {
      uint32_t c[kMaxDims];
      for (int i = 0; i < dims; ++i) c[i] = (corner >> i) & 1 ? kMaxCoord : 0;
      hilbert.insert(HilbertKey(c, dims));
      zorder.insert(ZOrderKey(c, dims));
    }
    EXPECT_EQ(hilbert.size(), size_t(1) << dims);
    EXPECT_EQ(zorder.size(), size_t(1) << dims);
  }
  // Full resolution in 2 dims: the key is a bijection of 64 bits, so distinct points differ.
  Rng rng(2);
  std::set<uint64_t> keys;
  for (int i = 0; i < 2000; ++i) {
    uint32_t c[2] = {uint32_t(rng.Next()), uint32_t(rng.Uniform(4))};
    uint32_t d[2] = {c[0], c[1] + 1};
    EXPECT_NE(HilbertKey(c, 2), HilbertKey(d, 2));
  }
  uint32_t lo[2] = {0, 0}, hi[2] = {kMaxCoord, 0};
  EXPECT_EQ(HilbertKey(lo, 2), 0u);
  EXPECT_EQ(HilbertKey(hi, 2), ~uint64_t(0));  // the curve ends at the far corner of axis 0
  EXPECT_EQ(HilbertKey(hi, 2, 32), 0u);       // nothing left below a depth-32 cube
}

TEST(SliceCutsTest, EqualWidthCutsMovedOntoOrAddedAtRoundFractions) {
  // No 1-2-5 fraction inside: equal widths.
  std::vector<double> cuts = SliceCuts(0.21, 0.29, 4);
  ASSERT_EQ(cuts.size(), 3u);
  EXPECT_NEAR(cuts[0], 0.23, 1e-12);
  EXPECT_NEAR(cuts[1], 0.25, 1e-12);
  EXPECT_NEAR(cuts[2], 0.27, 1e-12);
  // A level-2 cube of a 3-D tree: 0.1 is added (no cut within half a slice), 0.2 and 0.5 are
  // moved onto.
  cuts = SliceCuts(0.09, 0.73, 8);
  EXPECT_EQ(cuts.size(), 8u);
  for (double g : {0.1, 0.2, 0.5}) EXPECT_NE(std::find(cuts.begin(), cuts.end(), g), cuts.end()) << g;
  EXPECT_TRUE(std::is_sorted(cuts.begin(), cuts.end()));
  EXPECT_GT(cuts.front(), 0.09);
  EXPECT_LT(cuts.back(), 0.73);
  // The root of a large tree: small fractions down to 0.01%.
  cuts = SliceCuts(0, 0.01, 8);
  for (double g : {1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3}) EXPECT_NE(std::find(cuts.begin(), cuts.end(), g), cuts.end()) << g;
  EXPECT_EQ(std::find(cuts.begin(), cuts.end(), 5e-5), cuts.end());
  EXPECT_TRUE(SliceCuts(0.3, 0.3, 8).empty());
  EXPECT_TRUE(SliceCuts(0.3, 0.6, 1).empty());
}

// CellPages: pages of at most max_rows rows that add up to the rows, and no page boundary
// inside a cell of the curve that fits in a page (the smallest cell holding the rows on both
// sides of a boundary has more than max_rows rows).
TEST(PlanSlicesTest, CellPagesCutOnlyCellsTooLargeForAPage) {
  Rng rng(12);
  for (int iter = 0; iter < 300; ++iter) {
    const int dims = 1 + int(rng.Uniform(kMaxDims));
    const int bits = std::min(32, 64 / dims);
    const size_t n = 1 + rng.Uniform(iter % 4 == 0 ? 40 : 5000);
    const size_t max_rows = 1 + rng.Uniform(200);
    // Keys clustered at random levels (and some equal), so cells of every size occur.
    std::vector<uint64_t> keys(n);
    const uint64_t top = dims * bits == 64 ? ~uint64_t(0) : (uint64_t(1) << (dims * bits)) - 1;
    uint64_t base = rng.Next() & top;
    for (size_t i = 0; i < n; ++i) {
      if (rng.Chance(0.05)) base = rng.Next() & top;
      const int free_bits = int(rng.Uniform(uint64_t(dims * bits) + 1));
      const uint64_t low = free_bits == 0 ? 0 : free_bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << free_bits) - 1;
      keys[i] = (base & ~low) | (rng.Next() & low & top);
    }
    std::sort(keys.begin(), keys.end());
    // All rows in one cell: the cell of the keys' common prefix, as PlanSlices calls it (the
    // whole key range of a cube's depth).
    std::vector<uint32_t> pages;
    CellPages(keys.data(), n, dims, dims * (bits - 1), max_rows, &pages);
    SCOPED_TRACE(std::to_string(dims) + " dims, " + std::to_string(n) + " rows, pages of " + std::to_string(max_rows));
    size_t at = 0;
    for (uint32_t p : pages) {
      ASSERT_GE(p, 1u);
      ASSERT_LE(p, max_rows);
      at += p;
      if (at == n) break;
      // The boundary between rows at-1 and at: the smallest cell holding both.
      const uint64_t diff = keys[at - 1] ^ keys[at];
      const int shift = diff == 0 ? 0 : (63 - std::countl_zero(diff)) / dims * dims + dims;
      auto in_cell = [&](uint64_t k) { return shift >= 64 ? true : (k >> shift) == (keys[at] >> shift); };
      size_t lo = at, hi = at;
      while (lo > 0 && in_cell(keys[lo - 1])) --lo;
      while (hi < n && in_cell(keys[hi])) ++hi;
      ASSERT_GT(hi - lo, max_rows) << "a page ends at row " << at << " inside a cell of " << hi - lo << " rows";
    }
    ASSERT_EQ(at, n);
  }
}

// Slices are as many as asked, unless too few rows fill them or they would be narrower than
// kSliceWidthOfLowest times the cube's smallest weight; then the fewest no wider than that.
TEST(PlanSlicesTest, SliceCountKeepsSlicesNoNarrowerThanNeeded) {
  Rng rng(9);
  for (int iter = 0; iter < 2000; ++iter) {
    const size_t n = rng.Uniform(100000);
    const double lo = iter % 5 == 0 ? 0 : rng.Unit(), hi = lo + rng.Unit() * (1 - lo);
    const int slices = 1 + int(rng.Uniform(16));
    const size_t min_rows = 1 + rng.Uniform(5000);
    const int s = SliceCount(n, lo, hi, slices, min_rows);
    const size_t fit = std::max<size_t>(1, std::min<size_t>(size_t(slices), n / min_rows));
    SCOPED_TRACE(std::to_string(n) + " rows, weights " + std::to_string(lo) + ".." + std::to_string(hi) + ", " +
                 std::to_string(slices) + " slices of " + std::to_string(min_rows));
    ASSERT_GE(s, 1);
    ASSERT_LE(size_t(s), fit);
    const double width = (hi - lo) / s, narrowest = kSliceWidthOfLowest * lo;
    if (size_t(s) < fit) {
      // Fewer than fit: each slice at most `narrowest` wide (a sample reads at most
      // 1 + kSliceWidthOfLowest times its rows in the cube), and one slice fewer would not be.
      EXPECT_LE(width, narrowest * (1 + 1e-12));
      if (s > 1) { EXPECT_GT((hi - lo) / (s - 1), narrowest); }
    } else if (lo > 0 && s > 1) {
      EXPECT_GT((hi - lo) / (s - 1), narrowest * (1 - 1e-12));  // none narrower than needed
    }
  }
  // The leaves of 10M rows on three columns (weights from 0.73): two slices, on two columns
  // (from 0.85): one; the cubes below them (0.09..0.73, 0..0.01): all eight.
  EXPECT_EQ(SliceCount(5300, 0.73, 1.0, 8, 256), 2);
  EXPECT_EQ(SliceCount(5900, 0.85, 1.0, 8, 256), 1);
  EXPECT_EQ(SliceCount(100000, 0.09, 0.73, 8, 256), 8);
  EXPECT_EQ(SliceCount(100000, 0, 0.01, 8, 256), 8);
}

TEST(PlanSlicesTest, WeightCutHilbertSortedSlices) {
  Rng rng(4);
  for (int iter = 0; iter < 60; ++iter) {
    int dims = 1 + int(rng.Uniform(kMaxDims));
    size_t n = 1 + rng.Uniform(3000);
    std::vector<std::vector<uint32_t>> coords(size_t(dims), std::vector<uint32_t>(n + 50));
    std::vector<double> weights(n + 50);
    int depth = int(rng.Uniform(6));
    // A cube's weights: uniform over a random range, some ties.
    double lo_w = rng.Unit() * 0.5, hi_w = lo_w + rng.Unit() * (1 - lo_w);
    for (size_t i = 0; i < n + 50; ++i) {
      for (int d = 0; d < dims; ++d) coords[size_t(d)][i] = uint32_t(rng.Next());
      weights[i] = rng.Chance(0.1) ? (lo_w + hi_w) / 2 : lo_w + rng.Unit() * (hi_w - lo_w);
    }
    Points p;
    p.dims = dims;
    p.size = n + 50;
    for (int d = 0; d < dims; ++d) p.coords[size_t(d)] = coords[size_t(d)].data();
    p.weights = weights.data();
    // The cube's rows: a random subset, in random order.
    std::vector<uint32_t> rows(n + 50);
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = uint32_t(i);
    std::shuffle(rows.begin(), rows.end(), std::mt19937(unsigned(iter)));
    rows.resize(n);
    int slices = 1 + int(rng.Uniform(8));
    size_t min_rows = iter % 3 == 0 ? 1 : rng.Uniform(200);
    std::vector<Slice> plan = PlanSlices(rows, p, depth, slices, min_rows);
    double lo = 2, hi = -1;
    for (uint32_t r : rows) {
      lo = std::min(lo, weights[r]);
      hi = std::max(hi, weights[r]);
    }
    const std::vector<double> cuts = SliceCuts(lo, hi, SliceCount(n, lo, hi, slices, min_rows));
    ASSERT_GE(plan.size(), 1u);
    ASSERT_LE(plan.size(), cuts.size() + 1);
    std::vector<uint32_t> seen;
    for (size_t k = 0; k < plan.size(); ++k) {
      const Slice& s = plan[k];
      if (plan.size() > 1) { EXPECT_GE(s.rows.size(), min_rows); }
      double s_lo = 2, s_hi = -1;
      uint64_t last_key = 0;
      for (size_t i = 0; i < s.rows.size(); ++i) {
        uint32_t r = s.rows[i];
        s_lo = std::min(s_lo, weights[r]);
        s_hi = std::max(s_hi, weights[r]);
        uint32_t c[kMaxDims];
        for (int d = 0; d < dims; ++d) c[d] = coords[size_t(d)][r];
        uint64_t key = HilbertKey(c, dims, depth);
        if (i > 0) { ASSERT_LE(last_key, key); }
        last_key = key;
        seen.push_back(r);
      }
      EXPECT_EQ(s.min_weight, s_lo);
      EXPECT_EQ(s.max_weight, s_hi);
      if (k > 0) { EXPECT_LT(plan[k - 1].max_weight, s.min_weight); }
      // Without merging (min_rows 1), no slice straddles a cut: a sample at a cut reads whole
      // slices only.
      if (min_rows <= 1) {
        for (double g : cuts) EXPECT_FALSE(s.min_weight < g && g <= s.max_weight) << g;
      }
    }
    std::sort(seen.begin(), seen.end());
    std::vector<uint32_t> sorted_rows = rows;
    std::sort(sorted_rows.begin(), sorted_rows.end());
    ASSERT_EQ(seen, sorted_rows);
    // Deterministic.
    std::vector<Slice> again = PlanSlices(rows, p, depth, slices, min_rows);
    ASSERT_EQ(again.size(), plan.size());
    for (size_t k = 0; k < plan.size(); ++k) EXPECT_EQ(again[k].rows, plan[k].rows);
  }
  Points empty;
  EXPECT_TRUE(PlanSlices({}, empty, 0, 4, 1).empty());
}

// Row groups by region: the same rows as the slices, each row group the rows of one cell
// `levels` below the cube (cells ascending in curve order), inside it every slice's run in slice
// order and curve order (`runs` says where each ends), and pages that never cross a run: so a row
// group's bounds are its cell's and a page's weights are one slice's.
TEST(PlanSlicesTest, RowGroupsByRegionHoldEachSlicesRunOfOneCell) {
  Rng rng(9);
  for (int iter = 0; iter < 40; ++iter) {
    const int dims = 1 + int(rng.Uniform(3));
    const size_t n = 1 + rng.Uniform(4000);
    const int depth = int(rng.Uniform(4));
    const int levels = int(rng.Uniform(4));
    std::vector<std::vector<uint32_t>> coords(static_cast<size_t>(dims), std::vector<uint32_t>(n));
    std::vector<double> weights(n);
    for (size_t i = 0; i < n; ++i) {
      for (int d = 0; d < dims; ++d) coords[size_t(d)][i] = uint32_t(rng.Next());
      weights[i] = 0.2 + 0.3 * rng.Unit();
    }
    Points p;
    p.dims = dims;
    p.size = n;
    for (int d = 0; d < dims; ++d) p.coords[size_t(d)] = coords[size_t(d)].data();
    p.weights = weights.data();
    std::vector<uint32_t> rows(n);
    for (size_t i = 0; i < n; ++i) rows[i] = uint32_t(i);
    const std::vector<Slice> slices = PlanSlices(rows, p, depth, 4, 16, 24);
    const std::vector<Slice> regions = PlanSlices(rows, p, depth, 4, 16, 24, levels);
    std::map<uint32_t, size_t> slice_of;
    for (size_t k = 0; k < slices.size(); ++k) {
      for (uint32_t r : slices[k].rows) slice_of[r] = k;
    }
    const int shift = dims * (std::min(32 - depth, 64 / dims) - levels);
    auto key_of = [&](uint32_t r) {
      uint32_t c[kMaxDims];
      for (int d = 0; d < dims; ++d) c[d] = coords[size_t(d)][r];
      return HilbertKey(c, dims, depth);
    };
    auto region_of = [&](uint32_t r) { return shift >= 64 ? uint64_t(0) : key_of(r) >> shift; };
    std::vector<uint32_t> seen;
    uint64_t last_region = 0;
    for (size_t g = 0; g < regions.size(); ++g) {
      const Slice& rg = regions[g];
      ASSERT_FALSE(rg.rows.empty());
      const uint64_t region = region_of(rg.rows[0]);
      if (g > 0) { EXPECT_LT(last_region, region); }
      last_region = region;
      double lo = 2, hi = -1;
      size_t at = 0;
      for (uint32_t page : rg.pages) {  // a page's rows: one slice, in curve order
        ASSERT_LE(at + page, rg.rows.size());
        for (size_t i = at; i < at + page; ++i) {
          EXPECT_EQ(slice_of[rg.rows[i]], slice_of[rg.rows[at]]);
          if (i > at) { EXPECT_LE(key_of(rg.rows[i - 1]), key_of(rg.rows[i])); }
        }
        at += page;
      }
      EXPECT_EQ(at, rg.rows.size());
      at = 0;
      std::set<size_t> run_slices;
      for (uint32_t run : rg.runs) {  // a run: all of one slice's rows in the cell, and no page crosses it
        ASSERT_GT(run, 0u);
        ASSERT_LE(at + run, rg.rows.size());
        const size_t k = slice_of[rg.rows[at]];
        EXPECT_TRUE(run_slices.insert(k).second) << "two runs of slice " << k;
        for (size_t i = at; i < at + run; ++i) EXPECT_EQ(slice_of[rg.rows[i]], k);
        if (at + run < rg.rows.size()) { EXPECT_NE(slice_of[rg.rows[at + run]], k); }
        at += run;
        size_t page_end = 0;
        for (uint32_t page : rg.pages) {
          page_end += page;
          if (page_end >= at) {
            EXPECT_EQ(page_end, at) << "a page crosses the end of a run";
            break;
          }
        }
      }
      EXPECT_EQ(at, rg.rows.size());
      for (size_t i = 0; i < rg.rows.size(); ++i) {
        const uint32_t r = rg.rows[i];
        EXPECT_EQ(region_of(r), region);
        if (i > 0) { EXPECT_LE(slice_of[rg.rows[i - 1]], slice_of[r]); }  // runs in slice order
        lo = std::min(lo, weights[r]);
        hi = std::max(hi, weights[r]);
        seen.push_back(r);
      }
      EXPECT_EQ(rg.min_weight, lo);
      EXPECT_EQ(rg.max_weight, hi);
    }
    if (levels == 0) { EXPECT_EQ(regions.size(), 1u); }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, rows);
  }
}

}  // namespace
}  // namespace lakeindex::layout::otree
