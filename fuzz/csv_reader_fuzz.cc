// Fuzzes the CSV reader: arbitrary bytes must give a Batch or an error, never a crash. Checks two
// properties on the way: reading in small batches equals reading at once, and whatever was read
// with an inferred schema survives WriteCsv -> ReadCsv unchanged.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "format/csv/csv_reader.h"
#include "format/csv/csv_writer.h"

using lakeindex::Batch;
using lakeindex::Field;
using lakeindex::Schema;
using lakeindex::TypeId;
namespace csv = lakeindex::csv;

namespace {

// Reads `text` in batches of at most `rows` rows into *all; false on any error.
bool ReadInBatches(std::string_view text, const csv::ReadOptions& options, size_t rows,
                   Batch* all) {
  auto reader = csv::CsvReader::OpenBuffer(text, "fuzz", options);
  if (!reader.ok()) return false;
  *all = Batch((*reader)->schema());
  Batch part;
  while (true) {
    auto more = (*reader)->Next(rows, &part);
    if (!more.ok()) return false;
    if (!*more) return true;
    if (part.num_rows() == 0 || part.num_rows() > rows || !all->Append(part).ok()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);

  // 1. Inferred types.
  csv::ReadOptions inferred;
  inferred.infer_rows = 64;
  auto batch = csv::ReadCsv(text, inferred);
  Batch streamed;
  bool streamed_ok = ReadInBatches(text, inferred, 3, &streamed);
  if (batch.ok() != streamed_ok || (batch.ok() && !streamed.Equals(*batch))) std::abort();
  if (batch.ok()) {
    std::string written;
    csv::WriteCsv(*batch, /*header=*/true, &written);
    csv::ReadOptions typed;
    typed.schema = batch->schema();
    auto back = csv::ReadCsv(written, typed);
    if (!back.ok() || !back->Equals(*batch)) std::abort();
  }

  // 2. Every type, chosen per column from the input, under the file's own header names.
  const char delimiter = (size % 3 == 0) ? ';' : ',';
  csv::ReadOptions names_only;
  names_only.infer_rows = 0;  // all strings: just to learn the header
  names_only.delimiter = delimiter;
  auto header = csv::CsvReader::OpenBuffer(text, "fuzz", names_only);
  if (header.ok()) {
    Schema schema;
    for (size_t i = 0; i < (*header)->schema().num_fields(); ++i) {
      uint8_t pick = data[(i * 7) % size];
      schema.AddField(Field{(*header)->schema().field(i).name, TypeId(pick % 8), (pick & 8) == 0});
    }
    csv::ReadOptions typed;
    typed.schema = schema;
    typed.delimiter = delimiter;
    (void)csv::ReadCsv(text, typed);
  }
  return 0;
}
