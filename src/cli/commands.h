// The lakeindex subcommands. Each Add*Commands registers its subcommands with CLI11 and the
// function that runs each one; main() runs the chosen one and turns its Status into the exit
// code and one-line message of the command-line contract (docs/user-guide.md, "Conventions of every command").
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "lakeindex/status.h"
#include "table/table.h"

namespace lakeindex::cli {

using CommandList = std::vector<std::pair<CLI::App*, std::function<Status()>>>;

// gen
void AddDataCommands(CLI::App& app, CommandList* commands);
// demo (cmd_demo.cc)
void AddDemoCommand(CLI::App& app, CommandList* commands);
// create, append, delete, query, explain, versions, stats
void AddTableCommands(CLI::App& app, CommandList* commands);
// layout
void AddLayoutCommands(CLI::App& app, CommandList* commands);

// Writes `rows` rows of the events data set (seed `seed`) to `path`, Parquet or CSV by its
// extension, with progress on stderr (gen, demo).
Status WriteEvents(uint64_t rows, uint64_t seed, const std::string& path);

// What WriteCubesSvg drew.
struct PlotSummary {
  size_t cubes = 0;
  size_t cubes_read = 0;   // cubes the filter's boxes meet (0 without a filter)
  size_t blocks_read = 0;  // blocks (cube, weight slice) the filter reads
  size_t blocks_total = 0;
};
// The SVG of `plot` (cmd_layout.cc): the newest revision's cubes of an OTree table on its first
// two columns; with `where`, the filter's boxes and the cubes it reads. InvalidArgument when the
// table has no OTree layout.
Result<PlotSummary> WriteCubesSvg(const table::Table& table, const std::string& where, const std::string& output);

// The layout part of `stats` (kind, columns; for an OTree depth, cubes per level, rows and
// blocks per cube, transformations, file sizes).
Status PrintLayoutStats(const table::Table& table);

}  // namespace lakeindex::cli
