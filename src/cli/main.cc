// lakeindex command line. Results go to stdout, messages and progress to stderr; exit code 0 on
// success, 1 on a user error with a one-line message, 2 on internal failure.
#include <malloc.h>

#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "cli/cli_util.h"
#include "cli/commands.h"

namespace {
int Finish(const lakeindex::Status& status) {
  if (status.ok()) return lakeindex::cli::kExitOk;
  std::string message = status.ToString();
  for (char& c : message) {
    if (c == '\n' || c == '\r') c = ' ';  // the contract is a one-line message
  }
  std::fprintf(stderr, "lakeindex: %s\n", message.c_str());
  return lakeindex::cli::ExitCodeFor(status);
}
}  // namespace

int main(int argc, char** argv) {
  using namespace lakeindex::cli;
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // help and version on stdout, usage errors on stderr
    return code == 0 ? kExitOk : kExitUserError;
  }
  try {
    for (auto& [cmd, run] : commands) {
      if (*cmd) return Finish(run());
    }
  } catch (const std::exception& e) {
    // Nothing in lakeindex throws across its API; this catches library failures such as
    // std::bad_alloc so that the exit code still says "internal failure".
    std::fprintf(stderr, "lakeindex: internal error: %s\n", e.what());
    return kExitInternal;
  }
  return kExitUserError;
}
