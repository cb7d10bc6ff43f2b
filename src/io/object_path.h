// Internal helpers for object keys (the public check is ValidateObjectPath in object_store.h).
#pragma once

#include <string_view>

#include "lakeindex/status.h"

namespace lakeindex {

// Segments starting with this are reserved: the local store names its temporary files so, and
// List hides them. ValidateObjectPath refuses keys with such a segment on every store.
inline constexpr std::string_view kTempObjectPrefix = ".tmp-";

// Checks a List prefix: like ValidateObjectPath, except that it may be empty, may end in '/'
// and its last segment may be any partial name ("data/ab" lists "data/abc").
Status ValidateObjectPrefix(std::string_view prefix);

}  // namespace lakeindex
