// `lakeindex query --format arrow` read back by an independent Arrow implementation: npm
// apache-arrow (tests/arrow/read.mjs) must find every type, every NULL and every value the rows
// were made with, over several record batches, to a file and to stdout, and for an empty result.
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "lakeindex/types.h"
#include "util/duckdb_ref.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

using clitest::RunCli;
using nlohmann::json;
using testing::TempDir;

constexpr int kRows = 3000;

bool ArrowReaderAvailable() {
  return std::filesystem::exists(testing::SourceDir() + "/tests/arrow/node_modules/apache-arrow/package.json");
}

// Row k of every column, as CSV text and as read.mjs prints it (null for NULL).
struct Row {
  std::string csv;
  json expected;
};

Row MakeRow(int k) {
  Row r;
  json e = json::array();
  std::vector<std::string> cells;
  // bool
  if (k % 7 == 0) { cells.push_back(""); e.push_back(nullptr); }
  else { cells.push_back(k % 2 == 0 ? "true" : "false"); e.push_back(k % 2 == 0); }
  // int32
  if (k % 5 == 1) { cells.push_back(""); e.push_back(nullptr); }
  else { const int v = k * 7919 % 100003 - 50000; cells.push_back(std::to_string(v)); e.push_back(v); }
  // int64, past 32 bits
  if (k % 11 == 2) { cells.push_back(""); e.push_back(nullptr); }
  else { const int64_t v = (int64_t(k) - 1500) * 1000000007LL * 1000; cells.push_back(std::to_string(v)); e.push_back(std::to_string(v)); }
  // float: NaN and infinities among exact values
  if (k % 13 == 3) { cells.push_back(""); e.push_back(nullptr); }
  else if (k == 4) { cells.push_back("nan"); e.push_back("NaN"); }
  else if (k == 5) { cells.push_back("inf"); e.push_back("Infinity"); }
  else if (k == 6) { cells.push_back("-inf"); e.push_back("-Infinity"); }
  else { const double v = (k - 100) / 8.0; cells.push_back(std::to_string(v)); e.push_back(v); }
  // double
  if (k % 17 == 4) { cells.push_back(""); e.push_back(nullptr); }
  else if (k == 7) { cells.push_back("1e300"); e.push_back(1e300); }
  else { const double v = (k - 2000) * 0.25; cells.push_back(std::to_string(v)); e.push_back(v); }
  // string: NULL, empty, non-ASCII, a delimiter
  if (k % 19 == 5) { cells.push_back(""); e.push_back(nullptr); }
  else if (k % 23 == 0) { cells.push_back("\"\""); e.push_back(""); }
  else if (k % 3 == 0) { const std::string v = "s" + std::to_string(k) + " é✓"; cells.push_back(v); e.push_back(v); }
  else { const std::string v = "a,b" + std::to_string(k); cells.push_back("\"" + v + "\""); e.push_back(v); }
  // date, before and after 1970
  if (k % 29 == 6) { cells.push_back(""); e.push_back(nullptr); }
  else { const int32_t d = k * 37 - 40000; cells.push_back(FormatDate(d)); e.push_back(d); }
  // timestamp with microseconds
  if (k % 31 == 7) { cells.push_back(""); e.push_back(nullptr); }
  else { const int64_t us = (int64_t(k) - 1000) * 3600000001LL; cells.push_back(FormatTimestamp(us)); e.push_back(std::to_string(us)); }
  // timestamptz: the instant, written with +00
  if (k % 37 == 8) { cells.push_back(""); e.push_back(nullptr); }
  else { const int64_t us = (int64_t(k) - 1700) * 7200000003LL; cells.push_back(FormatTimestamp(us) + "+00"); e.push_back(std::to_string(us)); }
  // timestamp_ns: nanoseconds a microsecond cannot hold
  if (k % 41 == 9) { cells.push_back(""); e.push_back(nullptr); }
  else { const int64_t ns = (int64_t(k) - 1200) * 3600000000007LL; cells.push_back(FormatTimestampNs(ns)); e.push_back(std::to_string(ns)); }
  // binary: any bytes (quoted: a comma or quote is a byte too), and the empty one
  if (k % 43 == 10) { cells.push_back(""); e.push_back(nullptr); }
  else {
    std::string bytes;
    for (int j = 0; j < k % 6; ++j) bytes.push_back(char((k * 31 + j * 97) & 0xFF));
    std::string text;
    for (char c : FormatBinary(bytes)) text += c == '"' ? std::string("\"\"") : std::string(1, c);
    cells.push_back("\"" + text + "\"");
    e.push_back(testing::Hex(bytes));
  }
  // uuid
  if (k % 47 == 11) { cells.push_back(""); e.push_back(nullptr); }
  else {
    std::string bytes(16, '\0');
    for (int j = 0; j < 16; ++j) bytes[j] = char((k * 131 + j * 17) & 0xFF);
    cells.push_back(FormatUuid(bytes));
    e.push_back(testing::Hex(bytes));
  }
  // decimal(12,3): a 128-bit value in Arrow, its unscaled integer shown
  if (k % 53 == 12) { cells.push_back(""); e.push_back(nullptr); }
  else { const int64_t v = (int64_t(k) - 1500) * 123456789LL + k % 7; cells.push_back(FormatDecimal(v, 3)); e.push_back(std::to_string(v)); }
  for (size_t c = 0; c < cells.size(); ++c) r.csv += (c ? "," : "") + cells[c];
  r.expected = e;
  return r;
}

class CliArrowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ArrowReaderAvailable()) GTEST_FAIL() << "apache-arrow is not installed in tests/arrow: run scripts/install-deps.sh";
    std::string csv = "b,i,l,f,d,s,dt,ts,tz,ns,bin,u,dec\n";
    for (int k = 0; k < kRows; ++k) {
      Row r = MakeRow(k);
      csv += r.csv + "\n";
      rows_.push_back(r.expected);
    }
    clitest::WriteFileText(dir_.Join("rows.csv"), csv);
    auto created = RunCli(dir_, {"create", dir_.Join("t"), "--from", dir_.Join("rows.csv"), "--rows-per-file", "1000",
                                 "--schema",
                                 "b:bool,i:int32,l:int64,f:float,d:double,s:string,dt:date,ts:timestamp,tz:timestamptz,"
                                 "ns:timestamp_ns,bin:binary,u:uuid,dec:decimal(12,3)"});
    ASSERT_EQ(created.code, 0) << created.err;
  }

  // read.mjs's JSON of an Arrow stream file.
  json Read(const std::string& path) {
    auto got = testing::RunNodeScript(testing::SourceDir() + "/tests/arrow/read.mjs", {path});
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (!got.ok()) return json();
    EXPECT_EQ(got->exit_code, 0) << got->err;
    return json::parse(got->out, nullptr, false);
  }

  TempDir dir_;
  std::vector<json> rows_;
};

TEST_F(CliArrowTest, EveryTypeNullAndValueReadsBackInApacheArrow) {
  auto q = RunCli(dir_, {"query", dir_.Join("t"), "--format", "arrow", "--output", dir_.Join("all.arrow")});
  ASSERT_EQ(q.code, 0) << q.err;
  json got = Read(dir_.Join("all.arrow"));
  ASSERT_TRUE(got.is_object()) << got;
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"b", "Bool"}, {"i", "Int32"}, {"l", "Int64"}, {"f", "Float32"}, {"d", "Float64"},
      {"s", "Utf8"}, {"dt", "Date32<DAY>"}, {"ts", "Timestamp<MICROSECOND>"}, {"tz", "Timestamp<MICROSECOND, UTC>"},
      {"ns", "Timestamp<NANOSECOND>"}, {"bin", "Binary"}, {"u", "FixedSizeBinary[16]"}, {"dec", "Decimal[12e+3]"}};
  ASSERT_EQ(got["fields"].size(), fields.size()) << got["fields"];
  for (size_t c = 0; c < fields.size(); ++c) {
    EXPECT_EQ(got["fields"][c]["name"], fields[c].first);
    EXPECT_EQ(got["fields"][c]["type"], fields[c].second) << "column " << fields[c].first;
    EXPECT_EQ(got["fields"][c]["nullable"], true);
  }
  // A uuid is Arrow's canonical extension type over fixed_size_binary(16).
  EXPECT_EQ(got["fields"][11]["metadata"]["ARROW:extension:name"], "arrow.uuid") << got["fields"][11];
  EXPECT_EQ(got["fields"][10]["metadata"].size(), 0u);
  EXPECT_GE(got["batches"].get<int>(), 3) << "three files of 1,000 rows: a record batch or more each";
  ASSERT_EQ(got["rows"].size(), size_t(kRows));
  for (int k = 0; k < kRows; ++k) {
    ASSERT_EQ(got["rows"][k], rows_[k]) << "row " << k;
  }
}

TEST_F(CliArrowTest, AFilteredQueryToStdoutAndAnEmptyOneAreStreamsToo) {
  auto q = RunCli(dir_, {"query", dir_.Join("t"), "--where", "i > 0 AND s IS NOT NULL", "--select", "s,l,dt",
                         "--format", "arrow"});
  ASSERT_EQ(q.code, 0) << q.err;
  clitest::WriteFileText(dir_.Join("stdout.arrow"), q.out);
  json got = Read(dir_.Join("stdout.arrow"));
  ASSERT_TRUE(got.is_object()) << got;
  std::vector<json> want;
  for (const json& r : rows_) {
    if (!r[1].is_null() && r[1].get<int>() > 0 && !r[5].is_null()) want.push_back(json::array({r[5], r[2], r[6]}));
  }
  ASSERT_GT(want.size(), 100u);
  ASSERT_EQ(got["rows"].size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) ASSERT_EQ(got["rows"][k], want[k]) << "row " << k;
  EXPECT_EQ(got["fields"][0]["name"], "s");
  EXPECT_EQ(got["fields"][2]["type"], "Date32<DAY>");

  auto none = RunCli(dir_, {"query", dir_.Join("t"), "--where", "i > 1000000", "--format", "arrow", "--output",
                            dir_.Join("none.arrow")});
  ASSERT_EQ(none.code, 0) << none.err;
  json empty = Read(dir_.Join("none.arrow"));
  ASSERT_TRUE(empty.is_object()) << empty;
  EXPECT_EQ(empty["fields"].size(), 13u) << "an empty result still carries its schema";
  EXPECT_EQ(empty["rows"].size(), 0u);
}


