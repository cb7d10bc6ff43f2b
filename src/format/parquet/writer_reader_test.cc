// Writer -> reader round trips: random schemas and data, every option combination that
// changes the bytes, statistics and the page index checked against the data itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "common/thread_pool.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "util/test_util.h"

namespace lakeindex::parquet {
namespace {

using lakeindex::testing::RandomBatch;
using lakeindex::testing::RandomSchema;
using lakeindex::testing::Rng;

// Min/max over the non-null, non-NaN values of rows [offset, offset+count) of `c`.
ColumnStatistics ExpectedStats(const Column& c, size_t offset, size_t count) {
  ColumnStatistics s;
  int64_t nulls = 0;
  for (size_t i = offset; i < offset + count; ++i) {
    if (c.IsNull(i)) {
      ++nulls;
      continue;
    }
    Value v = c.GetValue(i);
    if (IsFloating(v.type()) && std::isnan(v.double_value())) continue;
    if (!s.min || CompareValues(v, *s.min) < 0) s.min = v;
    if (!s.max || CompareValues(v, *s.max) > 0) s.max = v;
  }
  s.null_count = nulls;
  return s;
}

void ExpectStatsEqual(const ColumnStatistics& got, const ColumnStatistics& want, const std::string& where) {
  ASSERT_EQ(got.min.has_value(), want.min.has_value()) << where;
  ASSERT_EQ(got.max.has_value(), want.max.has_value()) << where;
  if (want.min) {
    EXPECT_EQ(CompareValues(*got.min, *want.min), 0) << where << " min " << got.min->ToString();
  }
  if (want.max) {
    EXPECT_EQ(CompareValues(*got.max, *want.max), 0) << where << " max " << got.max->ToString();
  }
  EXPECT_EQ(got.null_count, want.null_count) << where;
}

// Writes `batch` in pieces, reads it back every way the reader offers and compares.
void RoundTrip(const Batch& batch, const WriteOptions& options, const std::string& label) {
  SCOPED_TRACE(label);
  auto writer_r = ParquetWriter::Make(batch.schema(), options);
  ASSERT_TRUE(writer_r.ok()) << writer_r.status().ToString();
  auto writer = std::move(*writer_r);
  // Feed in uneven pieces so row groups and pages straddle Write calls.
  size_t offset = 0, step = 1;
  while (offset < batch.num_rows()) {
    size_t n = std::min(step, batch.num_rows() - offset);
    Status st = writer->Write(batch.Slice(offset, n));
    ASSERT_TRUE(st.ok()) << st.ToString();
    offset += n;
    step = step * 3 + 1;
  }
  auto bytes = writer->Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  // The writer's own statistics of the file are those of a separate pass over the rows.
  EXPECT_EQ(writer->rows_written(), batch.num_rows());
  ASSERT_EQ(writer->column_stats().size(), batch.num_columns());
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    const ColumnStats want = ComputeColumnStats(batch.column(c));
    const ColumnStats& got = writer->column_stats()[c];
    EXPECT_EQ(got, want) << "column " << c << ": min " << (got.min ? got.min->ToString() : "none") << " max "
                         << (got.max ? got.max->ToString() : "none");
    for (auto [g, w] : {std::pair{&got.min, &want.min}, std::pair{&got.max, &want.max}}) {
      if (w->has_value() && g->has_value() && ((*w)->type() == TypeId::kDouble || (*w)->type() == TypeId::kFloat)) {
        EXPECT_EQ(std::signbit((*g)->double_value()), std::signbit((*w)->double_value())) << "column " << c;
      }
    }
  }
  auto store = NewMemoryStore();
  ASSERT_TRUE(store->Write("t.parquet", *bytes).ok());
  auto reader_r = ParquetReader::Open(store.get(), "t.parquet");
  ASSERT_TRUE(reader_r.ok()) << reader_r.status().ToString();
  const ParquetReader& reader = **reader_r;
  ASSERT_EQ(reader.schema(), batch.schema());
  ASSERT_EQ(reader.num_rows(), int64_t(batch.num_rows()));
  ASSERT_EQ(reader.metadata().created_by.value_or(""), kCreatedBy);

  auto all = reader.ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_TRUE(all->Equals(batch));

