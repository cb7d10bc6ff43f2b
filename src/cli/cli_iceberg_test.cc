// Iceberg metadata read back by an independent Iceberg reader: icebird (npm, tests/iceberg),
// which fetches the table over a loopback HTTP server (tests/iceberg/read.mjs). For every version
// of tables put through create, append, delete, optimize, indexes and layouts, icebird's rows
// are lakeindex's rows of the same version, and DuckDB's over `lakeindex files`.
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "format/parquet/writer.h"
#include "table/iceberg.h"
#include "table/table.h"
#include "util/duckdb_ref.h"
#include "util/moto.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

using clitest::CliResult;
using clitest::RunCli;
using clitest::WriteFileText;
using testing::TempDir;

std::string IcebirdScript() { return testing::SourceDir() + "/tests/iceberg/read.mjs"; }

bool IcebirdInstalled() {
  return std::filesystem::exists(testing::SourceDir() + "/tests/iceberg/node_modules/icebird/package.json");
}

// 2,000 events rows in `events`, 300 more (seed 4) in `more`, and `table` made from the first
// with Iceberg metadata: version 1 of the tests that go on with deletes and appends.
void CreateWithIceberg(const TempDir& dir, const std::string& table, const std::string& events, const std::string& more) {
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "2000", "--output", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "300", "--seed", "4", "--output", more}).code, 0);
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", events, "--iceberg"}).code, 0);
}

// The text both sides render a cell as (read.mjs's conventions: int64 as decimal text, DATE as
// days, TIMESTAMP as JavaScript milliseconds — icebird gives a Date — floating values exactly).
std::string RenderDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == 0) d = 0;  // JSON has no -0
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", d);
  return buf;
}

std::string RenderOurs(const Value& v) {
  if (v.is_null()) return "null";
  // icebird's hyparquet gives a decimal as a JavaScript number: the unscaled value times
  // 10 ** -scale, one rounding of each (rendered so here from our exact value).
  if (IsDecimal(v.type())) return RenderDouble(double(v.int_value()) * std::pow(10.0, -DecimalScale(v.type())));
  switch (v.type()) {
    case TypeId::kBool: return v.bool_value() ? "true" : "false";
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate: return std::to_string(v.int_value());
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: return std::to_string(v.int_value() / 1000);  // as JS: BigInt division
    case TypeId::kTimestampNs: return std::to_string(v.int_value() / 1000000);
    case TypeId::kFloat:
    case TypeId::kDouble: return RenderDouble(v.double_value());
    case TypeId::kString: return nlohmann::json(v.string_value()).dump();
    // icebird's hyparquet gives a uuid as its 32 hex digits; it decodes an unannotated BYTE_ARRAY
    // as UTF-8 text (no option to keep the bytes), so binary columns are not compared through it.
    case TypeId::kUuid: return testing::Hex(v.string_value());
    case TypeId::kBinary:
      ADD_FAILURE() << "binary columns are not compared through icebird";
      return "?";
  }
  return "?";
}

std::string RenderIcebird(const nlohmann::json& cell, const std::string& type) {
  if (cell.is_null()) return "null";
  if (type == "boolean") return cell.get<bool>() ? "true" : "false";
  if (type == "float" || type == "double") {
    return cell.is_string() ? cell.get<std::string>() : RenderDouble(cell.get<double>());
  }
  if (type == "string") return cell.dump();
  if (cell.is_string()) return cell.get<std::string>();  // int64 as BigInt text
  if (cell.is_number_float()) return RenderDouble(cell.get<double>());
  return cell.dump();
}

struct VersionRows {
  uint64_t version = 0;  // the metadata's current snapshot: the version icebird read
  std::vector<std::string> columns;
  std::vector<std::string> rows;  // rendered, sorted
};

// Every version asked for, as icebird reads it.
// `table` is the directory served; `location` the URI the metadata names files by (default the
// directory's own).
std::map<std::string, VersionRows> IcebirdRows(const std::string& table, const std::vector<std::string>& versions,
                                               std::string location = "") {
  if (location.empty()) location = table::TableLocationUri(table);
  std::vector<std::string> args = {table, location};
  args.insert(args.end(), versions.begin(), versions.end());
  auto out = testing::RunNodeScript(IcebirdScript(), args);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  std::map<std::string, VersionRows> result;
  if (!out.ok()) return result;
  EXPECT_EQ(out->exit_code, 0) << out->err;
  size_t at = 0;
  size_t i = 0;
  while (at < out->out.size()) {
    size_t end = out->out.find('\n', at);
    if (end == std::string::npos) end = out->out.size();
    const nlohmann::json line = nlohmann::json::parse(out->out.substr(at, end - at));
    at = end + 1;
    const std::string asked = i < versions.size() ? versions[i++] : "?";
    if (line.contains("error")) {
      ADD_FAILURE() << "icebird failed on version " << asked << ": " << line["error"].get<std::string>();
      continue;
    }
    VersionRows v;
    v.version = line["version"].get<uint64_t>();
    v.columns = line["columns"].get<std::vector<std::string>>();
    const auto types = line["types"].get<std::vector<std::string>>();
    for (const auto& row : line["rows"]) {
      std::string r;
      for (size_t c = 0; c < row.size(); ++c) r += (c ? "|" : "") + RenderIcebird(row[c], types[c]);
      v.rows.push_back(std::move(r));
    }
    std::sort(v.rows.begin(), v.rows.end());
    result[asked] = std::move(v);
  }
  return result;
}

