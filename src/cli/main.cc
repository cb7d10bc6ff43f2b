// lakeindex command line. Results go to stdout, messages and progress to stderr; exit code 0 on
// success, 1 on a user error with a one-line message, 2 on internal failure.
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "common/text.h"

namespace {
// The words of argv that name a command ("index", "create" of `lakeindex index create T`), from
// argv[1], and the command they reach; `unknown` is the word where a command was expected and
// none has that name (empty when every word named one).
struct CommandPath {
  CLI::App* command;
  std::string path;     // "index create" ("" for lakeindex itself)
  std::string unknown;
};
CommandPath FindCommand(CLI::App& app, const std::vector<std::string>& args) {
  CommandPath out{&app, "", ""};
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word.empty() || word[0] == '-') break;
    std::vector<CLI::App*> subs = out.command->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) break;  // a command's own arguments follow
    auto named = std::find_if(subs.begin(), subs.end(), [&](CLI::App* sub) { return sub->get_name() == word; });
    if (named == subs.end()) {
      // A command taking arguments besides its subcommands would take the word; none does but lakeindex.
      if (out.command != &app && out.command->get_require_subcommand_min() == 0) break;
      out.unknown = word;
      break;
    }
    out.command = *named;
    out.path += (out.path.empty() ? "" : " ") + word;
  }
  return out;
}

std::vector<std::string> NamesOf(const std::vector<CLI::App*>& subs) {
  std::vector<std::string> names;
  for (const CLI::App* sub : subs) names.push_back(sub->get_name());
  return names;
}

// "lakeindex qeury t", "lakeindex index crate t": CLI11 only says a subcommand is required; name
// the word and the nearest commands instead. Empty when the words name commands.
std::string UnknownCommandMessage(CLI::App& app, const std::vector<std::string>& args) {
  const CommandPath at = FindCommand(app, args);
  if (at.unknown.empty()) return "";
  const std::string prefix = at.path.empty() ? "" : at.path + " ";
  std::vector<std::string> nearest =
      lakeindex::NearestNames(at.unknown, NamesOf(at.command->get_subcommands([](CLI::App*) { return true; })));
  for (std::string& n : nearest) n = prefix + n;
  return "unknown command '" + prefix + at.unknown + "'" + lakeindex::DidYouMean(nearest) + " (lakeindex help" +
         (at.path.empty() ? "" : " " + at.path) + " lists the commands)";
}

// "lakeindex query t --selct id": CLI11 lists the arguments it did not expect; name the first
// option the command does not have and the nearest ones it does. Empty when every option is known.
std::string UnknownOptionMessage(CLI::App& app, const std::vector<std::string>& args) {
  const CommandPath at = FindCommand(app, args);
  if (!at.unknown.empty()) return "";
  std::vector<std::string> options;
  for (const CLI::Option* o : at.command->get_options()) {
    for (const std::string& name : o->get_lnames()) options.push_back("--" + name);
  }
  for (const std::string& arg : args) {
    const std::string name = arg.substr(0, arg.find('='));
    // Option-like words only ("--selct", "-x"), not values such as "-1" or "-x > 1".
    const size_t dashes = name.starts_with("--") ? 2 : name.starts_with("-") ? 1 : 0;
    if (dashes == 0 || name.size() == dashes || !std::isalpha(static_cast<unsigned char>(name[dashes])) ||
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", dashes) !=
            std::string::npos) {
      continue;
    }
    if (at.command->get_option_no_throw(name) != nullptr || app.get_option_no_throw(name) != nullptr) continue;
    const std::string command = at.path.empty() ? "lakeindex" : at.path;
    std::string message = "unknown option " + name + " for " + command;
    if (name == "--having" || name == "--join" || name == "--from") {
      // SQL's other clauses: say where such a query runs (docs/expressions.md).
      return message + "; SQL beyond lakeindex's subset (HAVING, joins, ...) runs in DuckDB over its output: " + std::string(lakeindex::cli::kSqlRoute);
    }
    return message + lakeindex::DidYouMean(lakeindex::NearestNames(name, options), "") + " (lakeindex help " + command +
           " lists its options)";
  }
  return "";
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
// Only the commands that build (HugePagesPay): the second start costs ~6 ms, most of a cold
// lookup's process, and reads of 2M rows ran no faster on huge pages (bench/RESULTS.md).
static void UseHugePages(int argc, char** argv) {
  if (argc < 2 || !lakeindex::cli::HugePagesPay(argv[1])) return;
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
  UseHugePages(argc, argv);
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
  app.add_subcommand("help", "Show the help of lakeindex or of a command: lakeindex help query, lakeindex help index create");
  // `lakeindex help [COMMAND [SUB]]` is `lakeindex [COMMAND [SUB]] --help`.
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() >= 2 && args[1] == "help") {
    args.erase(args.begin() + 1);
    args.push_back("--help");
  }
  if (std::string unknown = UnknownCommandMessage(app, args); !unknown.empty()) {
    std::fprintf(stderr, "lakeindex: %s\n", unknown.c_str());
    return kExitUserError;
  }
  std::vector<char*> words;
  for (std::string& arg : args) words.push_back(arg.data());
  try {
    app.parse(int(words.size()), words.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      app.exit(e);  // --help and --version, on stdout
      return kExitOk;
    }
    // A usage error is one line, as every other error ("lakeindex: ..."), naming the option.
    if (std::string unknown = UnknownOptionMessage(app, args); !unknown.empty()) {
      std::fprintf(stderr, "lakeindex: %s\n", unknown.c_str());
    } else {
      std::fprintf(stderr, "lakeindex: %s (see --help)\n", e.what());
    }
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
