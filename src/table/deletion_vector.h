// Deletion vectors: the set of deleted row offsets of one fragment, one immutable file per
// (fragment, version that changed it) at `_deletions/{fragment}-{uuid}.bin`.
//
// Byte layout (little endian):
//   0   magic "LIDV"
//   4   u32 format version (1)
//   8   u32 fragment id
//   12  u32 rows in the fragment (every offset is below it)
//   16  u32 number of deleted rows
//   20  u32 payload length P
//   24  P bytes: 32-bit roaring bitmap, portable serialization
//   24+P u64 XXH64 of bytes [0, 24+P)
// Thread safety: values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lakeindex/row_set.h"  // roaring::Roaring, whatever the CRoaring version

#include "lakeindex/status.h"

namespace lakeindex::table {

inline constexpr char kDeletionMagic[4] = {'L', 'I', 'D', 'V'};
inline constexpr uint32_t kDeletionFormatVersion = 1;
inline constexpr size_t kDeletionHeaderSize = 24;

struct DeletionVector {
  uint32_t fragment_id = 0;
  uint32_t fragment_rows = 0;
  roaring::Roaring deleted;  // row offsets
};

std::string EncodeDeletionVector(const DeletionVector& dv);
// `source` names the file in errors. Corruption on any mismatch (checksum, lengths, offsets
// beyond fragment_rows, count).
Result<DeletionVector> DecodeDeletionVector(const uint8_t* data, size_t size, std::string_view source);

}  // namespace lakeindex::table
