// ObjectStore on S3 (or an S3-compatible server) over HTTP: GET with byte ranges, HEAD, PUT,
// PUT with If-None-Match: * for CreateIfAbsent (the commit point of a table), LIST v2 with
// continuation tokens, DELETE, and multipart uploads for streamed writes. Requests are signed
// with SigV4 (io/sigv4.h); configuration from the environment and the AWS files (io/s3_config.h).
//
// Failures: 5xx, 429, SlowDown, timeouts, resets and bodies cut short are retried with
// exponential backoff and full jitter, up to Config::max_attempts; a CreateIfAbsent retried
// after an attempt whose answer was lost reads the object back on 412 and succeeds if it holds
// exactly our bytes (so a commit that landed is not reported as lost). Messages name the
// bucket, the key and the HTTP status, never credentials or signatures; 404 is NotFound, 403 a
// message about credentials.
#pragma once

#include <memory>

#include "io/s3_config.h"
#include "lakeindex/object_store.h"

namespace lakeindex::s3 {

// Counters of what the store sent, for tests and benchmarks.
struct RequestCounters {
  std::atomic<uint64_t> requests{0};  // every HTTP request sent, retries included
  std::atomic<uint64_t> retries{0};
};

Result<std::unique_ptr<ObjectStore>> OpenStore(const Config& config, RequestCounters* counters = nullptr);

}  // namespace lakeindex::s3