// Version `version`'s live rows as lakeindex reads them, the columns in `columns`' order.
std::vector<std::string> OurRows(const std::string& table_path, uint64_t version, const std::vector<std::string>& columns) {
  auto store = table::OpenTableStore(table_path, false);
  EXPECT_TRUE(store.ok());
  auto t = table::Table::Open(*store, version);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return {};
  auto batch = (*t)->ReadAll();
  EXPECT_TRUE(batch.ok());
  std::vector<const Column*> cols;
  for (const std::string& c : columns) {
    cols.push_back(batch->FindColumn(c));
    EXPECT_NE(cols.back(), nullptr) << "icebird reads a column '" << c << "' the table does not have";
    if (cols.back() == nullptr) return {};
  }
  std::vector<std::string> rows;
  for (size_t r = 0; r < batch->num_rows(); ++r) {
    std::string s;
    for (size_t c = 0; c < cols.size(); ++c) s += (c ? "|" : "") + RenderOurs(cols[c]->GetValue(r));
    rows.push_back(std::move(s));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<std::string> VisibleColumns(const std::string& table_path, uint64_t version) {
  auto store = table::OpenTableStore(table_path, false);
  auto t = table::Table::Open(*store, version);
  std::vector<std::string> out;
  for (const Field& f : (*t)->schema().fields()) out.push_back(f.name);
  return out;
}

uint64_t Newest(const std::string& table_path) {
  auto store = table::OpenTableStore(table_path, false);
  auto v = table::Table::LatestVersion(store->get());
  return v.ok() ? *v : 0;
}

// icebird's rows of every version from `first` to the newest equal lakeindex's, and its
// columns are the version's (the hidden weight included, as `_lakeindex_weight`).
void ExpectIcebirdReadsEveryVersion(const std::string& table, uint64_t first) {
  const uint64_t newest = Newest(table);
  std::vector<std::string> versions;
  for (uint64_t v = first; v <= newest; ++v) versions.push_back(std::to_string(v));
  versions.push_back("latest");
  auto read = IcebirdRows(table, versions);
  for (const std::string& v : versions) {
    SCOPED_TRACE("version " + v);
    auto it = read.find(v);
    ASSERT_NE(it, read.end());
    const uint64_t version = v == "latest" ? newest : std::stoull(v);
    EXPECT_EQ(it->second.version, version) << "icebird read another version than asked";
    std::vector<std::string> expected_columns = VisibleColumns(table, version);
    std::vector<std::string> got_columns = it->second.columns;
    std::sort(expected_columns.begin(), expected_columns.end());
    std::sort(got_columns.begin(), got_columns.end());
    EXPECT_EQ(got_columns, expected_columns);
    const std::vector<std::string> ours = OurRows(table, version, it->second.columns);
    if (it->second.rows != ours) {
      std::vector<std::string> only_icebird, only_ours;
      std::set_difference(it->second.rows.begin(), it->second.rows.end(), ours.begin(), ours.end(),
                          std::back_inserter(only_icebird));
      std::set_difference(ours.begin(), ours.end(), it->second.rows.begin(), it->second.rows.end(),
                          std::back_inserter(only_ours));
      ADD_FAILURE() << "version " << v << ": icebird " << it->second.rows.size() << " rows, lakeindex " << ours.size()
                    << "; only icebird has " << only_icebird.size() << " (first: "
                    << (only_icebird.empty() ? "-" : only_icebird[0]) << "), only lakeindex " << only_ours.size()
                    << " (first: " << (only_ours.empty() ? "-" : only_ours[0]) << ")\n"
                    << clitest::ReadFileText(table + "/" + table::iceberg::MetadataPath(version)).substr(0, 4000);
    }
  }
}

// The other way in: DuckDB reading each version's data files as `lakeindex files` lists them,
// deleted positions dropped (the user guide's query), gives lakeindex's rows too. One DuckDB run
// for all versions; the user's columns (every version has them).
void ExpectDuckDBOverFilesReadsEveryVersion(const TempDir& dir, const std::string& table, uint64_t first) {
  if (!testing::DuckDBAvailable()) GTEST_FAIL() << testing::DuckDBMissingMessage();
  const uint64_t newest = Newest(table);
  auto store = table::OpenTableStore(table, false);
  std::vector<std::string> user;
  std::string select;
  auto newest_table = table::Table::Open(*store, newest);
  ASSERT_TRUE(newest_table.ok());
  for (const Field& f : (*newest_table)->schema().fields()) {
    if (IsHiddenColumn(f.name)) continue;
    user.push_back(f.name);
    select += ", r." + testing::SqlIdent(f.name);
  }
  std::string sql;
  for (uint64_t v = first; v <= newest; ++v) {
    CliResult files = RunCli(dir, {"files", table, "--version", std::to_string(v), "--format", "json"});
    ASSERT_EQ(files.code, 0) << files.err;
    const std::string json_path = dir.Join("files-" + std::to_string(v) + ".json");
    WriteFileText(json_path, files.out);
    std::string paths;
    for (const auto& f : nlohmann::json::parse(files.out)) paths += (paths.empty() ? "" : ", ") + testing::SqlQuote(f["path"].get<std::string>());
    sql += std::string(sql.empty() ? "" : " UNION ALL ") + "SELECT " + std::to_string(v) + " AS v" + select +
           " FROM read_parquet([" + paths + "], filename = true, file_row_number = true, union_by_name = true) r JOIN read_json(" +
           testing::SqlQuote(json_path) + ") f ON r.filename = f.path WHERE NOT list_contains(f.deleted::BIGINT[], r.file_row_number)";
  }
  auto duck = testing::RunDuckDB(sql);
  ASSERT_TRUE(duck.ok()) << duck.status().ToString();
  std::map<uint64_t, std::vector<std::string>> theirs;
  for (const testing::DuckRow& row : duck->rows) {
    std::string r;
    for (size_t c = 1; c < row.size(); ++c) r += (c > 1 ? "|" : "") + row[c].value_or("NULL");
    theirs[std::stoull(*row[0])].push_back(std::move(r));
  }
  for (uint64_t v = first; v <= newest; ++v) {
    auto t = table::Table::Open(*store, v);
    ASSERT_TRUE(t.ok());
    auto batch = (*t)->ReadAll();
    ASSERT_TRUE(batch.ok());
    std::vector<std::string> ours;
    for (size_t r = 0; r < batch->num_rows(); ++r) {
      std::string line;
      for (size_t c = 0; c < user.size(); ++c) {
        line += (c ? "|" : "") + testing::RenderLikeDuckDB(batch->FindColumn(user[c])->GetValue(r)).value_or("NULL");
      }
      ours.push_back(std::move(line));
    }
    std::sort(ours.begin(), ours.end());
    std::vector<std::string>& duck_rows = theirs[v];
    std::sort(duck_rows.begin(), duck_rows.end());
    EXPECT_EQ(duck_rows.size(), ours.size()) << "version " << v;
    EXPECT_TRUE(duck_rows == ours) << "version " << v;
  }
}

TEST(CliIcebergTest, IcebirdReadsEveryVersionThroughAppendDeleteOptimizeIndexesAndLayouts) {
  if (!IcebirdInstalled()) GTEST_FAIL() << "icebird is not installed in tests/iceberg: run scripts/install-deps.sh";
  TempDir dir;
  const std::string table = dir.Join("t"), events = dir.Join("e.parquet"), more = dir.Join("more.parquet");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "6000", "--output", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "1500", "--seed", "7", "--output", more}).code, 0);
  auto run = [&](const std::vector<std::string>& args) {
    CliResult r = RunCli(dir, args);
    ASSERT_EQ(r.code, 0) << args[0] << ": " << r.err;
  };
  run({"create", table, "--from", events, "--rows-per-file", "1500", "--iceberg"});
  run({"append", table, "--from", more, "--rows-per-file", "1000"});
  run({"delete", table, "--where", "score < 20 OR id BETWEEN 100 AND 400"});
  run({"index", "create", table, "--column", "score", "--type", "btree"});
  run({"delete", table, "--where", "maybe IS NULL AND x < 300"});
  run({"optimize", table, "--rows-per-file", "2500"});
  run({"layout", table, "--otree", "x,y", "--cube-rows", "800"});
  run({"append", table, "--from", more});
  run({"delete", table, "--where", "y > 900"});
  run({"layout", table, "--zorder", "x,y", "--cube-rows", "1000"});
  run({"delete", table, "--where", "category = 'c1'"});
  run({"layout", table, "--hilbert", "x,z", "--cube-rows", "1000"});
  run({"layout", table, "--sort", "score", "--cube-rows", "1000"});
  run({"delete", table, "--where", "score BETWEEN 300000 AND 600000"});
  ASSERT_GE(Newest(table), 12u);
  ExpectIcebirdReadsEveryVersion(table, 1);
  ExpectDuckDBOverFilesReadsEveryVersion(dir, table, 1);

  // Snapshots: one per version, each naming its parent; the hint names the newest.
  const std::string meta = clitest::ReadFileText(dir.Join("t/" + table::iceberg::MetadataPath(Newest(table))));
  const nlohmann::json m = nlohmann::json::parse(meta);
  EXPECT_EQ(m["snapshots"].size(), Newest(table));
  EXPECT_EQ(m["current-snapshot-id"].get<uint64_t>(), Newest(table));
  for (size_t i = 1; i < m["snapshots"].size(); ++i) {
    EXPECT_EQ(m["snapshots"][i]["parent-snapshot-id"], m["snapshots"][i - 1]["snapshot-id"]);
  }
  EXPECT_EQ(clitest::ReadFileText(dir.Join("t/metadata/version-hint.text")), std::to_string(Newest(table)));
}

