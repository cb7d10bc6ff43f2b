// SigV4 against the worked examples of the S3 API reference ("Signature Calculations for the
// Authorization Header: Transferring Payload in a Single Chunk"): examplebucket, us-east-1,
// 20130524T000000Z, the documented example key pair.
#include "io/sigv4.h"

#include <gtest/gtest.h>

namespace lakeindex::s3 {
namespace {

const Credentials kExampleCreds{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
constexpr char kDate[] = "20130524T000000Z";
constexpr char kEmptyHash[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr char kHost[] = "examplebucket.s3.amazonaws.com";

std::string SignatureOf(const std::string& authorization) {
  return authorization.substr(authorization.rfind('=') + 1);
}

TEST(SigV4Test, EmptyPayloadHash) { EXPECT_EQ(Sha256Hex(""), kEmptyHash); }

TEST(SigV4Test, GetObjectWithRange) {
  SigningInput in{"GET", "/test.txt", {},
                  {{"Host", kHost}, {"Range", "bytes=0-9"}, {"x-amz-content-sha256", kEmptyHash}, {"x-amz-date", kDate}},
                  kEmptyHash};
  EXPECT_EQ(CanonicalRequest(in),
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
            "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(StringToSign(in, kDate, "us-east-1", "s3"),
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(Authorization(in, kExampleCreds, kDate, "us-east-1", "s3"),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4Test, PutObjectWithAnEncodedKey) {
  const std::string body = "Welcome to Amazon S3.";
  const std::string hash = Sha256Hex(body);
  EXPECT_EQ(hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  SigningInput in{"PUT", "/" + UriEncode("test$file.text", true), {},
                  {{"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                   {"Host", kHost},
                   {"x-amz-date", kDate},
                   {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
                   {"x-amz-content-sha256", hash}},
                  hash};
  EXPECT_EQ(in.path, "/test%24file.text");
  EXPECT_EQ(SignatureOf(Authorization(in, kExampleCreds, kDate, "us-east-1", "s3")),
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4Test, GetBucketLifecycleHasAnEmptyQueryValue) {
  SigningInput in{"GET", "/", {{"lifecycle", ""}},
                  {{"Host", kHost}, {"x-amz-content-sha256", kEmptyHash}, {"x-amz-date", kDate}}, kEmptyHash};
  EXPECT_EQ(SignatureOf(Authorization(in, kExampleCreds, kDate, "us-east-1", "s3")),
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(SigV4Test, ListObjectsSortsTheQuery) {
  SigningInput in{"GET", "/", {{"prefix", "J"}, {"max-keys", "2"}},
                  {{"Host", kHost}, {"x-amz-content-sha256", kEmptyHash}, {"x-amz-date", kDate}}, kEmptyHash};
  EXPECT_EQ(CanonicalQuery(in.query), "max-keys=2&prefix=J");
  EXPECT_EQ(SignatureOf(Authorization(in, kExampleCreds, kDate, "us-east-1", "s3")),
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4Test, UriEncodingIsRfc3986) {
  EXPECT_EQ(UriEncode("a b/c~d_e.f-g+h=i&", true), "a%20b/c~d_e.f-g%2Bh%3Di%26");
  EXPECT_EQ(UriEncode("a/b", false), "a%2Fb");
  EXPECT_EQ(UriEncode("\xc3\xa9", false), "%C3%A9");
}

}  // namespace
}  // namespace lakeindex::s3
