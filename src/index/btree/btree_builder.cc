#include "index/btree/btree_builder.h"

#include "common/uuid.h"
#include "index/btree/btree_segment_writer.h"

namespace lakeindex::index::btree {

BTreeBuilder::BTreeBuilder(ObjectStore* store, TypeId type, BTreeBuildOptions options)
    : store_(store),
      type_(type),
      options_(std::move(options)),
      sorter_(KeyWidth(type), options_.memory_budget_bytes / 2, options_.spill_dir, options_.expected_rows) {}

Result<std::unique_ptr<BTreeBuilder>> BTreeBuilder::Make(ObjectStore* store, TypeId type, BTreeBuildOptions options) {
  if (store == nullptr) return Status::InvalidArgument("btree builder: no store");
  if (options.page_rows == 0 || options.page_rows > kMaxPageRows) {
    return Status::InvalidArgument("btree builder: page_rows must be in [1, " + std::to_string(kMaxPageRows) +
                                   "], got " + std::to_string(options.page_rows));
  }
  if (options.uuid.empty()) options.uuid = NewUuid();
  RETURN_IF_ERROR(ValidateObjectPath(SegmentLookupPath(options.uuid)));
  return std::unique_ptr<BTreeBuilder>(new BTreeBuilder(store, type, std::move(options)));
}

Status BTreeBuilder::Add(const Column& values, const std::vector<uint64_t>& row_addresses) {
  return Add(values, row_addresses.data(), row_addresses.size());
}

Status BTreeBuilder::Add(const Column& values, const uint64_t* row_addresses, size_t count) {
  RETURN_IF_ERROR(status_);
  if (values.type() != type_) {
    return Status::InvalidArgument(std::string("btree builder: column of type ") + TypeName(values.type()) +
                                   " for an index of type " + TypeName(type_));
  }
  if (values.length() != count) {
    return Status::InvalidArgument("btree builder: " + std::to_string(values.length()) + " values but " +
                                   std::to_string(count) + " row addresses");
  }
  Status st;
  if (IsDecimal(type_)) return AddFixedKeys<int64_t>(values, row_addresses, [](int64_t x) { return IntKey(x); });
  switch (type_) {
    case TypeId::kBool: st = AddFixedKeys<uint8_t>(values, row_addresses, [](uint8_t x) { return IntKey(x != 0); }); break;
    case TypeId::kInt32:
    case TypeId::kDate: st = AddFixedKeys<int32_t>(values, row_addresses, [](int32_t x) { return IntKey(x); }); break;
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs: st = AddFixedKeys<int64_t>(values, row_addresses, [](int64_t x) { return IntKey(x); }); break;
    case TypeId::kFloat: st = AddFixedKeys<float>(values, row_addresses, [](float x) { return DoubleKey(x); }); break;
    case TypeId::kDouble: st = AddFixedKeys<double>(values, row_addresses, [](double x) { return DoubleKey(x); }); break;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid:
      for (size_t i = 0; i < count && st.ok(); ++i) {
        if (values.IsNull(i)) {
          nulls_.Add(row_addresses[i]);
        } else {
          st = sorter_.Add(values.GetString(i), row_addresses[i]);
        }
      }
      break;
  }
  if (!st.ok()) status_ = st;
  return st;
}

template <typename T, typename ToKey>
Status BTreeBuilder::AddFixedKeys(const Column& values, const uint64_t* row_addresses, ToKey to_key) {
  const T* data = values.data<T>();
  const size_t n = values.length();
  if (!values.has_validity()) {
    for (size_t i = 0; i < n; ++i) RETURN_IF_ERROR(sorter_.AddFixed(to_key(data[i]), row_addresses[i]));
    return Status::OK();
  }
  for (size_t i = 0; i < n; ++i) {
    if (values.IsNull(i)) {
      nulls_.Add(row_addresses[i]);
    } else {
      RETURN_IF_ERROR(sorter_.AddFixed(to_key(data[i]), row_addresses[i]));
    }
  }
  return Status::OK();
}

Status BTreeBuilder::AddKey(std::string_view key, uint64_t address) {
  RETURN_IF_ERROR(status_);
  if (KeyWidth(type_) != 0 && key.size() != KeyWidth(type_)) {
    return Status::InvalidArgument("btree builder: key of " + std::to_string(key.size()) + " bytes");
  }
  Status st = sorter_.Add(key, address);
  if (!st.ok()) status_ = st;
  return st;
}

Status BTreeBuilder::AddNull(uint64_t address) {
  RETURN_IF_ERROR(status_);
  nulls_.Add(address);
  return Status::OK();
}

void BTreeBuilder::AddNulls(const RowSet& addresses) { nulls_ |= addresses; }

void BTreeBuilder::AddSortedSource(std::unique_ptr<SortedStream> source) { sorter_.AddSortedSource(std::move(source)); }

Result<BTreeSegmentInfo> BTreeBuilder::Finish() {
  RETURN_IF_ERROR(status_);
  if (finished_) return Status::Internal("btree builder: Finish called twice");
  finished_ = true;
  SegmentWriter writer(store_, options_.uuid, type_, options_.page_rows);
  auto stream = sorter_.Finish();
  if (!stream.ok()) return status_ = stream.status();
  // Entries counted on their way to the pages, for options_.progress.
  class Counted : public SortedStream {
   public:
    Counted(SortedStream* in, const std::function<void(uint64_t)>& progress) : in_(in), progress_(progress) {}
    Result<bool> Next(SortedEntry* out) override {
      ASSIGN_OR_RETURN(bool more, in_->Next(out));
      if (more && ++n_ % (uint64_t(1) << 16) == 0) progress_(n_);
      if (!more) progress_(n_);
      return more;
    }

   private:
    SortedStream* in_;
    const std::function<void(uint64_t)>& progress_;
    uint64_t n_ = 0;
  };
  Counted counted(stream->get(), options_.progress);
  Status st = writer.AppendAll(options_.progress ? static_cast<SortedStream*>(&counted) : stream->get());
  stream->reset();
  sorter_.RemoveRunFiles();
  if (!st.ok()) return status_ = st;
  auto info = writer.Finish(std::move(nulls_));
  if (!info.ok()) status_ = info.status();
  return info;
}

}  // namespace lakeindex::index::btree
