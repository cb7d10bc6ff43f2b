// Random identifiers for immutable files (data, deletion, index files): 32 lowercase hex digits
// from a per-process random generator seeded by the OS. Thread-safe.
#pragma once

#include <string>

namespace lakeindex {

std::string NewUuid();

}  // namespace lakeindex
