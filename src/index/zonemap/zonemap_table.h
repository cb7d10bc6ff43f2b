// Building a zone map segment for fragments of a table.
//
// Table::ReadFragment drops deleted rows, which would shift the offsets zones are addressed by,
// so the fragment's data file is read directly (index::ForEachColumnChunk): every row, deleted or
// not, one row group at a time (memory is one row group of one column).
// Thread safety: as Table's const methods (may run concurrently with readers).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "index/index_kind.h"
#include "index/zonemap/zonemap_builder.h"
#include "table/table.h"

namespace lakeindex::index::zonemap {

// Builds one segment over `fragments` (e.g. all fragments of the version, or only those no
// segment covers yet on append) for column `column`, writes it under a new uuid to the table's
// store and returns it. Nothing is committed: the caller records the segment in the manifest.
// InvalidArgument for an unknown column or bad zone_rows; Corruption naming the data file when
// it lacks the column, has another type, or its row count differs from the manifest's.
// `progress` (may be empty) hears "reading <column>" with the rows read so far.
Result<ZoneMapSegmentInfo> BuildTableZoneMap(const table::Table& table, const std::string& column,
                                             const std::vector<table::FragmentMeta>& fragments,
                                             uint32_t zone_rows = kDefaultZoneRows,
                                             const BuildProgress& progress = {});

}  // namespace lakeindex::index::zonemap
