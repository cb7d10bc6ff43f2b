#include "io/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>

namespace lakeindex::s3 {

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string Md5Base64(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_md5(), nullptr);
  unsigned char text[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
  const int n = EVP_EncodeBlock(text, digest, int(length));
  return std::string(reinterpret_cast<const char*>(text), size_t(n));
}

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return Hex(std::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), int(key.size()), reinterpret_cast<const unsigned char*>(data.data()), data.size(),
       out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string UriEncode(std::string_view s, bool keep_slash) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out.push_back(char(c));
    } else {
      out.push_back('%');
      out.push_back(kDigits[c >> 4]);
      out.push_back(kDigits[c & 15]);
    }
  }
  return out;
}

std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [k, v] : query) encoded.emplace_back(UriEncode(k, false), UriEncode(v, false));
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [k, v] : encoded) {
    if (!out.empty()) out.push_back('&');
    out += k;
    out.push_back('=');
    out += v;
  }
  return out;
}

namespace {

std::string Trim(std::string_view v) {
  // Leading/trailing spaces removed, inner runs of spaces collapsed to one.
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

// Lower-case names, sorted; (canonical header block, signed header list).
std::pair<std::string, std::string> CanonicalHeaders(const std::vector<std::pair<std::string, std::string>>& headers) {
  std::vector<std::pair<std::string, std::string>> h;
  h.reserve(headers.size());
  for (const auto& [k, v] : headers) {
    std::string name = k;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    h.emplace_back(std::move(name), Trim(v));
  }
  std::sort(h.begin(), h.end());
  std::string block, names;
  for (const auto& [k, v] : h) {
    block += k + ":" + v + "\n";
    if (!names.empty()) names.push_back(';');
    names += k;
  }
  return {block, names};
}

std::string Scope(std::string_view amz_date, std::string_view region, std::string_view service) {
  return std::string(amz_date.substr(0, 8)) + "/" + std::string(region) + "/" + std::string(service) + "/aws4_request";
}

}  // namespace

std::string CanonicalRequest(const SigningInput& in) {
  auto [block, names] = CanonicalHeaders(in.headers);
  return in.method + "\n" + in.path + "\n" + CanonicalQuery(in.query) + "\n" + block + "\n" + names + "\n" +
         in.payload_hash;
}

std::string StringToSign(const SigningInput& in, std::string_view amz_date, std::string_view region,
                         std::string_view service) {
  return "AWS4-HMAC-SHA256\n" + std::string(amz_date) + "\n" + Scope(amz_date, region, service) + "\n" +
         Sha256Hex(CanonicalRequest(in));
}

std::string Authorization(const SigningInput& in, const Credentials& creds, std::string_view amz_date,
                          std::string_view region, std::string_view service) {
  std::string key = HmacSha256("AWS4" + creds.secret_key, amz_date.substr(0, 8));
  key = HmacSha256(key, region);
  key = HmacSha256(key, service);
  key = HmacSha256(key, "aws4_request");
  const std::string signature = Hex(HmacSha256(key, StringToSign(in, amz_date, region, service)));
  return "AWS4-HMAC-SHA256 Credential=" + creds.access_key + "/" + Scope(amz_date, region, service) +
         ",SignedHeaders=" + CanonicalHeaders(in.headers).second + ",Signature=" + signature;
}

}  // namespace lakeindex::s3