  size_t row = 0;
  for (int rg = 0; rg < reader.num_row_groups(); ++rg) {
    size_t rows = size_t(reader.row_group_num_rows(rg));
    EXPECT_LE(rows, options.row_group_rows);
    auto got = reader.ReadRowGroup(rg, {});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(got->Equals(batch.Slice(row, rows))) << "row group " << rg;
    for (size_t c = 0; c < batch.num_columns(); ++c) {
      std::string where = "rg " + std::to_string(rg) + " col " + std::to_string(c);
      if (options.statistics) {
        ExpectStatsEqual(reader.column_statistics(rg, int(c)), ExpectedStats(batch.column(c), row, rows), where);
      }
      auto index = reader.ReadPageIndex(rg, int(c));
      ASSERT_TRUE(index.ok()) << index.status().ToString();
      const auto& indexed = options.column_index_columns;
      if (options.page_index && !indexed.empty() &&
          std::find(indexed.begin(), indexed.end(), batch.schema().field(c).name) == indexed.end()) {
        EXPECT_FALSE(index->has_statistics) << where << ": no ColumnIndex asked for";
      }
      size_t page_rows = options.page_rows;
      for (const auto& [name, own] : options.column_page_rows) {
        if (name == batch.schema().field(c).name) page_rows = own;
      }
      int64_t next = 0;
      for (size_t p = 0; p < index->pages.size(); ++p) {
        const PageIndexEntry& e = index->pages[p];
        ASSERT_EQ(e.first_row_index, next);
        EXPECT_LE(size_t(e.num_rows), page_rows) << where;
        // Pages are full but the chunk's last (a dictionary falling back to PLAIN may end one early).
        if (p + 1 < index->pages.size() && !options.dictionary) {
          EXPECT_EQ(size_t(e.num_rows), page_rows) << where;
        }
        next += e.num_rows;
        auto page = reader.ReadPage(rg, int(c), int(p));
        ASSERT_TRUE(page.ok()) << page.status().ToString();
        Column want(batch.column(c).type());
        want.AppendSlice(batch.column(c), row + size_t(e.first_row_index), size_t(e.num_rows));
        ASSERT_TRUE(page->Equals(want)) << where << " page " << p;
        if (options.statistics && index->has_statistics) {
          ASSERT_EQ(index->stats.size(), index->pages.size()) << where;
          const PageStatistics& st = index->stats[p];
          ColumnStatistics ps{st.min, st.max, st.null_count};
          ColumnStatistics expected = ExpectedStats(batch.column(c), row + size_t(e.first_row_index), size_t(e.num_rows));
          ExpectStatsEqual(ps, expected, where + " page " + std::to_string(p));
          EXPECT_EQ(st.null_page, *expected.null_count == e.num_rows);
        }
      }
      ASSERT_EQ(size_t(next), rows) << where;
    }
    row += rows;
  }
  ASSERT_EQ(row, batch.num_rows());
}

// The cut columns' pages end at every page end Write is given, the run-cut columns' at every run
// end, each at their page rows and at each row group's end, and nowhere else; the other columns'
// pages ignore the cuts; the rows read back as written.
TEST(ParquetRoundTripTest, CutColumnsEndPagesWhereWriteSays) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    Rng rng(seed * 104729);
    Schema schema = RandomSchema(seed, 6);
    const size_t rows = 1 + rng.Uniform(3000);
    Batch batch = RandomBatch(schema, rows, seed, rng.Chance(0.5) ? 0.0 : 0.2);
    WriteOptions o;
    o.dictionary = false;  // a dictionary falling back to PLAIN may end a page early
    o.page_rows = 1 + rng.Uniform(200);
    o.row_group_rows = rng.Chance(0.5) ? rows : 1 + rng.Uniform(1500);
    for (const Field& f : schema.fields()) {
      if (rng.Chance(0.5)) {
        o.cut_columns.push_back(f.name);
      } else if (rng.Chance(0.5)) {
        o.run_cut_columns.push_back(f.name);
      }
    }
    o.cut_columns.push_back("no such column");
    o.run_cut_columns.push_back("no such column either");
    if (seed % 3 == 0) o.column_pool = ThreadPool::Default();
    SCOPED_TRACE("seed " + std::to_string(seed) + ", page rows " + std::to_string(o.page_rows) + ", row groups of " +
                 std::to_string(o.row_group_rows));
    auto writer = ParquetWriter::Make(schema, o);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    std::set<size_t> cuts, run_cuts;  // rows at which a given page (run) ends
    for (size_t at = 0; at < rows;) {
      const size_t count = std::min(rows - at, 1 + rng.Uniform(700));
      std::vector<uint32_t> pages, runs;
      for (auto [sizes, ends] : {std::pair{&pages, &cuts}, std::pair{&runs, &run_cuts}}) {
        for (size_t left = count; left > 0;) {
          const size_t p = std::min(left, 1 + rng.Uniform(rng.Chance(0.5) ? 20 : 400));
          sizes->push_back(uint32_t(p));
          left -= p;
          ends->insert(at + count - left);
        }
        if (rng.Chance(0.2)) {
          sizes->clear();  // no cuts given: pages of page rows only
          for (size_t r = at + 1; r <= at + count; ++r) ends->erase(r);
        }
      }
      Status st = (*writer)->Write(batch, at, count, pages, runs);
      ASSERT_TRUE(st.ok()) << st.ToString();
      at += count;
    }
    auto bytes = (*writer)->Finish();
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    auto store = NewMemoryStore();
    ASSERT_TRUE(store->Write("t.parquet", *bytes).ok());
    auto reader = ParquetReader::Open(store.get(), "t.parquet");
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto all = (*reader)->ReadAll();
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    ASSERT_TRUE(all->Equals(batch));
    size_t first = 0;
    for (int rg = 0; rg < (*reader)->num_row_groups(); ++rg) {
      const size_t end = first + size_t((*reader)->row_group_num_rows(rg));
      for (size_t c = 0; c < schema.num_fields(); ++c) {
        const std::string& name = schema.field(c).name;
        const bool page_cut = std::find(o.cut_columns.begin(), o.cut_columns.end(), name) != o.cut_columns.end();
        const bool run_cut = std::find(o.run_cut_columns.begin(), o.run_cut_columns.end(), name) != o.run_cut_columns.end();
        const bool cut = page_cut || run_cut;
        const std::set<size_t>& ends = page_cut ? cuts : run_cuts;
        // Pages start at the row group's start, after each cut within it, and page rows after each.
        std::vector<size_t> want;
        for (size_t start = first; start < end;) {
          want.push_back(start);
          size_t next = std::min(end, start + o.page_rows);
          if (cut) {
            auto c_it = ends.upper_bound(start);
            if (c_it != ends.end() && *c_it < next) next = *c_it;
          }
          start = next;
        }
        auto index = (*reader)->ReadPageIndex(rg, int(c));
        ASSERT_TRUE(index.ok()) << index.status().ToString();
        std::vector<size_t> got;
        for (const PageIndexEntry& e : index->pages) got.push_back(first + size_t(e.first_row_index));
        EXPECT_EQ(got, want) << "row group " << rg << ", column " << schema.field(c).name << (cut ? " (cut)" : "");
      }
      first = end;
    }
    ASSERT_EQ(first, rows);
  }
  // Pages (or runs) that do not add up to the rows, or a page of none, are refused.
  Schema schema = RandomSchema(1, 2);
  Batch batch = RandomBatch(schema, 10, 1, 0.0);
  auto writer = ParquetWriter::Make(schema, {});
  ASSERT_TRUE(writer.ok());
  const uint32_t short_pages[] = {3, 4}, empty_page[] = {10, 0};
  EXPECT_EQ((*writer)->Write(batch, 0, 10, short_pages).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*writer)->Write(batch, 0, 10, empty_page).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*writer)->Write(batch, 0, 10, {}, short_pages).code(), StatusCode::kInvalidArgument);  // runs too
  EXPECT_EQ((*writer)->Write(batch, 0, 10, {}, empty_page).code(), StatusCode::kInvalidArgument);
}

