// libFuzzer target: bytes as a deletion vector file (table/deletion_vector.h). Each input is
// decoded as it is, then with its trailing XXH64 recomputed so that mutations reach the roaring
// payload and the count / range checks. Whatever decodes must hold only offsets below
// fragment_rows, as many as its header says, and re-encode to a file that decodes to the same
// set. Seed corpus: files from EncodeDeletionVector (src/table/table_seed_corpus_test.cc).
#include <xxhash.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "table/deletion_vector.h"

namespace {

void Check(const uint8_t* data, size_t size) {
  using namespace lakeindex::table;
  auto dv = DecodeDeletionVector(data, size, "fuzz.bin");
  if (!dv.ok()) return;
  uint64_t n = 0;
  for (uint32_t offset : dv->deleted) {
    if (offset >= dv->fragment_rows) std::abort();
    ++n;
  }
  if (n != dv->deleted.cardinality()) std::abort();
  std::string again = EncodeDeletionVector(*dv);
  auto back = DecodeDeletionVector(reinterpret_cast<const uint8_t*>(again.data()), again.size(), "again");
  if (!back.ok() || !(back->deleted == dv->deleted) || back->fragment_id != dv->fragment_id ||
      back->fragment_rows != dv->fragment_rows) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Check(data, size);
  if (size < 8) return 0;
  std::string resealed(reinterpret_cast<const char*>(data), size);
  uint64_t h = XXH64(resealed.data(), size - 8, 0);
  std::memcpy(resealed.data() + size - 8, &h, 8);
  Check(reinterpret_cast<const uint8_t*>(resealed.data()), resealed.size());
  return 0;
}
