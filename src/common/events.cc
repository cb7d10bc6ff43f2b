#include "lakeindex/events.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/random.h"

namespace lakeindex {

namespace {
constexpr int kCategories = 1000;
constexpr double kZipfExponent = 1.1;
constexpr int64_t kTs2024Start = 19723LL * 86400 * 1000000;  // 2024-01-01 00:00:00 in µs
constexpr int64_t kTs2024Span = 366LL * 86400 * 1000000;     // 2024 is a leap year

}  // namespace

EventsGenerator::EventsGenerator(uint64_t rows, uint64_t seed)
    : rows_(rows), seed_(seed), rng_state_(seed * 0x2545F4914F6CDD1DULL + 1) {
  while (perm_bits_ < 64 && (uint64_t(1) << perm_bits_) < rows_) ++perm_bits_;
  if (perm_bits_ % 2) ++perm_bits_;  // the Feistel network below splits the bits in halves
  if (perm_bits_ < 2) perm_bits_ = 2;
  category_cdf_.resize(kCategories);
  double sum = 0;
  for (int k = 0; k < kCategories; ++k) sum += 1.0 / std::pow(k + 1, kZipfExponent);
  double acc = 0;
  for (int k = 0; k < kCategories; ++k) {
    acc += 1.0 / std::pow(k + 1, kZipfExponent) / sum;
    category_cdf_[size_t(k)] = acc;
  }
  category_cdf_.back() = 1.0;
}

Schema EventsGenerator::EventsSchema() {
  return Schema({{"id", TypeId::kInt64, false},
                 {"x", TypeId::kDouble, false},
                 {"y", TypeId::kDouble, false},
                 {"z", TypeId::kDouble, false},
                 {"score", TypeId::kInt64, false},
                 {"category", TypeId::kString, false},
                 {"name", TypeId::kString, false},
                 {"ts", TypeId::kTimestamp, false},
                 {"maybe", TypeId::kInt64, true}});
}

// A bijection on [0, rows): a 4-round Feistel network on perm_bits_ bits, cycle-walking until the
// value falls inside the range. Lets ids be a shuffled 0..N-1 without holding N values in memory.
uint64_t EventsGenerator::PermutedId(uint64_t i) const {
  const int half = perm_bits_ / 2;
  const uint64_t mask = half >= 64 ? ~0ULL : (uint64_t(1) << half) - 1;
  uint64_t v = i;
  do {
    uint64_t l = v >> half, r = v & mask;
    for (int round = 0; round < 4; ++round) {
      uint64_t f = Mix(r ^ (seed_ * 0x9E3779B97F4A7C15ULL) ^ uint64_t(round)) & mask;
      uint64_t nl = r;
      r = l ^ f;
      l = nl;
    }
    v = (l << half) | r;
  } while (v >= rows_);
  return v;
}

bool EventsGenerator::Next(size_t max_rows, Batch* out) {
  size_t n = size_t(std::min<uint64_t>(max_rows, rows_left()));
  if (n == 0) return false;
  *out = Batch(EventsSchema());
  std::vector<Column>& cols = out->columns();
  for (auto& c : cols) c.Reserve(n);
  char name[16];
  char category[16];
  for (size_t k = 0; k < n; ++k, ++next_) {
    cols[0].Append<int64_t>(int64_t(PermutedId(next_)));
    cols[1].Append<double>(Uniform01(&rng_state_) * 1000.0);
    cols[2].Append<double>(Uniform01(&rng_state_) * 1000.0);
    // Box-Muller; one normal per row keeps the stream simple.
    double u1 = Uniform01(&rng_state_), u2 = Uniform01(&rng_state_);
    double normal = std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2 * M_PI * u2);
    cols[3].Append<double>(std::clamp(500.0 + 150.0 * normal, 0.0, 1000.0));
    cols[4].Append<int64_t>(int64_t(SplitMix(&rng_state_) % 1000000));
    double c = Uniform01(&rng_state_);
    auto it = std::lower_bound(category_cdf_.begin(), category_cdf_.end(), c);
    std::snprintf(category, sizeof(category), "cat_%03d", int(it - category_cdf_.begin()));
    (void)cols[5].AppendString(category);
    uint64_t bits = SplitMix(&rng_state_);
    size_t len = 6 + bits % 7;
    bits /= 7;
    for (size_t j = 0; j < len; ++j) {
      if (j == 8) bits = SplitMix(&rng_state_);
      name[j] = char('a' + bits % 26);
      bits /= 26;
    }
    (void)cols[6].AppendString(std::string_view(name, len));
    cols[7].Append<int64_t>(kTs2024Start + int64_t(SplitMix(&rng_state_) % uint64_t(kTs2024Span)));
    uint64_t m = SplitMix(&rng_state_);
    if (m % 5 == 0) {
      cols[8].AppendNull();
    } else {
      cols[8].Append<int64_t>(int64_t((m >> 8) % 1000));
    }
  }
  (void)out->Seal();
  return true;
}

}  // namespace lakeindex
