// Helpers shared by the tests: scratch directories and reproducible random data with hostile
// values mixed in.
//
// Random data is a pure function of its seed (own generator, no std distributions, so the same
// seed gives the same data with every standard library). Hostile values, per type:
//   int32/int64: min, max, 0, -1, 1 (and +-(2^53+1) for int64, which a double cannot hold)
//   float/double: NaN, +-inf, -0.0, 0.0, smallest normal and subnormal, +-max, 0.1, 1/3
//   string: "", quotes, comma, newline, CR, tab, backslash, LIKE wildcards, 2/3/4-byte UTF-8
//   date: 0001-01-01, 9999-12-31, 1969-12-31, 1970-01-01, 2000-02-29, 0000-01-01, -0044-03-15
//   timestamp: -1, 0, 1 micros, year 1, 9999-12-31 23:59:59.999999, BC instants
// Strings are always valid UTF-8 and never contain NUL.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/batch.h"
#include "lakeindex/types.h"

namespace lakeindex::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it by the destructor.
// Aborts the process if the directory cannot be made: a test without scratch space cannot run.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string Join(std::string_view name) const;

 private:
  std::string path_;
};

// splitmix64: small, fast, and the same sequence everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [0, n); REQUIRES: n > 0.
  uint64_t Uniform(uint64_t n);
  // Uniform in [lo, hi]; REQUIRES: lo <= hi.
  int64_t Range(int64_t lo, int64_t hi);
  // Uniform in [0, 1).
  double Unit();
  bool Chance(double p) { return Unit() < p; }

 private:
  uint64_t state_;
};

// The hostile values of `type` listed above (never NULL).
std::vector<Value> HostileValues(TypeId type);

// One random non-null value of `type`; about one in eight is a hostile value.
Value RandomValue(TypeId type, Rng& rng);

// 1..max_columns columns named "c<i>_<type>"; the types cycle through all 8 in a seeded order,
// so a schema of 8 or more columns has every type. About a quarter of the fields are NOT NULL.
Schema RandomSchema(uint64_t seed, int max_columns = 8);

// `rows` rows of RandomValue; each value of a nullable field is NULL with probability
// `null_fraction`. NOT NULL fields never get NULLs.
Batch RandomBatch(const Schema& schema, size_t rows, uint64_t seed, double null_fraction = 0.1);

// Bytes as lower-case hex (as tests/duckdb/run.mjs, tests/arrow/*.mjs and tests/iceberg/read.mjs
// print them), and back (pairs of hex digits; the input is trusted).
std::string Hex(std::string_view bytes);
std::string Unhex(std::string_view hex);

}  // namespace lakeindex::testing
