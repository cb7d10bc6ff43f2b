// Per-value reads: where the values of a data page can be addressed one by one, and the parser
// that says so from the page's first bytes (ParquetReader::ReadValues, defined in
// value_reader.cc, does the reading).
//
// A data page (v1 or v2) whose values are PLAIN, stored uncompressed and of fixed width (INT32,
// INT64, FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY) holds value j at a known place: the payload starts
// right after the page header and, in an OPTIONAL column, after the definition levels (v1: a
// 4-byte length and the RLE/bit-packed hybrid levels; v2: def_levels_byte_length bytes), and
// value j is j × width bytes on. Row i's value is value i in a REQUIRED column, and in an
// OPTIONAL one value (non-NULL rows before i), or NULL when row i's level is 0.
//
// The header's length is not in the OffsetIndex. In a REQUIRED column it follows from it: the
// page is header + rows × width bytes, so the header and the values can be read at once. In an
// OPTIONAL column the page's first ValuePagePrefix bytes (the header and the levels) are read
// first, then the values.
//
// What is checked instead of the page CRC (which covers the whole payload, so a partial read
// cannot verify it): the header parses; it says PLAIN, uncompressed (v1: the chunk's codec; v2:
// is_compressed false or the codec), the OffsetIndex's row count and a size that, with the
// header, is the OffsetIndex's page size; the levels decode to exactly the rows, and their
// non-NULL count times the width is the rest of the page. A page that fails any of this is not
// read value by value: the caller decodes it whole, where the CRC and every other check apply
// and a damaged page is Corruption naming the file. A flipped bit inside the values themselves
// is what a per-value read cannot see (docs/parquet.md, "Per-value reads").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "format/parquet/compression.h"
#include "format/parquet/reader.h"
#include "format/parquet/schema_mapping.h"

namespace lakeindex::parquet {

// Bytes of one PLAIN value of `leaf` when they are fixed (INT32 and FLOAT 4, INT64 and DOUBLE 8,
// FIXED_LEN_BYTE_ARRAY its type_length), else 0 (BOOLEAN is bit-packed, BYTE_ARRAY
// length-prefixed).
size_t FixedValueWidth(const LeafColumn& leaf);

// The longest page header a per-value read of an OPTIONAL column reads in its prefix (our
// writer's headers, statistics and CRC included, take 40-90 bytes for fixed-width values), and
// the longest it accepts in a REQUIRED column (where the length is known before the read).
inline constexpr uint64_t kValuePageHeaderBytes = 128;
inline constexpr uint64_t kMaxValuePageHeaderBytes = 1024;

// Bytes of the page `entry` read first: REQUIRED, exactly its header (entry size - rows × width;
// 0 when that is not a plausible header length, so the page cannot be addressed); OPTIONAL, the
// header and room for levels as long as bit-packing makes them (at most the page).
uint64_t ValuePagePrefix(bool nullable, size_t width, const PageIndexEntry& entry);

// Where the values of one addressable page lie.
struct ValuePage {
  uint64_t values_at = 0;     // offset of the page's first value from its first byte
  std::vector<uint8_t> valid;  // OPTIONAL: validity of the page's rows, LSB first; REQUIRED: empty
  size_t non_null = 0;         // values the page holds
};

// Parses data[0, size), the first bytes of the data page `entry` of a chunk of `leaf` stored with
// `codec`: its header and, in an OPTIONAL column, its definition levels. nullopt when the page is
// not addressable as described above, fails a check, or `size` bytes do not hold what is needed.
// No I/O: a fuzzer or a corruption test reaches it directly.
std::optional<ValuePage> ParseValuePage(const uint8_t* data, size_t size, const LeafColumn& leaf, Codec codec,
                                        const PageIndexEntry& entry);

}  // namespace lakeindex::parquet