TEST(ParquetRoundTripTest, RandomSchemasAndOptions) {
  const Codec codecs[] = {Codec::kUncompressed, Codec::kSnappy, Codec::kZstd, Codec::kGzip, Codec::kLz4Raw};
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    Rng rng(seed * 7919);
    Schema schema = RandomSchema(seed, 9);
    size_t rows_choices[] = {0, 1, 2, 17, 300, 2500};
    size_t rows = rows_choices[rng.Uniform(6)];
    double nulls[] = {0.0, 0.1, 0.5, 1.0};
    Batch batch = RandomBatch(schema, rows, seed, nulls[rng.Uniform(4)]);
    WriteOptions o;
    o.codec = codecs[rng.Uniform(5)];
    if (!CodecSupported(o.codec)) o.codec = Codec::kZstd;
    size_t page_choices[] = {1, 3, 64, 1000, 8192};
    o.page_rows = page_choices[rng.Uniform(5)];
    size_t rg_choices[] = {1, 5, 100, 1000, size_t(1) << 20};
    o.row_group_rows = rg_choices[rng.Uniform(5)];
    o.dictionary = rng.Chance(0.7);
    o.statistics = rng.Chance(0.8);
    o.page_index = rng.Chance(0.8);
    o.page_crc = rng.Chance(0.5);
    o.skip_incompressible = rng.Chance(0.5);
    o.page_header_statistics = rng.Chance(0.5);
    if (rng.Chance(0.3)) o.column_index_columns = {schema.field(0).name};
    o.delta_integers = rng.Chance(0.4);
    o.byte_stream_split_floats = rng.Chance(0.4);
    o.delta_length_strings = rng.Chance(0.4);
    if (rng.Chance(0.3)) o.fixed_width_zstd_level = -1;
    o.fast_string_zstd = rng.Chance(0.5);
    if (rng.Chance(0.3)) o.column_pool = ThreadPool::Default();  // columns encoded in parallel
    // A column with pages of its own size (and a name not in the schema, ignored).
    if (rng.Chance(0.4)) o.column_page_rows = {{schema.field(schema.num_fields() - 1).name, page_choices[rng.Uniform(5)]}, {"absent", 2}};
    RoundTrip(batch, o, "seed " + std::to_string(seed) + " codec " + CodecName(o.codec) +
                            " page_rows " + std::to_string(o.page_rows) + " rg " + std::to_string(o.row_group_rows) +
                            (o.delta_integers ? " delta" : "") + (o.byte_stream_split_floats ? " split" : "") +
                            (o.delta_length_strings ? " delta-length" : ""));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Small pages: a dictionary is decided on the chunk's first 1024 values (not on one page), a
// chunk whose first page does not compress is stored UNCOMPRESSED, and reading page after page
// of a dictionary-encoded chunk reads its dictionary page once.
TEST(ParquetRoundTripTest, SmallPagesDictionaryCodecAndDictionaryReadOnce) {
  Schema schema({Field{"cat", TypeId::kString, false}, Field{"noise", TypeId::kDouble, false},
                 Field{"seq", TypeId::kInt64, false}});
  Batch batch(schema);
  Rng rng(11);
  for (int i = 0; i < 4096; ++i) {
    ASSERT_TRUE(batch.mutable_column(0).AppendString("category_" + std::to_string(rng.Uniform(200))).ok());
    batch.mutable_column(1).Append<double>(rng.Unit());
    batch.mutable_column(2).Append<int64_t>(int64_t(i) * 1000);
  }
  ASSERT_TRUE(batch.Seal().ok());
  WriteOptions o;
  o.page_rows = 64;  // 64 rows hold ~55 distinct of the 200 categories: a per-page decision says no
  auto writer = ParquetWriter::Make(schema, o);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Write(batch).ok());
  auto bytes = (*writer)->Finish();
  ASSERT_TRUE(bytes.ok());
  auto instrumented = std::make_shared<InstrumentedStore>(std::shared_ptr<ObjectStore>(NewMemoryStore()));
  ASSERT_TRUE(instrumented->Write("t.parquet", *bytes).ok());
  auto reader = ParquetReader::Open(instrumented.get(), "t.parquet");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const ColumnMetaData& cat = *(*reader)->metadata().row_groups[0].columns[0].meta_data;
  const ColumnMetaData& noise = *(*reader)->metadata().row_groups[0].columns[1].meta_data;
  const ColumnMetaData& seq = *(*reader)->metadata().row_groups[0].columns[2].meta_data;
  EXPECT_TRUE(cat.dictionary_page_offset.has_value());
  // The pages' indices (8 bits, random) do not compress, the dictionary's "category_N" strings
  // do: the chunk's codec is decided on both, not on the first data page alone.
  EXPECT_EQ(cat.codec, int32_t(Codec::kZstd));
  EXPECT_EQ(noise.codec, int32_t(Codec::kUncompressed));  // random doubles: zstd saves nothing
  EXPECT_FALSE(seq.dictionary_page_offset.has_value());   // all distinct
  EXPECT_EQ(seq.codec, int32_t(Codec::kZstd));            // small integers in 8 bytes compress
  {
    // A stricter bar (spilled layout runs keep LZ4 only where it saves a quarter): none of the
    // three chunks shrinks a hundredfold, so each is stored uncompressed, and reads back the same.
    WriteOptions strict = o;
    strict.incompressible_above = 0.01;
    auto strict_writer = ParquetWriter::Make(schema, strict);
    ASSERT_TRUE(strict_writer.ok());
    ASSERT_TRUE((*strict_writer)->Write(batch).ok());
    auto strict_bytes = (*strict_writer)->Finish();
    ASSERT_TRUE(strict_bytes.ok());
    auto strict_store = NewMemoryStore();
    ASSERT_TRUE(strict_store->Write("s.parquet", *strict_bytes).ok());
    auto strict_reader = ParquetReader::Open(strict_store.get(), "s.parquet");
    ASSERT_TRUE(strict_reader.ok()) << strict_reader.status().ToString();
    for (const ColumnChunk& chunk : (*strict_reader)->metadata().row_groups[0].columns) {
      EXPECT_EQ(chunk.meta_data->codec, int32_t(Codec::kUncompressed)) << chunk.meta_data->path_in_schema[0];
    }
    RoundTrip(batch, strict, "incompressible_above 0.01");
  }
  auto index = (*reader)->ReadPageIndex(0, 0);
  ASSERT_TRUE(index.ok());
  ASSERT_EQ(index->pages.size(), 64u);
  const uint64_t dictionary_bytes = uint64_t(index->pages[0].offset) - uint64_t(*cat.dictionary_page_offset);
  uint64_t pages_bytes = 0;
  instrumented->counters().Reset();
  for (size_t p = 0; p < index->pages.size(); ++p) {
    auto page = (*reader)->ReadPage(0, 0, int(p));
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    Column want(TypeId::kString);
    want.AppendSlice(batch.column(0), size_t(index->pages[p].first_row_index), size_t(index->pages[p].num_rows));
    ASSERT_TRUE(page->Equals(want)) << "page " << p;
    pages_bytes += uint64_t(index->pages[p].compressed_size);
  }
  EXPECT_EQ(instrumented->counters().bytes_read.load(), pages_bytes + dictionary_bytes);

  // ReadPages: adjacent pages (and, with a large enough hole, far ones) share one read.
  const std::vector<int> wanted = {0, 5, 6, 20, 63};
  for (uint64_t hole : {uint64_t(0), uint64_t(1) << 30}) {
    for (int c = 0; c < 3; ++c) {
      auto column_index = (*reader)->ReadPageIndex(0, c);
      ASSERT_TRUE(column_index.ok());
      instrumented->counters().Reset();
      auto got = (*reader)->ReadPages(0, c, wanted, ObjectStore::ReadHint{hole});
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ASSERT_EQ(got->size(), wanted.size());
      EXPECT_EQ(instrumented->counters().read_requests.load(), hole == 0 ? 4u : 1u) << "column " << c;
      for (size_t k = 0; k < wanted.size(); ++k) {
        const PageIndexEntry& e = column_index->pages[size_t(wanted[k])];
        Column want(batch.column(size_t(c)).type());
        want.AppendSlice(batch.column(size_t(c)), size_t(e.first_row_index), size_t(e.num_rows));
        EXPECT_TRUE((*got)[k].Equals(want)) << "column " << c << " page " << wanted[k];
      }
    }
  }
  EXPECT_TRUE((*reader)->ReadPages(0, 0, {6, 5}, {}).status().IsInvalidArgument());
  EXPECT_TRUE((*reader)->ReadPages(0, 0, {64}, {}).status().IsInvalidArgument());

  // LoadPages: the pages of several chunks, and the dictionary, in one batch of ranges; then
  // reading them reads nothing. Bad page lists are refused naming the chunk.
  LruCache cache(64 << 20);
  OpenOptions cached;
  cached.cache = &cache;
  cached.cache_pages = true;
  auto fresh = ParquetReader::Open(instrumented.get(), "t.parquet", cached);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  std::vector<ParquetReader::ChunkWant> wants;
  uint64_t want_bytes = dictionary_bytes;
  for (int c = 0; c < 3; ++c) {
    wants.push_back({0, c, wanted});
    auto column_index = (*fresh)->ReadPageIndex(0, c);
    ASSERT_TRUE(column_index.ok());
    for (int p : wanted) want_bytes += uint64_t(column_index->pages[size_t(p)].compressed_size);
  }
  instrumented->counters().Reset();
  ASSERT_TRUE((*fresh)->LoadPages(wants, {}).ok());
  EXPECT_EQ(instrumented->counters().bytes_read.load(), want_bytes);
  instrumented->counters().Reset();
  for (int c = 0; c < 3; ++c) {
    uint64_t loaded = 0;
    auto span = (*fresh)->ReadPagesShared(0, c, wanted, {}, &loaded);
    ASSERT_TRUE(span.ok()) << span.status().ToString();
    EXPECT_EQ(loaded, 0u) << "column " << c;
    auto column_index = (*fresh)->ReadPageIndex(0, c);
    for (size_t k = 0; k < wanted.size(); ++k) {
      const PageIndexEntry& e = column_index->pages[size_t(wanted[k])];
      Column want(batch.column(size_t(c)).type());
      want.AppendSlice(batch.column(size_t(c)), size_t(e.first_row_index), size_t(e.num_rows));
      EXPECT_TRUE(span->pages[k]->Equals(want)) << "column " << c << " page " << wanted[k];
    }
  }
  EXPECT_EQ(instrumented->counters().read_requests.load(), 0u);
  Status bad = (*fresh)->LoadPages({{0, 1, {7, 7}}}, {});
  EXPECT_TRUE(bad.IsInvalidArgument()) << bad.ToString();
  EXPECT_NE(bad.message().find("t.parquet"), std::string::npos) << bad.ToString();
  EXPECT_TRUE((*fresh)->LoadPages({{0, 2, {64}}}, {}).IsInvalidArgument());
}

