// libFuzzer target: bytes as a table manifest (table/manifest.h). Each input is parsed twice:
// as it is (the checksum must hold), and re-sealed (its "checksum" recomputed when it is a JSON
// object), so that mutations reach the field checks behind the checksum. Whatever parses must
// serialize to text that parses again and serializes to the same text. Seed corpus: manifests
// of tables built by our writers (src/table/table_seed_corpus_test.cc).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "table/manifest.h"

namespace {

void CheckRoundTrip(const uint8_t* data, size_t size) {
  using namespace lakeindex::table;
  auto m = ParseManifest(data, size, "fuzz.manifest");
  if (!m.ok()) return;
  std::string once = SerializeManifest(*m);
  auto again = ParseManifest(reinterpret_cast<const uint8_t*>(once.data()), once.size(), "again");
  if (!again.ok()) std::abort();
  if (SerializeManifest(*again) != once) std::abort();
  if (again->fragments != m->fragments || again->total_rows() != m->total_rows()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  CheckRoundTrip(data, size);
  nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return 0;
  j.erase("checksum");
  std::string resealed;
  try {
    j["checksum"] = lakeindex::table::ManifestChecksum(j);
    resealed = j.dump();
  } catch (const nlohmann::json::exception&) {
    return 0;  // e.g. a string that is not UTF-8 has no JSON text: no manifest can hold it
  }
  CheckRoundTrip(reinterpret_cast<const uint8_t*>(resealed.data()), resealed.size());
  return 0;
}
