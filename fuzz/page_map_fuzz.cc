// libFuzzer target: arbitrary bytes as the page map (format/parquet/page_map.h) of a fixed,
// valid table-like file (3 row groups of 50-row pages, an OPTIONAL string column with a
// dictionary): the bytes replace the file's map region (its blocks, then its header), the file
// is opened with the map as a table opens it, and every page of every chunk is located and read
// through it, then the map is checked against the OffsetIndexes. Any outcome but a crash, hang or
// sanitizer report is fine. The header is taken to be as long as the real one (the input's last
// bytes), the blocks the rest.
// Seed corpus: the real map region (written with LAKEINDEX_PAGE_MAP_SEED=<path> set: the
// target then writes it there on its first call).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "lakeindex/object_store.h"

namespace {

using namespace lakeindex;

struct Base {
  std::string file;
  uint64_t tail_offset = 0, oi_offset = 0, blocks = 0, header = 0, footer = 0;
};

const Base& TheFile() {
  static const Base* base = [] {
    auto* b = new Base();
    Schema schema = *Schema::Parse("id:int64,name:string,x:double");
    std::vector<Column> columns = {Column(TypeId::kInt64), Column(TypeId::kString), Column(TypeId::kDouble)};
    for (int64_t i = 0; i < 600; ++i) {
      columns[0].Append<int64_t>(i * 7919 % 1000);
      if (i % 9 == 0) columns[1].AppendNull();
      else if (!columns[1].AppendString("k" + std::to_string(i % 13)).ok()) std::abort();
      columns[2].Append<double>(double(i) / 3);
    }
    Batch batch(schema, std::move(columns), 600);
    parquet::WriteOptions options;
    options.page_rows = 50;
    options.row_group_rows = 200;
    options.page_map = true;
    std::unique_ptr<ObjectStore> store = NewMemoryStore();
    auto sink = store->OpenWriter("f.parquet");
    auto writer = parquet::ParquetWriter::Make(schema, options, sink->get());
    if (!writer.ok() || !(*writer)->Write(batch).ok()) std::abort();
    const uint64_t size = *(*writer)->FinishToSink();
    if (!(*sink)->Close().ok()) std::abort();
    const auto& parts = (*writer)->tail_parts();
    b->file = *store->Read("f.parquet");
    b->tail_offset = size - (*writer)->tail().size();
    b->oi_offset = b->tail_offset + parts.column_indexes;
    b->blocks = b->oi_offset + parts.offset_indexes;
    b->header = b->blocks + parts.page_map_blocks;
    b->footer = b->header + parts.page_map_header;
    if (const char* seed = std::getenv("LAKEINDEX_PAGE_MAP_SEED")) {
      if (FILE* f = std::fopen(seed, "wb")) {
        std::fwrite(b->file.data() + b->blocks, 1, size_t(b->footer - b->blocks), f);
        std::fclose(f);
      }
    }
    return b;
  }();
  return *base;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Base& base = TheFile();
  const uint64_t header_len = base.footer - base.header;
  std::string file = base.file.substr(0, size_t(base.blocks));
  file.append(reinterpret_cast<const char*>(data), size);
  file.append(base.file, size_t(base.footer), std::string::npos);
  std::unique_ptr<ObjectStore> store = NewMemoryStore();
  if (!store->Write("f.parquet", file).ok()) return 0;
  parquet::OpenOptions options;
  options.tail_offset = base.tail_offset;
  options.offset_index_offset = base.oi_offset;
  const uint64_t blocks_len = size >= header_len ? size - header_len : 0;
  options.page_map = parquet::OpenOptions::PageMapAt{base.blocks, base.blocks + blocks_len};
  options.file_size = file.size();
  options.cache_pages = true;
  auto reader = parquet::ParquetReader::Open(store.get(), "f.parquet", options);
  if (!reader.ok()) return 0;
  const parquet::ParquetReader& r = **reader;
  for (int rg = 0; rg < r.num_row_groups(); ++rg) {
    for (int c = 0; c < int(r.schema().num_fields()); ++c) {
      auto chunk = r.SharedChunk(rg, c);
      if (!chunk.ok()) continue;
      std::vector<int> pages((*chunk)->locations->pages.size());
      for (size_t p = 0; p < pages.size(); ++p) pages[p] = int(p);
      if (!r.LocatePages(**chunk, rg, c, pages).ok()) continue;
      (void)r.ReadPagesShared(*chunk, rg, c, pages, ObjectStore::ReadHint{});
    }
  }
  (void)r.CheckPageMap();
  return 0;
}
