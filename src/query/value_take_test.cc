// Per-value reads (value_take.h, format/parquet/value_reader.h): a take of a few rows of PLAIN,
// uncompressed, fixed-width pages gives exactly the values the whole-page decode gives (every
// fixed-width type, REQUIRED and OPTIONAL, NULLs at and before the row, NaN and -0.0, first and
// last row of a page), reads only the page's header, levels and values, and leaves compressed,
// dictionary-encoded and cached pages to the page path; a damaged header is never read as values.
#include "query/value_take.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include "common/lru_cache.h"
#include "format/parquet/value_reader.h"
#include "format/parquet/writer.h"
#include "lakeindex/object_store.h"
#include "util/test_util.h"

namespace lakeindex::query {
namespace {

using parquet::ParquetReader;

constexpr size_t kPageRows = 512;
constexpr size_t kRows = 4 * kPageRows + 100;

// Every fixed-width type our writer writes, REQUIRED and OPTIONAL.
Schema FixedWidthSchema() {
  std::vector<Field> fields;
  const std::vector<TypeId> types = {TypeId::kInt32,       TypeId::kInt64,       TypeId::kFloat,
                                     TypeId::kDouble,      TypeId::kDate,        TypeId::kTimestamp,
                                     TypeId::kTimestampTz, TypeId::kTimestampNs, TypeId::kUuid,
                                     DecimalType(12, 3)};
  for (TypeId t : types) {
    fields.push_back(Field{"r_" + std::string(TypeName(t)), t, false});
    fields.push_back(Field{"o_" + std::string(TypeName(t)), t, true});
  }
  return Schema(std::move(fields));
}

// The batch, with NULL runs at the start and the end of page 1 of the OPTIONAL columns, NaN and
// -0.0 at rows the tests read.
Batch TestBatch() {
  Schema schema = FixedWidthSchema();
  Batch random = lakeindex::testing::RandomBatch(schema, kRows, 52, 0.3);
  std::vector<Column> cols;
  for (size_t c = 0; c < schema.num_fields(); ++c) {
    const Field& f = schema.field(c);
    Column col(f.type);
    for (size_t i = 0; i < kRows; ++i) {
      Value v = random.column(c).GetValue(i);
      if (f.nullable && ((i >= kPageRows && i < kPageRows + 20) || (i >= 2 * kPageRows - 9 && i < 2 * kPageRows))) {
        v = Value::Null(f.type);
      }
      if (f.type == TypeId::kDouble && (i == 7 || i == kPageRows + 30)) v = Value::Double(std::nan(""));
      if (f.type == TypeId::kDouble && i == 8) v = Value::Double(-0.0);
      if (f.type == TypeId::kFloat && i == 7) v = Value::Float(std::nanf(""));
      if (f.type == TypeId::kFloat && i == 8) v = Value::Float(-0.0f);
      EXPECT_TRUE(col.AppendValue(v).ok());
    }
    cols.push_back(std::move(col));
  }
  return Batch(schema, std::move(cols), kRows);
}

std::string WriteFile(const Batch& batch, parquet::Codec codec, bool dictionary) {
  parquet::WriteOptions o;
  o.codec = codec;
  o.dictionary = dictionary;
  o.page_rows = kPageRows;
  o.skip_incompressible = false;
  auto w = parquet::ParquetWriter::Make(batch.schema(), o);
  EXPECT_TRUE(w.ok());
  EXPECT_TRUE((*w)->Write(batch).ok());
  auto bytes = (*w)->Finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return *bytes;
}

struct Opened {
  std::shared_ptr<InstrumentedStore> store;
  LruCache cache{size_t(64) << 20};
  std::unique_ptr<ParquetReader> reader;
};

// With `cache_pages` (as tables open their files) a page read value by value once is decoded whole
// the next time; without, every take of few rows reads values.
std::unique_ptr<Opened> Open(const std::string& bytes, const std::string& path = "f.parquet", bool cache_pages = true) {
  auto o = std::make_unique<Opened>();
  o->store = std::make_shared<InstrumentedStore>(std::shared_ptr<ObjectStore>(NewMemoryStore()));
  EXPECT_TRUE(o->store->Write(path, bytes).ok());
  parquet::OpenOptions options;
  options.cache = &o->cache;
  options.cache_pages = cache_pages;
  auto r = ParquetReader::Open(o->store.get(), path, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  o->reader = std::move(*r);
  return o;
}

// The rows a test reads: the first and last row of every page, the rows of the NULL runs and
// around them, the NaN and -0.0 rows, and random rows.
std::vector<uint32_t> TestRows() {
  std::set<uint32_t> rows = {0, 1, 7, 8, kPageRows - 1, kPageRows, kPageRows + 5, kPageRows + 19, kPageRows + 20,
                             kPageRows + 30, 2 * kPageRows - 10, 2 * kPageRows - 9, 2 * kPageRows - 1, 2 * kPageRows,
                             3 * kPageRows - 1, 4 * kPageRows, kRows - 1};
  lakeindex::testing::Rng rng(7);
  for (int i = 0; i < 20; ++i) rows.insert(uint32_t(rng.Next() % kRows));
  return {rows.begin(), rows.end()};
}

Column Expected(const Column& all, const std::vector<uint32_t>& rows) {
  Column out(all.type());
  for (uint32_t r : rows) out.AppendSlice(all, r, 1);
  return out;
}

// The whole-page decode of `rows`: each page read whole (ReadPage) and sliced.
Column PageDecode(const ParquetReader& reader, int column, const std::vector<uint32_t>& rows) {
  auto index = reader.ReadPageIndex(0, column);
  EXPECT_TRUE(index.ok());
  Column out(reader.schema().field(size_t(column)).type);
  for (uint32_t r : rows) {
    size_t p = 0;
    while (uint64_t(index->pages[p].first_row_index + index->pages[p].num_rows) <= r) ++p;
    auto page = reader.ReadPage(0, column, int(p));
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    out.AppendSlice(*page, size_t(r - uint64_t(index->pages[p].first_row_index)), 1);
  }
  return out;
}

// Gathers `rows` of `column` one lookup at a time (as point lookups do), with the counters summed.
Status Gather(const ParquetReader& reader, int column, const std::vector<uint32_t>& rows, Column* out,
              GatherCounters* counters) {
  for (uint32_t r : rows) RETURN_IF_ERROR(GatherRows(reader, 0, column, RangesOf(&r, 1), out, counters));
  return Status::OK();
}

TEST(ValueTakeTest, EveryFixedWidthTypeEqualsThePageDecodeAndReadsOnlyItsValues) {
  const Batch batch = TestBatch();
  const std::string file = WriteFile(batch, parquet::Codec::kUncompressed, false);
  const std::vector<uint32_t> rows = TestRows();
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    SCOPED_TRACE(batch.schema().field(c).name);
    auto opened = Open(file, "f.parquet", false);
    const ParquetReader& reader = *opened->reader;
    ASSERT_GT(reader.ValueWidth(0, int(c)), 0u);
    auto index = reader.SharedPageIndex(0, int(c), false);  // the page index: not counted below
    ASSERT_TRUE(index.ok());
    opened->store->counters().Reset();
    Column got(batch.schema().field(c).type);
    GatherCounters counters;
    ASSERT_TRUE(Gather(reader, int(c), rows, &got, &counters).ok());
    EXPECT_TRUE(got.Equals(Expected(batch.column(c), rows)));
    // Per row, at most the header (or header and levels) and one value, unless what that takes is
    // more than a quarter of the page (then the page: the short last page of 4-byte values).
    const size_t width = reader.ValueWidth(0, int(c));
    uint64_t bound = 0, by_value = 0;
    for (uint32_t r : rows) {
      const auto& e = (*index)->pages[r / kPageRows];
      const uint64_t value = parquet::ValuePagePrefix(batch.schema().field(c).nullable, width, e) + width;
      by_value += 4 * value <= uint64_t(e.compressed_size);
      bound += 4 * value <= uint64_t(e.compressed_size) ? value : uint64_t(e.compressed_size);
    }
    EXPECT_GE(by_value + 4, rows.size());
    EXPECT_EQ(counters.pages_by_value, by_value);
    EXPECT_EQ(counters.pages_loaded, rows.size() - by_value);
    EXPECT_LE(opened->store->counters().bytes_read.load(), bound);
    // The same rows from whole pages.
    EXPECT_TRUE(got.Equals(PageDecode(reader, int(c), rows)));
  }
}

TEST(ValueTakeTest, SeveralRowsOfAPageInOneTake) {
  const Batch batch = TestBatch();
  auto opened = Open(WriteFile(batch, parquet::Codec::kUncompressed, false));
  // Runs and single rows in pages 0, 1 (around its NULL runs) and 3 (its last rows).
  const std::vector<uint32_t> rows = {3,   4,   5,   100, kPageRows + 18, kPageRows + 19, kPageRows + 20,
                                      kPageRows + 21, 2 * kPageRows - 10, 2 * kPageRows - 1, 4 * kPageRows - 2, 4 * kPageRows - 1};
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    SCOPED_TRACE(batch.schema().field(c).name);
    Column got(batch.schema().field(c).type);
    GatherCounters counters;
    ASSERT_TRUE(GatherRows(*opened->reader, 0, int(c), RangesOf(rows.data(), rows.size()), &got, &counters).ok());
    EXPECT_EQ(counters.pages_by_value, 3u);
    EXPECT_TRUE(got.Equals(Expected(batch.column(c), rows)));
  }
}

TEST(ValueTakeTest, CompressedDictionaryCachedRereadAndCrowdedPagesTakeThePagePath) {
  const Batch batch = TestBatch();
  // Few distinct values, so that the dictionary of the integer columns is kept.
  std::vector<uint32_t> repeat(kRows);
  for (uint32_t i = 0; i < kRows; ++i) repeat[i] = i % 8;
  std::vector<Column> repeated_columns;
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    repeated_columns.emplace_back(batch.schema().field(c).type);
    repeated_columns.back().AppendSelected(batch.column(c), repeat.data(), repeat.size());
  }
  const Batch repeated(batch.schema(), std::move(repeated_columns), kRows);
  const std::vector<uint32_t> rows = {0, kPageRows + 25, kRows - 1};
  for (auto [codec, dictionary] : {std::pair{parquet::Codec::kZstd, false}, std::pair{parquet::Codec::kUncompressed, true}}) {
    const Batch& data = dictionary ? repeated : batch;
    auto opened = Open(WriteFile(data, codec, dictionary));
    size_t checked = 0;
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      const auto& encodings = opened->reader->metadata().row_groups[0].columns[c].meta_data->encodings;
      if (dictionary && std::count(encodings.begin(), encodings.end(), parquet::Encoding::kRleDictionary) == 0) continue;
      ++checked;
      Column got(batch.schema().field(c).type);
      GatherCounters counters;
      ASSERT_TRUE(Gather(*opened->reader, int(c), rows, &got, &counters).ok());
      EXPECT_EQ(counters.pages_by_value, 0u) << batch.schema().field(c).name;
      EXPECT_EQ(counters.pages_loaded, rows.size());
      EXPECT_TRUE(got.Equals(Expected(data.column(c), rows)));
    }
    EXPECT_GE(checked, dictionary ? 8u : batch.num_columns());  // the integer types, or all
  }
  auto opened = Open(WriteFile(batch, parquet::Codec::kUncompressed, false));
  const int c = 6;  // r_double
  // A page the cache holds is used, not read again value by value.
  ASSERT_TRUE(opened->reader->ReadPagesShared(0, c, {1}, ObjectStore::ReadHint{}).ok());
  opened->store->counters().Reset();
  Column got(TypeId::kDouble);
  GatherCounters counters;
  ASSERT_TRUE(Gather(*opened->reader, c, {kPageRows + 3}, &got, &counters).ok());
  EXPECT_EQ(counters.pages_by_value, 0u);
  EXPECT_EQ(opened->store->counters().bytes_read.load(), 0u);
  // A page read value by value is decoded whole (and kept) when asked for again: a hot key then
  // costs no reads.
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    opened->store->counters().Reset();
    Column again(TypeId::kDouble);
    counters = {};
    ASSERT_TRUE(Gather(*opened->reader, c, {3 * kPageRows + 7}, &again, &counters).ok());
    EXPECT_EQ(counters.pages_by_value, round == 0 ? 1u : 0u);
    EXPECT_EQ(counters.pages_loaded, round == 1 ? 1u : 0u);
    EXPECT_EQ(opened->store->counters().bytes_read.load() > 1000, round == 1);
    EXPECT_EQ(opened->store->counters().bytes_read.load() == 0, round == 2);
    EXPECT_TRUE(again.Equals(Expected(batch.column(size_t(c)), {3 * kPageRows + 7})));
  }
  // More than kMaxValueRowsPerPage rows of a page: the page whole.
  std::vector<uint32_t> many;
  for (uint32_t r = 0; r <= 2 * kMaxValueRowsPerPage; r += 2) many.push_back(2 * kPageRows + r);
  Column crowded(TypeId::kDouble);
  counters = {};
  ASSERT_TRUE(GatherRows(*opened->reader, 0, c, RangesOf(many.data(), many.size()), &crowded, &counters).ok());
  EXPECT_EQ(counters.pages_by_value, 0u);
  EXPECT_EQ(counters.pages_loaded, 1u);
  EXPECT_TRUE(crowded.Equals(Expected(batch.column(size_t(c)), many)));
}

