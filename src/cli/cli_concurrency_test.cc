// Many processes writing one table at once, as users do (issue 17): appends, deletes, index
// create / update / drop, optimize, layouts and vacuum chosen at random, plus a reader querying
// throughout. Afterwards the table must hold exactly what the operations that reported success
// did — every successful append once, no failed append, no successful delete undone — every
// version must verify, and the reader must only ever have seen whole versions.
#include <sys/wait.h>
#include <unistd.h>

#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <tuple>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "util/moto.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

using clitest::CliResult;
using clitest::ReadFileText;
using clitest::RunCli;
using clitest::WriteFileText;
using testing::TempDir;

constexpr int kInitialRows = 300;  // ids 0..299; deletes remove only these
constexpr int kWriters = 6;
constexpr int kOpsPerWriter = 7;
constexpr int kBatchRows = 20;      // rows per append
constexpr int kReaderQueries = 40;  // the reader's bounded loop

std::string Csv(int first_id, int rows) {
  std::string s = "id,name,score\n";
  for (int i = 0; i < rows; ++i) {
    const int id = first_id + i;
    s += std::to_string(id) + ",n" + std::to_string(id % 11) + "," + std::to_string((int64_t(id) * 7919) % 1000) + "\n";
  }
  return s;
}

int AppendFirstId(int writer, int op) { return 100000 * (writer + 1) + op * kBatchRows; }
int DeletedId(int writer, int op) { return writer * kOpsPerWriter + op; }  // distinct, < kInitialRows

// The ids of `csv` output with a header line.
std::vector<long long> Ids(const std::string& csv) {
  std::vector<long long> out;
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    if (!line.empty()) out.push_back(std::stoll(line));
  }
  return out;
}

// Writer `w`'s operations: a fixed pseudo-random sequence over every kind of write.
std::vector<std::string> Plan(int w) {
  static const char* kinds[] = {"append", "delete", "append", "index_create", "index_update", "optimize",
                                "append",  "index_drop", "delete", "layout_sort", "vacuum", "append"};
  std::vector<std::string> plan;
  uint64_t x = 0x9E3779B97F4A7C15ull * uint64_t(w + 1);
  for (int k = 0; k < kOpsPerWriter; ++k) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    plan.push_back(kinds[x % (sizeof(kinds) / sizeof(kinds[0]))]);
  }
  if (w == 0) plan[2] = "layout_otree";  // one schema change (hidden `_lakeindex_weight`) while others write
  return plan;
}

std::vector<std::string> Args(const std::string& kind, const TempDir& dir, const std::string& table, int w, int k) {
  const std::string tag = std::to_string(w) + "_" + std::to_string(k);
  if (kind == "append") return {"append", table, "--from", dir.Join("a" + tag + ".csv")};
  if (kind == "delete") return {"delete", table, "--where", "id = " + std::to_string(DeletedId(w, k))};
  if (kind == "index_create") return {"index", "create", table, "--column", "score", "--type", "btree", "--name", "s" + tag};
  if (kind == "index_update") return {"index", "update", table};
  if (kind == "index_drop") return {"index", "drop", table, "--name", "id_btree"};
  if (kind == "optimize") return {"optimize", table, "--rows-per-file", "200"};
  if (kind == "layout_sort") return {"layout", table, "--sort", "score", "--cube-rows", "100"};
  if (kind == "layout_otree") return {"layout", table, "--otree", "score,id", "--cube-rows", "100"};
  return {"vacuum", table};  // the default grace: nothing a writer in flight wrote is touched
}

// Plain and OTree tables (where appends place rows into the tree and layouts change nothing of
// the schema).
// On a directory and on S3 (moto, commits by If-None-Match).
struct ConcurrencyCase {
  bool otree;
  bool s3;
};

class CliConcurrencyTest : public ::testing::TestWithParam<ConcurrencyCase> {};

