// The OTree's space: each indexed column maps monotonically into a 32-bit coordinate, and the
// indexed columns together span [0, 2^32)^n, split recursively into 2^n equal cubes.
//
// A Transform is fitted once per revision and stored in the manifest. Its one hard contract is
// monotonicity: CompareValues(a, b) <= 0 implies Coord(a) <= Coord(b), with NULL below every
// value (coordinate 0, shared with the smallest values) and NaN above every value (coordinate
// 2^32-1). Readers rely on it: the rows whose value lies in [lo, hi] all have coordinates in
// [Coord(lo), Coord(hi)], so a query box built from value bounds never loses a row. Values
// outside the fitted range clamp to the edges (still monotone; appends of such data start a new
// revision so that the edge cubes do not fill up).
// Thread safety: values; const methods may run concurrently.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lakeindex/batch.h"
#include "lakeindex/status.h"
#include "lakeindex/types.h"

namespace lakeindex::layout::otree {

inline constexpr int kMaxDims = 6;
inline constexpr int kCoordBits = 32;  // so the deepest cube has depth 32
inline constexpr uint32_t kMaxCoord = 0xFFFFFFFFu;

struct Transform {
  enum class Kind { kLinear, kQuantile };
  Kind kind = Kind::kLinear;
  TypeId type = TypeId::kInt64;
  // Linear: values (as double: ints, dates, timestamps, bools widened; monotone even where int64
  // rounds) map to (v - lo) / (hi - lo) of the coordinate range. lo == hi maps everything up to
  // lo to 0 (and values above it, like every value above hi, to 2^32-1).
  double lo = 0, hi = 0;
  // Quantile: sorted, distinct non-NULL, non-NaN boundary values; a value between bounds[i] and
  // bounds[i+1] maps into the i-th of (bounds.size()-1) equal coordinate intervals (linearly
  // inside it for numbers, by its first 8 bytes for strings). At least one bound.
  std::vector<Value> bounds;

  // Linear over [min, max] (non-NULL values of `type`; strings are refused: use quantile).
  static Result<Transform> FitLinear(TypeId type, const Value& min, const Value& max);
  // Quantile over a sample of the column's values (NULLs and NaNs in it are ignored), keeping at
  // most `max_bounds` bounds. InvalidArgument when the sample has no non-NULL, non-NaN value.
  static Result<Transform> FitQuantile(TypeId type, std::vector<Value> sample, size_t max_bounds = 1024);
  // The default for a column: quantile for strings and for skewed numbers (judged on `sample`:
  // equal-width buckets of the linear range far from equally filled), linear otherwise.
  // `min`/`max` are the column's exact bounds (the sample may miss them); they become bounds of a
  // quantile fit too. min/max NULL (an all-NULL column) gives a transform mapping NULL to 0.
  // Infinite or NaN min/max (no useful linear map) also choose quantile.
  static Result<Transform> FitDefault(TypeId type, const Value& min, const Value& max, std::vector<Value> sample);

  uint32_t Coord(const Value& v) const;
  // Coord of every row of `column` (of type `type`) into out[0, column.length()).
  void Coords(const Column& column, uint32_t* out) const;
  // Whether a non-NULL value lies inside the fitted range [lo, hi] / [bounds.front(), bounds.back()].
  // NULL and NaN are always covered: their coordinates (0, 2^32-1) do not depend on the fit.
  bool Covers(const Value& v) const;

  // {"kind":"linear","lo":x,"hi":y} or {"kind":"quantile","bounds":[...]} (bounds in the manifest's
  // value JSON; strings that are not valid UTF-8 as {"hex":"..."}). FromJson: Corruption for
  // anything malformed (wrong kind, non-finite or reversed range, bounds not increasing).
  nlohmann::json ToJson() const;
  static Result<Transform> FromJson(const nlohmann::json& j, TypeId type);
};

// An axis-aligned box of inclusive coordinate ranges (only the first `dims` entries matter).
struct Box {
  std::array<uint32_t, kMaxDims> lo{};
  std::array<uint32_t, kMaxDims> hi{};
  static Box Everything() {
    Box b;
    b.hi.fill(kMaxCoord);
    return b;
  }
};

// Coordinates of n points, one array per dimension (coords[d][i]),
// with their weights.
struct Points {
  int dims = 0;
  size_t size = 0;
  std::array<const uint32_t*, kMaxDims> coords{};
  const double* weights = nullptr;  // in [0, 1)
};

// A node of the recursive split: at depth d it covers, in every dimension i, the coordinates
// whose top d bits equal prefix[i]. The root has depth 0. Child number c (0 <= c < 2^dims) sets
// bit i of c from the next bit of dimension i.
struct CubeId {
  uint8_t depth = 0;
  std::array<uint32_t, kMaxDims> prefix{};

  CubeId Child(int child, int dims) const;   // REQUIRES depth < kCoordBits
  int ChildNumberOf(const uint32_t* coords, int dims) const;  // the child holding this point
  bool Contains(const uint32_t* coords, int dims) const;
  bool Intersects(const Box& box, int dims) const;
  uint32_t Lo(int dim) const;  // inclusive coordinate range in `dim`
  uint32_t Hi(int dim) const;
  // "" for the root, then one character per level from
  // "0-9A-Za-z+/" (base 64; child numbers < 64 since dims <= 6).
  std::string ToString(int dims) const;
  static Result<CubeId> Parse(std::string_view text, int dims);
  bool operator==(const CubeId&) const = default;
  auto operator<=>(const CubeId&) const = default;
};

}  // namespace lakeindex::layout::otree