// Every byte of the header (and of the levels) of a page, flipped: a take either returns the
// original values (the flip hit bytes no read uses: statistics, the CRC field) or is an error
// naming the file (Corruption, or NotSupported for an encoding flipped to an unknown one) — never
// other values. Flips the size checks see make the page path read the
// page, whose CRC then finds them.
TEST(ValueTakeTest, DamagedHeaderOrLevelsAreCorruptionOrTheOriginalValues) {
  const Batch batch = TestBatch();
  const std::string file = WriteFile(batch, parquet::Codec::kUncompressed, false);
  for (int c : {6, 7}) {  // r_double, o_double
    const Field& field = batch.schema().field(size_t(c));
    SCOPED_TRACE(field.name);
    auto clean = Open(file);
    auto index = clean->reader->SharedPageIndex(0, c, false);
    ASSERT_TRUE(index.ok());
    const parquet::PageIndexEntry page = (*index)->pages[1];
    const size_t width = clean->reader->ValueWidth(0, c);
    const uint64_t prefix = parquet::ValuePagePrefix(field.nullable, width, page);
    ASSERT_GT(prefix, 0u);
    const auto clean_page = parquet::ParseValuePage(reinterpret_cast<const uint8_t*>(file.data()) + page.offset, prefix,
                                                    parquet::LeafColumn{field.name, field.type, field.nullable,
                                                                        parquet::PhysicalTypeFor(field.type)},
                                                    parquet::Codec::kUncompressed, page);
    ASSERT_TRUE(clean_page.has_value());
    const std::vector<uint32_t> rows = {kPageRows + 25, 2 * kPageRows - 1};
    const Column want = Expected(batch.column(size_t(c)), rows);
    size_t errors = 0, corruption = 0, unchanged = 0;
    for (uint64_t at = 0; at < clean_page->values_at; ++at) {  // the header and the levels
      std::string damaged = file;
      damaged[size_t(uint64_t(page.offset) + at)] ^= 0x10;
      auto opened = Open(damaged, "damaged.parquet");
      Column got(field.type);
      GatherCounters counters;
      Status st = GatherRows(*opened->reader, 0, c, RangesOf(rows.data(), rows.size()), &got, &counters);
      if (st.ok()) {
        EXPECT_TRUE(got.Equals(want)) << "flip at page byte " << at;
        ++unchanged;
      } else {
        // As the page path says of the damaged page (a flipped level encoding is NotSupported).
        EXPECT_TRUE(st.IsCorruption() || st.IsNotSupported()) << at << ": " << st.ToString();
        corruption += st.IsCorruption();
        EXPECT_NE(st.message().find("damaged.parquet"), std::string::npos) << st.ToString();
        ++errors;
      }
    }
    EXPECT_GT(errors, clean_page->values_at / 4);
    EXPECT_GT(corruption * 2, errors);
    EXPECT_GT(unchanged, 0u);
  }
}

