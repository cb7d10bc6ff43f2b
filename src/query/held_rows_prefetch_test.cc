// PrefetchHeldRows: a hint only — it reads nothing from the store, decodes and caches nothing, and
// the rows gathered after it are the rows of the file, whether their pages were held, not held,
// or the rows spread over several pages.
#include "query/held_rows_prefetch.h"

#include <gtest/gtest.h>

#include "common/lru_cache.h"
#include "format/parquet/writer.h"
#include "lakeindex/object_store.h"
#include "util/test_util.h"

namespace lakeindex::query {
namespace {

constexpr size_t kPageRows = 256;
constexpr size_t kRows = 4 * kPageRows + 10;

TEST(HeldRowsPrefetch, ReadsNothingDecodesNothingAndChangesNoRow) {
  const Schema schema({Field{"id", TypeId::kInt64, false}, Field{"name", TypeId::kString, true},
                       Field{"x", TypeId::kDouble, true}});
  const Batch batch = lakeindex::testing::RandomBatch(schema, kRows, 29, 0.2);
  parquet::WriteOptions o;
  o.page_rows = kPageRows;
  auto w = parquet::ParquetWriter::Make(schema, o);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Write(batch).ok());
  auto bytes = (*w)->Finish();
  ASSERT_TRUE(bytes.ok());
  auto store = std::make_shared<InstrumentedStore>(std::shared_ptr<ObjectStore>(NewMemoryStore()));
  ASSERT_TRUE(store->Write("f.parquet", *bytes).ok());
  LruCache cache(size_t(64) << 20);
  parquet::OpenOptions options;
  options.cache = &cache;
  options.cache_pages = true;
  auto reader = parquet::ParquetReader::Open(store.get(), "f.parquet", options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const std::vector<int> columns = {0, 1, 2};
  // Pages 0 and 2 held (a gather of one row each), pages 1 and 3 not.
  for (int c : columns) {
    Column scratch(schema.field(size_t(c)).type);
    GatherCounters g;
    ASSERT_TRUE(GatherRows(**reader, 0, c, {{3, 4}, {2 * kPageRows + 1, 2 * kPageRows + 2}}, &scratch, &g).ok());
  }
  const std::vector<Ranges> cases = {
      {{5, 6}},                                                       // one row of a held page
      {{kPageRows + 7, kPageRows + 8}},                               // of a page not held
      {{kPageRows - 2, kPageRows + 2}},                               // across a held and a missing page
      {{0, 1}, {2 * kPageRows + 9, 2 * kPageRows + 10}, {kRows - 1, kRows}},  // three pages, the last row
      {{0, kPrefetchHeldRowsMax + 1}},                                // above the limit: nothing done
  };
  for (const Ranges& ranges : cases) {
    const uint64_t read_before = store->counters().bytes_read.load();
    const size_t cached_before = cache.size_bytes(), entries_before = cache.num_entries();
    PrefetchHeldRows(**reader, 0, columns, ranges);
    EXPECT_EQ(store->counters().bytes_read.load(), read_before);
    EXPECT_EQ(cache.size_bytes(), cached_before);
    EXPECT_EQ(cache.num_entries(), entries_before);
    for (int c : columns) {
      Column got(schema.field(size_t(c)).type), want(schema.field(size_t(c)).type);
      GatherCounters g;
      ASSERT_TRUE(GatherRows(**reader, 0, c, ranges, &got, &g).ok());
      for (const auto& [b, e] : ranges) want.AppendSlice(batch.column(size_t(c)), size_t(b), size_t(e - b));
      ASSERT_EQ(got.length(), want.length());
      for (size_t i = 0; i < got.length(); ++i) {
        EXPECT_EQ(got.GetValue(i).ToString(), want.GetValue(i).ToString()) << "column " << c << " row " << i;
      }
    }
  }
}

}  // namespace
}  // namespace lakeindex::query
