// libFuzzer target: arbitrary bytes as a Parquet file in a memory store; open it and read every
// row group, page index and page. Any outcome but a crash, hang or sanitizer report is fine.
// The file is also opened the way tables open their data files (OpenOptions::tail_offset from
// parquet::TailOffset, page index served from the tail): that must succeed exactly when the plain
// open does and give the same page indexes. It is opened a third way when it has OffsetIndexes:
// with OpenOptions::offset_index_offset at the first of them (ColumnIndexes read on first need),
// which may refuse a file whose page index is laid out otherwise, and must otherwise give the
// same page indexes too.
// Seed corpus: files written by ParquetWriter (e.g. from parquet_reader tests) and
// apache/parquet-testing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
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
  auto tail = parquet::TailOffset(data, size, "f.parquet");
  std::unique_ptr<parquet::ParquetReader> tail_reader;
  if (tail.ok()) {
    parquet::OpenOptions options;
    options.tail_offset = *tail;
    options.file_size = size;
    auto opened = parquet::ParquetReader::Open(store.get(), "f.parquet", options);
    if (opened.ok() != reader.ok()) std::abort();
    if (opened.ok()) tail_reader = std::move(*opened);
  }
  if (!reader.ok()) return 0;
  const parquet::ParquetReader& r = **reader;
  std::unique_ptr<parquet::ParquetReader> split_reader;
  if (tail.ok()) {
    std::optional<int64_t> first_oi;
    for (const parquet::RowGroup& g : r.metadata().row_groups) {
      for (const parquet::ColumnChunk& cc : g.columns) {
        if (cc.offset_index_offset && (!first_oi || *cc.offset_index_offset < *first_oi)) first_oi = *cc.offset_index_offset;
      }
    }
    if (first_oi && *first_oi >= 0) {
      parquet::OpenOptions options;
      options.tail_offset = *tail;
      options.offset_index_offset = uint64_t(*first_oi);
      auto opened = parquet::ParquetReader::Open(store.get(), "f.parquet", options);
      if (opened.ok()) split_reader = std::move(*opened);
    }
  }
  for (int rg = 0; rg < r.num_row_groups(); ++rg) {
    if (r.row_group_num_rows(rg) > kMaxRowsPerRowGroup) continue;
    (void)r.ReadRowGroup(rg, {});
    for (int c = 0; c < int(r.schema().num_fields()); ++c) {
      (void)r.column_statistics(rg, c);
      auto index = r.ReadPageIndex(rg, c);
      for (const parquet::ParquetReader* other : {tail_reader.get(), split_reader.get()}) {
        if (other == nullptr) continue;
        auto same = other->ReadPageIndex(rg, c);
        if (same.ok() != index.ok()) std::abort();
        if (same.ok() && (same->pages.size() != index->pages.size() || same->has_statistics != index->has_statistics)) {
          std::abort();
        }
        for (size_t p = 0; same.ok() && p < same->pages.size(); ++p) {
          if (same->pages[p].offset != index->pages[p].offset || same->pages[p].num_rows != index->pages[p].num_rows) {
            std::abort();
          }
        }
      }
      if (!index.ok()) continue;
      for (size_t p = 0; p < index->pages.size() && p < 64; ++p) (void)r.ReadPage(rg, c, int(p));
    }
  }
  return 0;
}
