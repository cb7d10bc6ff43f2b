#include "index/btree/btree_kind.h"

#include "index/btree/btree_builder.h"
#include "index/btree/btree_merge.h"
#include "index/btree/btree_reader.h"

namespace lakeindex::index::btree {
namespace {

class BTreeKind final : public IndexKind {
 public:
  std::string_view name() const override { return "btree"; }
  std::string_view summary() const override {
    return "exact: =, ranges, IN, IS NULL, LIKE 'prefix%', counts and ORDER BY ... LIMIT from the index";
  }
  bool exact() const override { return true; }
  bool counts() const override { return true; }
  bool ordered() const override { return true; }
  std::string_view unit() const override { return "leaf pages"; }

  Result<nlohmann::json> Params(const nlohmann::json& given, const Field&) const override {
    RETURN_IF_ERROR(OnlyParams(given, name(), {"page_rows"}));
    ASSIGN_OR_RETURN(uint64_t page_rows, WholeParam(given, "page_rows", kDefaultPageRows, 1, kMaxPageRows));
    return nlohmann::json{{"page_rows", page_rows}};
  }

  Result<std::string> Build(const SegmentBuild& build) const override {
    const table::Table& table = *build.table;
    const std::string& column = build.meta->column;
    BTreeBuildOptions options;
    options.page_rows = build.meta->params.value("page_rows", kDefaultPageRows);
    for (const table::FragmentMeta& f : build.fragments) options.expected_rows += f.rows;
    if (build.progress) {
      options.progress = [&build](uint64_t written) { build.progress("writing pages", written, build.rows); };
    }
    const int c = table.schema().FindField(column);
    if (c < 0) return Status::InvalidArgument("unknown column '" + column + "'").About("column");
    ASSIGN_OR_RETURN(auto builder, BTreeBuilder::Make(table.store(), table.schema().field(size_t(c)).type, options));
    std::vector<uint64_t> addresses;
    RETURN_IF_ERROR(ForEachColumnChunk(
        table, column, build.fragments,
        [&](const table::FragmentMeta& f, uint32_t offset, const Column& values) -> Status {
          addresses.resize(values.length());
          for (size_t r = 0; r < addresses.size(); ++r) addresses[r] = MakeRowAddress(f.id, offset + uint32_t(r));
          return builder->Add(values, addresses);
        },
        {}, build.progress));
    for (const MergedSegment& m : build.merged) {
      ASSIGN_OR_RETURN(auto old, BTreeSegment::Open(table.store(), m.meta.uuid));
      const bool whole = m.live.size() == m.meta.fragments.size();
      RETURN_IF_ERROR(AddSegmentTo(builder.get(), std::move(old), whole ? nullptr : &m.live));
    }
    ASSIGN_OR_RETURN(auto info, builder->Finish());
    return info.uuid;
  }

  Result<std::shared_ptr<const IndexSegment>> Open(ObjectStore* store, const std::string& uuid) const override {
    return OpenSegmentAs<BTreeSegment>(store, uuid);
  }
};

}  // namespace

const IndexKind& Kind() {
  static const BTreeKind kind;
  return kind;
}

}  // namespace lakeindex::index::btree
