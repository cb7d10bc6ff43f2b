// AWS Signature Version 4 for S3 requests
// (https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html).
//
// SignV4 computes the Authorization header of one request from its method, path, query,
// headers and payload hash; the caller sends exactly those headers (plus Authorization).
// Secrets never leave this file except as the derived signature.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lakeindex::s3 {

struct Credentials {
  std::string access_key;
  std::string secret_key;
  std::string session_token;  // sent as x-amz-security-token when set
  bool empty() const { return access_key.empty() || secret_key.empty(); }
};

struct SigningInput {
  std::string method;                                        // "GET", "PUT", ...
  std::string path;                                          // already URI-encoded, starts with '/'
  std::vector<std::pair<std::string, std::string>> query;   // decoded names and values
  std::vector<std::pair<std::string, std::string>> headers;  // every header that is signed
  std::string payload_hash;                                  // hex SHA-256 or "UNSIGNED-PAYLOAD"
};

// Lower-case hex of SHA-256 / HMAC-SHA-256.
std::string Sha256Hex(std::string_view data);
// Base64 of the MD5 of `data`: the Content-MD5 header S3 requires on a batch delete.
std::string Md5Base64(std::string_view data);
std::string HmacSha256(std::string_view key, std::string_view data);  // raw 32 bytes
std::string Hex(std::string_view bytes);

// RFC 3986 encoding as SigV4 wants it: unreserved characters kept, the rest %XX (upper case);
// '/' kept when `keep_slash` (object keys in paths).
std::string UriEncode(std::string_view s, bool keep_slash);

// The canonical request, the string to sign and the Authorization header value.
// `amz_date` is "YYYYMMDDTHHMMSSZ"; region e.g. "us-east-1"; service "s3".
std::string CanonicalRequest(const SigningInput& in);
std::string StringToSign(const SigningInput& in, std::string_view amz_date, std::string_view region,
                         std::string_view service);
std::string Authorization(const SigningInput& in, const Credentials& creds, std::string_view amz_date,
                          std::string_view region, std::string_view service);

// The canonical query string (names and values encoded, sorted), also used to build URLs.
std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query);

}  // namespace lakeindex::s3