// The layout files' encodings: integers as DELTA_BINARY_PACKED, doubles as BYTE_STREAM_SPLIT,
// strings as DELTA_LENGTH_BYTE_ARRAY (dictionary chunks as before); values read back exactly, small-range integers
// take a fraction of their PLAIN size, and a sub-range of rows (Write(batch, offset, count))
// writes just those rows.
TEST(ParquetRoundTripTest, DeltaIntegersAndSplitFloatsAreUsedAndReadBack) {
  Schema schema({Field{"small", TypeId::kInt64, false}, Field{"ts", TypeId::kTimestamp, true},
                 Field{"d", TypeId::kDate, false}, Field{"x", TypeId::kDouble, false},
                 Field{"f", TypeId::kFloat, true}, Field{"s", TypeId::kString, false}});
  Batch batch(schema);
  Rng rng(5);
  for (int i = 0; i < 3000; ++i) {
    batch.mutable_column(0).Append<int64_t>(int64_t(rng.Uniform(1000)) - 500);
    if (i % 7 == 0) {
      batch.mutable_column(1).AppendNull();
    } else {
      batch.mutable_column(1).Append<int64_t>(1700000000000000 + int64_t(rng.Uniform(1u << 30)));
    }
    batch.mutable_column(2).Append<int32_t>(19000 + i);
    batch.mutable_column(3).Append<double>(500 + rng.Unit());
    if (i % 5 == 0) {
      batch.mutable_column(4).AppendNull();
    } else {
      batch.mutable_column(4).Append<float>(float(rng.Unit()));
    }
    ASSERT_TRUE(batch.mutable_column(5).AppendString("s" + std::to_string(i)).ok());
  }
  ASSERT_TRUE(batch.Seal().ok());
  auto write = [&](bool compact, size_t offset, size_t count) {
    WriteOptions o;
    o.page_rows = 64;
    o.codec = Codec::kUncompressed;
    o.dictionary = false;
    o.delta_integers = o.byte_stream_split_floats = o.delta_length_strings = compact;
    auto writer = ParquetWriter::Make(schema, o);
    EXPECT_TRUE(writer.ok());
    EXPECT_TRUE((*writer)->Write(batch, offset, count).ok());
    EXPECT_TRUE((*writer)->Write(batch, batch.num_rows(), 1).IsInvalidArgument());
    auto bytes = (*writer)->Finish();
    EXPECT_TRUE(bytes.ok());
    return *bytes;
  };
  const std::string plain = write(false, 0, batch.num_rows());
  const std::string compact = write(true, 0, batch.num_rows());
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  ASSERT_TRUE(store->Write("plain.parquet", plain).ok());
  ASSERT_TRUE(store->Write("compact.parquet", compact).ok());
  ASSERT_TRUE(store->Write("part.parquet", write(true, 1000, 700)).ok());
  auto reader = ParquetReader::Open(store.get(), "compact.parquet");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto rg = (*reader)->ReadRowGroup(0, {});
  ASSERT_TRUE(rg.ok()) << rg.status().ToString();
  EXPECT_TRUE(rg->Equals(batch));
  const auto& chunks = (*reader)->metadata().row_groups[0].columns;
  auto has = [&](size_t c, Encoding e) {
    const auto& enc = chunks[c].meta_data->encodings;
    return std::find(enc.begin(), enc.end(), e) != enc.end();
  };
  for (size_t c : {0, 1, 2}) EXPECT_TRUE(has(c, Encoding::kDeltaBinaryPacked)) << c;
  for (size_t c : {3, 4}) EXPECT_TRUE(has(c, Encoding::kByteStreamSplit)) << c;
  EXPECT_TRUE(has(5, Encoding::kDeltaLengthByteArray));
  EXPECT_FALSE(has(5, Encoding::kPlain));
  auto plain_reader = ParquetReader::Open(store.get(), "plain.parquet");
  ASSERT_TRUE(plain_reader.ok());
  const auto& plain_small = *(*plain_reader)->metadata().row_groups[0].columns[0].meta_data;
  // 11-bit deltas instead of 8-byte values (page headers and block headers come on top).
  EXPECT_LT(chunks[0].meta_data->total_compressed_size * 3, plain_small.total_compressed_size);
  auto part = ParquetReader::Open(store.get(), "part.parquet");
  ASSERT_TRUE(part.ok());
  auto part_rows = (*part)->ReadRowGroup(0, {});
  ASSERT_TRUE(part_rows.ok());
  EXPECT_TRUE(part_rows->Equals(batch.Slice(1000, 700)));
}

