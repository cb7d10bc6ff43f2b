// Helpers shared by the end-to-end benchmark programs (bench/*_bench.cc): a wall + CPU clock,
// peak memory, JSON result lines, medians, the in-memory events data set, and the query files
// (bench/scan_queries.tsv) that scan_bench and index_bench read.
//
// Every benchmark program prints one JSON object per measurement on stdout (one per line);
// bench/report.mjs turns those lines into bench/RESULTS.md. CPU time is user + system time of
// the whole process (getrusage), which varies less with machine load than wall time.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
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

// Peak resident memory of this process (VmHWM), in bytes; 0 if /proc is not readable.
inline uint64_t PeakRssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  }
  return 0;
}

inline uint64_t RssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  }
  return 0;
}

// Resets the peak (VmHWM) to the current RSS (Linux >= 4.0, clear_refs "5"), so that
// PeakRssBytes() afterwards is the peak of the work that follows. False when not possible.
inline bool ResetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return bool(out);
}

inline double Median(std::vector<double> xs) {
  if (xs.empty()) return 0;
  std::sort(xs.begin(), xs.end());
  size_t n = xs.size();
  return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

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

// One query of a queries file (bench/scan_queries.tsv): one per line, tab-separated: name,
// table directory, WHERE (may be empty), SELECT list (comma-separated, empty = every column),
// mode ("rows" or "sum"). Lines starting with '#' are comments.
struct QuerySpec {
  std::string name, table, where, select, mode;
};

inline std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::stringstream ss(s);
  while (std::getline(ss, item, sep)) out.push_back(item);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

inline std::vector<QuerySpec> LoadQueries(const std::string& path) {
  std::ifstream in(path);
  if (!in) Die(Status::IOError("cannot open " + path), "queries");
  std::vector<QuerySpec> out;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = Split(line, '\t');
    if (f.size() != 5) {
      Die(Status::InvalidArgument(path + ":" + std::to_string(line_no) + ": expected 5 tab-separated fields"),
          "queries");
    }
    out.push_back({f[0], f[1], f[2], f[3], f[4]});
  }
  return out;
}

}  // namespace lakeindex::bench
