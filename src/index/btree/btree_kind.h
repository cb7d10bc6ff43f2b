// The btree index kind (index/index_kind.h): exact; =, ranges, IN, IS NULL and LIKE 'prefix%' on
// any column; counts from its page directory and reads rows in key order. Parameter: page_rows
// (rows per leaf page, default 4096). A build sorts the column (btree_builder.h); a rebuild
// streams the live rows of the old segments in, already sorted.
#pragma once

#include "index/index_kind.h"

namespace lakeindex::index::btree {

const IndexKind& Kind();

}  // namespace lakeindex::index::btree