// fast_string_zstd: a chunk of random names (nothing to match) takes kZstdFastHuffman and
// comes out at most 1/16 larger than at level 1 (other bytes than without the option); a chunk
// of repetitive URLs keeps level 1 (the same bytes). Both read back exactly.
TEST(ParquetRoundTripTest, FastStringZstdOnlyWhereItCostsNoSize) {
  Schema schema({Field{"name", TypeId::kString, false}, Field{"url", TypeId::kString, true}});
  Batch batch(schema);
  Rng rng(9);
  for (int i = 0; i < 2000; ++i) {
    std::string name;
    for (uint64_t k = 6 + rng.Uniform(7); k > 0; --k) name.push_back(char('a' + rng.Uniform(26)));
    ASSERT_TRUE(batch.mutable_column(0).AppendString(name).ok());
    ASSERT_TRUE(
        batch.mutable_column(1).AppendString("https://example.com/items/" + std::to_string(rng.Uniform(1000000))).ok());
  }
  ASSERT_TRUE(batch.Seal().ok());
  auto store = std::shared_ptr<ObjectStore>(NewMemoryStore());
  auto chunk_sizes = [&](bool fast) {
    WriteOptions o;
    o.page_rows = 64;
    o.fast_string_zstd = fast;
    const std::string path = fast ? "fast.parquet" : "level.parquet";
    EXPECT_TRUE(WriteParquet(store.get(), path, batch, o).ok());
    auto reader = ParquetReader::Open(store.get(), path);
    EXPECT_TRUE(reader.ok());
    auto back = (*reader)->ReadAll();
    EXPECT_TRUE(back.ok() && back->Equals(batch)) << path;
    std::vector<int64_t> sizes;
    for (const ColumnChunk& c : (*reader)->metadata().row_groups[0].columns) {
      EXPECT_EQ(c.meta_data->codec, int32_t(Codec::kZstd));
      sizes.push_back(c.meta_data->total_compressed_size);
    }
    return sizes;
  };
  const std::vector<int64_t> level = chunk_sizes(false), fast = chunk_sizes(true);
  EXPECT_NE(fast[0], level[0]);
  EXPECT_LE(fast[0] * 16, level[0] * 17) << fast[0] << " vs " << level[0];
  EXPECT_EQ(fast[1], level[1]);
}