// A Parquet file of random rows of every type Iceberg and icebird read back (timestamp_ns is not
// in Iceberg v2; binary values come back from icebird decoded as text), NULLs included.
void WriteRandomParquet(const std::string& path, uint64_t seed, size_t rows) {
  Schema schema({{"b", TypeId::kBool, true},     {"i", TypeId::kInt32, true},  {"l", TypeId::kInt64, true},
                 {"f", TypeId::kFloat, true},    {"d", TypeId::kDouble, true}, {"s", TypeId::kString, true},
                 {"day", TypeId::kDate, true},   {"ts", TypeId::kTimestamp, true}, {"tz", TypeId::kTimestampTz, true},
                 {"u", TypeId::kUuid, true},     {"dec", DecimalType(12, 2), true}});
  Batch batch = testing::RandomBatch(schema, rows, seed, 0.15);
  auto w = parquet::ParquetWriter::Make(schema);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Write(batch).ok());
  auto file = (*w)->Finish();
  ASSERT_TRUE(file.ok());
  WriteFileText(path, *file);
}

TEST(CliIcebergTest, EnablingLaterWritesTheCurrentRowsAndEveryTypeReadsBack) {
  if (!IcebirdInstalled()) GTEST_FAIL() << "icebird is not installed in tests/iceberg: run scripts/install-deps.sh";
  TempDir dir;
  const std::string table = dir.Join("r");
  WriteRandomParquet(dir.Join("a.parquet"), 11, 700);
  WriteRandomParquet(dir.Join("b.parquet"), 12, 300);
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", dir.Join("a.parquet"), "--rows-per-file", "200"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"delete", table, "--where", "l < 0 OR b"}).code, 0);
  EXPECT_FALSE(std::filesystem::exists(dir.Join("r/metadata")));
  CliResult enabled = RunCli(dir, {"iceberg", "enable", table});
  ASSERT_EQ(enabled.code, 0) << enabled.err;
  EXPECT_NE(enabled.err.find("now keeps"), std::string::npos) << enabled.err;
  const uint64_t first = Newest(table);
  EXPECT_EQ(first, 3u);
  CliResult again = RunCli(dir, {"iceberg", "enable", table});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("already keeps"), std::string::npos) << again.err;
  EXPECT_EQ(Newest(table), first) << "enabling twice commits once";
  ASSERT_EQ(RunCli(dir, {"append", table, "--from", dir.Join("b.parquet")}).code, 0);
  ASSERT_EQ(RunCli(dir, {"delete", table, "--where", "i IS NULL OR d > 0"}).code, 0);
  ExpectIcebirdReadsEveryVersion(table, first);
  ExpectDuckDBOverFilesReadsEveryVersion(dir, table, first);

  // The versions before enabling have no Iceberg snapshot; the first one has no parent.
  const nlohmann::json m = nlohmann::json::parse(clitest::ReadFileText(dir.Join("r/" + table::iceberg::MetadataPath(Newest(table)))));
  EXPECT_EQ(m["snapshots"][0]["snapshot-id"].get<uint64_t>(), first);
  EXPECT_FALSE(m["snapshots"][0].contains("parent-snapshot-id"));

  CliResult bad = RunCli(dir, {"iceberg", "enable", dir.Join("nope")});
  EXPECT_EQ(bad.code, 1);
  CliResult bad_location = RunCli(dir, {"create", dir.Join("r2"), "--from", dir.Join("a.parquet"), "--iceberg-location", "relative/path"});
  EXPECT_EQ(bad_location.code, 1);
  EXPECT_NE(bad_location.err.find("absolute URI"), std::string::npos) << bad_location.err;
}

