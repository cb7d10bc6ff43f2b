#include "index/zonemap/zonemap_builder.h"

#include <algorithm>

#include "format/parquet/writer.h"

namespace lakeindex::index::zonemap {

ZoneMapBuilder::ZoneMapBuilder(TypeId type, uint32_t zone_rows) : type_(type), zone_rows_(zone_rows) {
  if (zone_rows == 0 || zone_rows > kMaxZoneRows) {
    status_ = Status::InvalidArgument("zone map: zone_rows must be in [1, " + std::to_string(kMaxZoneRows) +
                                      "], got " + std::to_string(zone_rows));
  }
}

Status ZoneMapBuilder::Add(uint32_t fragment_id, const Column& chunk) {
  RETURN_IF_ERROR(status_);
  if (finished_) return status_ = Status::InvalidArgument("zone map: builder already finished");
  if (chunk.type() != type_) {
    return status_ = Status::InvalidArgument(std::string("zone map: fragment ") + std::to_string(fragment_id) +
                                             ": column of type " + TypeName(chunk.type()) + ", index of type " +
                                             TypeName(type_));
  }
  if (open_ && fragment_id != current_) RETURN_IF_ERROR(EndFragment());
  if (!open_) {
    if (!fragments_.insert(fragment_id).second) {
      return status_ = Status::InvalidArgument("zone map: fragment " + std::to_string(fragment_id) +
                                               " added twice");
    }
    open_ = true;
    current_ = fragment_id;
    fragment_rows_ = 0;
    pending_ = ColumnStats();
  }
  if (fragment_rows_ + chunk.length() > kMaxFragmentRows) {
    return status_ = Status::InvalidArgument("zone map: fragment " + std::to_string(fragment_id) + " has more than " +
                                             std::to_string(kMaxFragmentRows) + " rows");
  }
  size_t i = 0;
  while (i < chunk.length()) {
    size_t take = std::min<size_t>(zone_rows_ - pending_.row_count, chunk.length() - i);
    // A zone spanning two chunks merges the stats of both parts; Merge keeps NaN out of bounds.
    pending_.Merge(ComputeColumnStats(chunk, i, take));
    i += take;
    fragment_rows_ += take;
    if (pending_.row_count == zone_rows_) FlushZone();
  }
  return Status::OK();
}

void ZoneMapBuilder::FlushZone() {
  Zone z;
  z.fragment_id = current_;
  z.length = uint32_t(pending_.row_count);
  z.start = uint32_t(fragment_rows_ - pending_.row_count);
  z.null_count = pending_.null_count;
  z.nan_count = pending_.nan_count;
  z.min = pending_.min;
  z.max = pending_.max;
  zones_.push_back(std::move(z));
  rows_ += pending_.row_count;
  pending_ = ColumnStats();
}

Status ZoneMapBuilder::EndFragment() {
  RETURN_IF_ERROR(status_);
  if (!open_) return Status::OK();
  if (pending_.row_count > 0) FlushZone();
  open_ = false;
  return Status::OK();
}

Status ZoneMapBuilder::AddFragment(uint32_t fragment_id, const Column& values) {
  RETURN_IF_ERROR(Add(fragment_id, values));
  return EndFragment();
}

Result<ZoneMapContents> ZoneMapBuilder::FinishContents() {
  RETURN_IF_ERROR(EndFragment());
  if (finished_) return status_ = Status::InvalidArgument("zone map: builder already finished");
  finished_ = true;
  ZoneMapContents c;
  c.type = type_;
  c.zone_rows = zone_rows_;
  // Zones of one fragment are contiguous and in order, so a stable sort by fragment keeps them so.
  std::stable_sort(zones_.begin(), zones_.end(),
                   [](const Zone& a, const Zone& b) { return a.fragment_id < b.fragment_id; });
  c.zones = std::move(zones_);
  zones_.clear();
  return c;
}

Result<ZoneMapSegmentInfo> ZoneMapBuilder::Finish(ObjectStore* store, const std::string& uuid) {
  if (uuid.empty() || uuid.find('/') != std::string::npos) {
    return status_ = Status::InvalidArgument("zone map: bad segment uuid '" + uuid + "'");
  }
  ASSIGN_OR_RETURN(ZoneMapContents contents, FinishContents());
  ZoneMapSegmentInfo info;
  info.uuid = uuid;
  info.path = ZoneMapPath(uuid);
  info.type = type_;
  info.zone_rows = zone_rows_;
  info.zones = contents.zones.size();
  info.rows = rows_;
  info.fragments.assign(fragments_.begin(), fragments_.end());

  ASSIGN_OR_RETURN(Batch batch, EncodeZones(contents));
  parquet::WriteOptions options;
  options.key_value_metadata = ZoneMapMetadata(contents);
  options.dictionary = false;  // bounds are mostly distinct; counts compress well under zstd
  ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Make(batch.schema(), options));
  RETURN_IF_ERROR(writer->Write(batch));
  ASSIGN_OR_RETURN(std::string bytes, writer->Finish());
  info.file_size = bytes.size();
  Status st = store->Write(info.path, bytes);
  if (!st.ok()) return status_ = st.WithContext("zone map " + info.path);
  return info;
}

}  // namespace lakeindex::index::zonemap
