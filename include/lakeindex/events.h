// The "events" data set used by the demo, the benchmarks and many tests: a seeded, deterministic
// generator (the same rows for the same (rows, seed) on every machine).
//
// Columns: id int64 (a permutation of 0..N-1), x, y double uniform [0,1000), z double
// normal(500,150) clipped to [0,1000], score int64 uniform [0,1e6), category string (1000 values,
// Zipf-skewed), name string (6-12 random lowercase letters), ts timestamp uniform over 2024,
// maybe int64 uniform [0,1000) with 20% NULL.
// Thread safety: an EventsGenerator is used by one thread at a time.
#pragma once

#include <cstdint>
#include <vector>

#include "lakeindex/batch.h"

namespace lakeindex {

class EventsGenerator {
 public:
  EventsGenerator(uint64_t rows, uint64_t seed);

  static Schema EventsSchema();
  uint64_t rows() const { return rows_; }
  uint64_t rows_left() const { return rows_ - next_; }
  // Fills *out with the next min(max_rows, rows_left()) rows; false when nothing is left.
  bool Next(size_t max_rows, Batch* out);

 private:
  uint64_t PermutedId(uint64_t i) const;
  uint64_t rows_;
  uint64_t seed_;
  uint64_t next_ = 0;
  uint64_t rng_state_;
  int perm_bits_ = 0;
  std::vector<double> category_cdf_;  // Zipf CDF over the 1000 categories
};

}  // namespace lakeindex