// Iceberg's format version 2 has no nanosecond timestamps: a table holding one is refused Iceberg
// metadata, naming the column, and is left as it was.
TEST(CliIcebergTest, TimestampNsColumnsAreRefusedAndTheTableStaysAsItWas) {
  TempDir dir;
  clitest::WriteFileText(dir.Join("ns.csv"), "k,t\n1,2024-01-01 00:00:00.000000001\n");
  CliResult created = RunCli(dir, {"create", dir.Join("a"), "--from", dir.Join("ns.csv"), "--schema", "k:int64,t:timestamp_ns",
                                   "--iceberg"});
  EXPECT_EQ(created.code, 1);
  EXPECT_NE(created.err.find("column 't' is a timestamp_ns"), std::string::npos) << created.err;
  EXPECT_FALSE(std::filesystem::exists(dir.Join("a/_versions/00000000000000000001.manifest")));
  ASSERT_EQ(RunCli(dir, {"create", dir.Join("b"), "--from", dir.Join("ns.csv"), "--schema", "k:int64,t:timestamp_ns"}).code, 0);
  CliResult enabled = RunCli(dir, {"iceberg", "enable", dir.Join("b")});
  EXPECT_EQ(enabled.code, 1);
  EXPECT_NE(enabled.err.find("timestamp_ns"), std::string::npos) << enabled.err;
  EXPECT_EQ(Newest(dir.Join("b")), 1u);
  EXPECT_FALSE(std::filesystem::exists(dir.Join("b/metadata")));
  CliResult q = RunCli(dir, {"query", dir.Join("b"), "--format", "csv"});
  EXPECT_EQ(q.out, "k,t\n1,2024-01-01 00:00:00.000000001\n");
}

// The version Iceberg's file-system catalogs read as the newest: the hint, then forward while
// the next metadata file exists (Spark's HadoopTableOperations does the same).
uint64_t IcebergNewest(const std::string& table) {
  const std::string hint = clitest::ReadFileText(table + "/metadata/version-hint.text");
  uint64_t v = hint.empty() ? 0 : std::stoull(hint);
  while (std::filesystem::exists(table + "/" + table::iceberg::MetadataPath(v + 1))) ++v;
  return v;
}

uint64_t IcebergHinted(const std::string& table) {
  const std::string hint = clitest::ReadFileText(table + "/metadata/version-hint.text");
  return hint.empty() ? 0 : std::stoull(hint);
}

// Every metadata file names its own version as the current snapshot, every snapshot's manifest
// list is there, and none is ahead of lakeindex's newest version.
void ExpectMetadataFilesConsistent(const std::string& table) {
  const uint64_t newest = Newest(table);
  for (const auto& entry : std::filesystem::directory_iterator(table + "/metadata")) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 15 || name[0] != 'v' || name.find(".metadata.json") == std::string::npos) continue;
    const uint64_t v = std::stoull(name.substr(1));
    EXPECT_LE(v, newest) << name << " is ahead of lakeindex's newest version";
    const nlohmann::json m = nlohmann::json::parse(clitest::ReadFileText(entry.path().string()));
    EXPECT_EQ(m["current-snapshot-id"].get<uint64_t>(), v) << name;
    if (v == IcebergNewest(table)) {  // older ones may name snapshots expired since
      for (const auto& snap : m["snapshots"]) {
        std::string list = snap["manifest-list"].get<std::string>();
        list = list.substr(table::TableLocationUri(table).size() + 1);
        EXPECT_TRUE(std::filesystem::exists(table + "/" + list)) << name << " names a missing " << list;
      }
    }
  }
}

TEST(CliIcebergTest, KilledWritersLeaveIcebergAtLakeindexsVersionOrOneBehindUntilTheNextOpen) {
  if (!IcebirdInstalled()) GTEST_FAIL() << "icebird is not installed in tests/iceberg: run scripts/install-deps.sh";
  TempDir dir;
  const std::string table = dir.Join("t"), base = dir.Join("base.parquet"), more = dir.Join("more.parquet");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "4000", "--output", base}).code, 0);
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "800", "--seed", "7", "--output", more}).code, 0);
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", base, "--rows-per-file", "1000", "--iceberg"}).code, 0);
  std::filesystem::copy(table, dir.Join("timed"), std::filesystem::copy_options::recursive);
  const int64_t window_us = clitest::KillWindowUs(dir, {"layout", dir.Join("timed"), "--otree", "x,score", "--cube-rows", "600"});
  ASSERT_GT(window_us, 0);
  const int kills = std::getenv("LAKEINDEX_SOAK") ? 200 : 12;
  std::mt19937 rng(99);
  int behind = 0;
  for (int i = 0; i < kills; ++i) {
    const int64_t lo = int64_t(rng() % 5000);
    const std::vector<std::vector<std::string>> commands = {
        {"append", table, "--from", more, "--rows-per-file", "400"},
        {"delete", table, "--where", "id BETWEEN " + std::to_string(lo) + " AND " + std::to_string(lo + 300)},
        {"layout", table, "--otree", "x,score", "--cube-rows", "600"},
        {"optimize", table},
    };
    const std::vector<std::string>& args = commands[rng() % commands.size()];
    clitest::RunAndKill(dir, args, int64_t(rng()) % window_us);

    // Readers that probe forward from the hint (Spark's Hadoop tables) and readers that trust
    // the hint (icebird, DuckDB's iceberg_scan) are each at lakeindex's version or one behind.
    const uint64_t ours = Newest(table), probed = IcebergNewest(table), hinted = IcebergHinted(table);
    ASSERT_TRUE(probed == ours || probed + 1 == ours) << "after kill " << i << " of " << args[0] << ": lakeindex at "
                                                      << ours << ", Iceberg at " << probed;
    ASSERT_TRUE(hinted == probed || hinted + 1 == probed) << "after kill " << i << ": hint " << hinted << ", metadata "
                                                          << probed;
    ExpectMetadataFilesConsistent(table);
    if (hinted < ours) {
      ++behind;
      // What the crash left unwritten, written from the committed manifests by the next
      // lakeindex that opens the table — a reader (half the time), or `iceberg enable`.
      const std::vector<std::string> repair = behind % 2 ? std::vector<std::string>{"query", table, "--limit", "1"}
                                                         : std::vector<std::string>{"iceberg", "enable", table};
      CliResult repaired = RunCli(dir, repair);
      ASSERT_EQ(repaired.code, 0) << repaired.err;
      EXPECT_EQ(IcebergNewest(table), ours) << "after " << repair[0];
      EXPECT_EQ(IcebergHinted(table), ours) << "after " << repair[0];
      EXPECT_EQ(Newest(table), ours) << "the repair commits nothing";
    }
  }
  std::printf("%d kills, %llu versions, Iceberg one behind after %d of them\n", kills,
              static_cast<unsigned long long>(Newest(table)), behind);
  EXPECT_GT(Newest(table), 1u) << "no command ever committed: the kill window is too short";
  ExpectIcebirdReadsEveryVersion(table, 1);
}

