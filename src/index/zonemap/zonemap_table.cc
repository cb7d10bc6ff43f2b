#include "index/zonemap/zonemap_table.h"

#include "common/uuid.h"
#include "index/index_kind.h"

namespace lakeindex::index::zonemap {

Result<ZoneMapSegmentInfo> BuildTableZoneMap(const table::Table& table, const std::string& column,
                                             const std::vector<table::FragmentMeta>& fragments, uint32_t zone_rows,
                                             const BuildProgress& progress) {
  int field = table.schema().FindField(column);
  if (field < 0) return Status::InvalidArgument("zone map: no column '" + column + "' in the table");
  ZoneMapBuilder builder(table.schema().field(size_t(field)).type, zone_rows);
  bool opened = false;  // the fragment being read has had a chunk
  RETURN_IF_ERROR(ForEachColumnChunk(
      table, column, fragments,
      [&](const table::FragmentMeta& f, uint32_t, const Column& values) {
        opened = true;
        return builder.Add(f.id, values);
      },
      [&](const table::FragmentMeta& f) -> Status {
        // A fragment without rows is still covered (Add opens it even for an empty chunk).
        if (!opened) RETURN_IF_ERROR(builder.Add(f.id, Column(builder.type())));
        opened = false;
        return builder.EndFragment();
      },
      progress));
  return builder.Finish(table.store(), NewUuid());
}

}  // namespace lakeindex::index::zonemap
