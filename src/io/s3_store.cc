#include "io/s3_store.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <ctime>
#include <random>
#include <thread>

#include "common/text.h"
#include "common/thread_pool.h"
#include "io/http_client.h"
#include "io/object_path.h"

namespace lakeindex::s3 {

namespace {

std::string AmzDate(std::chrono::system_clock::time_point t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

// "2026-12-02T14:10:13.000Z" → ms since epoch (0 if it does not parse).
int64_t ParseIsoMillis(const std::string& s) {
  std::tm tm{};
  int ms = 0;
  if (std::sscanf(s.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec, &ms) < 6) {
    return 0;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return int64_t(timegm(&tm)) * 1000 + ms;
}

// The text of every <tag>...</tag> inside `xml`, entities decoded. S3's listings and errors are
// flat enough that this is all the XML we need.
std::vector<std::string> XmlValues(std::string_view xml, std::string_view tag) {
  std::vector<std::string> out;
  const std::string open = "<" + std::string(tag) + ">", close = "</" + std::string(tag) + ">";
  size_t pos = 0;
  while ((pos = xml.find(open, pos)) != std::string_view::npos) {
    pos += open.size();
    const size_t end = xml.find(close, pos);
    if (end == std::string_view::npos) break;
    std::string_view raw = xml.substr(pos, end - pos);
    std::string text;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '&') {
        text.push_back(raw[i]);
        continue;
      }
      const size_t semi = raw.find(';', i);
      const std::string_view ent = semi == std::string_view::npos ? "" : raw.substr(i + 1, semi - i - 1);
      if (ent == "amp") text.push_back('&');
      else if (ent == "lt") text.push_back('<');
      else if (ent == "gt") text.push_back('>');
      else if (ent == "quot") text.push_back('"');
      else if (ent == "apos") text.push_back('\'');
      else if (ent.size() > 1 && ent[0] == '#') {
        const long code = ent[1] == 'x' ? std::strtol(std::string(ent.substr(2)).c_str(), nullptr, 16)
                                        : std::strtol(std::string(ent.substr(1)).c_str(), nullptr, 10);
        if (code > 0 && code < 128) text.push_back(char(code));
      } else {
        text.push_back('&');
        continue;
      }
      i = semi;
    }
    out.push_back(std::move(text));
    pos = end + close.size();
  }
  return out;
}


std::string XmlValue(std::string_view xml, std::string_view tag) {
  auto v = XmlValues(xml, tag);
  return v.empty() ? std::string() : v.front();
}

// Percent-decoding of keys listed with encoding-type=url.
std::string UrlDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out.push_back(char(std::strtol(std::string(s.substr(i + 1, 2)).c_str(), nullptr, 16)));
      i += 2;
    } else if (s[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

bool Retryable(long status) { return status == 429 || status >= 500; }

class S3Store;

// Streams an object as a multipart upload once it outgrows one part; a smaller object is one PUT
// at Close. Abandoning it aborts the upload, so no object appears and no parts are kept.
class MultipartWriter final : public ObjectWriter {
 public:
  MultipartWriter(S3Store* store, std::string path) : ObjectWriter(std::move(path)), store_(store) {}
  ~MultipartWriter() override;

 protected:
  Status DoAppend(std::string_view data) override;
  Status DoClose() override;

 private:
  Status Flush();

  S3Store* store_;
  std::string buffer_;
  std::string upload_id_;
  std::vector<std::string> etags_;
};

class S3Store final : public ObjectStore {
 public:
  S3Store(const Config& config, RequestCounters* counters)
      : config_(config),
        counters_(counters),
        http_(http::ClientOptions{config.connect_timeout_ms, config.idle_timeout_ms}) {}

  struct Call {
    std::string method;
    std::string path;  // object path inside the table ("" = the bucket, for LIST)
    std::vector<std::pair<std::string, std::string>> query;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string_view body;
    bool fresh_connection = false;  // never on a reused connection (http::Request)
  };

  // Sends a signed request, retrying transient failures; the final response (any status) or
  // the last transport error naming the object.
  Result<http::Response> Send(const Call& call, int* attempts_out = nullptr) {
    const std::string key = Key(call.path);
    std::string host, url_path;
    Target(key, &host, &url_path);
    std::string url = Scheme() + "://" + host + url_path;
    const std::string query = CanonicalQuery(call.query);
    if (!query.empty()) url += "?" + query;
    const std::string payload_hash = Sha256Hex(call.body);
    std::optional<std::mt19937_64> rng;  // seeded at the first retry: most requests never need it
    Status last;
    http::Response resp;
    for (int attempt = 1; attempt <= config_.max_attempts; ++attempt) {
      if (attempts_out) *attempts_out = attempt;
      if (attempt > 1) {
        if (counters_) ++counters_->retries;
        // Full jitter over an exponential ceiling: 50 ms, 100 ms, ... capped at 5 s.
        const int64_t ceiling = std::min<int64_t>(5000, int64_t(50) << std::min(attempt - 2, 10));
        if (!rng) rng.emplace(std::random_device{}());
        std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int64_t>(ceiling / 2, ceiling)(*rng)));
      }
      SigningInput in{call.method, url_path, call.query, call.headers, payload_hash};
      const std::string date = AmzDate(std::chrono::system_clock::now());
      in.headers.emplace_back("host", host);
      in.headers.emplace_back("x-amz-date", date);
      in.headers.emplace_back("x-amz-content-sha256", payload_hash);
      if (!config_.credentials.session_token.empty()) {
        in.headers.emplace_back("x-amz-security-token", config_.credentials.session_token);
      }
      http::Request req{call.method, url, in.headers, call.body, call.fresh_connection};
      if (!config_.credentials.empty()) {
        req.headers.emplace_back("Authorization", Authorization(in, config_.credentials, date, config_.region, "s3"));
      }
      bool transient = false;
      if (counters_) ++counters_->requests;
      Status st = http_.Perform(req, &resp, &transient);
      if (!st.ok()) {
        last = Status::IOError(What(call) + ": " + st.message() + " (endpoint " + config_.endpoint + ")");
        if (transient) continue;
        return last;
      }
      if (Retryable(resp.status)) {
        last = Status::IOError(What(call) + ": HTTP " + std::to_string(resp.status) + ErrorDetail(resp));
        continue;
      }
      return resp;
    }
    return Status::IOError(last.message() + " (gave up after " + std::to_string(config_.max_attempts) + " attempts)");
  }

  // An error for a response that is not what the call expected.
  Status Unexpected(const Call& call, const http::Response& resp) const {
    const std::string what = What(call);
    if (resp.status == 404) return Status::NotFound(what + ": not found" + ErrorDetail(resp));
    if (resp.status == 403 || resp.status == 401) {
      return Status::IOError(what + ": access denied (HTTP " + std::to_string(resp.status) + ErrorDetail(resp) +
                             "); check the credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or AWS_PROFILE)"
                             " and that they may use this bucket");
    }
    return Status::IOError(what + ": HTTP " + std::to_string(resp.status) + ErrorDetail(resp));
  }

  Result<std::string> Read(std::string_view path) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    Call call{"GET", std::string(path), {}, {}, {}};
    ASSIGN_OR_RETURN(http::Response resp, Send(call));
    if (resp.status != 200) return Unexpected(call, resp);
    return std::move(resp.body);
  }