// Files pyarrow writes (the project's venv): data pages v1 (with page CRCs) and v2, PLAIN and
// uncompressed, with the conversions our own files never need: decimals as FIXED_LEN_BYTE_ARRAY,
// millisecond and nanosecond timestamps, uint32, int16. The per-value reads equal the whole
// decode of the same file.
TEST(ValueTakeTest, PyArrowFilesV1AndV2EqualTheirWholeDecode) {
  const std::string python = std::string(LAKEINDEX_SOURCE_DIR) + "/.venv/bin/python";
  lakeindex::testing::TempDir dir;
  const std::string script = dir.path() + "/write.py";
  {
    std::ofstream f(script);
    f << R"PY(
import sys, decimal, random
import pyarrow as pa, pyarrow.parquet as pq
random.seed(52)
n = 3000
def maybe(v, i):
    return None if (i % 7 == 3 or 600 <= i < 640) else v
cols = {
    "dec": pa.array([maybe(decimal.Decimal(random.randint(-10**9, 10**9)) / 100, i) for i in range(n)], pa.decimal128(10, 2)),
    "dec_req": pa.array([decimal.Decimal(random.randint(-10**9, 10**9)) / 100 for i in range(n)], pa.decimal128(10, 2)),
    "ts_ms": pa.array([random.randint(-10**12, 10**12) for i in range(n)], pa.timestamp("ms")),
    "ts_ns": pa.array([maybe(random.randint(-10**12, 10**12) * 1000, i) for i in range(n)], pa.timestamp("ns")),
    "u32": pa.array([maybe(random.randint(0, 2**32 - 1), i) for i in range(n)], pa.uint32()),
    "i16": pa.array([random.randint(-2**15, 2**15 - 1) for i in range(n)], pa.int16()),
    "f32": pa.array([float("nan") if i == 5 else -0.0 if i == 6 else random.random() for i in range(n)], pa.float32()),
    "f64": pa.array([maybe(float("nan") if i == 9 else random.random(), i) for i in range(n)], pa.float64()),
    "d32": pa.array([maybe(random.randint(-10**5, 10**5), i) for i in range(n)], pa.date32()),
}
required = {"dec_req", "ts_ms", "i16", "f32"}
schema = pa.schema([pa.field(k, v.type, nullable=k not in required) for k, v in cols.items()])
table = pa.table(cols, schema=schema)
# The values as pyarrow has them, for an independent check: integers (decimals unscaled, ms
# timestamps in microseconds, ns as they are, dates in days), floats as their IEEE bits.
import struct
with open(sys.argv[1] + "/expected.txt", "w") as out:
    for name, arr in cols.items():
        for i, v in enumerate(arr.to_pylist()):
            if v is None: s = "null"
            elif name.startswith("dec"): s = str(int(v * 100))
            elif name == "ts_ms": s = str(arr[i].value * 1000)
            elif name == "ts_ns": s = str(arr[i].value)
            elif name == "d32": s = str(arr[i].value)
            elif name == "f32": s = str(struct.unpack("<I", struct.pack("<f", v))[0])
            elif name == "f64": s = str(struct.unpack("<Q", struct.pack("<d", v))[0])
            else: s = str(v)
            out.write(name + " " + str(i) + " " + s + "\n")
for version in ("1.0", "2.0"):
    pq.write_table(table, sys.argv[1] + "/v" + version[0] + ".parquet", compression="none", use_dictionary=False,
                   data_page_version=version, write_page_index=True, data_page_size=2048, write_batch_size=128,
                   write_page_checksum=True)
)PY";
  }
  const std::string cmd = python + " " + script + " " + dir.path();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "pyarrow (the project's venv, scripts/python-env.sh) failed: " << cmd;
  std::map<std::string, std::vector<std::string>> expected;  // column -> its rows as pyarrow has them
  {
    std::ifstream in(dir.path() + "/expected.txt");
    std::string name, value;
    size_t row;
    while (in >> name >> row >> value) {
      expected[name].resize(row + 1);
      expected[name][row] = value;
    }
  }
  // Row i of `got` (the value of row `row`) in the form of expected.txt.
  auto render = [](const Column& got, size_t i) -> std::string {
    const Value v = got.GetValue(i);
    if (v.is_null()) return "null";
    if (got.type() == TypeId::kFloat) {
      const float f = float(v.double_value());
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return std::to_string(bits);
    }
    if (got.type() == TypeId::kDouble) {
      const double d = v.double_value();
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      return std::to_string(bits);
    }
    return std::to_string(v.int_value());
  };
  for (const char* name : {"v1.parquet", "v2.parquet"}) {
    SCOPED_TRACE(name);
    std::ifstream in(dir.path() + "/" + name, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto opened = Open(bytes, name, false);
    const ParquetReader& reader = *opened->reader;
    auto whole = reader.ReadRowGroup(0, {});
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    ASSERT_EQ(whole->num_rows(), 3000u);
    std::vector<uint32_t> rows = {0, 3, 5, 6, 9, 599, 600, 639, 640, 2999};
    lakeindex::testing::Rng rng(3);
    for (int i = 0; i < 30; ++i) rows.push_back(uint32_t(rng.Next() % 3000));
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    for (size_t c = 0; c < whole->num_columns(); ++c) {
      SCOPED_TRACE(whole->schema().field(c).name);
      EXPECT_GT(reader.ValueWidth(0, int(c)), 0u);
      Column got(whole->schema().field(c).type);
      GatherCounters counters;
      ASSERT_TRUE(Gather(reader, int(c), rows, &got, &counters).ok());
      EXPECT_GT(counters.pages_by_value * 2, rows.size());
      EXPECT_TRUE(got.Equals(Expected(whole->column(c), rows)));
      const std::vector<std::string>& want = expected[whole->schema().field(c).name];
      ASSERT_EQ(want.size(), 3000u);
      for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(render(got, i), want[rows[i]]) << "row " << rows[i];
    }
  }
}

