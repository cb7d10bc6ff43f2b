// lakeindex command line. Results go to stdout, messages and progress to stderr; exit code 0 on
// success, 1 on a user error with a one-line message, 2 on internal failure.
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/cli_util.h"
#include "cli/commands.h"

namespace {
// Levenshtein distance (command names are short).
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// "lakeindex qeury t": CLI11 only says a subcommand is required; name the word and the nearest
// command instead. Empty when argv[1] is an option or a command.
std::string UnknownCommandMessage(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return "";
  const std::string word = argv[1];
  std::string nearest;
  size_t best = SIZE_MAX;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == word) return "";
    const size_t d = EditDistance(word, sub->get_name());
    if (d < best) {
      best = d;
      nearest = sub->get_name();
    }
  }
  std::string message = "unknown command '" + word + "'";
  if (best <= 2) message += "; did you mean '" + nearest + "'?";
  return message + " (lakeindex --help lists the commands)";
}

int Finish(const lakeindex::Status& status) {
  if (status.ok()) return lakeindex::cli::kExitOk;
  std::string message = lakeindex::cli::ErrorText(status);
  for (char& c : message) {
    if (c == '\n' || c == '\r') c = ' ';  // the contract is a one-line message
  }
  if (status.IsOutcomeUnknown()) message += " (`lakeindex versions TABLE` lists what is committed)";
  std::fprintf(stderr, "lakeindex: %s\n", message.c_str());
  return lakeindex::cli::ExitCodeFor(status);
}
}  // namespace

// Large buffers on transparent huge pages: a layout or a large scan touches gigabytes of fresh
// memory, and a fault per 4 KiB page costs more than the work on it (most in a VM: the 100M-row
// layout spent a fifth of its time in page faults; on 2 MiB pages the 10M-row layout took 5.2 s
// instead of 7.1). glibc puts its heap on huge pages only when told so by GLIBC_TUNABLES, which
// it reads at start, so the tool runs itself again once with glibc.malloc.hugetlb=1 added —
// unless GLIBC_TUNABLES already names that tunable (set it to 0 to keep 4 KiB pages) or
// LAKEINDEX_NO_REEXEC is set. When the new image cannot start, this one goes on as it is.
static void UseHugePages(char** argv) {
  if (std::getenv("LAKEINDEX_NO_REEXEC") != nullptr) return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string before = tunables == nullptr ? "" : tunables;
  if (before.find("glibc.malloc.hugetlb") != std::string::npos) return;
  const std::string with = before.empty() ? "glibc.malloc.hugetlb=1" : before + ":glibc.malloc.hugetlb=1";
  if (::setenv("GLIBC_TUNABLES", with.c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  if (tunables == nullptr) {
    ::unsetenv("GLIBC_TUNABLES");
  } else {
    ::setenv("GLIBC_TUNABLES", before.c_str(), 1);
  }
}

int main(int argc, char** argv) {
  using namespace lakeindex::cli;
  UseHugePages(argv);
  // Memory policy of the command-line tool: one command, then exit. Freed memory stays in the
  // process for the next allocation instead of going back to the kernel (glibc returns it once
  // 128 KiB sit free at the top of the heap, and maps anything from 128 KiB to 32 MiB fresh):
  // every fresh page costs a fault and a zeroing (more so in a VM), and a layout or a large
  // scan allocates and frees gigabytes in buffers of a few MiB. Measured on the 10M-row layout:
  // system time -0.5 to -1.5 s, peak memory about +0.4 GB.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  CLI::App app{"lakeindex: lakehouse tables that index themselves"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "lakeindex 0.1.0");
  CommandList commands;
  AddDataCommands(app, &commands);
  AddTableCommands(app, &commands);
  AddLayoutCommands(app, &commands);
  AddDemoCommand(app, &commands);
  if (std::string unknown = UnknownCommandMessage(app, argc, argv); !unknown.empty()) {
    std::fprintf(stderr, "lakeindex: %s\n", unknown.c_str());
    return kExitUserError;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      app.exit(e);  // --help and --version, on stdout
      return kExitOk;
    }
    // A usage error is one line, as every other error ("lakeindex: ..."), naming the option.
    std::fprintf(stderr, "lakeindex: %s (see --help)\n", e.what());
    return kExitUserError;
  }
  try {
    for (auto& [cmd, run] : commands) {
      if (!*cmd) continue;
      // A filter given but empty would read every row, which the user cannot have meant.
      const CLI::Option* where = cmd->get_option_no_throw("--where");
      if (where != nullptr && where->count() > 0 &&
          where->as<std::string>().find_first_not_of(" \t\r\n") == std::string::npos) {
        return Finish(lakeindex::Status::InvalidArgument("--where is empty: leave it out to read every row"));
      }
      return Finish(run());
    }
  } catch (const std::exception& e) {
    // Nothing in lakeindex throws across its API; this catches library failures such as
    // std::bad_alloc so that the exit code still says "internal failure".
    std::fprintf(stderr, "lakeindex: internal error: %s\n", e.what());
    return kExitInternal;
  }
  return kExitUserError;
}