TEST_P(CliConcurrencyTest, RandomOperationsOfManyProcessesLoseNothing) {
  const bool otree = GetParam().otree;
  TempDir dir;
  std::string table = dir.Join("t");
  if (GetParam().s3) {
    testing::MotoServer::Shared();
    table = std::string("s3://") + testing::MotoServer::kSharedBucket + "/" + std::to_string(getpid()) +
            (otree ? "/otree" : "/plain");
  }
  WriteFileText(dir.Join("base.csv"), Csv(0, kInitialRows));
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("base.csv"), "--rows-per-file", "100"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"index", "create", table, "--column", "id", "--type", "btree"}).code, 0);
  if (otree) {
    ASSERT_EQ(RunCli(dir, {"layout", table, "--otree", "score,id", "--cube-rows", "100"}).code, 0);
  }
  for (int w = 0; w < kWriters; ++w) {
    for (int k = 0; k < kOpsPerWriter; ++k) {
      WriteFileText(dir.Join("a" + std::to_string(w) + "_" + std::to_string(k) + ".csv"), Csv(AppendFirstId(w, k), kBatchRows));
    }
  }

  // Writers: each runs its plan and logs "kind k exit" per operation (and the message of a failure).
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    if (pid == 0) {
      std::string log;
      const std::vector<std::string> plan = Plan(w);
      for (int k = 0; k < kOpsPerWriter; ++k) {
        CliResult r = RunCli(dir, Args(plan[size_t(k)], dir, table, w, k));
        std::string err = r.err;
        std::replace(err.begin(), err.end(), '\n', ' ');
        log += plan[size_t(k)] + " " + std::to_string(k) + " " + std::to_string(r.code) + " " + err + "\n";
      }
      WriteFileText(dir.Join("log" + std::to_string(w) + ".txt"), log);
      _exit(0);
    }
    children.push_back(pid);
  }
  // The reader: every answer is one version's: ids never twice, each append's batch whole or absent.
  pid_t reader = fork();
  if (reader == 0) {
    std::string problems;
    for (int i = 0; i < kReaderQueries; ++i) {
      CliResult r = RunCli(dir, {"query", table, "--format", "csv", "--select", "id"});
      if (r.code != 0) {
        problems += "query exit " + std::to_string(r.code) + ": " + r.err;
        continue;
      }
      std::map<long long, int> batches;
      std::set<long long> seen;
      for (long long id : Ids(r.out)) {
        if (!seen.insert(id).second) problems += "id " + std::to_string(id) + " twice\n";
        if (id >= 100000) ++batches[(id / kBatchRows) * kBatchRows];
      }
      for (const auto& [first, n] : batches) {
        if (n != kBatchRows) problems += "batch " + std::to_string(first) + " partly visible\n";
      }
    }
    WriteFileText(dir.Join("reader.txt"), problems);
    _exit(0);
  }
  children.push_back(reader);
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(ReadFileText(dir.Join("reader.txt")), "");

  // The model: the initial ids, less those deleted by deletes that succeeded, plus the batches of
  // appends that succeeded.
  std::multiset<long long> want;
  for (int id = 0; id < kInitialRows; ++id) want.insert(id);
  int succeeded = 0, failed = 0;
  std::string summary;
  for (int w = 0; w < kWriters; ++w) {
    std::istringstream log(ReadFileText(dir.Join("log" + std::to_string(w) + ".txt")));
    std::string line;
    while (std::getline(log, line)) {
      std::istringstream fields(line);
      std::string kind;
      int k = 0, code = 0;
      fields >> kind >> k >> code;
      std::string message;
      std::getline(fields, message);
      // 0 done, 1 refused (a conflict, or e.g. dropping an index already dropped); never 2.
      EXPECT_TRUE(code == 0 || code == 1) << line;
      (code == 0 ? succeeded : failed) += 1;
      if ((kind == "append" || kind == "delete") && code != 0) {
        EXPECT_NE(message.find("onflict"), std::string::npos) << line;
      }
      summary += kind + "=" + std::to_string(code) + (code == 0 ? std::string() : " (" + message.substr(0, 160) + ")") + " ";
      if (code != 0) continue;
      if (kind == "append") {
        for (int i = 0; i < kBatchRows; ++i) want.insert(AppendFirstId(w, k) + i);
      } else if (kind == "delete") {
        want.erase(DeletedId(w, k));
      }
    }
  }
  EXPECT_GT(succeeded, kWriters * kOpsPerWriter / 3) << "too few operations got through to test anything";
  std::printf("[ ops      ] %d succeeded, %d refused: %s\n", succeeded, failed, summary.c_str());
  CliResult all = RunCli(dir, {"query", table, "--format", "csv", "--select", "id"});
  ASSERT_EQ(all.code, 0) << all.err;
  const std::vector<long long> got = Ids(all.out);
  EXPECT_EQ(std::multiset<long long>(got.begin(), got.end()), want)
      << succeeded << " operations succeeded, " << failed << " failed";
  // Through the indexes (those left) the same rows; every version verifies.
  CliResult high = RunCli(dir, {"query", table, "--format", "csv", "--select", "id", "--where", "id >= 100000 OR id < 50"});
  ASSERT_EQ(high.code, 0) << high.err;
  std::multiset<long long> want_high;
  for (long long id : want) {
    if (id >= 100000 || id < 50) want_high.insert(id);
  }
  const std::vector<long long> got_high = Ids(high.out);
  EXPECT_EQ(std::multiset<long long>(got_high.begin(), got_high.end()), want_high);
  CliResult versions = RunCli(dir, {"versions", table});
  ASSERT_EQ(versions.code, 0);
  std::istringstream lines(versions.out);
  std::string line;
  int checked = 0;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    int v = 0;
    if (!(fields >> v)) continue;
    CliResult verify = RunCli(dir, {"verify", table, "--version", std::to_string(v)});
    EXPECT_EQ(verify.code, 0) << "version " << v << ": " << verify.err;
    ++checked;
  }
  EXPECT_GT(checked, 2);
}

INSTANTIATE_TEST_SUITE_P(Tables, CliConcurrencyTest,
                         ::testing::Values(ConcurrencyCase{false, false}, ConcurrencyCase{true, false},
                                           ConcurrencyCase{false, true}, ConcurrencyCase{true, true}),
                         [](const ::testing::TestParamInfo<ConcurrencyCase>& info) {
                           return std::string(info.param.otree ? "otree" : "plain") + (info.param.s3 ? "_s3" : "");
                         });

