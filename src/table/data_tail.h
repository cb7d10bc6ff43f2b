// The metadata tail of a table's data file (manifest.h, DataTail): recorded when the file is
// written, checked whenever any of it is read.
//
// A data file is opened by reading its page map's header and its footer only (its OffsetIndexes
// and footer when it has no page map); a lookup reads the page map's blocks it needs; its
// ColumnIndexes (page statistics) are read, with one request, the first time page pruning asks
// for them (ParquetReader::SharedPageIndex with statistics), and its OffsetIndexes the first time
// something needs every page of a chunk: an exact index take reads neither. Each
// part read is checked against its own checksum before a byte of it is parsed, so a damaged
// ColumnIndex is found when it is read (and by verify), and never read unchecked.
// Thread safety: functions of values.
#pragma once

#include <cstdint>
#include <string_view>

#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "lakeindex/object_store.h"
#include "lakeindex/status.h"
#include "table/manifest.h"

namespace lakeindex::table {

// The tail a writer has just written, as the manifest records it: `tail` is
// ParquetWriter::tail(), `parts` its tail_parts(), `file_size` the size of the whole file.
DataTail RecordDataTail(uint64_t file_size, std::string_view tail, const parquet::ParquetWriter::TailParts& parts);

// How a fragment's data file is opened: its size, and the tail's parts with their checks (each
// a Corruption naming the file and the byte range). A fragment recorded without a split reads
// and checks its whole tail at open, as before the split; one without a tail opens plainly.
// With `page_map` false a file with a page map opens as one without (its OffsetIndexes and footer
// at open): a remote store's tables do, because there the map's header and then its blocks would
// cost a lookup one more round trip (tens of milliseconds on S3) to save ~100 KB of one request.
parquet::OpenOptions DataFileOpenOptions(const FragmentMeta& fragment, bool page_map = true);

// For verify: reads the fragment's whole tail and compares it with every checksum the manifest
// records for it, then has `reader` (opened with DataFileOpenOptions) parse every chunk's page
// index with its statistics and check every block of its page map against it. OK when the
// fragment records no tail.
Status VerifyDataTail(ObjectStore* store, const FragmentMeta& fragment, const parquet::ParquetReader& reader);

}  // namespace lakeindex::table
