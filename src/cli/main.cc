// lakeindex command line. Results go to stdout, messages and progress to stderr; exit code 0 on
// success, 1 on a user error with a one-line message, 2 on internal failure.
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
