#include "index/zonemap/zonemap_kind.h"

#include "index/zonemap/zonemap_reader.h"
#include "index/zonemap/zonemap_table.h"

namespace lakeindex::index::zonemap {
namespace {

class ZoneMapKind final : public IndexKind {
 public:
  std::string_view name() const override { return "zonemap"; }
  std::string_view summary() const override {
    return "pruning: skips the zones whose min/max cannot match; small, for columns that are clustered";
  }
  bool exact() const override { return false; }
  std::string_view unit() const override { return "zones"; }

  Result<nlohmann::json> Params(const nlohmann::json& given, const Field&) const override {
    RETURN_IF_ERROR(OnlyParams(given, name(), {"zone_rows"}));
    ASSIGN_OR_RETURN(uint64_t zone_rows, WholeParam(given, "zone_rows", kDefaultZoneRows, 1, 1u << 30));
    return nlohmann::json{{"zone_rows", zone_rows}};
  }

  Result<std::string> Build(const SegmentBuild& build) const override {
    ASSIGN_OR_RETURN(auto info, BuildTableZoneMap(*build.table, build.meta->column, build.AllFragments(),
                                                  build.meta->params.value("zone_rows", kDefaultZoneRows), build.progress));
    return info.uuid;
  }

  Result<std::shared_ptr<const IndexSegment>> Open(ObjectStore* store, const std::string& uuid) const override {
    return OpenSegmentAs<ZoneMapSegment>(store, uuid);
  }
};

}  // namespace

const IndexKind& Kind() {
  static const ZoneMapKind kind;
  return kind;
}

}  // namespace lakeindex::index::zonemap
