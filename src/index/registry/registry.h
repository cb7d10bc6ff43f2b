// The index kinds this build knows, by name. A kind lives in its own folder src/index/<kind>/
// (implementing index/index_kind.h) and is listed once in registry.cc; everything above —
// index management, the planner, verify, the command line and Python — finds it here.
// Thread safety: the registry is immutable.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "index/index_kind.h"

namespace lakeindex::index {

// Every kind, in the order help texts list them.
const std::vector<const IndexKind*>& IndexKinds();
// The kind named `name`, or nullptr.
const IndexKind* FindIndexKind(std::string_view name);
// The kind named `name`; InvalidArgument About("kind") naming the kinds there are.
Result<const IndexKind*> IndexKindNamed(std::string_view name);
// "btree, zonemap or bitmap".
std::string IndexKindNames();

}  // namespace lakeindex::index
