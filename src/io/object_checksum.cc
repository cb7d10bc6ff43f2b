// ObjectChecksum: an object's XXH64, read in bounded pieces (verify reads every file whole).

#include <xxhash.h>

#include <memory>
#include <string>

#include "lakeindex/object_store.h"

namespace lakeindex {

Result<uint64_t> ObjectChecksum(ObjectStore* store, std::string_view path, uint64_t size) {
  constexpr uint64_t kPiece = uint64_t(8) << 20;
  std::unique_ptr<XXH64_state_t, XXH_errorcode (*)(XXH64_state_t*)> state(XXH64_createState(), XXH64_freeState);
  XXH64_reset(state.get(), 0);
  for (uint64_t at = 0; at < size; at += kPiece) {
    ASSIGN_OR_RETURN(std::string piece, store->ReadRange(path, at, std::min(kPiece, size - at)));
    XXH64_update(state.get(), piece.data(), piece.size());
  }
  return XXH64_digest(state.get());
}

}  // namespace lakeindex