// Builds a one-column batch from values (std::nullopt = NULL).
Batch OneColumn(TypeId type, bool nullable, const std::vector<Value>& values) {
  Schema schema({Field{"c", type, nullable}});
  Batch b(schema);
  for (const Value& v : values) EXPECT_TRUE(b.mutable_column(0).AppendValue(v).ok());
  EXPECT_TRUE(b.Seal().ok());
  return b;
}

TEST(ParquetRoundTripTest, ExtremeValuesAndNullPatterns) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::pair<TypeId, std::vector<Value>>> cases = {
      {TypeId::kInt64, {Value::Int64(INT64_MIN), Value::Int64(INT64_MAX), Value::Int64(0), Value::Null(TypeId::kInt64)}},
      {TypeId::kInt32, {Value::Int32(INT32_MIN), Value::Int32(INT32_MAX), Value::Int32(-1)}},
      {TypeId::kDouble, {Value::Double(nan), Value::Double(-0.0), Value::Double(inf), Value::Double(-inf), Value::Double(0.0)}},
      {TypeId::kDouble, {Value::Double(nan), Value::Double(nan), Value::Null(TypeId::kDouble)}},
      {TypeId::kFloat, {Value::Float(-0.0f), Value::Float(0.0f)}},
      {TypeId::kString, {Value::String(""), Value::String("h\xc3\xa9llo"), Value::String(std::string("a\0b", 3)),
                         Value::String("\xff\xfe"), Value::String("zz")}},
      {TypeId::kString, {Value::Null(TypeId::kString), Value::Null(TypeId::kString)}},
      {TypeId::kBool, {Value::Bool(true), Value::Null(TypeId::kBool), Value::Bool(false)}},
      {TypeId::kDate, {Value::Date(INT32_MIN), Value::Date(INT32_MAX)}},
      {TypeId::kTimestamp, {Value::Timestamp(INT64_MIN), Value::Timestamp(-1), Value::Timestamp(INT64_MAX)}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    for (int page_rows : {1, 2, 100}) {
      for (bool compact : {false, true}) {  // PLAIN, or DELTA_BINARY_PACKED / BYTE_STREAM_SPLIT
        WriteOptions o;
        o.page_rows = size_t(page_rows);
        o.delta_integers = o.byte_stream_split_floats = compact;
        RoundTrip(OneColumn(cases[i].first, true, cases[i].second), o,
                  "case " + std::to_string(i) + (compact ? " delta/split" : ""));
      }
    }
  }
}

