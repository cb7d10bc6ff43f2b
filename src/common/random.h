// Deterministic pseudo-random numbers that are identical on every platform (the std::
// distributions are not): data generators, OTree weights.
// Thread safety: pure functions over caller-owned state.
#pragma once

#include <cstdint>

namespace lakeindex {

// SplitMix64: advances *state and returns the next 64 random bits.
inline uint64_t SplitMix(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
// Uniform in [0, 1) with 53 random bits.
inline double Uniform01(uint64_t* state) { return double(SplitMix(state) >> 11) * 0x1.0p-53; }
// A well-mixed hash of x (one SplitMix step from state x).
inline uint64_t Mix(uint64_t x) {
  uint64_t s = x;
  return SplitMix(&s);
}

}  // namespace lakeindex
