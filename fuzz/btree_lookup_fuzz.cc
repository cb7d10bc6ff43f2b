// Feeds bytes to the BTree page_lookup parser (index/btree/btree_format.h). Whatever it accepts
// must satisfy the directory invariants and serialize back to a file that parses again.
#include <cstdint>
#include <cstdlib>

#include "index/btree/btree_format.h"

using namespace lakeindex::index::btree;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto dir = ParseLookup(data, size, "fuzz/page_lookup.parquet");
  if (!dir.ok()) return 0;
  uint64_t rows = 0;
  for (size_t i = 0; i < dir->num_pages(); ++i) {
    if (dir->mins[i] > dir->maxs[i] || (i > 0 && dir->maxs[i - 1] > dir->mins[i])) std::abort();
    rows += dir->rows[i];
  }
  if (rows != dir->num_rows) std::abort();
  const uint64_t checksum = dir->checksum;
  auto again = SerializeLookup(&*dir);
  if (!again.ok() || dir->checksum != checksum) std::abort();
  auto back = ParseLookup(reinterpret_cast<const uint8_t*>(again->data()), again->size(), "again");
  if (!back.ok() || back->checksum != checksum) std::abort();
  return 0;
}
