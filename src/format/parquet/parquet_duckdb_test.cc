// Interop with DuckDB, both directions:
//  * files from our writer (random schemas, every codec, dictionary on/off, tiny row groups and
//    pages, 0/1/many rows, NULL fractions 0/0.1/1) read by DuckDB give exactly our values, and
//    DuckDB sees our row-group statistics, schema and key-value metadata;
//  * files DuckDB writes (defaults, zstd, uncompressed, small row groups, PARQUET_VERSION v2)
//    read by our reader give exactly DuckDB's own values; types outside our subset fail with a
//    NotSupported naming the column.
// Each RunDuckDB call costs a node start, so every check handles all files in one query: files
// of one test share column names per type, so their rows stack with UNION ALL BY NAME.
//
// How DuckDB shows statistics (parquet_metadata.stats_min_value / stats_max_value): as the text
// of the column's logical type ("-0.0" / "1e-45" for FLOAT, "0044-03-15 (BC)" for DATE,
// "0001-12-31 (BC) 00:00:00" for TIMESTAMP, the raw string for VARCHAR), NULL when the chunk
// has no bound. The test casts that text back to the column's DuckDB type in SQL, which
// round-trips exactly, so bounds are compared as values rendered by run.mjs.
#include <gtest/gtest.h>

#include <cmath>
#include <future>
#include <map>
#include <set>

#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "lakeindex/object_store.h"
#include "util/duckdb_ref.h"
#include "util/test_util.h"