// A decimal value past its precision (a writer that does not check; here a column filled
// without AppendValue's check) is Corruption when read, in every page encoding, and its
// statistics are no bounds: every decimal in memory is within its precision.
TEST(ParquetRoundTripTest, DecimalsPastTheirPrecisionAreCorruption) {
  const TypeId d41 = DecimalType(4, 1);
  for (bool dictionary : {false, true}) {
    for (bool delta : {false, true}) {
      auto store = NewMemoryStore();
      Schema schema({Field{"amount", d41, true}});
      Batch b(schema);
      b.mutable_column(0).Append<int64_t>(9999);   // 999.9: the largest value
      b.mutable_column(0).Append<int64_t>(10000);  // 1000.0: one digit too many
      ASSERT_TRUE(b.Seal().ok());
      WriteOptions o;
      o.dictionary = dictionary;
      o.delta_integers = delta;
      ASSERT_TRUE(WriteParquet(store.get(), "d.parquet", b, o).ok());
      auto r = ParquetReader::Open(store.get(), "d.parquet");
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ((*r)->schema().field(0).type, d41);
      EXPECT_FALSE((*r)->column_statistics(0, 0).max.has_value());
      auto all = (*r)->ReadAll();
      ASSERT_FALSE(all.ok());
      EXPECT_TRUE(all.status().IsCorruption()) << all.status().ToString();
      EXPECT_NE(all.status().message().find("beyond the precision of decimal(4,1)"), std::string::npos) << all.status().ToString();
    }
  }
}

TEST(ParquetRoundTripTest, NaNNeverBecomesABoundAndZeroSignsFollowTheSpec) {
  auto store = NewMemoryStore();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Batch b = OneColumn(TypeId::kDouble, false, {Value::Double(nan), Value::Double(0.0), Value::Double(-0.0)});
  ASSERT_TRUE(WriteParquet(store.get(), "f.parquet", b).ok());
  auto r = ParquetReader::Open(store.get(), "f.parquet");
  ASSERT_TRUE(r.ok());
  const Statistics& s = *(*r)->metadata().row_groups[0].columns[0].meta_data->statistics;
  double mn, mx;
  std::memcpy(&mn, s.min_value->data(), 8);
  std::memcpy(&mx, s.max_value->data(), 8);
  EXPECT_TRUE(std::signbit(mn));
  EXPECT_FALSE(std::signbit(mx));
  EXPECT_EQ(s.nan_count, 1);

  // All values NaN: no bounds, and no ColumnIndex for the chunk.
  Batch all_nan = OneColumn(TypeId::kDouble, false, {Value::Double(nan), Value::Double(nan)});
  ASSERT_TRUE(WriteParquet(store.get(), "n.parquet", all_nan).ok());
  auto rn = ParquetReader::Open(store.get(), "n.parquet");
  ASSERT_TRUE(rn.ok());
  ColumnStatistics cs = (*rn)->column_statistics(0, 0);
  EXPECT_FALSE(cs.min.has_value());
  EXPECT_FALSE(cs.max.has_value());
  EXPECT_FALSE((*rn)->metadata().row_groups[0].columns[0].column_index_offset.has_value());
}

