#include "index/btree/btree_merge.h"

namespace lakeindex::index::btree {
namespace {

class PageStream : public SortedStream {
 public:
  explicit PageStream(std::shared_ptr<const BTreeSegment> segment) : segment_(std::move(segment)) {}

  Result<bool> Next(SortedEntry* out) override {
    while (page_ == nullptr || pos_ >= page_->addresses.size()) {
      if (next_page_ >= segment_->directory().num_pages()) return false;
      ASSIGN_OR_RETURN(page_, segment_->ReadPageUncached(uint32_t(next_page_)));
      ++next_page_;
      pos_ = 0;
    }
    out->key = page_->keys[pos_];
    out->address = page_->addresses[pos_];
    ++pos_;
    return true;
  }

 private:
  std::shared_ptr<const BTreeSegment> segment_;
  std::shared_ptr<const LeafPage> page_;
  size_t next_page_ = 0;
  size_t pos_ = 0;
};

// The entries of `source` whose fragment is in `keep`.
class FragmentFilterStream : public SortedStream {
 public:
  FragmentFilterStream(std::unique_ptr<SortedStream> source, std::set<uint32_t> keep)
      : source_(std::move(source)), keep_(std::move(keep)) {}
  Result<bool> Next(SortedEntry* out) override {
    for (;;) {
      ASSIGN_OR_RETURN(bool more, source_->Next(out));
      if (!more) return false;
      const uint32_t fragment = uint32_t(out->address >> 32);
      if (fragment == last_kept_ || keep_.count(fragment) > 0) {
        last_kept_ = fragment;
        return true;
      }
    }
  }

 private:
  std::unique_ptr<SortedStream> source_;
  std::set<uint32_t> keep_;
  uint64_t last_kept_ = ~uint64_t(0);  // no fragment id: a one-entry cache of the set lookup
};

}  // namespace

std::unique_ptr<SortedStream> SegmentStream(std::shared_ptr<const BTreeSegment> segment) {
  return std::make_unique<PageStream>(std::move(segment));
}

Status AddSegmentTo(BTreeBuilder* builder, std::shared_ptr<const BTreeSegment> segment,
                    const std::set<uint32_t>* keep_fragments) {
  if (segment->info().type != builder->type()) {
    return Status::InvalidArgument(std::string("btree merge: segment '") + segment->info().uuid + "' holds " +
                                   TypeName(segment->info().type) + " values, the new segment " +
                                   TypeName(builder->type()));
  }
  if (keep_fragments == nullptr) {
    builder->AddNulls(segment->null_rows());
    builder->AddSortedSource(SegmentStream(std::move(segment)));
    return Status::OK();
  }
  for (uint32_t f : *keep_fragments) {
    for (uint32_t offset : segment->null_rows().OffsetsIn(f)) RETURN_IF_ERROR(builder->AddNull(MakeRowAddress(f, offset)));
  }
  builder->AddSortedSource(std::make_unique<FragmentFilterStream>(SegmentStream(std::move(segment)), *keep_fragments));
  return Status::OK();
}

Result<BTreeSegmentInfo> MergeSegment(ObjectStore* store, std::shared_ptr<const BTreeSegment> old,
                                      const Column& values, const std::vector<uint64_t>& addresses,
                                      BTreeBuildOptions options) {
  ASSIGN_OR_RETURN(auto builder, BTreeBuilder::Make(store, old->info().type, std::move(options)));
  RETURN_IF_ERROR(builder->Add(values, addresses));
  RETURN_IF_ERROR(AddSegmentTo(builder.get(), std::move(old)));
  return builder->Finish();
}

Result<BTreeSegmentInfo> MergeSegments(ObjectStore* store,
                                       const std::vector<std::shared_ptr<const BTreeSegment>>& segments,
                                       BTreeBuildOptions options) {
  if (segments.empty()) return Status::InvalidArgument("btree merge: no segments");
  ASSIGN_OR_RETURN(auto builder, BTreeBuilder::Make(store, segments[0]->info().type, std::move(options)));
  for (const auto& s : segments) RETURN_IF_ERROR(AddSegmentTo(builder.get(), s));
  return builder->Finish();
}

Result<BTreeSegmentInfo> Remap(ObjectStore* store, const BTreeSegment& segment, const AddressMap& map,
                               BTreeBuildOptions options) {
  ASSIGN_OR_RETURN(auto builder, BTreeBuilder::Make(store, segment.info().type, std::move(options)));
  for (uint32_t p = 0; p < segment.directory().num_pages(); ++p) {
    ASSIGN_OR_RETURN(auto page, segment.ReadPageUncached(p));
    for (size_t i = 0; i < page->addresses.size(); ++i) {
      if (std::optional<uint64_t> to = map(page->addresses[i])) RETURN_IF_ERROR(builder->AddKey(page->keys[i], *to));
    }
  }
  for (uint64_t a : segment.null_rows().ToVector()) {
    if (std::optional<uint64_t> to = map(a)) RETURN_IF_ERROR(builder->AddNull(*to));
  }
  return builder->Finish();
}

}  // namespace lakeindex::index::btree