// The state a kill between a commit and its vN.metadata.json leaves (the kill test above hits
// that window rarely): the next lakeindex that opens the newest version writes what is missing,
// a reader included; one that opens an older version writes nothing.
TEST(CliIcebergTest, AnOpenWritesTheMetadataACrashLeftUnwritten) {
  if (!IcebirdInstalled()) GTEST_FAIL() << "icebird is not installed in tests/iceberg: run scripts/install-deps.sh";
  TempDir dir;
  const std::string table = dir.Join("t"), events = dir.Join("e.parquet"), more = dir.Join("m.parquet");
  ASSERT_NO_FATAL_FAILURE(CreateWithIceberg(dir, table, events, more));
  ASSERT_EQ(RunCli(dir, {"append", table, "--from", more}).code, 0);
  ASSERT_EQ(RunCli(dir, {"delete", table, "--where", "id < 50"}).code, 0);
  ASSERT_EQ(Newest(table), 3u);
  // Versions 2 and 3 committed, their metadata never written.
  for (uint64_t v : {2, 3}) ASSERT_TRUE(std::filesystem::remove(table + "/" + table::iceberg::MetadataPath(v)));
  clitest::WriteFileText(table + "/metadata/version-hint.text", "1");
  ASSERT_EQ(IcebergNewest(table), 1u);

  CliResult old = RunCli(dir, {"query", table, "--version", "2", "--limit", "1"});
  ASSERT_EQ(old.code, 0) << old.err;
  EXPECT_EQ(IcebergNewest(table), 1u) << "opening version 2 published nothing";
  CliResult read = RunCli(dir, {"query", table, "--agg", "count(*)", "--format", "csv"});
  ASSERT_EQ(read.code, 0) << read.err;
  EXPECT_EQ(IcebergNewest(table), 3u);
  EXPECT_EQ(IcebergHinted(table), 3u);
  EXPECT_EQ(Newest(table), 3u) << "the repair commits nothing";
  // Killed between the metadata file and the hint: the hint is brought forward.
  clitest::WriteFileText(table + "/metadata/version-hint.text", "2");
  ASSERT_EQ(RunCli(dir, {"query", table, "--limit", "1"}).code, 0);
  EXPECT_EQ(IcebergHinted(table), 3u);
  ExpectMetadataFilesConsistent(table);
  ExpectIcebirdReadsEveryVersion(table, 1);
}

TEST(CliIcebergTest, ExpiryAndVacuumDropOldSnapshotsAndTheirFilesOnly) {
  if (!IcebirdInstalled()) GTEST_FAIL() << "icebird is not installed in tests/iceberg: run scripts/install-deps.sh";
  TempDir dir;
  const std::string table = dir.Join("t"), events = dir.Join("e.parquet");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "3000", "--output", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", events, "--rows-per-file", "1000", "--iceberg"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"delete", table, "--where", "id < 100"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"delete", table, "--where", "id BETWEEN 1000 AND 1100"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"optimize", table}).code, 0);
  ASSERT_EQ(RunCli(dir, {"delete", table, "--where", "id > 2900"}).code, 0);
  ASSERT_EQ(Newest(table), 5u);
  CliResult vac = RunCli(dir, {"vacuum", table, "--keep-versions", "2", "--older-than", "0", "--force"});
  ASSERT_EQ(vac.code, 0) << vac.err;
  // The expiry is version 6, whose own metadata file lists versions 5 and 6; version 5's file is
  // as it was (engines cache metadata files by path).
  ASSERT_EQ(Newest(table), 6u);
  const nlohmann::json m = nlohmann::json::parse(clitest::ReadFileText(table + "/" + table::iceberg::MetadataPath(6)));
  ASSERT_EQ(m["snapshots"].size(), 2u);
  EXPECT_EQ(m["snapshots"][0]["snapshot-id"].get<uint64_t>(), 5u);
  EXPECT_EQ(m["snapshot-log"].size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(clitest::ReadFileText(table + "/" + table::iceberg::MetadataPath(5)))["snapshots"].size(), 5u);
  for (uint64_t v = 1; v <= 4; ++v) EXPECT_FALSE(std::filesystem::exists(table + "/" + table::iceberg::MetadataPath(v))) << v;
  ExpectMetadataFilesConsistent(table);
  // The delete files of versions 2 and 3 went with the data files they applied to (optimize
  // rewrote them); version 5's is there.
  size_t delete_files = 0;
  for (const auto& e : std::filesystem::directory_iterator(table + "/metadata/deletes")) delete_files += e.is_regular_file();
  EXPECT_EQ(delete_files, 1u);
  ExpectIcebirdReadsEveryVersion(table, 5);
  // The next commit lists the kept snapshots and its own.
  ASSERT_EQ(RunCli(dir, {"delete", table, "--where", "id = 2000"}).code, 0);
  const nlohmann::json m7 = nlohmann::json::parse(clitest::ReadFileText(table + "/" + table::iceberg::MetadataPath(7)));
  EXPECT_EQ(m7["snapshots"].size(), 3u);
}

