// SegmentWriter: turns a stream of (key, row address) entries in (key, address) order into the
// two files of one segment (layout in btree_format.h): leaf pages of `page_rows` entries go to
// page_data (one row group each) as they fill; the directory is kept in memory and written as
// page_lookup by Finish(), after page_data, so a segment whose lookup exists is complete.
// page_data is streamed to the store (ObjectStore::OpenWriter) page by page, so the writer holds
// one leaf page plus the metadata (directory, Parquet footer), never the whole file; it is
// published at Finish, and a writer destroyed before Finish succeeds publishes nothing.
// Errors are sticky. Thread safety: none.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "index/btree/btree_format.h"
#include "index/btree/btree_sorter.h"
#include "lakeindex/object_store.h"
#include "lakeindex/row_set.h"

namespace lakeindex::parquet {
class ParquetWriter;
}

namespace lakeindex::index::btree {

class SegmentWriter {
 public:
  // REQUIRES: store outlives the writer; 1 <= page_rows <= kMaxPageRows (InvalidArgument from
  // Append/Finish otherwise).
  SegmentWriter(ObjectStore* store, std::string uuid, TypeId type, uint32_t page_rows);
  ~SegmentWriter();

  // REQUIRES: (key, address) not less than the previous entry (Internal otherwise).
  Status Append(std::string_view key, uint64_t address);
  // Appends every entry of `stream`.
  Status AppendAll(SortedStream* stream);
  // Writes page_data then page_lookup. `null_rows`: addresses whose value is NULL.
  Result<BTreeSegmentInfo> Finish(RowSet null_rows);

 private:
  Status FlushPage();

  ObjectStore* store_;
  std::string uuid_;
  TypeId type_;
  uint32_t page_rows_;
  Status status_;
  std::unique_ptr<ObjectWriter> data_sink_;  // declared first: data_writer_ points into it
  std::unique_ptr<parquet::ParquetWriter> data_writer_;
  PageDirectory dir_;
  Column page_values_;
  Column page_addresses_{TypeId::kInt64};
  std::string first_key_, last_key_;
  uint64_t last_address_ = 0;
  bool have_last_ = false;
};

}  // namespace lakeindex::index::btree
