// libFuzzer target: arbitrary bytes as a Parquet file in a memory store; open it and read every
// row group, page index and page. Any outcome but a crash, hang or sanitizer report is fine.
// Seed corpus: files written by ParquetWriter (e.g. from parquet_reader tests) and
// apache/parquet-testing.
#include <cstddef>
#include <cstdint>
#include <string>

#include "format/parquet/reader.h"
#include "lakeindex/object_store.h"

namespace {
// Hostile footers can declare huge row counts whose pages are tiny RLE runs; decoding them is
// legal but would only measure the machine's memory, so the target skips such row groups.
constexpr int64_t kMaxRowsPerRowGroup = 1 << 20;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lakeindex;
  std::unique_ptr<ObjectStore> store = NewMemoryStore();
  if (!store->Write("f.parquet", std::string(reinterpret_cast<const char*>(data), size)).ok()) return 0;
  auto reader = parquet::ParquetReader::Open(store.get(), "f.parquet");
  if (!reader.ok()) return 0;
  const parquet::ParquetReader& r = **reader;
  for (int rg = 0; rg < r.num_row_groups(); ++rg) {
    if (r.row_group_num_rows(rg) > kMaxRowsPerRowGroup) continue;
    (void)r.ReadRowGroup(rg, {});
    for (int c = 0; c < int(r.schema().num_fields()); ++c) {
      (void)r.column_statistics(rg, c);
      auto index = r.ReadPageIndex(rg, c);
      if (!index.ok()) continue;
      for (size_t p = 0; p < index->pages.size() && p < 64; ++p) (void)r.ReadPage(rg, c, int(p));
    }
  }
  return 0;
}
