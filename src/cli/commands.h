// The lakeindex subcommands. Each Add*Commands registers its subcommands with CLI11 and the
// function that runs each one; main() runs the chosen one and turns its Status into the exit
// code and one-line message of DESIGN.md's command-line contract.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "lakeindex/status.h"
#include "table/table.h"

namespace lakeindex::cli {

using CommandList = std::vector<std::pair<CLI::App*, std::function<Status()>>>;

// gen, demo
void AddDataCommands(CLI::App& app, CommandList* commands);
// create, append, delete, query, explain, versions, stats
void AddTableCommands(CLI::App& app, CommandList* commands);
// layout
void AddLayoutCommands(CLI::App& app, CommandList* commands);

// The layout part of `stats` (kind, columns; for an OTree depth, cubes per level, rows and
// blocks per cube, transformations, file sizes).
Status PrintLayoutStats(const table::Table& table);

}  // namespace lakeindex::cli