// A bound as the manifests store it (hex of Iceberg's single-value serialization), decoded.
Value DecodeBound(const std::string& hex, TypeId type) {
  const std::string b = testing::Unhex(hex);
  auto le = [&](auto zero) {
    decltype(zero) v{};
    EXPECT_EQ(b.size(), sizeof(v)) << hex;
    std::memcpy(&v, b.data(), std::min(b.size(), sizeof(v)));
    return v;
  };
  if (IsDecimal(type)) {  // big-endian two's complement, as few bytes as hold it
    EXPECT_TRUE(!b.empty() && b.size() <= 8) << hex;
    const bool padded = b.size() > 1 && ((b[0] == '\0' && !(uint8_t(b[1]) & 0x80)) || (b[0] == '\xff' && (uint8_t(b[1]) & 0x80)));
    EXPECT_FALSE(padded) << hex << ": not the fewest bytes";
    int64_t v = b.empty() ? 0 : int8_t(b[0]);
    for (size_t i = 1; i < b.size(); ++i) v = v * 256 + uint8_t(b[i]);
    return Value::Decimal(type, v);
  }
  switch (type) {
    case TypeId::kBool: return Value::Bool(b == std::string(1, '\1'));
    case TypeId::kInt32: return Value::Int32(le(int32_t{}));
    case TypeId::kDate: return Value::Date(le(int32_t{}));
    case TypeId::kInt64: return Value::Int64(le(int64_t{}));
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: return Value::Int(type, le(int64_t{}));
    case TypeId::kFloat: return Value::Float(le(float{}));
    case TypeId::kDouble: return Value::Double(le(double{}));
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid: return Value::Bytes(type, b);
  }
  return Value::Null(type);
}

struct DataFileEntry {
  std::string path;  // local
  uint64_t rows = 0;
  std::map<int, uint64_t> values, nulls;
  std::map<int, Value> lower, upper;
};

// The data manifest entries of `version` as icebird decodes them, bounds typed by the column
// their field id names (the user's columns 1..n, then the hidden ones).
std::vector<DataFileEntry> ManifestEntries(const std::string& table, uint64_t version) {
  auto store = table::OpenTableStore(table, false);
  auto t = table::Table::Open(*store, version);
  std::map<int, TypeId> types;
  int id = 1;
  for (bool hidden : {false, true}) {
    for (const Field& f : (*t)->schema().fields()) {
      if (IsHiddenColumn(f.name) == hidden) types[id++] = f.type;
    }
  }
  auto out = testing::RunNodeScript(IcebirdScript(), {table, table::TableLocationUri(table), "--manifests", std::to_string(version)});
  EXPECT_TRUE(out.ok() && out->exit_code == 0) << (out.ok() ? out->err : out.status().ToString());
  std::vector<DataFileEntry> entries;
  if (!out.ok()) return entries;
  std::istringstream lines(out->out);
  std::string line;
  while (std::getline(lines, line)) {
    const nlohmann::json e = nlohmann::json::parse(line);
    const nlohmann::json& f = e["data_file"];
    if (f["content"].get<int>() != 0) continue;
    DataFileEntry d;
    d.path = table + f["file_path"].get<std::string>().substr(table::TableLocationUri(table).size());
    d.rows = std::stoull(f["record_count"].get<std::string>());
    for (const auto& kv : f["value_counts"]) d.values[kv["key"].get<int>()] = std::stoull(kv["value"].get<std::string>());
    for (const auto& kv : f["null_value_counts"]) d.nulls[kv["key"].get<int>()] = std::stoull(kv["value"].get<std::string>());
    for (const auto& kv : f["lower_bounds"]) d.lower[kv["key"].get<int>()] = DecodeBound(kv["value"], types[kv["key"].get<int>()]);
    for (const auto& kv : f["upper_bounds"]) d.upper[kv["key"].get<int>()] = DecodeBound(kv["value"], types[kv["key"].get<int>()]);
    entries.push_back(std::move(d));
  }
  return entries;
}

// The bounds and counts of every data file of `version` are DuckDB's min, max (NaN left out),
// NULL count and row count of the file.
void ExpectBoundsAreDuckDBs(const std::string& table, uint64_t version) {
  const std::vector<DataFileEntry> entries = ManifestEntries(table, version);
  ASSERT_FALSE(entries.empty());
  auto store = table::OpenTableStore(table, false);
  auto t = table::Table::Open(*store, version);
  std::vector<std::pair<int, const Field*>> columns;
  int id = 1;
  for (bool hidden : {false, true}) {
    for (const Field& f : (*t)->schema().fields()) {
      if (IsHiddenColumn(f.name) == hidden) columns.emplace_back(id++, &f);
    }
  }
  std::string sql = "SELECT count(*)";
  for (const auto& [cid, f] : columns) {
    const std::string c = testing::SqlIdent(f->name);
    const std::string filter = IsFloating(f->type) ? " FILTER (WHERE NOT isnan(" + c + "))" : "";
    sql += ", min(" + c + ")" + filter + ", max(" + c + ")" + filter + ", count(*) - count(" + c + ")";
  }
  for (const DataFileEntry& e : entries) {
    SCOPED_TRACE(e.path);
    auto duck = testing::RunDuckDB(sql + " FROM read_parquet(" + testing::SqlQuote(e.path) + ")");
    ASSERT_TRUE(duck.ok()) << duck.status().ToString();
    const testing::DuckRow& row = duck->rows.at(0);
    EXPECT_EQ(std::to_string(e.rows), row[0].value_or("NULL"));
    for (size_t i = 0; i < columns.size(); ++i) {
      const auto& [cid, f] = columns[i];
      SCOPED_TRACE(f->name);
      EXPECT_EQ(e.values.at(cid), e.rows);
      EXPECT_EQ(std::to_string(e.nulls.at(cid)), row[3 + 3 * i].value_or("NULL"));
      const std::optional<std::string> dmin = row[1 + 3 * i], dmax = row[2 + 3 * i];
      if (!dmin || f->type == TypeId::kUuid) {  // no non-NULL, non-NaN value, or a uuid (iceberg.cc): no bounds
        EXPECT_EQ(e.lower.count(cid), 0u);
        continue;
      }
      ASSERT_EQ(e.lower.count(cid), 1u);
      if (IsFloating(f->type)) {  // zeros widen to -0.0 .. 0.0; compare numerically
        double lo = 0, hi = 0;
        ASSERT_TRUE(testing::ParseDuckDouble(*dmin, &lo) && testing::ParseDuckDouble(*dmax, &hi));
        EXPECT_EQ(e.lower.at(cid).double_value(), lo);
        EXPECT_EQ(e.upper.at(cid).double_value(), hi);
      } else {
        EXPECT_EQ(testing::RenderLikeDuckDB(e.lower.at(cid)), dmin);
        EXPECT_EQ(testing::RenderLikeDuckDB(e.upper.at(cid)), dmax);
      }
    }
  }
}

