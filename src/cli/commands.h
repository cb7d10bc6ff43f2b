// The lakeindex subcommands. Each returns a Status; main() turns it into the exit code and the
// one-line message of DESIGN.md's command-line contract.
#pragma once

#include <cstdint>
#include <string>

#include "lakeindex/status.h"

namespace lakeindex::cli {

struct GenArgs {
  uint64_t rows = 1000000;
  std::string output;
  uint64_t seed = 42;
};
// Writes the events data set to a .csv or .parquet file.
Status RunGen(const GenArgs& args);

struct DemoArgs {
  uint64_t rows = 1000000;
  std::string dir = "lakeindex-demo";
};
// The main job on built-in generated data (see docs/STATUS.md for what it covers so far).
Status RunDemo(const DemoArgs& args);

}  // namespace lakeindex::cli
