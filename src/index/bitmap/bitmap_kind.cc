#include "index/bitmap/bitmap_kind.h"

#include <map>
#include <unordered_map>

#include <xxhash.h>

#include "common/uuid.h"
#include "index/bitmap/bitmap_segment.h"
#include "index/index_key.h"

namespace lakeindex::index::bitmap {
namespace {

// The rows of each distinct value, gathered from column chunks and old segments.
class BitmapBuilder {
 public:
  BitmapBuilder(TypeId type, uint64_t max_values, std::string column)
      : type_(type), max_values_(max_values), column_(std::move(column)) {}

  Status AddChunk(uint32_t fragment, uint32_t offset, const Column& values) {
    std::string key;
    // Addresses gathered per value for this chunk, added to the bitmaps in bulk.
    std::unordered_map<RowSet*, std::vector<uint64_t>> chunk;
    for (size_t r = 0; r < values.length(); ++r) {
      const uint64_t address = MakeRowAddress(fragment, offset + uint32_t(r));
      RowSet* rows = &nulls_;
      if (values.IsValid(r)) {
        key.clear();
        AppendKey(values, r, &key);
        ASSIGN_OR_RETURN(rows, RowsOf(key));
      }
      chunk[rows].push_back(address);
    }
    for (auto& [rows, addresses] : chunk) rows->mutable_bitmap().addMany(addresses.size(), addresses.data());
    return Status::OK();
  }

  // The rows of `old` whose fragments are in `live`.
  Status AddSegment(const BitmapSegment& old, const RowSet& live) {
    const Dictionary& d = old.dictionary();
    if (d.type != type_) {
      return Status::Corruption(old.path() + ": indexes " + TypeName(d.type) + ", the column is " + TypeName(type_));
    }
    ASSIGN_OR_RETURN(auto bitmaps, old.AllBitmaps());
    for (size_t i = 0; i < bitmaps.size(); ++i) {
      RowSet kept = *bitmaps[i] & live;
      if (kept.IsEmpty()) continue;
      RowSet* rows = &nulls_;
      if (i < d.keys.size()) {
        ASSIGN_OR_RETURN(rows, RowsOf(d.keys[i]));
      }
      *rows |= kept;
    }
    return Status::OK();
  }

  Result<std::string> Finish(ObjectStore* store) {
    Dictionary d;
    d.type = type_;
    std::string file;
    auto put = [&](const RowSet& rows) {
      BitmapRef ref;
      ref.offset = file.size();
      std::string bytes = rows.Serialize();
      ref.size = uint32_t(bytes.size());
      ref.cardinality = rows.Cardinality();
      ref.xxh64 = XXH64(bytes.data(), bytes.size(), 0);
      d.rows += ref.cardinality;
      file += bytes;
      return ref;
    };
    for (auto& [key, rows] : values_) {
      d.keys.push_back(key);
      d.bitmaps.push_back(put(rows));
    }
    d.nulls = put(nulls_);
    Footer footer;
    footer.dictionary_offset = file.size();
    const std::string dictionary = EncodeDictionary(d);
    footer.dictionary_size = uint32_t(dictionary.size());
    footer.dictionary_xxh64 = XXH64(dictionary.data(), dictionary.size(), 0);
    file += dictionary;
    file += EncodeFooter(footer);
    const std::string uuid = NewUuid();
    RETURN_IF_ERROR(store->Write(BitmapPath(uuid), file));
    return uuid;
  }

 private:
  // The rows of the value whose key is `key`, a new value's while there are at most max_values.
  Result<RowSet*> RowsOf(const std::string& key) {
    auto it = values_.find(key);
    if (it == values_.end()) {
      if (values_.size() >= max_values_) return TooMany();
      it = values_.emplace(key, RowSet()).first;
    }
    return &it->second;
  }

  Status TooMany() const {
    return Status::InvalidArgument("'" + column_ + "' has more than " + std::to_string(max_values_) +
                                   " distinct values: a bitmap index is for columns of few (a btree suits this one, "
                                   "or raise max_values)")
        .About("column");
  }

  TypeId type_;
  uint64_t max_values_;
  std::string column_;
  std::map<std::string, RowSet> values_;  // key order
  RowSet nulls_;
};

class BitmapKind final : public IndexKind {
 public:
  std::string_view name() const override { return "bitmap"; }
  std::string_view summary() const override {
    return "exact, for columns of few distinct values: a bitmap of rows per value; =, IN, ranges, IS NULL, counts";
  }
  bool exact() const override { return true; }
  bool counts() const override { return true; }
  std::string_view unit() const override { return "bitmaps"; }

  Result<nlohmann::json> Params(const nlohmann::json& given, const Field&) const override {
    RETURN_IF_ERROR(OnlyParams(given, name(), {"max_values"}));
    ASSIGN_OR_RETURN(uint64_t max_values, WholeParam(given, "max_values", kDefaultMaxValues, 1, kMaxMaxValues));
    return nlohmann::json{{"max_values", max_values}};
  }

  Result<std::string> Build(const SegmentBuild& build) const override {
    const table::Table& table = *build.table;
    const std::string& column = build.meta->column;
    const int c = table.schema().FindField(column);
    if (c < 0) return Status::InvalidArgument("unknown column '" + column + "'").About("column");
    BitmapBuilder builder(table.schema().field(size_t(c)).type,
                          build.meta->params.value("max_values", kDefaultMaxValues), column);
    for (const MergedSegment& m : build.merged) {
      ASSIGN_OR_RETURN(std::shared_ptr<BitmapSegment> old, BitmapSegment::Open(table.store(), m.meta.uuid));
      RowSet live;
      for (uint32_t f : m.live) {
        const table::FragmentMeta* frag = table.manifest().FindFragment(f);
        if (frag != nullptr) live |= RowSet::Range(f, 0, uint32_t(frag->rows));
      }
      RETURN_IF_ERROR(builder.AddSegment(*old, live));
    }
    RETURN_IF_ERROR(ForEachColumnChunk(
        table, column, build.fragments,
        [&](const table::FragmentMeta& f, uint32_t offset, const Column& values) {
          return builder.AddChunk(f.id, offset, values);
        },
        {}, build.progress));
    return builder.Finish(table.store());
  }

  Result<std::shared_ptr<const IndexSegment>> Open(ObjectStore* store, const std::string& uuid) const override {
    return OpenSegmentAs<BitmapSegment>(store, uuid);
  }
};

}  // namespace

const IndexKind& Kind() {
  static const BitmapKind kind;
  return kind;
}

}  // namespace lakeindex::index::bitmap