TEST(CliIcebergTest, ManifestBoundsAreEachFilesAsDuckDBComputesThemAndPruneABoxSafely) {
  if (!IcebirdInstalled()) GTEST_FAIL() << "icebird is not installed in tests/iceberg: run scripts/install-deps.sh";
  if (!testing::DuckDBAvailable()) GTEST_FAIL() << testing::DuckDBMissingMessage();
  TempDir dir;
  const std::string typed = dir.Join("r");
  WriteRandomParquet(dir.Join("a.parquet"), 21, 900);
  ASSERT_EQ(RunCli(dir, {"create", typed, "--from", dir.Join("a.parquet"), "--rows-per-file", "300", "--iceberg"}).code, 0);
  ExpectBoundsAreDuckDBs(typed, 1);

  const std::string table = dir.Join("t"), events = dir.Join("e.parquet");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "20000", "--output", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"create", table, "--from", events, "--iceberg"}).code, 0);
  CliResult laid = RunCli(dir, {"layout", table, "--otree", "x,y", "--cube-rows", "1000", "--rows-per-file", "2000"});
  ASSERT_EQ(laid.code, 0) << laid.err;
  const uint64_t v = Newest(table);
  ExpectBoundsAreDuckDBs(table, v);

  // Iceberg-style planning of a box: a file stays unless its bounds exclude the box. It keeps
  // every file holding a matching row, and no more files than the OTree reader scans (the layout
  // heads every file with a cube whose descendants are all it holds besides: PackCubes).
  const std::vector<DataFileEntry> entries = ManifestEntries(table, v);
  std::string files;
  for (const DataFileEntry& e : entries) files += (files.empty() ? "" : ", ") + testing::SqlQuote(e.path);
  testing::Rng rng(19);
  for (int q = 0; q < 4; ++q) {
    double x0 = 200, x1 = 400, y0 = 100, y1 = 300;  // then boxes of random size and place
    if (q > 0) {
      const double w = 20 + rng.Uniform(400), h = 20 + rng.Uniform(400);
      x0 = double(rng.Uniform(1000)) - w / 2, x1 = x0 + w, y0 = double(rng.Uniform(1000)) - h / 2, y1 = y0 + h;
    }
    char where[160];
    std::snprintf(where, sizeof where, "x BETWEEN %.17g AND %.17g AND y BETWEEN %.17g AND %.17g", x0, x1, y0, y1);
    SCOPED_TRACE(where);
    std::set<std::string> kept;
    for (const DataFileEntry& e : entries) {
      const bool out = e.upper.at(2).double_value() < x0 || e.lower.at(2).double_value() > x1 ||
                       e.upper.at(3).double_value() < y0 || e.lower.at(3).double_value() > y1;
      if (!out) kept.insert(e.path);
    }
    auto matching = testing::RunDuckDB("SELECT DISTINCT filename FROM read_parquet([" + files +
                                       "], filename = true) WHERE " + where);
    ASSERT_TRUE(matching.ok()) << matching.status().ToString();
    if (q == 0) { ASSERT_FALSE(matching->rows.empty()); }
    for (const auto& r : matching->rows) EXPECT_TRUE(kept.count(*r[0])) << *r[0] << " holds matching rows but was pruned";
    CliResult ex = RunCli(dir, {"explain", table, "--where", where, "--json"});
    ASSERT_EQ(ex.code, 0) << ex.err;
    const nlohmann::json plan = nlohmann::json::parse(ex.out);
    const uint64_t otree_scanned = plan["fragments_scanned"].get<uint64_t>();
    std::printf("box %s: %zu data files, Iceberg bounds keep %zu, the OTree reader %llu, %zu hold matching rows\n", where,
                entries.size(), kept.size(), static_cast<unsigned long long>(otree_scanned), matching->rows.size());
    EXPECT_LE(kept.size(), otree_scanned);
    EXPECT_LT(kept.size(), entries.size());
  }

  // The weight's bounds prune a 1% sample to the files that hold such weights.
  size_t sample_files = 0;
  for (const DataFileEntry& e : entries) sample_files += e.lower.at(10).double_value() < 0.01;
  auto sampled = testing::RunDuckDB("SELECT count(DISTINCT filename) FROM read_parquet([" + files +
                                    "], filename = true) WHERE _lakeindex_weight < 0.01");
  ASSERT_TRUE(sampled.ok()) << sampled.status().ToString();
  std::printf("1%% sample: Iceberg bounds keep %zu of %zu files, %s hold sampled rows\n", sample_files, entries.size(),
              sampled->rows[0][0]->c_str());
  EXPECT_EQ(std::to_string(sample_files), *sampled->rows[0][0]) << "kept exactly the files with sampled rows";
  EXPECT_LT(sample_files, entries.size());
}

