#include "layout/otree/curve.h"

#include <algorithm>
#include <utility>

namespace lakeindex::layout::otree {

namespace {

// The `bits` coordinate bits just below the top `skip_bits` of each coordinate, into x[0, dims).
// Returns `bits` = min(32 - skip_bits, 64 / dims).
int TakeBits(const uint32_t* coords, int dims, int skip_bits, uint32_t* x) {
  int avail = kCoordBits - std::clamp(skip_bits, 0, kCoordBits);
  int bits = std::min(avail, 64 / dims);
  for (int i = 0; i < dims; ++i) {
    uint64_t below = uint64_t(coords[i]) & ((uint64_t(1) << avail) - 1);  // top skip_bits dropped
    x[i] = uint32_t(below >> (avail - bits));
  }
  return bits;
}

// The low 32 bits of v spread to the even bits of a 64-bit word.
uint64_t Spread2(uint64_t v) {
  v = (v | (v << 16)) & 0x0000FFFF0000FFFFull;
  v = (v | (v << 8)) & 0x00FF00FF00FF00FFull;
  v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0Full;
  v = (v | (v << 2)) & 0x3333333333333333ull;
  v = (v | (v << 1)) & 0x5555555555555555ull;
  return v;
}

// The low 21 bits of v spread to every third bit.
uint64_t Spread3(uint64_t v) {
  v &= 0x1FFFFF;
  v = (v | (v << 32)) & 0x1F00000000FFFFull;
  v = (v | (v << 16)) & 0x1F0000FF0000FFull;
  v = (v | (v << 8)) & 0x100F00F00F00F00Full;
  v = (v | (v << 4)) & 0x10C30C30C30C30C3ull;
  v = (v | (v << 2)) & 0x1249249249249249ull;
  return v;
}

// Bits of x[0..dims) interleaved, most significant level first, x[0] first inside a level.
uint64_t Interleave(const uint32_t* x, int dims, int bits) {
  if (dims == 2) return (Spread2(x[0]) << 1) | Spread2(x[1]);
  if (dims == 3) return (Spread3(x[0]) << 2) | (Spread3(x[1]) << 1) | Spread3(x[2]);
  uint64_t key = 0;
  for (int b = bits - 1; b >= 0; --b) {
    for (int i = 0; i < dims; ++i) key = (key << 1) | ((x[i] >> b) & 1u);
  }
  return key;
}

// 2-D Hilbert order as a 4-state machine (state = swap bit | invert bit << 1, the transform
// the remaining lower bits see), run on 4 bits of each axis per table lookup: about 6 times
// faster than the bit-by-bit n-dimensional transform on the common 2-D case.
// Table entry: (8 key bits << 2) | next state, indexed by state << 8 | x nibble << 4 | y nibble.
struct Hilbert2Table {
  uint16_t entry[4 * 256];
  Hilbert2Table() {
    for (int state = 0; state < 4; ++state) {
      for (int nib = 0; nib < 256; ++nib) {
        int sw = state & 1, inv = state >> 1, key = 0;
        for (int b = 3; b >= 0; --b) {
          int rx = (nib >> (4 + b)) & 1, ry = (nib >> b) & 1;
          if (sw) std::swap(rx, ry);
          rx ^= inv;
          ry ^= inv;
          key = (key << 2) | ((3 * rx) ^ ry);
          if (ry == 0) {  // this quadrant turns the lower bits: swap, and invert if rx
            sw ^= 1;
            inv ^= rx;
          }
        }
        entry[state << 8 | nib] = uint16_t(key << 2 | sw | inv << 1);
      }
    }
  }
};

uint64_t Hilbert2(uint32_t x, uint32_t y, int bits) {
  static const Hilbert2Table table;
  // Left-align: the key of the refined point (x << k, y << k) shifted down by 2k is the key of
  // (x, y), since the curve's order of cells at one level does not depend on lower bits.
  int k = 32 - bits;
  x <<= k;
  y <<= k;
  uint64_t key = 0;
  unsigned state = 0;
  for (int shift = 28; shift >= 0; shift -= 4) {
    unsigned e = table.entry[state << 8 | ((x >> shift) & 15u) << 4 | ((y >> shift) & 15u)];
    key = (key << 8) | (e >> 2);
    state = e & 3u;
  }
  return key >> (2 * k);
}

}  // namespace

uint64_t HilbertKey(const uint32_t* coords, int dims, int skip_bits) {
  uint32_t x[kMaxDims];
  int bits = TakeBits(coords, dims, skip_bits, x);
  if (bits == 0) return 0;
  if (dims == 1) return x[0];  // the 1-D Hilbert curve is the line itself
  if (dims == 2) return Hilbert2(x[0], x[1], bits);
  // Skilling's transform ("Programming the Hilbert curve", AIP Conf. Proc. 707, 2004): turns the
  // axes into the "transposed" Hilbert index, whose interleaved bits are the key.
  // Branch-free: the branches of the textbook loop are data-dependent coin flips.
  uint32_t top = uint32_t(1) << (bits - 1);
  for (uint32_t q = top; q > 1; q >>= 1) {
    uint32_t p = q - 1;
    for (int i = 0; i < dims; ++i) {
      uint32_t set = 0u - ((x[i] & q) != 0);   // all ones when bit q of axis i is set
      uint32_t t = (x[0] ^ x[i]) & p & ~set;   // clear: exchange the low bits of axes 0 and i
      x[0] ^= (p & set) | t;                   // set: invert the low bits of axis 0
      x[i] ^= t;
    }
  }
  for (int i = 1; i < dims; ++i) x[i] ^= x[i - 1];  // Gray encode
  // t ^= q - 1 for every set bit q > 1 of the last axis: bit j of t is the parity of the last
  // axis's bits above j, a suffix XOR.
  uint32_t t = x[dims - 1] >> 1;
  t ^= t >> 1;
  t ^= t >> 2;
  t ^= t >> 4;
  t ^= t >> 8;
  t ^= t >> 16;
  for (int i = 0; i < dims; ++i) x[i] ^= t;
  return Interleave(x, dims, bits);
}

uint64_t ZOrderKey(const uint32_t* coords, int dims, int skip_bits) {
  uint32_t x[kMaxDims];
  int bits = TakeBits(coords, dims, skip_bits, x);
  return Interleave(x, dims, bits);
}

std::vector<Slice> PlanSlices(const std::vector<uint32_t>& rows, const Points& points, int depth, int slices,
                              size_t min_slice_rows) {
  std::vector<Slice> out;
  size_t n = rows.size();
  if (n == 0) return out;
  size_t s = std::max<size_t>(1, std::min<size_t>(size_t(std::max(slices, 1)), n / std::max<size_t>(min_slice_rows, 1)));

  // Rows with their weights, cut by weight: nth_element at each cut (O(n log s), not a full
  // sort). Ties on weight break by row number so the plan is deterministic.
  struct Entry {
    double w;
    uint32_t row;
    uint64_t key;
  };
  // Keys first, in the caller's row order (usually increasing: memory is walked forward).
  std::vector<Entry> e(n);
  uint32_t c[kMaxDims];
  constexpr size_t kAhead = 16;  // a cube's rows are scattered over the points: prefetch them
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) {
      uint32_t later = rows[i + kAhead];
      for (int d = 0; d < points.dims; ++d) __builtin_prefetch(points.coords[size_t(d)] + later);
      __builtin_prefetch(points.weights + later);
    }
    uint32_t row = rows[i];
    for (int d = 0; d < points.dims; ++d) c[d] = points.coords[size_t(d)][row];
    e[i] = {points.weights[row], row, HilbertKey(c, points.dims, depth)};
  }
  auto by_weight = [](const Entry& a, const Entry& b) { return a.w < b.w || (a.w == b.w && a.row < b.row); };
  std::vector<size_t> cut(s + 1);
  for (size_t k = 0; k <= s; ++k) cut[k] = k * (n / s) + std::min(k, n % s);  // first n % s get one more
  // Select the cuts recursively so that each nth_element works on a shrinking range.
  auto select = [&](auto&& self, size_t lo_cut, size_t hi_cut) -> void {
    if (hi_cut - lo_cut < 2) return;
    size_t mid = (lo_cut + hi_cut) / 2;
    std::nth_element(e.begin() + long(cut[lo_cut]), e.begin() + long(cut[mid]), e.begin() + long(cut[hi_cut]), by_weight);
    self(self, lo_cut, mid);
    self(self, mid, hi_cut);
  };
  select(select, 0, s);

  out.resize(s);
  for (size_t k = 0; k < s; ++k) {
    auto b = e.begin() + long(cut[k]), en = e.begin() + long(cut[k + 1]);
    Slice& slice = out[k];
    slice.min_weight = b->w;
    slice.max_weight = b->w;
    for (auto it = b; it != en; ++it) {
      slice.min_weight = std::min(slice.min_weight, it->w);
      slice.max_weight = std::max(slice.max_weight, it->w);
    }
    std::sort(b, en, [&](const Entry& x, const Entry& y) { return x.key < y.key || (x.key == y.key && by_weight(x, y)); });
    slice.rows.reserve(cut[k + 1] - cut[k]);
    for (auto it = b; it != en; ++it) slice.rows.push_back(it->row);
  }
  return out;
}

}  // namespace lakeindex::layout::otree