// The parser alone: a prefix too short for the header or the levels is "not addressable" (the
// caller then reads the page whole), never an out-of-bounds read.
TEST(ValueTakeTest, ParserRefusesEveryTruncatedPrefix) {
  const Batch batch = TestBatch();
  const std::string file = WriteFile(batch, parquet::Codec::kUncompressed, false);
  auto opened = Open(file);
  for (int c : {6, 7}) {  // r_double, o_double
    auto index = opened->reader->SharedPageIndex(0, c, false);
    ASSERT_TRUE(index.ok());
    const parquet::PageIndexEntry page = (*index)->pages[1];
    const bool nullable = batch.schema().field(size_t(c)).nullable;
    const uint64_t prefix = parquet::ValuePagePrefix(nullable, 8, page);
    parquet::LeafColumn leaf;
    leaf.type = TypeId::kDouble;
    leaf.physical = parquet::PhysicalType::kDouble;
    leaf.nullable = nullable;
    const auto* data = reinterpret_cast<const uint8_t*>(file.data()) + page.offset;
    ASSERT_TRUE(parquet::ParseValuePage(data, prefix, leaf, parquet::Codec::kUncompressed, page).has_value());
    EXPECT_FALSE(parquet::ParseValuePage(data, prefix, leaf, parquet::Codec::kZstd, page).has_value());
    size_t accepted = 0;
    for (uint64_t len = 0; len < prefix; ++len) {
      std::string cut(file.substr(size_t(page.offset), size_t(len)));  // its own allocation: ASan sees overreads
      accepted += parquet::ParseValuePage(reinterpret_cast<const uint8_t*>(cut.data()), cut.size(), leaf,
                                          parquet::Codec::kUncompressed, page).has_value();
    }
    // An OPTIONAL page is addressable as soon as its levels are in.
    if (!nullable) {
      EXPECT_EQ(accepted, 0u);
    }
  }
}

}  // namespace
}  // namespace lakeindex::query