  Result<std::string> ReadRange(std::string_view path, uint64_t offset, uint64_t length) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    auto past_end = [&](uint64_t size) {
      return Status::Corruption(Describe() + "/" + std::string(path) + ": range [" + std::to_string(offset) + ", +" +
                                std::to_string(length) + ") is past the end of the object (size " +
                                std::to_string(size) + ")");
    };
    if (length == 0 || offset > UINT64_MAX - length) {
      ASSIGN_OR_RETURN(uint64_t size, Size(path));
      if (offset > size || length > size - offset) return past_end(size);
      return std::string();
    }
    Call call{"GET", std::string(path), {}, {{"Range", "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1)}}, {}};
    ASSIGN_OR_RETURN(http::Response resp, Send(call));
    if (resp.status == 416) {
      ASSIGN_OR_RETURN(uint64_t size, Size(path));
      return past_end(size);
    }
    if (resp.status == 200) {  // the whole object (a server that ignores ranges)
      if (offset > resp.body.size() || length > resp.body.size() - offset) return past_end(resp.body.size());
      return resp.body.substr(offset, length);
    }
    if (resp.status != 206) return Unexpected(call, resp);
    if (resp.body.size() != length) {
      // Content-Range: bytes a-b/total tells a short object from a short transfer.
      const std::string range = resp.Header("content-range");
      const size_t slash = range.rfind('/');
      const uint64_t total = slash == std::string::npos ? 0 : std::strtoull(range.c_str() + slash + 1, nullptr, 10);
      if (total != 0 && offset + length > total) return past_end(total);
      return Status::IOError(What(call) + ": got " + std::to_string(resp.body.size()) + " of " +
                             std::to_string(length) + " bytes");
    }
    return std::move(resp.body);
  }

  // Ranges sorted and merged when at most the hint's hole apart (a gap costs transfer time; a
  // request costs a first-byte latency of tens of ms on S3), at most its max_range a request; the
  // merged requests go out together on up to kRemoteFanOut connections: one round trip.
  static constexpr uint64_t kMergeGap = kRemoteReadHint.max_hole;
  static constexpr uint64_t kMaxMerged = kRemoteReadHint.max_range;

  Result<std::vector<std::string>> ReadRanges(std::string_view path, const std::vector<ByteRange>& ranges) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    std::vector<size_t> order(ranges.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ranges[a].offset < ranges[b].offset; });
    struct Merged {
      uint64_t begin, end;
      std::vector<size_t> members;
    };
    std::vector<Merged> merged;
    for (size_t i : order) {
      const ByteRange& r = ranges[i];
      if (r.length == 0 || r.offset > UINT64_MAX - r.length) {
        // Empty or impossible: ReadRange gives the answer (and the error) for these alone.
        merged.push_back({r.offset, r.offset, {i}});
        continue;
      }
      const uint64_t end = r.offset + r.length;
      if (!merged.empty() && merged.back().end > merged.back().begin && r.offset <= merged.back().end + kMergeGap &&
          std::max(end, merged.back().end) - merged.back().begin <= kMaxMerged) {
        merged.back().end = std::max(merged.back().end, end);
        merged.back().members.push_back(i);
      } else {
        merged.push_back({r.offset, end, {i}});
      }
    }
    std::vector<std::optional<Result<std::string>>> fetched(merged.size());
    ParallelForThreads(merged.size(), kRemoteFanOut, [&](size_t m) {
      if (merged[m].end == merged[m].begin) {
        const ByteRange& r = ranges[merged[m].members[0]];
        fetched[m] = ReadRange(path, r.offset, r.length);
      } else {
        fetched[m] = ReadRange(path, merged[m].begin, merged[m].end - merged[m].begin);
      }
    });
    std::vector<std::string> out(ranges.size());
    for (size_t m = 0; m < merged.size(); ++m) {
      if (!fetched[m]->ok()) return fetched[m]->status();
      const std::string& bytes = **fetched[m];
      for (size_t i : merged[m].members) {
        out[i] = merged[m].end == merged[m].begin ? bytes : bytes.substr(ranges[i].offset - merged[m].begin, ranges[i].length);
      }
    }
    return out;
  }

