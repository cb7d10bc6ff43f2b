#include "table/data_tail.h"

#include <xxhash.h>

#include <functional>
#include <string>

namespace lakeindex::table {

namespace {

uint64_t Xxh64(std::string_view bytes) { return XXH64(bytes.data(), bytes.size(), 0); }

// A check of [begin, end) of `file` against `expected`, as OpenOptions hooks take it. It owns
// what it names: the reader keeps the ColumnIndexes' hook beyond the open.
std::function<Status(const uint8_t*, size_t)> Check(std::string file, const char* what, uint64_t begin, uint64_t end,
                                                    uint64_t expected) {
  return [file = std::move(file), what, begin, end, expected](const uint8_t* data, size_t size) {
    if (XXH64(data, size, 0) == expected) return Status::OK();
    return Status::Corruption(file + ": checksum mismatch in the " + what + " [" + std::to_string(begin) + ", " +
                              std::to_string(end) + ") (the manifest recorded it when the file was written)");
  };
}

}  // namespace

DataTail RecordDataTail(uint64_t file_size, std::string_view tail, const parquet::ParquetWriter::TailParts& parts) {
  DataTail t;
  t.offset = file_size - tail.size();
  t.xxh64 = Xxh64(tail);
  DataTail::Split split;
  const size_t ci = parts.column_indexes;
  split.oi_offset = t.offset + ci;
  split.ci_xxh64 = Xxh64(tail.substr(0, ci));
  split.oi_xxh64 = Xxh64(tail.substr(ci));
  if (parts.page_map_header > 0) {
    DataTail::Split::PageMap map;
    map.offset = split.oi_offset + parts.offset_indexes;
    map.header_offset = map.offset + parts.page_map_blocks;
    map.oi_xxh64 = Xxh64(tail.substr(ci, parts.offset_indexes));
    map.header_xxh64 = Xxh64(tail.substr(ci + parts.offset_indexes + parts.page_map_blocks));
    split.map = map;
  }
  t.split = split;
  return t;
}

parquet::OpenOptions DataFileOpenOptions(const FragmentMeta& fragment, bool page_map) {
  parquet::OpenOptions options;
  // Data files are read at random by index lookups: their decoded pages are worth keeping.
  options.cache_pages = true;
  if (!fragment.tail) return options;
  const DataTail& tail = *fragment.tail;
  options.file_size = fragment.file_size;
  options.tail_offset = tail.offset;
  if (!tail.split) {
    options.check_tail = Check(fragment.file, "page index / footer", tail.offset, fragment.file_size, tail.xxh64);
    return options;
  }
  options.offset_index_offset = tail.split->oi_offset;
  options.check_column_indexes = Check(fragment.file, "column index", tail.offset, tail.split->oi_offset,
                                       tail.split->ci_xxh64);
  if (const auto& map = tail.split->map; map && page_map) {
    options.page_map = parquet::OpenOptions::PageMapAt{map->offset, map->header_offset};
    options.check_tail = Check(fragment.file, "page map header / footer", map->header_offset, fragment.file_size,
                               map->header_xxh64);
    options.check_offset_indexes = Check(fragment.file, "offset index", tail.split->oi_offset, map->offset,
                                         map->oi_xxh64);
    return options;
  }
  options.check_tail = Check(fragment.file, "offset index / footer", tail.split->oi_offset, fragment.file_size,
                             tail.split->oi_xxh64);
  return options;
}

Status VerifyDataTail(ObjectStore* store, const FragmentMeta& fragment, const parquet::ParquetReader& reader) {
  if (!fragment.tail) return Status::OK();
  const DataTail& tail = *fragment.tail;
  ASSIGN_OR_RETURN(std::string bytes, store->ReadRange(fragment.file, tail.offset, fragment.file_size - tail.offset));
  if (bytes.size() != fragment.file_size - tail.offset) {
    return Status::Corruption(fragment.file + ": short read of the tail at offset " + std::to_string(tail.offset));
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  RETURN_IF_ERROR(Check(fragment.file, "page index / footer", tail.offset, fragment.file_size, tail.xxh64)(data, bytes.size()));
  if (tail.split) {
    const size_t ci_bytes = size_t(tail.split->oi_offset - tail.offset);  // < size: manifest.cc checks
    RETURN_IF_ERROR(Check(fragment.file, "column index", tail.offset, tail.split->oi_offset, tail.split->ci_xxh64)(data, ci_bytes));
    RETURN_IF_ERROR(Check(fragment.file, "offset index / footer", tail.split->oi_offset, fragment.file_size,
                          tail.split->oi_xxh64)(data + ci_bytes, bytes.size() - ci_bytes));
    if (const auto& map = tail.split->map) {  // offsets checked by manifest.cc: within the tail
      auto at = [&](uint64_t offset) { return data + (offset - tail.offset); };
      RETURN_IF_ERROR(Check(fragment.file, "offset index", tail.split->oi_offset, map->offset, map->oi_xxh64)(
          at(tail.split->oi_offset), size_t(map->offset - tail.split->oi_offset)));
      RETURN_IF_ERROR(Check(fragment.file, "page map header / footer", map->header_offset, fragment.file_size,
                            map->header_xxh64)(at(map->header_offset), size_t(fragment.file_size - map->header_offset)));
    }
  }
  for (int rg = 0; rg < reader.num_row_groups(); ++rg) {
    for (int c = 0; c < int(reader.schema().num_fields()); ++c) {
      RETURN_IF_ERROR(reader.SharedPageIndex(rg, c, /*statistics=*/true).status());
    }
  }
  if (tail.split && tail.split->map && !reader.has_page_map()) {  // opened without it (a remote store): its blocks still
    ASSIGN_OR_RETURN(auto mapped, parquet::ParquetReader::Open(store, fragment.file, DataFileOpenOptions(fragment)));
    return mapped->CheckPageMap();
  }
  return reader.CheckPageMap();
}

}  // namespace lakeindex::table
