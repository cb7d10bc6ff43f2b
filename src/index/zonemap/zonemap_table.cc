#include "index/zonemap/zonemap_table.h"

#include "common/uuid.h"
#include "format/parquet/reader.h"

namespace lakeindex::index::zonemap {

Status AddFragmentFromFile(const table::Table& table, const table::FragmentMeta& fragment, const std::string& column,
                           ZoneMapBuilder* builder) {
  ASSIGN_OR_RETURN(auto reader, table.OpenDataFile(fragment));
  int index = reader->schema().FindField(column);
  if (index < 0) return Status::Corruption(fragment.file + ": data file has no column '" + column + "'");
  TypeId type = reader->schema().field(size_t(index)).type;
  if (type != builder->type()) {
    return Status::Corruption(fragment.file + ": column '" + column + "' is " + TypeName(type) + ", the index is " +
                              TypeName(builder->type()));
  }
  if (uint64_t(reader->num_rows()) != fragment.rows) {
    return Status::Corruption(fragment.file + ": data file has " + std::to_string(reader->num_rows()) +
                              " rows, the manifest says " + std::to_string(fragment.rows) + " (fragment " +
                              std::to_string(fragment.id) + ")");
  }
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
    ASSIGN_OR_RETURN(Batch batch, reader->ReadRowGroup(rg, {index}));
    Status st = builder->Add(fragment.id, batch.column(0));
    if (!st.ok()) return st.WithContext(fragment.file + " column '" + column + "'");
  }
  // A fragment without rows is still covered (Add opens it even for an empty chunk).
  if (reader->num_row_groups() == 0) RETURN_IF_ERROR(builder->Add(fragment.id, Column(type)));
  return builder->EndFragment();
}

Result<ZoneMapSegmentInfo> BuildTableZoneMap(const table::Table& table, const std::string& column,
                                             const std::vector<table::FragmentMeta>& fragments, uint32_t zone_rows,
                                             const std::function<void(uint64_t rows)>& progress) {
  int field = table.schema().FindField(column);
  if (field < 0) return Status::InvalidArgument("zone map: no column '" + column + "' in the table");
  ZoneMapBuilder builder(table.schema().field(size_t(field)).type, zone_rows);
  uint64_t rows = 0;
  for (const table::FragmentMeta& fragment : fragments) {
    RETURN_IF_ERROR(AddFragmentFromFile(table, fragment, column, &builder));
    rows += fragment.rows;
    if (progress) progress(rows);
  }
  return builder.Finish(table.store(), NewUuid());
}

}  // namespace lakeindex::index::zonemap
