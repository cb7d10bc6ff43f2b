// CRC-32 as used by Parquet page checksums (PageHeader.crc): the zlib/gzip CRC, polynomial
// 0x04C11DB7 (reflected 0xEDB88320), initial value and final xor 0xFFFFFFFF.
//
// Crc32 picks the fastest implementation the CPU supports once (x86-64 with PCLMULQDQ: carry-less
// multiply folding, about 10x the table version); every implementation returns the same value.
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lakeindex::parquet {

// CRC of data[0, size), continuing from `crc` (the result of a previous call, 0 to start).
uint32_t Crc32(const uint8_t* data, size_t size, uint32_t crc = 0);

// The portable implementations behind Crc32, exposed so tests can compare them.
uint32_t Crc32Bytewise(const uint8_t* data, size_t size, uint32_t crc = 0);  // one table, 1 byte/step
uint32_t Crc32Slicing8(const uint8_t* data, size_t size, uint32_t crc = 0);  // 8 tables, 8 bytes/step
// True when Crc32 uses the carry-less multiply version on this CPU.
bool Crc32HasHardwareFolding();

}  // namespace lakeindex::parquet
