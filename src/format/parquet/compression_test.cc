#include "format/parquet/compression.h"

#include <gtest/gtest.h>
#include <lz4.h>
#include <zlib.h>

#include "util/test_util.h"

namespace lakeindex::parquet {
namespace {

using testing::Rng;

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

const Codec kSupported[] = {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip,  Codec::kBrotli,
                            Codec::kLz4,          Codec::kZstd,   Codec::kLz4Raw};

std::vector<std::string> Samples() {
  Rng rng(20);
  std::string random(100000, '\0');
  for (auto& c : random) c = static_cast<char>(rng.Next());
  std::string text;
  while (text.size() < 300000) text += "row " + std::to_string(rng.Uniform(1000)) + ", lakeindex;";
  return {"", "x", "hello hello hello hello", random, text};
}

std::string MustCompress(Codec codec, const std::string& data) {
  std::string out = "prefix";  // Compress appends
  EXPECT_TRUE(Compress(codec, Bytes(data), data.size(), &out, ZstdSettings{3}).ok()) << CodecName(codec);
  EXPECT_EQ(out.substr(0, 6), "prefix");
  return out.substr(6);
}

TEST(CompressionTest, RoundTripEverySupportedCodec) {
  for (Codec codec : kSupported) {
    ASSERT_TRUE(CodecSupported(codec)) << CodecName(codec);
    for (const std::string& data : Samples()) {
      const std::string comp = MustCompress(codec, data);
      std::string back = "stale";
      ASSERT_TRUE(Decompress(codec, Bytes(comp), comp.size(), data.size(), &back).ok())
          << CodecName(codec) << " size " << data.size();
      EXPECT_EQ(back, data) << CodecName(codec);
    }
  }
}

// kZstdFastHuffman keeps the Huffman stage that a negative level alone drops: on random
// letters (no repeats to match) it is about as small as level 1 and far smaller than raw
// literals; on repetitive text it loses to level 1 (why the writer probes before using it).
TEST(CompressionTest, ZstdFastHuffmanCodesLiterals) {
  Rng rng(5);
  std::string letters, urls;
  while (letters.size() < 640) letters.push_back(char('a' + rng.Uniform(26)));
  while (urls.size() < 640) urls += "https://example.com/items/" + std::to_string(rng.Uniform(1000000)) + "?ref=home";
  auto size = [](const std::string& data, ZstdSettings zstd) {
    std::string out;
    EXPECT_TRUE(Compress(Codec::kZstd, Bytes(data), data.size(), &out, zstd).ok());
    std::string back;
    EXPECT_TRUE(Decompress(Codec::kZstd, Bytes(out), out.size(), data.size(), &back).ok());
    EXPECT_EQ(back, data);
    return out.size();
  };
  const size_t level1 = size(letters, {}), fast = size(letters, kZstdFastHuffman);
  const size_t raw = size(letters, {kZstdFastHuffman.level, false});
  EXPECT_LE(fast * 16, level1 * 17) << fast << " vs level 1 " << level1;
  EXPECT_LT(fast * 10, raw * 8) << fast << " vs raw literals " << raw;
  EXPECT_GT(size(urls, kZstdFastHuffman) * 16, size(urls, {}) * 17);
}

TEST(CompressionTest, WrongUncompressedSizeIsCorruption) {
  const std::string data = Samples()[4];
  for (Codec codec : kSupported) {
    const std::string comp = MustCompress(codec, data);
    for (size_t wrong : {data.size() - 1, data.size() + 1, size_t{0}}) {
      std::string out;
      const Status st = Decompress(codec, Bytes(comp), comp.size(), wrong, &out);
      EXPECT_TRUE(st.IsCorruption()) << CodecName(codec) << " " << wrong << ": " << st.ToString();
      EXPECT_LE(out.size(), wrong);
    }
  }
}

TEST(CompressionTest, TruncatedOrGarbageInputIsCorruption) {
  const std::string data = Samples()[4];
  Rng rng(21);
  for (Codec codec : kSupported) {
    const std::string comp = MustCompress(codec, data);
    for (size_t len : {size_t{0}, size_t{1}, size_t{5}, comp.size() / 2, comp.size() - 1}) {
      std::vector<uint8_t> cut(comp.begin(), comp.begin() + len);
      std::string out;
      EXPECT_TRUE(Decompress(codec, cut.data(), cut.size(), data.size(), &out).IsCorruption())
          << CodecName(codec) << " len " << len;
    }
    for (int iter = 0; iter < 20; ++iter) {
      std::vector<uint8_t> garbage(1 + rng.Uniform(200));
      for (auto& b : garbage) b = static_cast<uint8_t>(rng.Next());
      std::string out;
      const Status st = Decompress(codec, garbage.data(), garbage.size(), 1000, &out);
      EXPECT_TRUE(st.IsCorruption()) << CodecName(codec) << ": " << st.ToString();
    }
  }
}

TEST(CompressionTest, LzoIsNotSupportedByName) {
  EXPECT_FALSE(CodecSupported(Codec::kLzo));
  std::string out;
  const Status st = Decompress(Codec::kLzo, Bytes("abc"), 3, 10, &out);
  EXPECT_TRUE(st.IsNotSupported());
  EXPECT_NE(st.message().find("LZO"), std::string::npos);
  EXPECT_TRUE(Compress(Codec::kLzo, Bytes("abc"), 3, &out).IsNotSupported());
  EXPECT_TRUE(Decompress(static_cast<Codec>(42), Bytes("abc"), 3, 10, &out).IsNotSupported());
}

TEST(CompressionTest, NamesRoundTrip) {
  for (int i = 0; i <= 7; ++i) {
    const Codec c = static_cast<Codec>(i);
    auto parsed = CodecFromName(CodecName(c));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, c);
  }
  EXPECT_EQ(*CodecFromName("zstd"), Codec::kZstd);
  EXPECT_EQ(*CodecFromName("none"), Codec::kUncompressed);
  EXPECT_TRUE(CodecFromName("lzma").status().IsInvalidArgument());
}

TEST(CompressionTest, GzipReaderAcceptsZlibAndConcatenatedMembers) {
  const std::string data = "some page bytes, some page bytes, some page bytes";
  // zlib wrapper (what some writers emit under GZIP).
  std::string zlib_data(compressBound(data.size()), '\0');
  uLongf len = zlib_data.size();
  ASSERT_EQ(
      compress2(reinterpret_cast<Bytef*>(zlib_data.data()), &len, Bytes(data), data.size(), 6),
      Z_OK);
  zlib_data.resize(len);
  std::string out;
  ASSERT_TRUE(Decompress(Codec::kGzip, Bytes(zlib_data), zlib_data.size(), data.size(), &out).ok());
  EXPECT_EQ(out, data);
  // Two gzip members back to back decode to the concatenation.
  const std::string two = MustCompress(Codec::kGzip, data) + MustCompress(Codec::kGzip, data);
  ASSERT_TRUE(Decompress(Codec::kGzip, Bytes(two), two.size(), 2 * data.size(), &out).ok());
  EXPECT_EQ(out, data + data);
}

TEST(CompressionTest, Lz4ReaderFallsBackToRawBlocks) {
  // Older writers put a bare LZ4 block under codec LZ4; the Hadoop framing does not parse.
  const std::string data = Samples()[4];
  const std::string raw = MustCompress(Codec::kLz4Raw, data);
  std::string out;
  ASSERT_TRUE(Decompress(Codec::kLz4, Bytes(raw), raw.size(), data.size(), &out).ok());
  EXPECT_EQ(out, data);
  // The Hadoop frame is 8 bytes of big-endian lengths in front of the same block.
  const std::string hadoop = MustCompress(Codec::kLz4, data);
  EXPECT_EQ(hadoop.size(), raw.size() + 8);
}

TEST(CompressionTest, DecompressIntoCallerBuffer) {
  const std::string data = Samples()[2];
  const std::string comp = MustCompress(Codec::kZstd, data);
  std::string buf(data.size(), '\0');
  ASSERT_TRUE(DecompressInto(Codec::kZstd, Bytes(comp), comp.size(),
                             reinterpret_cast<uint8_t*>(buf.data()), buf.size())
                  .ok());
  EXPECT_EQ(buf, data);
}

}  // namespace
}  // namespace lakeindex::parquet
