#include "layout/otree/curve.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <cmath>
#include <utility>

#include "common/radix_sort.h"

namespace lakeindex::layout::otree {

namespace {

// Bits of each coordinate in a key that skips the top skip_bits of them: min(32 - skip_bits, 64 / dims).
int KeyBits(int dims, int skip_bits) { return std::min(kCoordBits - std::clamp(skip_bits, 0, kCoordBits), 64 / dims); }

// The KeyBits(dims, skip_bits) coordinate bits just below the top `skip_bits` of each
// coordinate, into x[0, dims). Returns that number of bits.
int TakeBits(const uint32_t* coords, int dims, int skip_bits, uint32_t* x) {
  int avail = kCoordBits - std::clamp(skip_bits, 0, kCoordBits);
  int bits = KeyBits(dims, skip_bits);
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

// Skilling's transform ("Programming the Hilbert curve", AIP Conf. Proc. 707, 2004): turns the
// axes into the "transposed" Hilbert index, whose interleaved bits are the key. Any number of
// dimensions; x is overwritten.
uint64_t SkillingKey(uint32_t* x, int dims, int bits) {
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

// 3-D Hilbert order as a state machine reading one octant (a bit of each axis) per step, run two
// steps per table lookup: about 4 times faster than the transform, which is a tenth of a 3-D
// layout's writing. The machine is derived once from SkillingKey, so the keys are the same: a
// state is known by the digits it gives the 8 octants of its level (a turn or mirror of the cube
// that keeps the curve's order of octants is the identity), its successors by the digits of the
// level below, read off every prefix of a grid of 64 a side (and checked to agree wherever a
// state recurs). The curve's orientation at the top depends on the number of bits: a start
// state per count. Tests compare the keys with SkillingKey's.
class Hilbert3Machine {
 public:
  Hilbert3Machine() {
    constexpr int kBits = 6, kSide = 1 << kBits;
    // digit_of[level][prefix << 3 | octant]: the key's digit at that level.
    std::vector<std::vector<int>> digit_of(kBits);
    for (int level = 0; level < kBits; ++level) digit_of[size_t(level)].assign(size_t(8) << (3 * level), -1);
    for (uint32_t a = 0; a < kSide; ++a) {
      for (uint32_t b = 0; b < kSide; ++b) {
        for (uint32_t c = 0; c < kSide; ++c) {
          uint32_t x[3] = {a, b, c};
          const uint64_t key = SkillingKey(x, 3, kBits);
          size_t prefix = 0;
          for (int level = 0; level < kBits; ++level) {
            const int shift = kBits - 1 - level;
            const unsigned octant = Octant(a, b, c, shift);
            int& d = digit_of[size_t(level)][prefix << 3 | octant];
            const int digit = int(key >> (3 * shift)) & 7;
            if (d >= 0 && d != digit) Fail("a prefix's octant has two digits");
            d = digit;
            prefix = prefix << 3 | octant;
          }
        }
      }
    }
    // States by their digits; the successor of (state of prefix p, octant o) is the state of p.o.
    std::map<std::array<uint8_t, 8>, int> state_of;
    std::vector<std::array<int, 8>> next;
    auto state = [&](int level, size_t prefix) {
      std::array<uint8_t, 8> digits;
      for (size_t o = 0; o < 8; ++o) digits[o] = uint8_t(digit_of[size_t(level)][prefix << 3 | o]);
      auto [it, added] = state_of.emplace(digits, int(digits_.size()));
      if (added) {
        digits_.push_back(digits);
        next.push_back({-1, -1, -1, -1, -1, -1, -1, -1});
      }
      return it->second;
    };
    for (int level = 0; level + 1 < kBits; ++level) {
      for (size_t prefix = 0; prefix < (size_t(1) << (3 * level)); ++prefix) {
        const int s = state(level, prefix);
        for (size_t o = 0; o < 8; ++o) {
          const int t = state(level + 1, prefix << 3 | o);
          if (next[size_t(s)][o] >= 0 && next[size_t(s)][o] != t) Fail("a state has two successors");
          next[size_t(s)][o] = t;
        }
      }
    }
    for (const auto& n : next) {
      if (*std::min_element(n.begin(), n.end()) < 0) Fail("a state without successors");
    }
    // Start states: the top level's digits under each bit count.
    for (int bits = 1; bits <= 21; ++bits) {
      std::array<uint8_t, 8> digits;
      for (unsigned o = 0; o < 8; ++o) {
        uint32_t x[3] = {(o >> 2 & 1u) << (bits - 1), (o >> 1 & 1u) << (bits - 1), (o & 1u) << (bits - 1)};
        digits[o] = uint8_t(SkillingKey(x, 3, bits) >> (3 * (bits - 1)));
      }
      auto it = state_of.find(digits);
      if (it == state_of.end()) Fail("no state starts the curve");
      start_[bits] = uint8_t(it->second);
    }
    // One step: digit | next << 3. Two steps, indexed by state << 6 | the two bits of each axis
    // (a1 a0 b1 b0 c1 c0): the two digits | next << 6.
    one_.resize(digits_.size() * 8);
    two_.resize(digits_.size() * 64);
    for (size_t s = 0; s < digits_.size(); ++s) {
      for (size_t o = 0; o < 8; ++o) one_[s * 8 + o] = uint16_t(digits_[s][o] | next[s][o] << 3);
      for (unsigned i = 0; i < 64; ++i) {
        const unsigned o1 = Octant(i >> 4, i >> 2, i, 1), o2 = Octant(i >> 4, i >> 2, i, 0);
        const size_t t = size_t(next[s][o1]);
        two_[s * 64 + i] = uint16_t((digits_[s][o1] << 3 | digits_[t][o2]) | next[t][o2] << 6);
      }
    }
  }

  uint64_t Key(uint32_t a, uint32_t b, uint32_t c, int bits) const {
    unsigned s = start_[bits];
    uint64_t key = 0;
    int shift = bits - 1;
    if (bits & 1) {
      const unsigned e = one_[s * 8 + Octant(a, b, c, shift)];
      key = e & 7u;
      s = e >> 3;
      --shift;
    }
    for (; shift > 0; shift -= 2) {
      const unsigned i = ((a >> (shift - 1)) & 3u) << 4 | ((b >> (shift - 1)) & 3u) << 2 | ((c >> (shift - 1)) & 3u);
      const unsigned e = two_[s * 64 + i];
      key = key << 6 | (e & 63u);
      s = e >> 6;
    }
    return key;
  }

 private:
  static unsigned Octant(uint32_t a, uint32_t b, uint32_t c, int shift) {
    return ((a >> shift) & 1u) << 2 | ((b >> shift) & 1u) << 1 | ((c >> shift) & 1u);
  }
  [[noreturn]] static void Fail(const char* what) {
    std::fprintf(stderr, "lakeindex: internal error deriving the 3-D Hilbert machine: %s\n", what);
    std::abort();
  }

  std::vector<std::array<uint8_t, 8>> digits_;
  std::vector<uint16_t> one_, two_;
  uint8_t start_[22] = {};
};

}  // namespace

uint64_t HilbertKey(const uint32_t* coords, int dims, int skip_bits) {
  uint32_t x[kMaxDims];
  int bits = TakeBits(coords, dims, skip_bits, x);
  if (bits == 0) return 0;
  if (dims == 1) return x[0];  // the 1-D Hilbert curve is the line itself
  if (dims == 2) return Hilbert2(x[0], x[1], bits);
  if (dims == 3) {
    static const Hilbert3Machine machine;
    return machine.Key(x[0], x[1], x[2], bits);
  }
  return SkillingKey(x, dims, bits);
}

uint64_t HilbertKeyByTransform(const uint32_t* coords, int dims, int skip_bits) {
  uint32_t x[kMaxDims];
  int bits = TakeBits(coords, dims, skip_bits, x);
  return bits == 0 ? 0 : SkillingKey(x, dims, bits);
}

uint64_t ZOrderKey(const uint32_t* coords, int dims, int skip_bits) {
  uint32_t x[kMaxDims];
  int bits = TakeBits(coords, dims, skip_bits, x);
  return Interleave(x, dims, bits);
}

std::vector<double> SliceCuts(double lo, double hi, int slices) {
  std::vector<double> equal;  // equal-width cuts not (yet) moved onto a round fraction
  if (!(hi > lo) || slices < 2) return equal;
  const double width = (hi - lo) / slices;
  for (int k = 1; k < slices; ++k) equal.push_back(lo + k * width);
  // Fractions on the 1-2-5 series inside (lo, hi): move the nearest equal-width cut onto each,
  // or add one when none is within half a slice. Literals, so that each equals the double a
  // user's "0.1" parses to.
  static constexpr double kRound[] = {1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 0.1, 0.2, 0.5};
  std::vector<double> cuts;
  for (double g : kRound) {
    if (!(g > lo && g < hi)) continue;
    cuts.push_back(g);
    auto nearest = std::min_element(equal.begin(), equal.end(),
                                    [g](double x, double y) { return std::abs(x - g) < std::abs(y - g); });
    if (nearest != equal.end() && std::abs(*nearest - g) <= width / 2) equal.erase(nearest);
  }
  cuts.insert(cuts.end(), equal.begin(), equal.end());
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

void CellPages(const uint64_t* keys, size_t n, int dims, int shift, size_t max_rows, std::vector<uint32_t>* pages) {
  if (n <= max_rows) {
    pages->push_back(uint32_t(n));
    return;
  }
  if (shift < 0) {  // one cell of the finest level (equal keys): cut anywhere
    for (size_t at = 0; at < n; at += max_rows) pages->push_back(uint32_t(std::min(max_rows, n - at)));
    return;
  }
  // The cell's children in curve order (their keys' digit at this level rises along the run):
  // one too large is cut on its own; runs of consecutive small ones share a page while it fits.
  const uint64_t mask = (uint64_t(1) << dims) - 1;
  auto digit = [&](size_t i) { return (keys[i] >> shift) & mask; };
  size_t held = 0;  // rows of the page being filled
  for (size_t a = 0; a < n;) {
    size_t b = a + 1;
    while (b < n && digit(b) == digit(a)) ++b;
    const size_t child = b - a;
    if (held > 0 && held + child > max_rows) {
      pages->push_back(uint32_t(held));
      held = 0;
    }
    if (child > max_rows) {
      CellPages(keys + a, child, dims, shift - dims, max_rows, pages);
    } else {
      held += child;
    }
    a = b;
  }
  if (held > 0) pages->push_back(uint32_t(held));
}

int SliceCount(size_t n, double lo, double hi, int slices, size_t min_slice_rows) {
  size_t s = std::min<size_t>(size_t(std::max(slices, 1)), n / std::max<size_t>(min_slice_rows, 1));
  const double narrowest = kSliceWidthOfLowest * lo;
  if (narrowest > 0 && hi > lo) {
    const double need = std::ceil((hi - lo) / narrowest);  // may be huge: compared as a double
    if (need < double(s)) s = size_t(need);
  }
  return int(std::max<size_t>(s, 1));
}

std::vector<Slice> PlanSlices(const std::vector<uint32_t>& rows, const Points& points, int depth, int slices,
                              size_t min_slice_rows, size_t max_page_rows, int region_levels) {
  std::vector<Slice> out;
  const size_t n = rows.size();
  if (n == 0) return out;

  struct Entry {
    double w;
    uint32_t row;
    uint64_t key;
  };
  // Keys first, in the caller's row order (usually increasing: memory is walked forward).
  std::vector<Entry> e(n);
  uint32_t c[kMaxDims];
  double lo = points.weights[rows[0]], hi = lo;
  for (size_t i = 0; i < n; ++i) {
    uint32_t row = rows[i];
    for (int d = 0; d < points.dims; ++d) c[d] = points.coords[size_t(d)][row];
    e[i] = {points.weights[row], row, HilbertKey(c, points.dims, depth)};
    lo = std::min(lo, e[i].w);
    hi = std::max(hi, e[i].w);
  }
  // A cube's weights are uniform over its weight range, so cuts of equal width give slices of
  // about equal size; each row goes to the slice of the cuts below its weight (one counting pass,
  // no sort by weight).
  const std::vector<double> cuts = SliceCuts(lo, hi, SliceCount(n, lo, hi, slices, min_slice_rows));
  std::vector<size_t> slice_of(n);
  std::vector<size_t> count(cuts.size() + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    slice_of[i] = size_t(std::upper_bound(cuts.begin(), cuts.end(), e[i].w) - cuts.begin());
    ++count[slice_of[i]];
  }
  // Slices below min_slice_rows join the next one (the last joins the one before).
  std::vector<size_t> merged(count.size());
  size_t next = 0, held = 0;
  for (size_t k = 0; k < count.size(); ++k) {
    merged[k] = next;
    held += count[k];
    if (held >= min_slice_rows) {
      ++next;
      held = 0;
    }
  }
  size_t total = next + (held > 0 ? 1 : 0);
  if (held > 0 && next > 0 && held < min_slice_rows) {  // a small tail joins the slice before
    for (size_t k = count.size(); k-- > 0 && merged[k] == next;) merged[k] = next - 1;
    total = next;
  }
  out.resize(std::max<size_t>(total, 1));
  // Each slice in Hilbert order, rows with equal keys in the caller's order (a stable radix sort
  // over the key bytes that vary).
  std::vector<std::vector<SortEntry64>> parts(out.size());
  for (size_t i = 0; i < n; ++i) parts[merged[slice_of[i]]].push_back({e[i].key, i});
  std::vector<SortEntry64> scratch;
  const int bits = KeyBits(points.dims, depth);
  if (region_levels >= 0) {
    // Row groups by region: the cells `region_levels` levels below the cube, in curve order; each
    // holds the run of every slice inside it, slice after slice, each run in curve order and cut
    // into pages of whole cells (so a page, and the weights' page too, never mixes slices).
    const int levels = std::min(region_levels, bits);
    const int region_shift = points.dims * (bits - levels);
    auto region_of = [&](const SortEntry64& s) { return region_shift >= 64 ? 0 : e[s.address].key >> region_shift; };
    std::map<uint64_t, Slice> regions;
    for (std::vector<SortEntry64>& part : parts) {
      scratch.resize(part.size());
      const SortEntry64* sorted = RadixSortEntries(part.data(), scratch.data(), part.size(), true);
      for (size_t j = 0; j < part.size();) {
        const uint64_t region = region_of(sorted[j]);
        Slice& rg = regions[region];
        if (rg.rows.empty()) rg.min_weight = rg.max_weight = e[sorted[j].address].w;
        std::vector<uint64_t> keys;
        for (; j < part.size() && region_of(sorted[j]) == region; ++j) {
          const Entry& x = e[sorted[j].address];
          rg.min_weight = std::min(rg.min_weight, x.w);
          rg.max_weight = std::max(rg.max_weight, x.w);
          rg.rows.push_back(x.row);
          keys.push_back(x.key);
        }
        rg.runs.push_back(uint32_t(keys.size()));
        if (max_page_rows > 0) {
          CellPages(keys.data(), keys.size(), points.dims, points.dims * (bits - levels - 1), max_page_rows, &rg.pages);
        }
      }
    }
    std::vector<Slice> by_region;
    for (auto& [region, rg] : regions) by_region.push_back(std::move(rg));
    return by_region;
  }
  for (size_t k = 0; k < out.size(); ++k) {
    std::vector<SortEntry64>& part = parts[k];
    scratch.resize(part.size());
    const SortEntry64* sorted = RadixSortEntries(part.data(), scratch.data(), part.size(), true);
    Slice& slice = out[k];
    slice.min_weight = part.empty() ? 0 : e[part.front().address].w;
    slice.max_weight = slice.min_weight;
    slice.rows.reserve(part.size());
    std::vector<uint64_t> keys(max_page_rows > 0 ? part.size() : 0);
    for (size_t j = 0; j < part.size(); ++j) {
      const Entry& x = e[sorted[j].address];
      slice.min_weight = std::min(slice.min_weight, x.w);
      slice.max_weight = std::max(slice.max_weight, x.w);
      slice.rows.push_back(x.row);
      if (max_page_rows > 0) keys[j] = x.key;
    }
    if (max_page_rows > 0) {
      CellPages(keys.data(), keys.size(), points.dims, points.dims * (bits - 1), max_page_rows, &slice.pages);
    }
  }
  std::erase_if(out, [](const Slice& x) { return x.rows.empty(); });
  return out;
}

}  // namespace lakeindex::layout::otree