  // One ranged GET: at most max_bytes + 1 bytes come back, and Content-Range tells the size.
  Result<std::string> ReadBounded(std::string_view path, uint64_t max_bytes) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    auto too_large = [&](uint64_t size) {
      return Status::Corruption(std::string(path) + " in " + Describe() + ": " + std::to_string(size) +
                                " bytes, more than the " + std::to_string(max_bytes) + " it may hold");
    };
    if (max_bytes == UINT64_MAX) return Read(path);
    Call call{"GET", std::string(path), {}, {{"Range", "bytes=0-" + std::to_string(max_bytes)}}, {}};
    ASSIGN_OR_RETURN(http::Response resp, Send(call));
    if (resp.status == 416) {  // an empty object has no byte 0
      ASSIGN_OR_RETURN(uint64_t size, Size(path));
      if (size != 0) return Status::IOError(What(call) + ": HTTP 416 for an object of " + std::to_string(size) + " bytes");
      return std::string();
    }
    if (resp.status != 200 && resp.status != 206) return Unexpected(call, resp);
    uint64_t total = resp.body.size();
    if (resp.status == 206) {
      const std::string range = resp.Header("content-range");
      const size_t slash = range.rfind('/');
      if (slash != std::string::npos && range.compare(slash + 1, 1, "*") != 0) {
        total = std::strtoull(range.c_str() + slash + 1, nullptr, 10);
      }
    }
    if (total > max_bytes || resp.body.size() > max_bytes) return too_large(std::max<uint64_t>(total, resp.body.size()));
    if (resp.body.size() != total) {
      return Status::IOError(What(call) + ": got " + std::to_string(resp.body.size()) + " of " + std::to_string(total) + " bytes");
    }
    return std::move(resp.body);
  }

  Result<uint64_t> Size(std::string_view path) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    Call call{"HEAD", std::string(path), {}, {}, {}};
    ASSIGN_OR_RETURN(http::Response resp, Send(call));
    if (resp.status != 200) return Unexpected(call, resp);
    const std::string len = resp.Header("content-length");
    if (len.empty()) return Status::IOError(What(call) + ": no Content-Length in the answer");
    return uint64_t(std::strtoull(len.c_str(), nullptr, 10));
  }

  Status Write(std::string_view path, std::string_view data) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    Call call{"PUT", std::string(path), {}, {}, data};
    ASSIGN_OR_RETURN(http::Response resp, Send(call));
    if (resp.status != 200) return Unexpected(call, resp);
    return Status::OK();
  }

  Status CreateIfAbsent(std::string_view path, std::string_view data) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    Call call{"PUT", std::string(path), {}, {{"If-None-Match", "*"}}, data};
    // 409 (ConditionalRequestConflict: a concurrent conditional write in flight) is retried here.
    // Sent on a new connection: libcurl re-sends a request by itself when a reused connection
    // turns out dead, and a conditional write re-sent after it was applied would come back 412.
    call.fresh_connection = true;
    for (int round = 0; round < config_.max_attempts; ++round) {
      ASSIGN_OR_RETURN(http::Response resp, Send(call));
      if (resp.status == 200) return Status::OK();
      if (resp.status == 409) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20 << std::min(round, 6)));
        continue;
      }
      // Maybe our own earlier attempt, its answer lost: the caller reads the object back to know
      // (table.cc, CreateManifest).
      if (resp.status == 412) return Status::AlreadyExists(Describe() + "/" + std::string(path) + ": already exists");
      if (resp.status == 501) {
        return Status::NotSupported(What(call) + ": the server does not support conditional writes "
                                    "(If-None-Match), which commits need");
      }
      return Unexpected(call, resp);
    }
    return Status::IOError(What(call) + ": conditional write kept conflicting (HTTP 409)");
  }

  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override {
    RETURN_IF_ERROR(ValidateObjectPrefix(prefix));
    const std::string root = config_.location.prefix.empty() ? "" : config_.location.prefix + "/";
    std::vector<ObjectInfo> out;
    std::string token;
    for (int page = 0; page < 1000000; ++page) {
      Call call{"GET", "", {{"list-type", "2"}, {"prefix", root + std::string(prefix)}, {"encoding-type", "url"}}, {}, {}};
      if (!token.empty()) call.query.emplace_back("continuation-token", token);
      ASSIGN_OR_RETURN(http::Response resp, Send(call));
      if (resp.status != 200) return Unexpected(call, resp);
      for (const std::string& item : XmlValues(resp.body, "Contents")) {
        std::string key = UrlDecode(XmlValue(item, "Key"));
        if (key.rfind(root, 0) != 0) continue;
        out.push_back(ObjectInfo{key.substr(root.size()), std::strtoull(XmlValue(item, "Size").c_str(), nullptr, 10),
                                 ParseIsoMillis(XmlValue(item, "LastModified"))});
      }
      if (XmlValue(resp.body, "IsTruncated") != "true") break;
      token = XmlValue(resp.body, "NextContinuationToken");
      if (token.empty()) return Status::IOError(What(call) + ": truncated listing without a continuation token");
    }
    std::sort(out.begin(), out.end(), [](const ObjectInfo& a, const ObjectInfo& b) { return a.path < b.path; });
    return out;
  }

  // A streamed object killed before it completed is an unfinished multipart upload: its parts
  // stay (and are billed) until aborted. Those under `prefix` started before the cutoff are
  // aborted (ListMultipartUploads, then AbortMultipartUpload each).
  Result<std::vector<std::string>> RemoveAbandonedWrites(std::string_view prefix, int64_t cutoff_ms) override {
    RETURN_IF_ERROR(ValidateObjectPrefix(prefix));
    const std::string root = config_.location.prefix.empty() ? "" : config_.location.prefix + "/";
    std::vector<std::pair<std::string, std::string>> doomed;  // (path, upload id)
    std::string key_marker, id_marker;
    for (int page = 0; page < 1000000; ++page) {
      Call call{"GET", "", {{"uploads", ""}, {"prefix", root + std::string(prefix)}, {"encoding-type", "url"}}, {}, {}};
      if (!key_marker.empty()) call.query.emplace_back("key-marker", key_marker);
      if (!id_marker.empty()) call.query.emplace_back("upload-id-marker", id_marker);
      ASSIGN_OR_RETURN(http::Response resp, Send(call));
      if (resp.status != 200) return Unexpected(call, resp);
      for (const std::string& item : XmlValues(resp.body, "Upload")) {
        const std::string key = UrlDecode(XmlValue(item, "Key"));
        const int64_t started = ParseIsoMillis(XmlValue(item, "Initiated"));
        if (key.rfind(root, 0) != 0 || started == 0 || started > cutoff_ms) continue;
        doomed.emplace_back(key.substr(root.size()), XmlValue(item, "UploadId"));
      }
      if (XmlValue(resp.body, "IsTruncated") != "true") break;
      key_marker = UrlDecode(XmlValue(resp.body, "NextKeyMarker"));
      id_marker = XmlValue(resp.body, "NextUploadIdMarker");
      if (key_marker.empty()) return Status::IOError(What(call) + ": truncated listing without a next marker");
    }
    std::vector<std::string> removed;
    for (const auto& [path, id] : doomed) {
      if (!ValidateObjectPath(path).ok() || id.empty()) continue;  // not one of ours to name
      Call call{"DELETE", path, {{"uploadId", id}}, {}, {}};
      ASSIGN_OR_RETURN(http::Response resp, Send(call));
      if (resp.status != 204 && resp.status != 200 && resp.status != 404) return Unexpected(call, resp);
      removed.push_back(path + " (unfinished upload)");
    }
    return removed;
  }

  Status Delete(std::string_view path) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    Call call{"DELETE", std::string(path), {}, {}, {}};
    ASSIGN_OR_RETURN(http::Response resp, Send(call));
    if (resp.status == 204 || resp.status == 200 || resp.status == 404) return Status::OK();
    return Unexpected(call, resp);
  }

  // DeleteObjects: up to 1,000 keys a request; Quiet, so the answer lists only the failures.
  Status DeleteMany(const std::vector<std::string>& paths) override {
    constexpr size_t kBatch = 1000;
    for (const std::string& path : paths) RETURN_IF_ERROR(ValidateObjectPath(path));
    for (size_t from = 0; from < paths.size(); from += kBatch) {
      const size_t to = std::min(paths.size(), from + kBatch);
      if (to - from == 1) {
        RETURN_IF_ERROR(Delete(paths[from]));
        continue;
      }
      std::string xml = "<Delete><Quiet>true</Quiet>";
      for (size_t i = from; i < to; ++i) xml += "<Object><Key>" + XmlEscape(Key(paths[i])) + "</Key></Object>";
      xml += "</Delete>";
      Call call{"POST", "", {{"delete", ""}}, {{"content-md5", Md5Base64(xml)}, {"content-type", "application/xml"}}, xml};
      ASSIGN_OR_RETURN(http::Response resp, Send(call));
      if (resp.status != 200) return Unexpected(call, resp);
      const std::vector<std::string> errors = XmlValues(resp.body, "Error");
      if (!errors.empty()) {
        return Status::IOError(What(call) + ": " + std::to_string(errors.size()) + " of " + std::to_string(to - from) +
                               " objects not deleted, the first '" + XmlValue(errors[0], "Key") + "': " +
                               XmlValue(errors[0], "Code") + " " + XmlValue(errors[0], "Message"));
      }
    }
    return Status::OK();
  }

  Result<std::unique_ptr<ObjectWriter>> OpenWriter(std::string_view path) override {
    RETURN_IF_ERROR(ValidateObjectPath(path));
    return std::unique_ptr<ObjectWriter>(new MultipartWriter(this, std::string(path)));
  }

  std::string Describe() const override {
    return "s3://" + config_.location.bucket + (config_.location.prefix.empty() ? "" : "/" + config_.location.prefix);
  }

  bool remote() const override { return true; }
  ReadHint read_hint() const override { return kRemoteReadHint; }

  std::string What(const Call& call) const {
    const std::string object = !call.path.empty() ? "'" + call.path + "'" : call.method == "POST" ? "batch delete" : "listing";
    return "S3 " + call.method + " " + object + " in " + Describe();
  }

  const Config& config() const { return config_; }

 private:
  std::string Key(const std::string& path) const {
    if (path.empty()) return "";
    return config_.location.prefix.empty() ? path : config_.location.prefix + "/" + path;
  }
  std::string Scheme() const { return config_.endpoint.substr(0, config_.endpoint.find("://")); }
  void Target(const std::string& key, std::string* host, std::string* url_path) const {
    std::string authority = config_.endpoint.substr(config_.endpoint.find("://") + 3);
    const std::string encoded = UriEncode(key, true);
    if (config_.path_style) {
      *host = authority;
      *url_path = "/" + config_.location.bucket + (key.empty() ? "" : "/" + encoded);
    } else {
      *host = config_.location.bucket + "." + authority;
      *url_path = "/" + encoded;
    }
  }
  static std::string ErrorDetail(const http::Response& resp) {
    const std::string code = XmlValue(resp.body, "Code");
    const std::string message = XmlValue(resp.body, "Message");
    if (code.empty()) return "";
    return ", " + code + (message.empty() ? "" : ": " + message);
  }

  Config config_;
  RequestCounters* counters_;
  http::Client http_;
};

