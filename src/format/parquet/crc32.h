// CRC-32 as used by Parquet page checksums (PageHeader.crc): the zlib/gzip CRC, polynomial
// 0x04C11DB7 (reflected 0xEDB88320), initial value and final xor 0xFFFFFFFF.
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lakeindex::parquet {

// CRC of data[0, size), continuing from `crc` (the result of a previous call, 0 to start).
uint32_t Crc32(const uint8_t* data, size_t size, uint32_t crc = 0);

}  // namespace lakeindex::parquet
