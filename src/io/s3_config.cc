#include "io/s3_config.h"

#include <cstdlib>
#include <fstream>
#include <map>

namespace lakeindex::s3 {

namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::string TrimSpaces(std::string s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// The keys of one section of an AWS ini file ("[name]"); nested blocks ("s3 =\n  key = v")
// contribute their keys too, so `addressing_style` is found under `s3`.
std::map<std::string, std::string> IniSection(const std::string& file, const std::string& section) {
  std::map<std::string, std::string> out;
  std::ifstream in(file);
  if (!in) return out;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    const std::string t = TrimSpaces(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[' && t.back() == ']') {
      inside = TrimSpaces(t.substr(1, t.size() - 2)) == section;
      continue;
    }
    if (!inside) continue;
    const size_t eq = t.find('=');
    if (eq == std::string::npos) continue;
    const std::string value = TrimSpaces(t.substr(eq + 1));
    if (!value.empty()) out.emplace(TrimSpaces(t.substr(0, eq)), value);
  }
  return out;
}

Result<int> PositiveNumber(const char* name, int fallback) {
  const std::string v = Env(name);
  if (v.empty()) return fallback;
  char* end = nullptr;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (*end != '\0' || n <= 0 || n > 100000000) {
    return Status::InvalidArgument(std::string(name) + "='" + v + "' is not a positive number");
  }
  return int(n);
}

}  // namespace

Result<Location> ParseUri(const std::string& uri) {
  constexpr std::string_view kScheme = "s3://";
  if (uri.rfind(kScheme, 0) != 0) return Status::InvalidArgument("'" + uri + "' is not an s3:// URI");
  std::string rest = uri.substr(kScheme.size());
  Location loc;
  const size_t slash = rest.find('/');
  loc.bucket = rest.substr(0, slash);
  std::string prefix = slash == std::string::npos ? "" : rest.substr(slash + 1);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  loc.prefix = prefix;
  // Bucket names: 3-63 characters of lower-case letters, digits, '.', '-'.
  bool ok = loc.bucket.size() >= 3 && loc.bucket.size() <= 63;
  for (char c : loc.bucket) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-');
  if (!ok) return Status::InvalidArgument("'" + uri + "': bad bucket name '" + loc.bucket + "'");
  if (prefix.find("//") != std::string::npos || prefix.rfind('/', 0) == 0) {
    return Status::InvalidArgument("'" + uri + "': empty path segment in the key prefix");
  }
  return loc;
}

Result<Config> LoadConfig(const Location& location) {
  Config c;
  c.location = location;
  const std::string home = Env("HOME");
  std::string profile = Env("AWS_PROFILE");
  if (profile.empty()) profile = "default";
  std::string credentials_file = Env("AWS_SHARED_CREDENTIALS_FILE");
  if (credentials_file.empty() && !home.empty()) credentials_file = home + "/.aws/credentials";
  std::string config_file = Env("AWS_CONFIG_FILE");
  if (config_file.empty() && !home.empty()) config_file = home + "/.aws/config";
  auto creds = IniSection(credentials_file, profile);
  auto conf = IniSection(config_file, profile == "default" ? "default" : "profile " + profile);
  auto pick = [&](const char* env, const char* key, std::map<std::string, std::string>* first,
                  std::map<std::string, std::string>* second) {
    std::string v = env ? Env(env) : "";
    if (v.empty() && first && first->count(key)) v = (*first)[key];
    if (v.empty() && second && second->count(key)) v = (*second)[key];
    return v;
  };
  // Credentials: the environment's pair, else the profile's (credentials file, then config).
  if (!Env("AWS_ACCESS_KEY_ID").empty()) {
    c.credentials = {Env("AWS_ACCESS_KEY_ID"), Env("AWS_SECRET_ACCESS_KEY"), Env("AWS_SESSION_TOKEN")};
  } else {
    c.credentials = {pick(nullptr, "aws_access_key_id", &creds, &conf),
                     pick(nullptr, "aws_secret_access_key", &creds, &conf),
                     pick(nullptr, "aws_session_token", &creds, &conf)};
  }
  std::string region = Env("AWS_REGION");
  if (region.empty()) region = pick("AWS_DEFAULT_REGION", "region", &conf, &creds);
  if (!region.empty()) c.region = region;
  std::string endpoint = Env("AWS_ENDPOINT_URL_S3");
  if (endpoint.empty()) endpoint = pick("AWS_ENDPOINT_URL", "endpoint_url", &conf, &creds);
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  if (!endpoint.empty() && endpoint.rfind("http://", 0) != 0 && endpoint.rfind("https://", 0) != 0) {
    return Status::InvalidArgument("S3 endpoint '" + endpoint + "' must start with http:// or https://");
  }
  c.path_style = !endpoint.empty();
  c.endpoint = endpoint.empty() ? "https://s3." + c.region + ".amazonaws.com" : endpoint;
  std::string addressing = Env("LAKEINDEX_S3_ADDRESSING");
  if (addressing.empty()) addressing = pick(nullptr, "addressing_style", &conf, nullptr);
  if (addressing == "path") {
    c.path_style = true;
  } else if (addressing == "virtual") {
    c.path_style = false;
  } else if (!addressing.empty() && addressing != "auto") {
    return Status::InvalidArgument("S3 addressing style '" + addressing + "': expected path or virtual");
  }
  ASSIGN_OR_RETURN(c.max_attempts, PositiveNumber("LAKEINDEX_S3_MAX_ATTEMPTS", c.max_attempts));
  ASSIGN_OR_RETURN(c.idle_timeout_ms, PositiveNumber("LAKEINDEX_S3_TIMEOUT_MS", c.idle_timeout_ms));
  ASSIGN_OR_RETURN(c.connect_timeout_ms, PositiveNumber("LAKEINDEX_S3_CONNECT_TIMEOUT_MS", c.connect_timeout_ms));
  ASSIGN_OR_RETURN(int part_mb, PositiveNumber("LAKEINDEX_S3_PART_MB", int(c.part_bytes >> 20)));
  if (part_mb < 5) return Status::InvalidArgument("LAKEINDEX_S3_PART_MB must be at least 5 (S3's smallest part)");
  c.part_bytes = size_t(part_mb) << 20;
  return c;
}

}  // namespace lakeindex::s3