namespace lakeindex::parquet {
namespace {

using lakeindex::testing::DuckDBAvailable;
using lakeindex::testing::DuckDBMissingMessage;
using lakeindex::testing::DuckResult;
using lakeindex::testing::DuckRow;
using lakeindex::testing::DuckTypeName;
using lakeindex::testing::RandomBatch;
using lakeindex::testing::RandomSchema;
using lakeindex::testing::RenderBatchLikeDuckDB;
using lakeindex::testing::RenderLikeDuckDB;
using lakeindex::testing::RunDuckDB;
using lakeindex::testing::SqlIdent;
using lakeindex::testing::SqlQuote;
using lakeindex::testing::TempDir;

#define REQUIRE_DUCKDB() \
  if (!DuckDBAvailable()) FAIL() << DuckDBMissingMessage()

// Column index of `name` in a DuckDB result, or -1.
int ResultColumn(const DuckResult& r, const std::string& name) {
  for (size_t i = 0; i < r.columns.size(); ++i) {
    if (r.columns[i] == name) return int(i);
  }
  return -1;
}

// Rows of `r` whose column "__file" is `file`, projected onto `names` (missing columns fail).
std::vector<DuckRow> RowsOfFile(const DuckResult& r, const std::string& file,
                                const std::vector<std::string>& names) {
  int file_col = ResultColumn(r, "__file");
  std::vector<int> cols;
  for (const auto& n : names) {
    cols.push_back(ResultColumn(r, n));
    EXPECT_GE(cols.back(), 0) << "DuckDB result has no column " << n;
  }
  std::vector<DuckRow> out;
  for (const DuckRow& row : r.rows) {
    if (row[size_t(file_col)] != file) continue;
    DuckRow projected;
    for (int c : cols) projected.push_back(c >= 0 ? row[size_t(c)] : std::nullopt);
    out.push_back(std::move(projected));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Our writer -> DuckDB.

struct WriteCase {
  std::string name;  // file name, also the "__file" tag
  Batch batch;
  WriteOptions options;
};

std::vector<WriteCase> MakeWriteCases() {
  // Every codec we write except LZ4 (Hadoop framing, deprecated codec 5), which DuckDB refuses
  // ("Unsupported compression codec").
  std::vector<Codec> codecs;
  for (Codec c : {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip, Codec::kBrotli,
                  Codec::kZstd, Codec::kLz4Raw}) {
    if (CodecSupported(c)) codecs.push_back(c);
  }
  const size_t kRows[] = {0, 1, 7, 300, 1000, 2500};
  const double kNulls[] = {0.0, 0.1, 1.0};
  const size_t kRowGroupRows[] = {64, 250, 1000, size_t(1) << 20};
  const size_t kPageRows[] = {8, 50, 128, 8192};
  std::vector<WriteCase> cases;
  for (uint64_t i = 0; i < 20; ++i) {
    uint64_t seed = 1000 + i;
    Schema schema = RandomSchema(seed, 10);
    WriteCase c;
    c.options.codec = codecs[i % codecs.size()];
    c.options.dictionary = (i / 2) % 2 == 0;
    c.options.row_group_rows = kRowGroupRows[i % 4];
    c.options.page_rows = kPageRows[(i / 4) % 4];
    // Every third case: DELTA_BINARY_PACKED / BYTE_STREAM_SPLIT / DELTA_LENGTH_BYTE_ARRAY pages.
    c.options.delta_integers = c.options.byte_stream_split_floats = c.options.delta_length_strings = i % 3 == 1;
    // Every fifth case: the first column's pages of their own size (not lined up with the others').
    if (i % 5 == 2) c.options.column_page_rows = {{schema.field(0).name, kPageRows[(i / 4 + 1) % 4] + 3}};
    c.options.key_value_metadata = {{"lakeindex.case", std::to_string(i)},
                                    {"ключ 'q'", "välue\nwith \"quotes\" 😀"}};
    size_t rows = kRows[i % 6];
    c.batch = RandomBatch(schema, rows, seed, kNulls[i % 3]);
    c.name = "w" + std::to_string(i) + "_" + CodecName(c.options.codec) +
             (c.options.dictionary ? "_dict" : "_plain") + (c.options.delta_integers ? "_delta_split" : "") + ".parquet";
    cases.push_back(std::move(c));
  }
  return cases;
}

// Writes every case into `dir` (in uneven Write calls, so row groups straddle batches).
void WriteCases(const std::vector<WriteCase>& cases, const TempDir& dir) {
  auto store = OpenLocalStore(dir.path());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  for (const auto& c : cases) {
    auto writer = ParquetWriter::Make(c.batch.schema(), c.options);
    ASSERT_TRUE(writer.ok()) << c.name << ": " << writer.status().ToString();
    size_t offset = 0, step = 3;
    while (offset < c.batch.num_rows()) {
      size_t n = std::min(step, c.batch.num_rows() - offset);
      ASSERT_TRUE((*writer)->Write(c.batch.Slice(offset, n)).ok()) << c.name;
      offset += n;
      step = step * 3 + 1;
    }
    auto bytes = (*writer)->Finish();
    ASSERT_TRUE(bytes.ok()) << c.name << ": " << bytes.status().ToString();
    ASSERT_TRUE((*store)->Write(c.name, *bytes).ok()) << c.name;
  }
}

std::string FileList(const std::vector<WriteCase>& cases, const TempDir& dir) {
  std::string list = "[";
  for (size_t i = 0; i < cases.size(); ++i) list += (i ? ", " : "") + SqlQuote(dir.Join(cases[i].name));
  return list + "]";
}

// The bound (min or max) that DuckDB must show for rows [begin, end) of `c`: over non-null,
// non-NaN values; a zero float min is -0.0 and a zero float max is +0.0. DuckDB shows no bound
// (NULL) when a float/double bound is +-inf, although our writer writes it (checked by
// writer_reader_test): the same happens for files DuckDB writes itself.
std::optional<Value> ExpectedBound(const Column& c, size_t begin, size_t end, bool want_max) {
  std::optional<Value> best;
  for (size_t i = begin; i < end; ++i) {
    if (c.IsNull(i)) continue;
    Value v = c.GetValue(i);
    if (IsFloating(v.type()) && std::isnan(v.double_value())) continue;
    int cmp = best ? CompareValues(v, *best) : 0;
    if (!best || (want_max ? cmp > 0 : cmp < 0)) best = v;
  }
  if (best && IsFloating(best->type()) && best->double_value() == 0) {
    double zero = want_max ? 0.0 : -0.0;
    best = best->type() == TypeId::kFloat ? Value::Float(float(zero)) : Value::Double(zero);
  }
  if (best && IsFloating(best->type()) && std::isinf(best->double_value())) return std::nullopt;
  return best;
}

TEST(ParquetDuckDBTest, DuckDBReadsOurFilesExactly) {
  REQUIRE_DUCKDB();
  TempDir dir;
  std::vector<WriteCase> cases = MakeWriteCases();
  WriteCases(cases, dir);
  if (HasFatalFailure()) return;

  auto select = [&](const WriteCase& c) {
    return "SELECT " + SqlQuote(c.name) + " AS __file, * FROM read_parquet(" +
           SqlQuote(dir.Join(c.name)) + ", file_row_number=true)";
  };
  std::string sql;
  for (const auto& c : cases) sql += (sql.empty() ? "" : " UNION ALL BY NAME ") + select(c);
  auto duck = RunDuckDB(sql + " ORDER BY __file, file_row_number");
  std::set<std::string> unreadable;
  if (!duck.ok()) {
    // Find the files DuckDB cannot read (each one a failure) and check the others.
    ADD_FAILURE() << "DuckDB cannot read all files: " << duck.status().ToString();
    sql.clear();
    std::vector<std::future<Result<DuckResult>>> each;
    for (const auto& c : cases) each.push_back(std::async(std::launch::async, RunDuckDB, select(c)));
    for (size_t i = 0; i < cases.size(); ++i) {
      const WriteCase& c = cases[i];
      auto one = each[i].get();
      if (one.ok()) {
        sql += (sql.empty() ? "" : " UNION ALL BY NAME ") + select(c);
      } else {
        unreadable.insert(c.name);
        ADD_FAILURE() << c.name << " (schema " << c.batch.schema().ToString() << "): " << one.status().ToString();
      }
    }
    duck = RunDuckDB(sql + " ORDER BY __file, file_row_number");
    ASSERT_TRUE(duck.ok()) << duck.status().ToString();
  }

  for (const auto& c : cases) {
    if (unreadable.count(c.name)) continue;
    SCOPED_TRACE(c.name + " schema " + c.batch.schema().ToString());
    std::vector<std::string> names;
    for (const Field& f : c.batch.schema().fields()) {
      names.push_back(f.name);
      int col = ResultColumn(*duck, f.name);
      ASSERT_GE(col, 0) << f.name;
      EXPECT_EQ(duck->types[size_t(col)], DuckTypeName(f.type)) << f.name;
    }
    std::vector<DuckRow> got = RowsOfFile(*duck, c.name, names);
    std::vector<DuckRow> want = RenderBatchLikeDuckDB(c.batch);
    ASSERT_EQ(got.size(), want.size());
    for (size_t r = 0; r < want.size(); ++r) ASSERT_EQ(got[r], want[r]) << "row " << r;
  }
}

TEST(ParquetDuckDBTest, DuckDBSeesOurSchemaStatisticsAndMetadata) {
  REQUIRE_DUCKDB();
  TempDir dir;
  std::vector<WriteCase> cases = MakeWriteCases();
  WriteCases(cases, dir);
  if (HasFatalFailure()) return;

  // One column per (bound, type): the stats text cast back to the column's DuckDB type.
  const TypeId kTypes[] = {TypeId::kBool,        TypeId::kInt32,       TypeId::kInt64,  TypeId::kFloat,
                           TypeId::kDouble,      TypeId::kString,      TypeId::kDate,   TypeId::kTimestamp,
                           TypeId::kTimestampTz, TypeId::kTimestampNs, TypeId::kBinary, TypeId::kUuid,
                           DecimalType(18, 3),   DecimalType(7, 2)};  // RandomSchema's decimals
  constexpr size_t kNumTypes = std::size(kTypes);
  std::string casts;
  for (const char* bound : {"min", "max"}) {
    for (TypeId t : kTypes) {
      casts += std::string(", TRY_CAST(stats_") + bound + "_value AS " + DuckTypeName(t) + ") AS " +
               SqlIdent(bound + std::string("_") + TypeName(t));
    }
  }
  auto stats = RunDuckDB(
      "SELECT parse_filename(file_name) AS __file, row_group_id, path_in_schema, row_group_num_rows,"
      " stats_null_count" + casts + " FROM parquet_metadata(" + FileList(cases, dir) +
      ") ORDER BY __file, row_group_id, column_id");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  auto schema = RunDuckDB(
      "SELECT parse_filename(file_name) AS __file, name, repetition_type, type, converted_type"
      " FROM parquet_schema(" + FileList(cases, dir) + ") WHERE num_children IS NULL"
      " ORDER BY __file, name");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  auto kv = RunDuckDB("SELECT parse_filename(file_name) AS __file, decode(key) AS k, decode(value) AS v"
                      " FROM parquet_kv_metadata(" + FileList(cases, dir) + ") ORDER BY __file, k");
  ASSERT_TRUE(kv.ok()) << kv.status().ToString();

  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const Schema& s = c.batch.schema();
    // Statistics: one row per (row group, column); row groups cut every row_group_rows rows.
    // Columns: 4 fixed, then min_<type> for every type in TypeId order, then max_<type>.
    std::vector<std::string> names = {"row_group_id", "path_in_schema", "row_group_num_rows",
                                      "stats_null_count"};
    for (const char* bound : {"min_", "max_"}) {
      for (TypeId t : kTypes) names.push_back(bound + std::string(TypeName(t)));
    }
    std::vector<DuckRow> got = RowsOfFile(*stats, c.name, names);
    size_t n = c.batch.num_rows(), rg_rows = c.options.row_group_rows;
    size_t num_rg = (n + rg_rows - 1) / rg_rows;
    ASSERT_EQ(got.size(), num_rg * s.num_fields());
    size_t k = 0;
    for (size_t rg = 0; rg < num_rg; ++rg) {
      size_t begin = rg * rg_rows, end = std::min(n, begin + rg_rows);
      for (size_t col = 0; col < s.num_fields(); ++col, ++k) {
        const Field& f = s.field(col);
        const Column& data = c.batch.column(col);
        std::string where = "row group " + std::to_string(rg) + " column " + f.name;
        EXPECT_EQ(got[k][0], std::to_string(rg)) << where;
        EXPECT_EQ(got[k][1], f.name) << where;
        EXPECT_EQ(got[k][2], std::to_string(end - begin)) << where;
        size_t nulls = 0;
        for (size_t i = begin; i < end; ++i) nulls += data.IsNull(i);
        EXPECT_EQ(got[k][3], std::to_string(nulls)) << where;
        for (bool want_max : {false, true}) {
          std::optional<Value> bound = ExpectedBound(data, begin, end, want_max);
          std::optional<std::string> want =
              bound ? RenderLikeDuckDB(*bound) : std::optional<std::string>();
          const size_t type_index = size_t(std::find(std::begin(kTypes), std::end(kTypes), f.type) - std::begin(kTypes));
          ASSERT_LT(type_index, kNumTypes) << f.name << " has a type the test does not know";
          size_t slot = 4 + (want_max ? kNumTypes : 0) + type_index;
          EXPECT_EQ(got[k][slot], want) << where << " " << names[slot];
        }
      }
    }
    // Schema: REQUIRED/OPTIONAL and the physical type of every leaf.
    std::vector<DuckRow> leaves = RowsOfFile(*schema, c.name, {"name", "repetition_type", "type"});
    std::map<std::string, DuckRow> by_name;
    for (const auto& row : leaves) by_name[row[0].value_or("")] = row;
    ASSERT_EQ(by_name.size(), s.num_fields());
    for (const Field& f : s.fields()) {
      static const std::map<TypeId, std::string> kPhysical = {
          {TypeId::kBool, "BOOLEAN"}, {TypeId::kInt32, "INT32"},       {TypeId::kInt64, "INT64"},
          {TypeId::kFloat, "FLOAT"},  {TypeId::kDouble, "DOUBLE"},     {TypeId::kString, "BYTE_ARRAY"},
          {TypeId::kDate, "INT32"},   {TypeId::kTimestamp, "INT64"},   {TypeId::kTimestampTz, "INT64"},
          {TypeId::kTimestampNs, "INT64"}, {TypeId::kBinary, "BYTE_ARRAY"}, {TypeId::kUuid, "FIXED_LEN_BYTE_ARRAY"}};
      EXPECT_EQ(by_name[f.name][1], f.nullable ? "OPTIONAL" : "REQUIRED") << f.name;
      EXPECT_EQ(by_name[f.name][2], IsDecimal(f.type) ? "INT64" : kPhysical.at(f.type)) << f.name;
    }
    // Key-value metadata, exactly what we asked for (sorted by key like the query).
    std::vector<DuckRow> want_kv;
    for (const auto& [key, value] : c.options.key_value_metadata) want_kv.push_back({key, value});
    std::sort(want_kv.begin(), want_kv.end());
    EXPECT_EQ(RowsOfFile(*kv, c.name, {"k", "v"}), want_kv);
  }
}

// Sharp form of a bug the random cases found: an OPTIONAL column whose chunk holds only NULLs,
// written with dictionary=true, got an RLE_DICTIONARY data page whose bit-width byte is 64
// (BitWidth(dict size - 1) with an empty dictionary), which DuckDB rejects ("Decode bit width
// too large").
TEST(ParquetDuckDBTest, AllNullDictionaryColumnIsReadableByDuckDB) {
  REQUIRE_DUCKDB();
  TempDir dir;
  Schema schema({Field{"i", TypeId::kInt32, true}, Field{"s", TypeId::kString, true}});
  Batch batch(schema);
  for (int r = 0; r < 3; ++r) {
    batch.mutable_column(0).AppendNull();
    batch.mutable_column(1).AppendNull();
  }
  ASSERT_TRUE(batch.Seal().ok());
  auto store = OpenLocalStore(dir.path());
  ASSERT_TRUE(store.ok());
  WriteOptions options;
  options.dictionary = true;
  ASSERT_TRUE(WriteParquet(store->get(), "all_null.parquet", batch, options).ok());
  auto duck = RunDuckDB("SELECT * FROM read_parquet(" + SqlQuote(dir.Join("all_null.parquet")) + ")");
  ASSERT_TRUE(duck.ok()) << duck.status().ToString();
  EXPECT_EQ(duck->rows, RenderBatchLikeDuckDB(batch));
}

// ---------------------------------------------------------------------------------------------
// DuckDB -> our reader.

// Every type we read, with NULLs, NaN/inf, extremes, empty/non-ASCII/long, repetitive and
// unique strings. `ours` is the lakeindex type the reader must map the column to; `read` is the
// DuckDB expression over the column that renders as that type (casts for the widened types; the
// nanosecond column holds whole microseconds: finer ones are refused, see below).
struct DuckColumn {
  const char* name;
  const char* expr;  // over i in range(kDuckRows)
  TypeId ours;
  const char* read;  // "" for the column itself
};

constexpr int kDuckRows = 5000;

const std::vector<DuckColumn>& DuckColumns() {
  static const std::vector<DuckColumn> cols = {
      {"id", "i::INTEGER", TypeId::kInt32, ""},
      {"b", "CASE WHEN i % 7 = 0 THEN NULL ELSE i % 3 = 0 END", TypeId::kBool, ""},
      {"i32", "CASE WHEN i % 11 = 0 THEN NULL WHEN i = 1 THEN -2147483648 WHEN i = 2 THEN 2147483647"
              " ELSE ((i * 2654435761) % 4294967296 - 2147483648)::INTEGER END", TypeId::kInt32, ""},
      {"i64", "CASE WHEN i % 13 = 0 THEN NULL WHEN i = 1 THEN CAST('-9223372036854775808' AS BIGINT)"
              " WHEN i = 2 THEN 9223372036854775807::BIGINT ELSE (hash(i) >> 1)::BIGINT * (1 - 2 * (i % 2)) END", TypeId::kInt64, ""},
      {"f32", "CASE WHEN i % 17 = 0 THEN NULL WHEN i % 101 = 1 THEN 'nan'::FLOAT"
              " WHEN i % 101 = 2 THEN 'inf'::FLOAT WHEN i % 101 = 3 THEN '-inf'::FLOAT"
              " WHEN i % 101 = 4 THEN -0.0::FLOAT ELSE (i / 7.0 - 300)::FLOAT END", TypeId::kFloat, ""},
      {"f64", "CASE WHEN i % 19 = 0 THEN NULL WHEN i % 103 = 1 THEN 'nan'::DOUBLE"
              " WHEN i % 103 = 2 THEN 'inf'::DOUBLE WHEN i % 103 = 3 THEN '-inf'::DOUBLE"
              " WHEN i = 4 THEN 5e-324 ELSE i * 1.1e-3 - 1 / (i + 1) END", TypeId::kDouble, ""},
      {"s_unique", "CASE WHEN i % 23 = 0 THEN NULL WHEN i % 23 = 1 THEN ''"
                   " ELSE 'row ' || i || ' ü€😀 ''\"' END", TypeId::kString, ""},
      {"s_repeat", "CASE WHEN i % 29 = 0 THEN NULL ELSE ['a', 'bb', '', 'ключ', 'x\ny'][i % 5 + 1] END",
       TypeId::kString, ""},
      {"s_long", "CASE WHEN i % 31 = 0 THEN NULL ELSE repeat(chr((65 + i % 26)::INTEGER), 200 + i % 900) END",
       TypeId::kString, ""},
      {"d", "CASE WHEN i % 37 = 0 THEN NULL WHEN i = 1 THEN DATE '0001-01-01'"
            " WHEN i = 2 THEN DATE '9999-12-31' WHEN i = 3 THEN DATE '0044-03-15 (BC)'"
            " ELSE DATE '1970-01-01' + (i * 37 - 90000)::INTEGER END", TypeId::kDate, ""},
      {"ts", "CASE WHEN i % 41 = 0 THEN NULL WHEN i = 1 THEN TIMESTAMP '0001-01-01 00:00:00'"
             " WHEN i = 2 THEN TIMESTAMP '9999-12-31 23:59:59.999999'"
             " ELSE make_timestamp((i * 7919 - 20000000)::BIGINT * 1000003) END", TypeId::kTimestamp, ""},
      {"i16", "CASE WHEN i % 43 = 0 THEN NULL ELSE (i % 65536 - 32768)::SMALLINT END", TypeId::kInt32, ""},
      {"i8", "CASE WHEN i % 47 = 0 THEN NULL ELSE (i % 256 - 128)::TINYINT END", TypeId::kInt32, ""},
      {"u32", "CASE WHEN i % 53 = 0 THEN NULL WHEN i = 1 THEN 4294967295::UINTEGER"
              " ELSE (i * 858993)::UINTEGER END", TypeId::kInt64, ""},
      {"u16", "(i * 13)::USMALLINT", TypeId::kInt32, ""},
      {"u8", "(i % 256)::UTINYINT", TypeId::kInt32, ""},
      {"ts_ms", "CASE WHEN i % 59 = 0 THEN NULL ELSE make_timestamp((i * 7919 - 20000000)::BIGINT * 1000003)::TIMESTAMP_MS END",
       TypeId::kTimestamp, "CAST(ts_ms AS TIMESTAMP)"},
      {"ts_ns", "CASE WHEN i % 61 = 0 THEN NULL ELSE make_timestamp_ns((i * 7919 - 20000000)::BIGINT * 1000003000) END",
       TypeId::kTimestampNs, ""},
      {"ns_fine", "CASE WHEN i % 67 = 0 THEN NULL WHEN i = 1 THEN make_timestamp_ns(-9223372036854775806)"
                  " ELSE make_timestamp_ns((i * 7919 - 20000000)::BIGINT * 1000003001 + i) END", TypeId::kTimestampNs, ""},
      // Instants written whatever DuckDB's TimeZone: the epoch plus an interval.
      {"tstz", "CASE WHEN i % 71 = 0 THEN NULL ELSE to_timestamp(0) + to_microseconds((i * 7919 - 20000000)::BIGINT * 1000003) END",
       TypeId::kTimestampTz, ""},
      {"blob", "CASE WHEN i % 73 = 0 THEN NULL WHEN i % 73 = 1 THEN ''::BLOB ELSE from_hex(md5(i::VARCHAR)[1:(i % 32) + 1]) END",
       TypeId::kBinary, ""},
      {"uid", "CASE WHEN i % 79 = 0 THEN NULL WHEN i = 1 THEN UUID 'ffffffff-ffff-ffff-ffff-ffffffffffff'"
              " WHEN i = 2 THEN UUID '00000000-0000-0000-0000-000000000000' ELSE md5(i::VARCHAR)::UUID END", TypeId::kUuid, ""},
      // Decimals as DuckDB stores them: INT32 up to 9 digits, INT64 up to 18.
      {"dec4", "CASE WHEN i % 83 = 0 THEN NULL WHEN i = 1 THEN -999.9 WHEN i = 2 THEN 999.9 ELSE ((i % 19999) / 10 - 999.9)::DECIMAL(4, 1) END",
       DecimalType(4, 1), ""},
      {"dec9", "CASE WHEN i % 89 = 0 THEN NULL ELSE ((hash(i) % 1999999999)::BIGINT - 999999999)::DECIMAL(9, 0) END",
       DecimalType(9, 0), ""},
      {"dec18", "CASE WHEN i % 97 = 0 THEN NULL WHEN i = 1 THEN -999999999999999.999 WHEN i = 2 THEN 0.001"
                " ELSE CAST(((hash(i) % 999999999999999)::BIGINT * (1 - 2 * (i % 2)))::VARCHAR || '.' ||"
                " lpad((hash(i * 7) % 1000)::VARCHAR, 3, '0') AS DECIMAL(18, 3)) END",
       DecimalType(18, 3), ""},
      {"dec10", "CASE WHEN i % 101 = 0 THEN NULL ELSE (i * 7.77 - 30000)::DECIMAL(10, 2) END", DecimalType(10, 2), ""},
  };
  return cols;
}

// (file name, COPY options) of every variant DuckDB writes.
const std::vector<std::pair<std::string, std::string>>& DuckVariants() {
  static const std::vector<std::pair<std::string, std::string>> variants = {
      {"duck_default.parquet", ""},
      {"duck_zstd.parquet", ", COMPRESSION zstd"},
      {"duck_uncompressed.parquet", ", COMPRESSION uncompressed"},
      {"duck_small_rg.parquet", ", ROW_GROUP_SIZE 1000"},
      {"duck_v2.parquet", ", PARQUET_VERSION v2"},
      {"duck_v2_small_rg_zstd.parquet", ", PARQUET_VERSION v2, ROW_GROUP_SIZE 1000, COMPRESSION zstd"},
      {"duck_gzip.parquet", ", COMPRESSION gzip"},
      {"duck_lz4.parquet", ", COMPRESSION lz4"},
      {"duck_brotli.parquet", ", COMPRESSION brotli"},
  };
  return variants;
}

// Our reader on one DuckDB-written file: schema mapping and every value.
void CheckDuckFile(ObjectStore* store, const std::string& file, const std::vector<DuckRow>& want) {
  auto reader = ParquetReader::Open(store, file);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const Schema& schema = (*reader)->schema();
  ASSERT_EQ(schema.num_fields(), DuckColumns().size());
  for (size_t i = 0; i < schema.num_fields(); ++i) {
    EXPECT_EQ(schema.field(i).name, DuckColumns()[i].name);
    EXPECT_EQ(schema.field(i).type, DuckColumns()[i].ours) << schema.field(i).name;
  }
  if (file.find("small_rg") != std::string::npos) {
    EXPECT_GT((*reader)->num_row_groups(), 1);
  }
  ASSERT_EQ(want.size(), size_t(kDuckRows));
  auto batch = (*reader)->ReadAll();
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  // Column by column too, so that one unreadable column does not hide the others.
  for (size_t c = 0; c < schema.num_fields(); ++c) {
    auto one = batch.ok() ? Result<Batch>(Batch(Schema({schema.field(c)}), {batch->column(c)}, batch->num_rows()))
                          : (*reader)->ReadAll({int(c)});
    if (!one.ok()) continue;  // already reported by ReadAll
    std::vector<DuckRow> got = RenderBatchLikeDuckDB(*one);
    ASSERT_EQ(got.size(), size_t(kDuckRows));
    for (size_t r = 0; r < want.size(); ++r) {
      ASSERT_EQ(got[r][0], want[r][c]) << "row " << r << " column " << schema.field(c).name;
    }
  }
}

TEST(ParquetDuckDBTest, WeReadDuckDBFilesExactly) {
  REQUIRE_DUCKDB();
  TempDir dir;
  std::string select = "SELECT ";
  std::string read = "";
  for (size_t i = 0; i < DuckColumns().size(); ++i) {
    const DuckColumn& c = DuckColumns()[i];
    select += std::string(i ? ", " : "") + c.expr + " AS " + c.name;
    read += std::string(", ") + (*c.read ? std::string(c.read) : std::string(c.name)) + " AS " + c.name;
  }
  select += " FROM range(" + std::to_string(kDuckRows) + ") t(i)";
  std::string sql = "CREATE TABLE t AS " + select + ";";
  for (const auto& [file, options] : DuckVariants()) {
    sql += "COPY t TO " + SqlQuote(dir.Join(file)) + " (FORMAT parquet" + options + ");";
  }
  for (size_t v = 0; v < DuckVariants().size(); ++v) {
    const std::string& file = DuckVariants()[v].first;
    sql += (v ? " UNION ALL " : "") + std::string("SELECT ") + SqlQuote(file) + " AS __file, file_row_number" +
           read + " FROM read_parquet(" + SqlQuote(dir.Join(file)) + ", file_row_number=true)";
  }
  sql += " ORDER BY __file, file_row_number";
  auto duck = RunDuckDB(sql);
  ASSERT_TRUE(duck.ok()) << duck.status().ToString();

  auto store = OpenLocalStore(dir.path());
  ASSERT_TRUE(store.ok());
  std::vector<std::string> names;
  for (const auto& c : DuckColumns()) names.push_back(c.name);
  for (const auto& [file, options] : DuckVariants()) {
    SCOPED_TRACE(file + options);
    CheckDuckFile(store->get(), file, RowsOfFile(*duck, file, names));
  }
}

TEST(ParquetDuckDBTest, TypesOutsideOurSubsetAreNotSupportedNamingTheColumn) {
  REQUIRE_DUCKDB();
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"dec_wide", "(i / 3)::DECIMAL(38, 5)"},
      {"ubig", "(i * 1000)::UBIGINT"},
      {"ivl", "to_seconds(i)"},
      {"lst", "[i, i + 1]"},
      {"st", "{'a': i, 'b': 'x'}"},
      {"mp", "MAP {'k': i}"},
      {"tm", "TIME '12:00:00' + to_seconds(i)"},
  };
  std::string sql;
  for (const auto& [name, expr] : refused) {
    sql += "COPY (SELECT i::INTEGER AS ok, " + expr + " AS " + SqlIdent(name) +
           " FROM range(10) t(i)) TO " + SqlQuote(dir.Join(name + ".parquet")) + " (FORMAT parquet);";
  }
  sql += "SELECT 1";
  auto duck = RunDuckDB(sql);
  ASSERT_TRUE(duck.ok()) << duck.status().ToString();
  auto store = OpenLocalStore(dir.path());
  ASSERT_TRUE(store.ok());
  for (const auto& [name, expr] : refused) {
    auto reader = ParquetReader::Open(store->get(), name + ".parquet");
    Status st = reader.ok() ? (*reader)->ReadAll().status() : reader.status();
    EXPECT_TRUE(st.IsNotSupported()) << name << " (" << expr << "): " << st.ToString();
    EXPECT_NE(st.message().find("'" + name + "'"), std::string::npos) << st.ToString();
  }
}

}  // namespace
}  // namespace lakeindex::parquet
