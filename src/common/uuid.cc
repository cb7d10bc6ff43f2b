#include "common/uuid.h"

#include <cstdio>
#include <mutex>
#include <random>

namespace lakeindex {

std::string NewUuid() {
  static std::mutex mu;
  static std::mt19937_64 rng([] {
    std::random_device rd;
    return (uint64_t(rd()) << 32) ^ rd();
  }());
  uint64_t a, b;
  {
    std::lock_guard<std::mutex> lock(mu);
    a = rng();
    b = rng();
  }
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return buf;
}

}  // namespace lakeindex
