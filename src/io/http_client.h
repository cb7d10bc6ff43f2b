// A small HTTP/1.1 client over libcurl for the S3 store: one request at a time per call, easy
// handles pooled so that connections are reused, every transfer bounded in time.
// Thread safety: Perform may be called from any number of threads at once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lakeindex/status.h"

namespace lakeindex::http {

struct Request {
  std::string method;  // GET, HEAD, PUT, POST, DELETE
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string_view body;  // PUT/POST payload (must outlive Perform)
  // On a new connection, closed afterwards. libcurl re-sends a request on its own when a reused
  // connection proves dead before any answer; a request that must not be applied twice unseen (a
  // conditional write) asks for this.
  bool fresh_connection = false;
};

struct Response {
  long status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  std::string Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct ClientOptions {
  int connect_timeout_ms = 5000;
  // A transfer that moves no byte for this long is abandoned (a server that hangs).
  int idle_timeout_ms = 30000;
};

class Client {
 public:
  explicit Client(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sends the request and fills *out. A transport failure (connection refused or reset, timeout,
  // a body cut short) is IOError with *transient = true; any HTTP status is success here.
  Status Perform(const Request& req, Response* out, bool* transient);

 private:
  void* Acquire();
  void Release(void* handle);

  ClientOptions options_;
  std::mutex mu_;
  std::vector<void*> idle_;
};

}  // namespace lakeindex::http
