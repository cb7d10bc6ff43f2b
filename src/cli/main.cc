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
  std::fprintf(stderr, "lakeindex: %s\n", status.ToString().c_str());
  return lakeindex::cli::ExitCodeFor(status);
}
}  // namespace

int main(int argc, char** argv) {
  using namespace lakeindex::cli;
  CLI::App app{"lakeindex: lakehouse tables that index themselves"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "lakeindex 0.1.0");

  GenArgs gen;
  auto* gen_cmd = app.add_subcommand("gen", "Write the generated 'events' data set to a CSV or Parquet file");
  gen_cmd->add_option("--rows", gen.rows, "Number of rows")->required();
  gen_cmd->add_option("--output", gen.output, "Output file (.csv or .parquet)")->required();
  gen_cmd->add_option("--seed", gen.seed, "Random seed (same seed, same rows)")->capture_default_str();

  DemoArgs demo;
  auto* demo_cmd = app.add_subcommand("demo", "Run the main job on built-in generated data");
  demo_cmd->add_option("--rows", demo.rows, "Rows of generated events data")->capture_default_str();
  demo_cmd->add_option("--dir", demo.dir, "Working directory for the demo's files")->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // prints help/version on stdout, errors on stderr
    return code == 0 ? kExitOk : kExitUserError;
  }
  try {
    if (*gen_cmd) return Finish(RunGen(gen));
    if (*demo_cmd) return Finish(RunDemo(demo));
  } catch (const std::exception& e) {
    // Nothing in lakeindex throws across its API; this catches library failures such as
    // std::bad_alloc so that the exit code still says "internal failure".
    std::fprintf(stderr, "lakeindex: internal error: %s\n", e.what());
    return kExitInternal;
  }
  return kExitUserError;
}