// Every ordered pair of write operations: the first is stopped after writing its files, just
// before it commits (LAKEINDEX_PAUSE_BEFORE_COMMIT, SIGSTOP); the second runs to the end; then the
// first goes on. Both end in a whole commit or in a refusal that committed nothing, and the table
// holds exactly what the successful ones did.
TEST(CliPausedCommitTest, EveryOperationPausedBeforeItsCommitWhileAnotherRuns) {
  TempDir dir;
  const std::string base = dir.Join("base");
  WriteFileText(dir.Join("base.csv"), Csv(0, kInitialRows));
  ASSERT_EQ(RunCli(dir, {"create", base, "--from", dir.Join("base.csv"), "--rows-per-file", "100"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"index", "create", base, "--column", "id", "--type", "btree"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"index", "create", base, "--column", "score", "--type", "btree", "--name", "d_idx"}).code, 0);
  const std::vector<std::string> kinds = {"append", "delete", "index_create", "index_update_merge", "index_drop",
                                          "optimize", "layout_sort", "layout_otree"};
  auto args = [&](const std::string& kind, const std::string& table, int n) -> std::vector<std::string> {
    const std::string tag = std::to_string(n);
    if (kind == "append") {
      WriteFileText(dir.Join("p" + tag + ".csv"), Csv(100000 + n * kBatchRows, kBatchRows));
      return {"append", table, "--from", dir.Join("p" + tag + ".csv")};
    }
    if (kind == "delete") return {"delete", table, "--where", "id = " + std::to_string(n)};
    if (kind == "index_create") return {"index", "create", table, "--column", "name", "--type", "zonemap", "--name", "z" + tag};
    if (kind == "index_update_merge") return {"index", "update", table, "--merge"};
    if (kind == "index_drop") return {"index", "drop", table, "--name", "d_idx"};
    if (kind == "optimize") return {"optimize", table, "--rows-per-file", "1000"};
    if (kind == "layout_sort") return {"layout", table, "--sort", "score", "--cube-rows", "100"};
    return {"layout", table, "--otree", "score,id", "--cube-rows", "100"};
  };
  int pair = 0, refused = 0;
  for (const std::string& first : kinds) {
    for (const std::string& second : kinds) {
      SCOPED_TRACE(first + " paused, then " + second);
      const std::string table = dir.Join("t" + std::to_string(pair));
      std::filesystem::copy(base, table, std::filesystem::copy_options::recursive);
      const int a = 2 * pair, b = 2 * pair + 1;
      ++pair;
      // The first operation, stopped before its commit.
      const std::string out = dir.Join("first.out"), err = dir.Join("first.err");
      setenv("LAKEINDEX_PAUSE_BEFORE_COMMIT", "1", 1);
      pid_t pid = clitest::StartCli(args(first, table, a), out, err);
      unsetenv("LAKEINDEX_PAUSE_BEFORE_COMMIT");
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, WUNTRACED), pid);
      const bool stopped = WIFSTOPPED(status);
      CliResult second_run = RunCli(dir, args(second, table, b));
      int first_code = -1;
      if (stopped) {
        kill(pid, SIGCONT);
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
      }
      ASSERT_TRUE(WIFEXITED(status));
      first_code = WEXITSTATUS(status);
      const std::string first_err = ReadFileText(err);
      EXPECT_TRUE(first_code == 0 || first_code == 1) << first_err;
      EXPECT_TRUE(second_run.code == 0 || second_run.code == 1) << second_run.err;
      if (first_code != 0) {
        ++refused;
        if (first == "append" || first == "delete") {
          EXPECT_NE(first_err.find("onflict"), std::string::npos) << first_err;
        }
      }
      // The model: the initial rows, less a successful delete, plus a successful append.
      std::multiset<long long> want;
      for (int id = 0; id < kInitialRows; ++id) want.insert(id);
      for (const auto& [kind, n, code] : {std::tuple{first, a, first_code}, std::tuple{second, b, second_run.code}}) {
        if (code != 0) continue;
        if (kind == "append") {
          for (int i = 0; i < kBatchRows; ++i) want.insert(100000 + n * kBatchRows + i);
        }
        if (kind == "delete") want.erase(n);
      }
      for (const bool indexed : {false, true}) {
        std::vector<std::string> query = {"query", table, "--format", "csv", "--select", "id"};
        if (indexed) query.insert(query.end(), {"--where", "id >= 0"});
        CliResult all = RunCli(dir, query);
        ASSERT_EQ(all.code, 0) << all.err;
        const std::vector<long long> got = Ids(all.out);
        EXPECT_EQ(std::multiset<long long>(got.begin(), got.end()), want)
            << "first exit " << first_code << " (" << first_err << "), second exit " << second_run.code << " ("
            << second_run.err << ")";
      }
      CliResult verify = RunCli(dir, {"verify", table});
      EXPECT_EQ(verify.code, 0) << verify.err;
    }
  }
  std::printf("[ pairs    ] %d ordered pairs, %d first operations refused\n", pair, refused);
}

}  // namespace
}  // namespace lakeindex
