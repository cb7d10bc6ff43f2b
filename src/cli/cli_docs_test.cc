// The docs test: runs every shell command of README.md and docs/*.md as a new user would, so the
// documentation cannot drift from the program.
//
// Convention (also in docs/user-guide.md, "Commands in these docs are tested"): a fenced block
// whose info string is `sh` or `bash` runs; `sh norun` (any info string with the word `norun`
// after the language) does not — kept for the few commands that cannot run inside a test (`make
// demo`, `make test`, installing packages). Other blocks (`text`, ...) are not run here; the
// `python` blocks run in python/tests/test_docs.py (when the Python module is built).
// Each file runs in a fresh scratch directory, its blocks in order in one bash process with
// `set -e -o pipefail`, and `build/lakeindex` there is a link to the binary under test. A command
// that fails names the file and line of the command and shows the end of the output.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "util/duckdb_ref.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

using clitest::ReadFileText;
using clitest::WriteFileText;
using testing::SourceDir;
using testing::TempDir;

// README.md and docs/*.md, relative to the source directory, sorted.
std::vector<std::string> DocFiles() {
  std::vector<std::string> files = {"README.md"};
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(SourceDir() + "/docs", ec)) {
    if (entry.path().extension() == ".md") files.push_back("docs/" + entry.path().filename().string());
  }
  std::sort(files.begin() + 1, files.end());
  return files;
}

struct ShellScript {
  std::string text;  // one line per line of the markdown: the commands, blank elsewhere
  int blocks = 0;    // blocks that run
};

// The runnable commands of `markdown` at their own line numbers (so bash's LINENO is the line in
// the markdown file), every other line blank.
ShellScript ExtractShell(const std::string& markdown) {
  ShellScript script;
  std::istringstream lines(markdown);
  std::string line;
  bool in_fence = false, runs = false;
  while (std::getline(lines, line)) {
    const size_t indent = line.find_first_not_of(' ');
    const bool fence = indent != std::string::npos && line.compare(indent, 3, "```") == 0;
    if (fence && !in_fence) {
      std::istringstream info(line.substr(indent + 3));
      std::string language, word;
      info >> language;
      runs = language == "sh" || language == "bash";
      while (info >> word) runs &= word != "norun";
      script.blocks += runs;
      in_fence = true;
      line.clear();
    } else if (fence) {
      in_fence = false;
      line.clear();
    } else if (!in_fence || !runs) {
      line.clear();
    }
    script.text += line + "\n";
  }
  return script;
}

TEST(DocsTestExtraction, KeepsLineNumbersAndSkipsNorunAndOtherLanguages) {
  const std::string md =
      "# T\n"              // 1
      "```sh\n"            // 2
      "echo one\n"         // 3
      "```\n"              // 4
      "text\n"             // 5
      "```sh norun\n"      // 6
      "make demo\n"        // 7
      "```\n"              // 8
      "```text\n"          // 9
      "output\n"           // 10
      "```\n"              // 11
      "  ```bash\n"        // 12
      "  echo two\n"       // 13
      "  ```\n";           // 14
  ShellScript s = ExtractShell(md);
  EXPECT_EQ(s.blocks, 2);
  EXPECT_EQ(s.text, "\n\necho one\n\n\n\n\n\n\n\n\n\n  echo two\n\n");
}

class DocsTest : public ::testing::TestWithParam<std::string> {};

// Runs the file's commands; the first failing one fails the test with its file:line.
TEST_P(DocsTest, EveryShellCommandRuns) {
  const std::string file = GetParam();
  const std::string markdown = ReadFileText(SourceDir() + "/" + file);
  ASSERT_FALSE(markdown.empty()) << file;
  ShellScript script = ExtractShell(markdown);
  if (file == "README.md") {
    ASSERT_GT(script.blocks, 0) << "README.md has no runnable ```sh block: the docs test would test nothing";
  }
  if (script.blocks == 0) return;
  TempDir dir;
  ASSERT_EQ(mkdir(dir.Join("build").c_str(), 0755), 0);
  ASSERT_EQ(symlink(LAKEINDEX_CLI_PATH, dir.Join("build/lakeindex").c_str()), 0);
  // Line 1 of a markdown file is never a command (a fence line is blanked), so the prelude fits
  // there without moving any line.
  std::string prelude = "set -e -o pipefail; trap 'echo \"" + file +
                        ":$LINENO: exit $?: $BASH_COMMAND\" >&2' ERR;";
  script.text.replace(0, script.text.find('\n'), prelude);
  WriteFileText(dir.Join("docs_commands.sh"), script.text);
  const std::string command = "cd '" + dir.path() + "' && bash docs_commands.sh > docs_output.log 2>&1";
  const int status = std::system(command.c_str());
  if (status != 0) {
    std::string log = ReadFileText(dir.Join("docs_output.log"));
    if (log.size() > 4000) log = "...\n" + log.substr(log.size() - 4000);
    ADD_FAILURE() << file << ": a documented command failed (the line is in the last line below):\n" << log;
  }
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Docs, DocsTest, ::testing::ValuesIn(DocFiles()), TestName);

}  // namespace
}  // namespace lakeindex
