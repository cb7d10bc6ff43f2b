// The zonemap index kind (index/index_kind.h): pruning (AtMost) — the min, max, NULL and NaN
// counts of every `zone_rows` rows (default 8192), so a query reads only the zones that may
// match; any column. A rebuild reads the live fragments' data again (zone maps are cheap).
#pragma once

#include "index/index_kind.h"

namespace lakeindex::index::zonemap {

const IndexKind& Kind();

}  // namespace lakeindex::index::zonemap
