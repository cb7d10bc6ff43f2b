// libFuzzer target: arbitrary bytes as a bitmap index segment file in a memory store; open it and
// run every query kind with values from its own dictionary, counts and verify. Any outcome but a
// crash, hang or sanitizer report is fine. Seed corpus: segments the bitmap kind writes
// (src/index/bitmap/bitmap_segment_test.cc, BitmapSeedCorpus).
#include <cstddef>
#include <cstdint>
#include <string>

#include "index/bitmap/bitmap_segment.h"
#include "lakeindex/object_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lakeindex;
  using index::ScalarQuery;
  std::unique_ptr<ObjectStore> store = NewMemoryStore();
  if (!store->Write(index::bitmap::BitmapPath("f"), std::string(reinterpret_cast<const char*>(data), size)).ok()) return 0;
  auto seg = index::bitmap::BitmapSegment::Open(store.get(), "f");
  if (!seg.ok()) return 0;
  const index::bitmap::Dictionary& d = (*seg)->dictionary();
  index::SearchCounters counters;
  (void)(*seg)->Search(ScalarQuery::IsNull(), &counters);
  for (size_t i = 0; i < d.keys.size() && i < 8; ++i) {
    auto v = index::DecodeKey(d.type, d.keys[i]);
    if (!v.ok()) continue;
    (void)(*seg)->Search(ScalarQuery::Equals(*v), &counters);
    (void)(*seg)->Count(ScalarQuery::Range(*v, i % 2 == 0, std::nullopt, true), &counters);
    (void)(*seg)->Search(ScalarQuery::In({*v}), &counters);
    if (v->type() == TypeId::kString) (void)(*seg)->Search(ScalarQuery::Prefix(v->string_value().substr(0, 1)), &counters);
  }
  index::SegmentCoverage coverage;
  coverage.rows_of[0] = 1000;
  (void)(*seg)->Verify(coverage, "f");
  return 0;
}
