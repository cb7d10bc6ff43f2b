// libFuzzer target: arbitrary bytes as a zone map segment file in a memory store; open it and run
// every query kind with values taken from its own zones. Any outcome but a crash, hang or
// sanitizer report is fine. Seed corpus: segments written by ZoneMapBuilder
// (src/index/zonemap/zonemap_seed_corpus_test.cc).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "format/parquet/reader.h"
#include "index/zonemap/zonemap_reader.h"
#include "lakeindex/object_store.h"

namespace {
// A hostile footer can declare millions of rows in a few bytes; decoding them is legal but only
// measures the machine's memory, so such files are skipped.
constexpr int64_t kMaxZones = 1 << 16;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lakeindex;
  using index::ScalarQuery;
  std::unique_ptr<ObjectStore> store = NewMemoryStore();
  const std::string path = index::zonemap::ZoneMapPath("f");
  if (!store->Write(path, std::string(reinterpret_cast<const char*>(data), size)).ok()) return 0;
  {
    auto probe = parquet::ParquetReader::Open(store.get(), path);
    if (!probe.ok() || (*probe)->num_rows() > kMaxZones) return 0;
  }
  auto seg = index::zonemap::ZoneMapSegment::Open(store.get(), "f");
  if (!seg.ok()) return 0;
  const auto& zones = (*seg)->zones();
  index::SearchCounters counters;
  (void)(*seg)->Search(ScalarQuery::IsNull(), &counters);
  for (size_t i = 0; i < zones.size() && i < 8; ++i) {
    if (!zones[i].min) continue;
    const Value& lo = *zones[i].min;
    const Value& hi = *zones[i].max;
    (void)(*seg)->Search(ScalarQuery::Equals(lo), &counters);
    (void)(*seg)->Search(ScalarQuery::Range(lo, i % 2 == 0, hi, i % 3 == 0), &counters);
    (void)(*seg)->Search(ScalarQuery::Range(std::nullopt, true, hi, false), &counters);
    (void)(*seg)->Search(ScalarQuery::In({lo, hi}), &counters);
    if (lo.type() == TypeId::kString) {
      (void)(*seg)->Search(ScalarQuery::Prefix(lo.string_value().substr(0, 2)), &counters);
    }
    if (IsFloating(lo.type())) (void)(*seg)->Search(ScalarQuery::Equals(Value::Double(std::nan(""))), &counters);
  }
  return 0;
}
