// Conformance against DuckDB on apache/parquet-testing: every file of data/ and bad_data/ either
// reads with ParquetReader::ReadAll and then equals DuckDB's read of the same file value for
// value, or fails with NotSupported/Corruption (never another code). Files named
// *corrupt-checksum* must be Corruption.
//
// The corpus is $LAKEINDEX_SHARED_DIR/parquet-testing (default
// $LAKEINDEX_SOURCE_DIR/../shared/parquet-testing); the test skips when it is missing, and fails
// with LAKEINDEX_REQUIRE_CORPUS=1 (.ci/run).
// The summary table goes to stdout; with LAKEINDEX_WRITE_CONFORMANCE_DOC=1 it is also written to
// docs/parquet-conformance.md:
//   LAKEINDEX_WRITE_CONFORMANCE_DOC=1 ctest --test-dir build -R ParquetCorpusDuckDB --output-on-failure
//
// DuckDB reads every file we read in one query: each column is cast to the DuckDB type of our
// column type and renamed "<type>_<n>" (n-th column of that type in the file), so the files'
// rows stack with UNION ALL BY NAME. Strings are compared as hex of their bytes (BYTE_ARRAY
// without annotation is a string for us, a BLOB for DuckDB, and may hold any bytes). Files with
// an LZ4 (Hadoop, codec 5) chunk are not compared: DuckDB does not support that codec. Files we
// call corrupt get a count(*) from DuckDB to show whether DuckDB reads them anyway; files we
// do not support get one only when the doc is written (it costs a node start per file).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "format/parquet/compression.h"
#include "format/parquet/reader.h"
#include "util/duckdb_ref.h"

namespace lakeindex::parquet {
namespace {

namespace fs = std::filesystem;
using lakeindex::testing::DuckDBAvailable;
using lakeindex::testing::DuckDBMissingMessage;
using lakeindex::testing::DuckResult;
using lakeindex::testing::DuckRow;
using lakeindex::testing::DuckTypeName;
using lakeindex::testing::RenderBatchLikeDuckDB;
using lakeindex::testing::ParquetTestingDir;
using lakeindex::testing::ParquetTestingMissing;
using lakeindex::testing::ParquetTestingRequired;
using lakeindex::testing::RunDuckDB;
using lakeindex::testing::SqlIdent;
using lakeindex::testing::SqlQuote;

struct CorpusFile {
  std::string rel;   // relative to the corpus root, e.g. "data/binary.parquet"
  std::string path;  // absolute
  Status ours;
  Batch batch;
  std::string duck;  // "agrees", "reads N rows", "differs: ...", "error: ...", or why unchecked
};

// One line of text without table-breaking characters.
std::string Cell(std::string text) {
  for (char& ch : text) {
    if (ch == '\n' || ch == '\r' || ch == '|') ch = ' ';
  }
  if (text.size() > 140) text = text.substr(0, 137) + "...";
  return text;
}

std::string OursCell(const CorpusFile& f) {
  if (f.ours.ok()) {
    return "ok (" + std::to_string(f.batch.num_rows()) + " rows, " +
           std::to_string(f.batch.num_columns()) + " cols)";
  }
  return std::string(f.ours.IsNotSupported() ? "NotSupported: " : f.ours.IsCorruption() ? "Corruption: " : "OTHER: ") +
         f.ours.message();
}

// Upper-case hex of the bytes, as DuckDB's hex() prints them.
std::string Hex(const std::string& bytes) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char ch : bytes) {
    out += kDigits[ch >> 4];
    out += kDigits[ch & 15];
  }
  return out;
}

// True when a column chunk of the file uses LZ4 with Hadoop framing (codec 5).
bool UsesHadoopLz4(const FileMetaData& meta) {
  for (const auto& rg : meta.row_groups) {
    for (const auto& chunk : rg.columns) {
      if (chunk.meta_data && chunk.meta_data->codec == int32_t(Codec::kLz4)) return true;
    }
  }
  return false;
}

