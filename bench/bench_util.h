// Helpers shared by the end-to-end benchmark programs (bench/*_bench.cc): a wall + CPU clock,
// JSON result lines, and the in-memory events data set.
//
// Every benchmark program prints one JSON object per measurement on stdout (one per line);
// bench/report.mjs turns those lines into bench/RESULTS.md. CPU time is user + system time of
// the whole process (getrusage), which varies less with machine load than wall time.
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lakeindex/batch.h"
#include "lakeindex/events.h"
#include "lakeindex/status.h"

namespace lakeindex::bench {

inline double CpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto secs = [](const timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) * 1e-6; };
  return secs(ru.ru_utime) + secs(ru.ru_stime);
}

// Measures one interval from construction (or Restart) to wall()/cpu().
class Stopwatch {
 public:
  Stopwatch() { Restart(); }
  void Restart() {
    wall_start_ = std::chrono::steady_clock::now();
    cpu_start_ = CpuSeconds();
  }
  double wall() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  }
  double cpu() const { return CpuSeconds() - cpu_start_; }

 private:
  std::chrono::steady_clock::time_point wall_start_;
  double cpu_start_ = 0;
};

// One result line. `j` should hold at least bench, engine, case and the timings.
inline void Emit(const nlohmann::json& j) {
  std::printf("%s\n", j.dump().c_str());
  std::fflush(stdout);
}

// Exits with a message on stderr: benchmarks have no caller to hand an error to.
[[noreturn]] inline void Die(const Status& status, const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", what.c_str(), status.ToString().c_str());
  std::exit(1);
}

template <typename T>
T CheckResult(Result<T> result, const std::string& what) {
  if (!result.ok()) Die(result.status(), what);
  return std::move(*result);
}

inline void Check(const Status& status, const std::string& what) {
  if (!status.ok()) Die(status, what);
}

// The events data set, generated in batches of `batch_rows` (the writer's input granularity).
inline std::vector<Batch> GenerateEvents(uint64_t rows, uint64_t seed, size_t batch_rows = 65536) {
  EventsGenerator gen(rows, seed);
  std::vector<Batch> batches;
  Batch batch;
  while (gen.Next(batch_rows, &batch)) batches.push_back(std::move(batch));
  return batches;
}

}  // namespace lakeindex::bench
