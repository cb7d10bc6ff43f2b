// Fuzzes the Arrow IPC reader (stream and file formats): arbitrary bytes must give batches or an
// error, never a crash or a read outside them. Whatever reads must survive IpcStreamWriter ->
// OpenIpc unchanged.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "format/arrow/arrow.h"

namespace arrow = lakeindex::arrow;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto reader = arrow::OpenIpc(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
  if (!reader.ok()) return 0;
  std::vector<lakeindex::Batch> batches;
  for (int i = 0; i < 64; ++i) {
    lakeindex::Batch b;
    auto more = (*reader)->Next(&b);
    if (!more.ok()) return 0;
    if (!*more) break;
    batches.push_back(std::move(b));
  }
  // What was read writes and reads back the same.
  arrow::IpcStreamWriter writer((*reader)->schema());
  std::string bytes;
  for (const auto& b : batches) {
    if (!writer.Write(b, &bytes).ok()) std::abort();
  }
  writer.Finish(&bytes);
  auto again = arrow::OpenIpc(bytes, "again");
  if (!again.ok() || !((*again)->schema() == (*reader)->schema())) std::abort();
  for (const auto& want : batches) {
    lakeindex::Batch got;
    auto more = (*again)->Next(&got);
    if (!more.ok() || !*more || !got.Equals(want)) std::abort();
  }
  return 0;
}
