// The bitmap index kind (index/index_kind.h): exact; one Roaring bitmap of rows per distinct value
// (bitmap_format.h), for columns of few distinct values. `=`, IN, ranges, LIKE 'prefix%' and
// IS NULL take the union of the values' bitmaps; counts add the bitmaps' cardinalities from the
// dictionary without reading them. Parameter: max_values (default 65536): a column with more
// distinct values is refused (a btree suits it). A rebuild takes the old segments' bitmaps,
// without the rows of fragments that are gone, and reads only the new fragments.
#pragma once

#include "index/index_kind.h"

namespace lakeindex::index::bitmap {

const IndexKind& Kind();

}  // namespace lakeindex::index::bitmap