// Tables from Arrow IPC files and streams apache-arrow writes: every type it writes that we read,
// every NULL and value as it wrote them; a truncated file is refused and leaves no table.
TEST_F(CliArrowTest, TablesFromApacheArrowIpcFilesAndStreams) {
  constexpr int kIpcRows = 500;
  auto wrote = testing::RunNodeScript(testing::SourceDir() + "/tests/arrow/write.mjs",
                                      {dir_.Join("in.arrow"), dir_.Join("in.arrows"), std::to_string(kIpcRows)});
  ASSERT_TRUE(wrote.ok()) << wrote.status().ToString();
  ASSERT_EQ(wrote->exit_code, 0) << wrote->err;
  const json written = json::parse(wrote->out);
  const std::vector<std::string> types = {"int32", "int32", "int64",  "int64",     "float",       "double",       "string", "string",
                                          "binary", "date", "timestamp", "timestamptz", "timestamp_ns", "binary", "decimal(12,3)",
                                          "bool"};
  ASSERT_EQ(written["columns"].size(), types.size());
  std::string schema;
  for (size_t c = 0; c < types.size(); ++c) schema += (c ? "," : "") + written["columns"][c].get<std::string>() + ":" + types[c];
  // The value `raw` (as write.mjs prints it) as our JSON output shows a value of `type`.
  auto expected = [&](const std::string& type, const json& raw) -> json {
    if (raw.is_null() || raw.is_boolean() || raw.is_number()) return raw;
    const std::string v = raw.get<std::string>();
    if (type == "int32" || type == "int64") return std::stoll(v);
    if (type == "binary") return FormatBinary(testing::Unhex(v));
    if (type == "date") return FormatDate(int32_t(std::stol(v)));
    if (type == "timestamp") return FormatTimestamp(std::stoll(v) * 1000);  // written in milliseconds
    if (type == "timestamptz") return FormatTimestamp(std::stoll(v)) + "+00";
    if (type == "timestamp_ns") return FormatTimestampNs(std::stoll(v));
    if (type == "decimal(12,3)") return json::parse(FormatDecimal(std::stoll(v), 3));  // JSON shows a number
    return v;
  };
  for (const char* file : {"in.arrow", "in.arrows"}) {
    SCOPED_TRACE(file);
    const std::string table = dir_.Join(std::string("from_") + (std::string(file).back() == 's' ? "stream" : "file"));
    auto created = RunCli(dir_, {"create", table, "--from", dir_.Join(file)});
    ASSERT_EQ(created.code, 0) << created.err;
    auto stats = RunCli(dir_, {"stats", table});
    EXPECT_NE(stats.out.find("schema: " + schema + "\n"), std::string::npos) << stats.out;
    auto q = RunCli(dir_, {"query", table, "--format", "json"});
    ASSERT_EQ(q.code, 0) << q.err;
    std::istringstream lines(q.out);
    std::string line;
    int k = 0;
    for (; std::getline(lines, line); ++k) {
      ASSERT_LT(k, kIpcRows);
      const json row = json::parse(line);
      for (size_t c = 0; c < types.size(); ++c) {
        const std::string name = written["columns"][c];
        ASSERT_EQ(row[name], expected(types[c], written["rows"][k][c])) << "row " << k << " column " << name;
      }
    }
    EXPECT_EQ(k, kIpcRows);
  }
  // Cut short: the input's damage, a user error (exit 1) naming the file and the byte, and no table.
  for (const char* file : {"in.arrows", "in.arrow"}) {
    const std::string whole = clitest::ReadFileText(dir_.Join(file));
    clitest::WriteFileText(dir_.Join(std::string("cut_") + file), whole.substr(0, whole.size() * 2 / 3));
    auto cut = RunCli(dir_, {"create", dir_.Join("cut"), "--from", dir_.Join(std::string("cut_") + file)});
    EXPECT_EQ(cut.code, 1) << file;
    EXPECT_NE(cut.err.find("cut_" + std::string(file) + ": Arrow IPC at byte"), std::string::npos) << cut.err;
    EXPECT_FALSE(std::filesystem::exists(dir_.Join("cut/_versions/00000000000000000001.manifest")));
  }
  // A schema given must be the file's.
  auto other = RunCli(dir_, {"create", dir_.Join("other"), "--from", dir_.Join("in.arrow"), "--schema", "a:int64"});
  EXPECT_EQ(other.code, 1);
  EXPECT_NE(other.err.find("schema mismatch"), std::string::npos) << other.err;
}

}  // namespace
}  // namespace lakeindex
