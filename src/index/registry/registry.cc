#include "index/registry/registry.h"

#include "index/bitmap/bitmap_kind.h"
#include "index/btree/btree_kind.h"
#include "index/zonemap/zonemap_kind.h"

namespace lakeindex::index {

const std::vector<const IndexKind*>& IndexKinds() {
  static const std::vector<const IndexKind*> kinds = {
      &btree::Kind(),
      &zonemap::Kind(),
      &bitmap::Kind(),
  };
  return kinds;
}

const IndexKind* FindIndexKind(std::string_view name) {
  for (const IndexKind* kind : IndexKinds()) {
    if (kind->name() == name) return kind;
  }
  return nullptr;
}

std::string IndexKindNames() {
  const auto& kinds = IndexKinds();
  std::string out;
  for (size_t i = 0; i < kinds.size(); ++i) {
    if (i > 0) out += i + 1 == kinds.size() ? " or " : ", ";
    out += kinds[i]->name();
  }
  return out;
}

Result<const IndexKind*> IndexKindNamed(std::string_view name) {
  const IndexKind* kind = FindIndexKind(name);
  if (kind == nullptr) {
    return Status::InvalidArgument("must be " + IndexKindNames() + ", not '" + std::string(name) + "'").About("kind");
  }
  return kind;
}

}  // namespace lakeindex::index
