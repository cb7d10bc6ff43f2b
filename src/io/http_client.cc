#include "io/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>

namespace lakeindex::http {

namespace {

std::once_flag g_curl_init;

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  static_cast<Response*>(user)->body.append(data, size * n);
  return size * n;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  std::string_view line(data, size * n);
  auto* resp = static_cast<Response*>(user);
  if (line.rfind("HTTP/", 0) == 0) {
    resp->headers.clear();  // a new response (after a 100 Continue, or a redirect)
    return size * n;
  }
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) value.remove_suffix(1);
    resp->headers[name] = std::string(value);
  }
  return size * n;
}

}  // namespace

Client::Client(ClientOptions options) : options_(options) {
  std::call_once(g_curl_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

Client::~Client() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* Client::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  return curl_easy_init();
}

void Client::Release(void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(handle);
}

Status Client::Perform(const Request& req, Response* out, bool* transient) {
  *transient = false;
  *out = Response();
  CURL* curl = static_cast<CURL*>(Acquire());
  if (curl == nullptr) return Status::IOError("http: cannot create a curl handle");
  curl_easy_reset(curl);  // keeps the handle's open connections
  curl_easy_setopt(curl, CURLOPT_URL, req.url.c_str());
  if (req.fresh_connection) {
    curl_easy_setopt(curl, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(curl, CURLOPT_FORBID_REUSE, 1L);
  }
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, long(options_.connect_timeout_ms));
  // No byte for idle_timeout_ms: abandon (LOW_SPEED_TIME has a one-second resolution).
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, std::max(1L, long(options_.idle_timeout_ms / 1000)));
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, out);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, out);
  if (req.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (req.method == "GET") {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, req.method.c_str());
    if (req.method == "PUT" || req.method == "POST") {
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, req.body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(req.body.size()));
    }
  }
  curl_slist* headers = nullptr;
  for (const auto& [k, v] : req.headers) headers = curl_slist_append(headers, (k + ": " + v).c_str());
  // No 100-continue round trip; no form content type on bodies.
  headers = curl_slist_append(headers, "Expect:");
  if (req.method == "PUT" || req.method == "POST") {
    headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  const CURLcode rc = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  if (rc != CURLE_OK) {
    curl_easy_cleanup(curl);  // its connection may be in any state
    *transient = true;
    return Status::IOError(std::string(curl_easy_strerror(rc)));
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out->status);
  Release(curl);
  return Status::OK();
}

}  // namespace lakeindex::http
