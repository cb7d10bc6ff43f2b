// Bitmap index segment file: what the kind's builder writes and its reader validates
// (docs/bitmap.md). One file per segment, `_indices/{uuid}/bitmap.idx`:
//
//   offset  bytes  what
//   0       ...    the bitmaps, one after another: one per distinct non-NULL value in key order,
//                  then the NULL rows' bitmap; each RowSet::Serialize() (portable 64-bit Roaring)
//   D       L      the dictionary (below)
//   D+L     32     the footer: D (u64), L (u32), XXH64 of the dictionary (u64), format
//                  version (u32), magic "LIXBITMP" (8 bytes)
//
// The dictionary, all integers little-endian:
//   u8  column type (TypeId)
//   u64 rows (non-NULL and NULL rows the segment covers)
//   u32 values (distinct non-NULL values, n)
//   n entries, keys strictly ascending bytewise: u32 key length, the key (index/index_key.h's
//     order-preserving encoding: NaN one key above +inf, -0.0 as +0.0), then the entry's bitmap
//   one entry for the NULL rows: its bitmap alone
// where a bitmap is: u64 offset, u32 size, u64 cardinality (rows), u64 XXH64 of its bytes.
// Bitmaps lie in [0, D), in entry order, without gaps or overlap; the cardinalities add up to
// `rows`. Row addresses are `fragment_id << 32 | offset` with the fragments' original offsets.
// Thread safety: values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lakeindex/status.h"
#include "lakeindex/types.h"

namespace lakeindex::index::bitmap {

inline constexpr char kMagic[8] = {'L', 'I', 'X', 'B', 'I', 'T', 'M', 'P'};
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr size_t kFooterSize = 32;
inline constexpr char kFileName[] = "bitmap.idx";
// The default bound on distinct values (parameter max_values): past it, a btree serves better.
inline constexpr uint64_t kDefaultMaxValues = 65536;
inline constexpr uint64_t kMaxMaxValues = 1u << 20;

// "_indices/{uuid}/bitmap.idx", relative to the table's store root.
std::string BitmapPath(std::string_view uuid);

struct BitmapRef {
  uint64_t offset = 0;
  uint32_t size = 0;
  uint64_t cardinality = 0;
  uint64_t xxh64 = 0;
  bool operator==(const BitmapRef&) const = default;
};

struct Dictionary {
  TypeId type = TypeId::kInt64;
  uint64_t rows = 0;
  std::vector<std::string> keys;  // ascending
  std::vector<BitmapRef> bitmaps;  // one per key
  BitmapRef nulls;
  bool operator==(const Dictionary&) const = default;
};

struct Footer {
  uint64_t dictionary_offset = 0;
  uint32_t dictionary_size = 0;
  uint64_t dictionary_xxh64 = 0;
};

std::string EncodeDictionary(const Dictionary& dictionary);
std::string EncodeFooter(const Footer& footer);

// Parses the last kFooterSize bytes of a file of `file_size` bytes. Corruption naming `source`
// (bad magic, a dictionary outside the file); NotSupported for another format version.
Result<Footer> DecodeFooter(const uint8_t* data, size_t size, uint64_t file_size, std::string_view source);
// Parses and checks a dictionary (its checksum against `footer`, every length, key order, keys
// decodable for the type, bitmaps in order inside [0, footer.dictionary_offset), cardinalities
// adding up). Corruption naming `source` and the entry. Does no I/O.
Result<Dictionary> DecodeDictionary(const uint8_t* data, size_t size, const Footer& footer, std::string_view source);

}  // namespace lakeindex::index::bitmap