TEST(CliIcebergTest, OnS3TheMetadataNamesS3PathsAndIcebirdReadsWhatBoto3Downloads) {
  if (!IcebirdInstalled()) GTEST_FAIL() << "icebird is not installed in tests/iceberg: run scripts/install-deps.sh";
  testing::MotoServer& moto = testing::MotoServer::Shared();
  TempDir dir;
  const std::string events = dir.Join("e.parquet"), more = dir.Join("m.parquet");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "3000", "--output", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "500", "--seed", "3", "--output", more}).code, 0);
  const std::string uri = std::string("s3://") + testing::MotoServer::kSharedBucket + "/iceberg-t";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"create", uri, "--from", events, "--rows-per-file", "1000", "--iceberg"},
        {"delete", uri, "--where", "score < 100000 OR id BETWEEN 10 AND 20"},
        {"append", uri, "--from", more},
        {"vacuum", uri, "--keep-versions", "2", "--older-than", "0", "--force"}}) {
    CliResult r = RunCli(dir, args);
    ASSERT_EQ(r.code, 0) << args[0] << ": " << r.err;
  }
  // Everything under the table, as `aws s3 cp --recursive` would fetch it.
  const std::string local = dir.Join("copy");
  auto listed = moto.Boto3("import os\n"
                           "b = '" + std::string(testing::MotoServer::kSharedBucket) + "'\n"
                           "keys = [o['Key'] for p in s3.get_paginator('list_objects_v2').paginate(Bucket=b, Prefix='iceberg-t/') for o in p.get('Contents', [])]\n"
                           "for k in keys:\n"
                           "    p = os.path.join('" + local + "', os.path.relpath(k, 'iceberg-t'))\n"
                           "    os.makedirs(os.path.dirname(p), exist_ok=True)\n"
                           "    s3.download_file(b, k, p)\n"
                           "print(sum(k.endswith('.metadata.json') for k in keys))\n");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(listed->substr(0, 1), "2") << "versions 3 and 4 (the expiry) kept, 1 and 2 expired: " << *listed;
  const nlohmann::json m = nlohmann::json::parse(clitest::ReadFileText(local + "/metadata/v4.metadata.json"));
  EXPECT_EQ(m["location"], uri);
  EXPECT_EQ(m["snapshots"].size(), 2u);
  auto read = IcebirdRows(local, {"3", "4", "latest"}, uri);
  for (const std::string v : {"3", "4"}) {
    CliResult ours = RunCli(dir, {"query", uri, "--version", v, "--select", "id", "--format", "csv"});
    ASSERT_EQ(ours.code, 0) << ours.err;
    std::vector<std::string> ids = clitest::SortedLines(ours.out.substr(ours.out.find('\n') + 1));
    std::vector<std::string> theirs;
    const auto& cols = read[v].columns;
    const size_t id_col = std::find(cols.begin(), cols.end(), "id") - cols.begin();
    ASSERT_LT(id_col, cols.size());
    for (const std::string& row : read[v].rows) {
      size_t at = 0;
      for (size_t c = 0; c < id_col; ++c) at = row.find('|', at) + 1;
      theirs.push_back(row.substr(at, row.find('|', at) - at));
    }
    std::sort(theirs.begin(), theirs.end());
    EXPECT_EQ(theirs.size(), ids.size()) << "version " << v;
    EXPECT_TRUE(theirs == ids) << "version " << v;
  }
  EXPECT_EQ(read["latest"].version, 4u);
}


// A lost manifest list or manifest breaks the snapshots that name it for every engine; `verify`
// names each lost file (exit 2, as for any file of the table the store lost), and `verify
// --repair` writes them again — the same bytes at the same paths — without a commit, after which
// verify passes and icebird reads every version again.
TEST(CliIcebergTest, VerifyRepairWritesLostManifestListsAndManifestsAgain) {
  if (!IcebirdInstalled()) GTEST_FAIL() << "icebird is not installed in tests/iceberg: run scripts/install-deps.sh";
  TempDir dir;
  const std::string table = dir.Join("t"), events = dir.Join("e.parquet"), more = dir.Join("m.parquet");
  ASSERT_NO_FATAL_FAILURE(CreateWithIceberg(dir, table, events, more));
  ASSERT_EQ(RunCli(dir, {"delete", table, "--where", "id < 50"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"append", table, "--from", more}).code, 0);
  ASSERT_EQ(Newest(table), 3u);
  // Every file but the metadata JSON and the hint goes: manifest lists, data manifests (one reused
  // by later snapshots), the delete manifest, the position delete file.
  std::map<std::string, std::string> lost;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(table + "/metadata")) {
    const std::string path = std::filesystem::relative(entry.path(), table).string();
    if (!entry.is_regular_file() || path.find(".metadata.json") != std::string::npos || path == "metadata/version-hint.text") continue;
    lost[path] = clitest::ReadFileText(entry.path().string());
  }
  for (const auto& [path, bytes] : lost) std::filesystem::remove(table + "/" + path);
  ASSERT_GE(lost.size(), 7u);
  ASSERT_EQ(std::count_if(lost.begin(), lost.end(), [](const auto& f) { return f.first.rfind("metadata/deletes/", 0) == 0; }), 1);
  for (uint64_t v = 1; v <= 3; ++v) {
    CliResult damaged = RunCli(dir, {"verify", table, "--version", std::to_string(v)});
    EXPECT_EQ(damaged.code, 2) << damaged.err;
    EXPECT_NE(damaged.err.find("snap-" + std::to_string(v) + "-"), std::string::npos) << damaged.err;
    EXPECT_NE(damaged.err.find(" is missing"), std::string::npos) << damaged.err;
  }
  std::string repaired;
  for (uint64_t v = 1; v <= 3; ++v) {
    CliResult repair = RunCli(dir, {"verify", table, "--version", std::to_string(v), "--repair"});
    EXPECT_EQ(repair.code, 0) << repair.err;
    EXPECT_NE(repair.out.find("every file verified"), std::string::npos) << repair.out;
    repaired += repair.err;
  }
  for (const auto& [path, bytes] : lost) {
    EXPECT_NE(repaired.find("repair: wrote " + path), std::string::npos) << path << " not written again:\n" << repaired;
    EXPECT_EQ(clitest::ReadFileText(table + "/" + path), bytes) << path << " written again differs";
  }
  EXPECT_EQ(Newest(table), 3u) << "the repair commits nothing";
  CliResult nothing = RunCli(dir, {"verify", table, "--repair"});
  EXPECT_EQ(nothing.code, 0) << nothing.err;
  EXPECT_NE(nothing.err.find("no Iceberg metadata file of version 3 is missing"), std::string::npos) << nothing.err;
  ExpectIcebirdReadsEveryVersion(table, 1);
}

}  // namespace
}  // namespace lakeindex