TEST(ParquetRoundTripTest, DictionaryUsedForRepetitiveStringsAndDroppedForUniqueInts) {
  Schema schema({Field{"s", TypeId::kString, true}, Field{"id", TypeId::kInt64, false}});
  Batch b(schema);
  for (int i = 0; i < 20000; ++i) {
    ASSERT_TRUE(b.mutable_column(0).AppendString(i % 7 == 0 ? "seven" : "other").ok());
    b.mutable_column(1).Append<int64_t>(int64_t(i) * 1000003);
  }
  ASSERT_TRUE(b.Seal().ok());
  auto store = NewMemoryStore();
  ASSERT_TRUE(WriteParquet(store.get(), "d.parquet", b).ok());
  auto r = ParquetReader::Open(store.get(), "d.parquet");
  ASSERT_TRUE(r.ok());
  const auto& cols = (*r)->metadata().row_groups[0].columns;
  EXPECT_TRUE(cols[0].meta_data->dictionary_page_offset.has_value());
  EXPECT_FALSE(cols[1].meta_data->dictionary_page_offset.has_value());
  auto all = (*r)->ReadAll();
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->Equals(b));
}

TEST(ParquetRoundTripTest, AllNullColumnGetsNoEmptyDictionary) {
  std::vector<Value> nulls(50, Value::Null(TypeId::kString));
  nulls.push_back(Value::String("late"));
  WriteOptions o;
  o.page_rows = 10;
  auto store = NewMemoryStore();
  ASSERT_TRUE(WriteParquet(store.get(), "n.parquet", OneColumn(TypeId::kString, true, std::vector<Value>(nulls.begin(), nulls.end() - 1)), o).ok());
  auto r = ParquetReader::Open(store.get(), "n.parquet");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE((*r)->metadata().row_groups[0].columns[0].meta_data->dictionary_page_offset.has_value());
  // NULL pages first, then a value: the later pages may still use a dictionary.
  RoundTrip(OneColumn(TypeId::kString, true, nulls), o, "nulls then a value");
}

TEST(ParquetRoundTripTest, KeyValueMetadataAndProjection) {
  Schema schema({Field{"a", TypeId::kInt32, false}, Field{"b", TypeId::kString, true}});
  Batch b = RandomBatch(schema, 100, 5);
  WriteOptions o;
  o.key_value_metadata = {{"k1", "v1"}, {"lakeindex.version", "1"}};
  auto store = NewMemoryStore();
  ASSERT_TRUE(WriteParquet(store.get(), "kv.parquet", b, o).ok());
  auto r = ParquetReader::Open(store.get(), "kv.parquet");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->key_value_metadata(), o.key_value_metadata);
  auto only_b = (*r)->ReadRowGroup(0, {1});
  ASSERT_TRUE(only_b.ok());
  ASSERT_EQ(only_b->num_columns(), 1u);
  EXPECT_EQ(only_b->schema().field(0).name, "b");
  EXPECT_TRUE(only_b->column(0).Equals(b.column(1)));
  EXPECT_TRUE((*r)->ReadRowGroup(0, {1, 1}).status().IsInvalidArgument());
  EXPECT_TRUE((*r)->ReadRowGroup(3, {}).status().IsInvalidArgument());
}

TEST(ParquetWriterTest, RejectsBadInput) {
  EXPECT_TRUE(ParquetWriter::Make(Schema()).status().IsInvalidArgument());
  EXPECT_TRUE(ParquetWriter::Make(Schema({Field{"a", TypeId::kInt32, true}, Field{"a", TypeId::kInt64, true}}))
                  .status().IsInvalidArgument());
  WriteOptions o;
  o.page_rows = 0;
  EXPECT_TRUE(ParquetWriter::Make(Schema({Field{"a", TypeId::kInt32, true}}), o).status().IsInvalidArgument());
  auto w = ParquetWriter::Make(Schema({Field{"a", TypeId::kInt32, false}}));
  ASSERT_TRUE(w.ok());
  Batch with_null = OneColumn(TypeId::kInt32, true, {Value::Null(TypeId::kInt32)});
  EXPECT_TRUE((*w)->Write(with_null).IsInvalidArgument());  // schema differs (nullable)
  Batch not_null_schema(Schema({Field{"a", TypeId::kInt32, false}}));
  not_null_schema.mutable_column(0).AppendNull();
  ASSERT_TRUE(not_null_schema.Seal().ok());
  EXPECT_TRUE((*w)->Write(not_null_schema).IsInvalidArgument());  // NULL in a NOT NULL column
}

TEST(ParquetWriterTest, EmptyFileHasSchemaAndNoRowGroups) {
  auto w = ParquetWriter::Make(Schema({Field{"a", TypeId::kString, true}}));
  ASSERT_TRUE(w.ok());
  auto bytes = (*w)->Finish();
  ASSERT_TRUE(bytes.ok());
  auto store = NewMemoryStore();
  ASSERT_TRUE(store->Write("e.parquet", *bytes).ok());
  auto r = ParquetReader::Open(store.get(), "e.parquet");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->num_row_groups(), 0);
  auto all = (*r)->ReadAll();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->num_rows(), 0u);
  EXPECT_EQ(all->schema(), (*r)->schema());
}

}  // namespace
}  // namespace lakeindex::parquet