// SELECT of one file whose columns are cast to our types and named by type slot.
std::string SlotSelect(size_t index, const CorpusFile& f, std::vector<std::string>* slots) {
  std::map<TypeId, int> per_type;
  std::string sql = "SELECT " + std::to_string(index) + " AS __file, file_row_number AS __row";
  for (const Field& field : f.batch.schema().fields()) {
    std::string slot = std::string(TypeName(field.type)) + "_" + std::to_string(per_type[field.type]++);
    slots->push_back(slot);
    std::string expr = field.type == TypeId::kString ? "hex(" + SqlIdent(field.name) + ")"
                                                      : "CAST(" + SqlIdent(field.name) + " AS " +
                                                            DuckTypeName(field.type) + ")";
    sql += ", " + expr + " AS " + SqlIdent(slot);  // "decimal(4,2)_0" needs quotes
  }
  return sql + " FROM read_parquet(" + SqlQuote(f.path) + ", file_row_number=true)";
}

// Compares the rows DuckDB returned for file `index` (column slots) with our batch.
std::string Compare(const DuckResult& r, size_t index, const CorpusFile& f,
                    const std::vector<std::string>& slots) {
  std::vector<int> cols;
  for (const auto& slot : slots) {
    auto it = std::find(r.columns.begin(), r.columns.end(), slot);
    if (it == r.columns.end()) return "differs: DuckDB result lacks " + slot;
    cols.push_back(int(it - r.columns.begin()));
  }
  std::vector<DuckRow> want = RenderBatchLikeDuckDB(f.batch);
  for (size_t c = 0; c < f.batch.num_columns(); ++c) {
    if (f.batch.schema().field(c).type != TypeId::kString) continue;
    for (auto& row : want) {
      if (row[c]) row[c] = Hex(*row[c]);
    }
  }
  size_t row = 0;
  for (const DuckRow& got : r.rows) {
    if (got[0] != std::to_string(index)) continue;
    if (row >= want.size()) return "differs: DuckDB has more rows than our " + std::to_string(want.size());
    for (size_t c = 0; c < cols.size(); ++c) {
      if (got[size_t(cols[c])] != want[row][c]) {
        return "differs: row " + std::to_string(row) + " column '" + f.batch.schema().field(c).name +
               "': DuckDB " + got[size_t(cols[c])].value_or("NULL") + ", ours " + want[row][c].value_or("NULL");
      }
    }
    ++row;
  }
  if (row != want.size()) return "differs: DuckDB has " + std::to_string(row) + " rows, ours " + std::to_string(want.size());
  return "agrees";
}

// Runs `jobs` on a few threads (RunDuckDB is thread-safe; each call is a node process).
void ParallelFor(size_t n, const std::function<void(size_t)>& job) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (size_t i; (i = next++) < n;) job(i);
    });
  }
  for (auto& t : threads) t.join();
}

