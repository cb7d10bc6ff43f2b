// Running the lakeindex binary from tests (LAKEINDEX_CLI_PATH is the built binary).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "util/test_util.h"

namespace lakeindex::clitest {

struct CliResult {
  int code = -1;
  std::string out, err;
};

inline std::string ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFileText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// The lines of `text`, sorted: answers compared whatever their order.
inline std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t next = text.find('\n', at);
    if (next == std::string::npos) next = text.size();
    lines.push_back(text.substr(at, next - at));
    at = next + 1;
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

// In a forked child: becomes the CLI with `args` (exit 127 when it cannot start).
[[noreturn]] inline void ExecCli(const std::vector<std::string>& args) {
    std::vector<char*> argv;
    std::string bin = LAKEINDEX_CLI_PATH;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
}

// Starts the CLI with stdout/stderr redirected to files under `dir`; returns the pid.
inline pid_t StartCli(const std::vector<std::string>& args, const std::string& out_path, const std::string& err_path) {
  pid_t pid = fork();
  if (pid == 0) {
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(err, 2);
    ExecCli(args);
  }
  return pid;
}

// Crash tests: how long `timed` (a writing command on a scratch copy) takes on this machine now,
// and half again — the window in which a writer is killed. A fixed window missed every commit on
// a loaded or sanitized build.
inline CliResult RunCli(const testing::TempDir& dir, const std::vector<std::string>& args);
inline int64_t KillWindowUs(const testing::TempDir& dir, const std::vector<std::string>& timed) {
  const auto start = std::chrono::steady_clock::now();
  if (RunCli(dir, timed).code != 0) return -1;
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count() * 3 / 2 + 1;
}

// Starts the CLI with `args` and kills it (SIGKILL) after `delay_us`; returns when it is gone.
inline void RunAndKill(const testing::TempDir& dir, const std::vector<std::string>& args, int64_t delay_us) {
  pid_t pid = StartCli(args, dir.Join("killed.out"), dir.Join("killed.err"));
  std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
}

inline CliResult RunCli(const testing::TempDir& dir, const std::vector<std::string>& args) {
  static int counter = 0;
  std::string base = dir.Join("cli" + std::to_string(getpid()) + "_" + std::to_string(counter++));
  pid_t pid = StartCli(args, base + ".out", base + ".err");
  int status = 0;
  waitpid(pid, &status, 0);
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFileText(base + ".out");
  r.err = ReadFileText(base + ".err");
  return r;
}

}  // namespace lakeindex::clitest