MultipartWriter::~MultipartWriter() {
  if (!upload_id_.empty()) {  // not completed: abort, so that no parts are kept (best effort)
    (void)store_->Send({"DELETE", path(), {{"uploadId", upload_id_}}, {}, {}});
  }
}

Status MultipartWriter::DoAppend(std::string_view data) {
  buffer_.append(data);
  if (buffer_.size() >= store_->config().part_bytes) return Flush();
  return Status::OK();
}

Status MultipartWriter::Flush() {
  if (upload_id_.empty()) {
    S3Store::Call start{"POST", path(), {{"uploads", ""}}, {}, {}};
    ASSIGN_OR_RETURN(http::Response resp, store_->Send(start));
    if (resp.status != 200) return store_->Unexpected(start, resp);
    upload_id_ = XmlValue(resp.body, "UploadId");
    if (upload_id_.empty()) return Status::IOError(store_->What(start) + ": no UploadId in the answer");
  }
  S3Store::Call part{"PUT", path(), {{"partNumber", std::to_string(etags_.size() + 1)}, {"uploadId", upload_id_}}, {}, buffer_};
  ASSIGN_OR_RETURN(http::Response resp, store_->Send(part));
  if (resp.status != 200) return store_->Unexpected(part, resp);
  const std::string etag = resp.Header("etag");
  if (etag.empty()) return Status::IOError(store_->What(part) + ": no ETag for part " + std::to_string(etags_.size() + 1));
  etags_.push_back(etag);
  buffer_.clear();
  return Status::OK();
}

Status MultipartWriter::DoClose() {
  if (upload_id_.empty()) {  // one part's worth or less: a single PUT
    Status st = store_->Write(path(), buffer_);
    buffer_ = std::string();
    return st;
  }
  if (!buffer_.empty()) RETURN_IF_ERROR(Flush());
  std::string xml = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < etags_.size(); ++i) {
    xml += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" + etags_[i] + "</ETag></Part>";
  }
  xml += "</CompleteMultipartUpload>";
  S3Store::Call done{"POST", path(), {{"uploadId", upload_id_}}, {}, xml};
  ASSIGN_OR_RETURN(http::Response resp, store_->Send(done));
  // CompleteMultipartUpload may answer 200 with an error in the body.
  if (resp.status != 200 || resp.body.find("<Error>") != std::string::npos) return store_->Unexpected(done, resp);
  upload_id_.clear();
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<ObjectStore>> OpenStore(const Config& config, RequestCounters* counters) {
  if (config.location.bucket.empty()) return Status::InvalidArgument("S3 store without a bucket");
  return std::unique_ptr<ObjectStore>(new S3Store(config, counters));
}

}  // namespace lakeindex::s3