TEST(ParquetCorpusDuckDBTest, EveryFileMatchesDuckDBOrFailsCleanly) {
  if (!DuckDBAvailable()) FAIL() << DuckDBMissingMessage();
  if (const std::string missing = ParquetTestingMissing(); !missing.empty()) {
    if (ParquetTestingRequired()) FAIL() << missing;
    GTEST_SKIP() << missing;
  }
  const std::string root = ParquetTestingDir();
  auto store = OpenLocalStore(root);
  ASSERT_TRUE(store.ok()) << store.status().ToString();

  std::vector<CorpusFile> files;
  for (const char* sub : {"data", "bad_data"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root + "/" + sub)) {
      std::string name = entry.path().filename().string();
      if (!entry.is_regular_file() || name.find(".parquet") == std::string::npos ||
          name.ends_with(".json")) {
        continue;
      }
      CorpusFile f;
      f.rel = fs::relative(entry.path(), root).string();
      f.path = fs::absolute(entry.path()).string();
      files.push_back(std::move(f));
    }
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.rel < b.rel; });
  ASSERT_GT(files.size(), 50u);

  for (auto& f : files) {
    auto reader = ParquetReader::Open(store->get(), f.rel);
    if (!reader.ok()) {
      f.ours = reader.status();
      continue;
    }
    auto batch = (*reader)->ReadAll();
    f.ours = batch.status();
    if (batch.ok()) f.batch = std::move(*batch);
    if (batch.ok() && UsesHadoopLz4((*reader)->metadata())) f.duck = "not compared: DuckDB has no LZ4 (Hadoop) codec";
  }
  const char* write_doc = std::getenv("LAKEINDEX_WRITE_CONFORMANCE_DOC");
  const bool doc = write_doc != nullptr && std::string(write_doc) == "1";

  // Files we read: one DuckDB query for all; if DuckDB rejects it, one query per file.
  std::vector<size_t> readable;
  std::vector<std::vector<std::string>> slots(files.size());
  std::vector<std::string> selects(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    if (!files[i].ours.ok() || !files[i].duck.empty()) continue;
    readable.push_back(i);
    selects[i] = SlotSelect(i, files[i], &slots[i]);
  }
  auto run_one = [&](size_t i) {
    auto r = RunDuckDB("SET TimeZone = 'UTC'; " + selects[i] + " ORDER BY __row");
    files[i].duck = r.ok() ? Compare(*r, i, files[i], slots[i]) : "error: " + r.status().message();
  };
  std::string all;
  for (size_t i : readable) all += (all.empty() ? "" : " UNION ALL BY NAME ") + selects[i];
  auto combined = RunDuckDB("SET TimeZone = 'UTC'; SELECT * FROM (" + all + ") ORDER BY __file, __row");
  if (combined.ok()) {
    for (size_t i : readable) files[i].duck = Compare(*combined, i, files[i], slots[i]);
  } else {
    std::cout << "combined DuckDB query failed (" << combined.status().ToString()
              << "); checking file by file\n";
    ParallelFor(readable.size(), [&](size_t k) { run_one(readable[k]); });
  }
  // Files we refuse: does DuckDB read them?
  std::vector<size_t> refused;
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].ours.ok()) continue;
    if (doc || files[i].ours.IsCorruption()) {
      refused.push_back(i);
    } else {
      files[i].duck = "not checked (only with LAKEINDEX_WRITE_CONFORMANCE_DOC=1)";
    }
  }
  ParallelFor(refused.size(), [&](size_t k) {
    CorpusFile& f = files[refused[k]];
    auto r = RunDuckDB("SELECT count(*) FROM read_parquet(" + SqlQuote(f.path) + ")");
    f.duck = r.ok() && !r->rows.empty() ? "reads " + r->rows[0][0].value_or("?") + " rows"
                                        : "error: " + r.status().message();
  });

  std::ostringstream table;
  table << "| file | lakeindex | DuckDB |\n|---|---|---|\n";
  for (const auto& f : files) {
    table << "| " << f.rel << " | " << Cell(OursCell(f)) << " | " << Cell(f.duck) << " |\n";
  }
  std::cout << table.str();
  if (doc) {
    const char* src = std::getenv("LAKEINDEX_SOURCE_DIR");
    std::ofstream doc(std::string(src && *src ? src : LAKEINDEX_SOURCE_DIR) + "/docs/parquet-conformance.md");
    doc << "# Parquet conformance: apache/parquet-testing vs DuckDB\n\n"
           "Generated by `ParquetCorpusDuckDBTest.EveryFileMatchesDuckDBOrFailsCleanly`\n"
           "(src/format/parquet/parquet_corpus_duckdb_test.cc); regenerate with\n\n"
           "    LAKEINDEX_WRITE_CONFORMANCE_DOC=1 ctest --test-dir build -R ParquetCorpusDuckDB\n\n"
           "*lakeindex*: outcome of `ParquetReader::Open` + `ReadAll`. *DuckDB*: for files we read,\n"
           "whether DuckDB's `read_parquet` (columns cast to our types, strings as hex) gives exactly\n"
           "the same values; for files we refuse, whether DuckDB reads them (`count(*)`).\n\n"
        << table.str();
  }

  for (const auto& f : files) {
    SCOPED_TRACE(f.rel);
    EXPECT_TRUE(f.ours.ok() || f.ours.IsNotSupported() || f.ours.IsCorruption()) << f.ours.ToString();
    if (f.rel.find("corrupt-checksum") != std::string::npos) {
      EXPECT_TRUE(f.ours.IsCorruption()) << f.ours.ToString();
    }
    // A file we read must give DuckDB's values (a DuckDB error on it is a failure too, to be
    // looked at: today DuckDB reads every such file except the LZ4 (Hadoop) ones).
    if (f.ours.ok() && !f.duck.starts_with("not compared")) {
      EXPECT_EQ(f.duck, "agrees");
    }
  }
}

}  // namespace
}  // namespace lakeindex::parquet
