// Where an S3 table lives and how to reach it: the bucket and key prefix from an s3:// URI, and
// the configuration users already have for the AWS tools:
//   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN   credentials
//   AWS_PROFILE (default "default"), AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials),
//   AWS_CONFIG_FILE (~/.aws/config)                               profiles: aws_access_key_id,
//                                                                 aws_secret_access_key,
//                                                                 aws_session_token, region,
//                                                                 endpoint_url, addressing_style
//   AWS_REGION, AWS_DEFAULT_REGION                                region (default us-east-1)
//   AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL                         an S3-compatible server
// and lakeindex's own knobs:
//   LAKEINDEX_S3_ADDRESSING = path | virtual   (default: path with a custom endpoint, else virtual)
//   LAKEINDEX_S3_MAX_ATTEMPTS (6), LAKEINDEX_S3_TIMEOUT_MS (idle transfer timeout, 30000),
//   LAKEINDEX_S3_CONNECT_TIMEOUT_MS (5000), LAKEINDEX_S3_PART_MB (multipart part size, 8)
// Environment variables win over the files, as in the AWS CLI.
#pragma once

#include <string>

#include "io/sigv4.h"
#include "lakeindex/status.h"

namespace lakeindex::s3 {

struct Location {
  std::string bucket;
  std::string prefix;  // key prefix of the table, no leading or trailing '/' ("" = bucket root)
};

struct Config {
  Location location;
  std::string region = "us-east-1";
  std::string endpoint;  // "https://s3.<region>.amazonaws.com" when not configured
  bool path_style = false;
  Credentials credentials;
  int max_attempts = 6;
  int connect_timeout_ms = 5000;
  int idle_timeout_ms = 30000;
  size_t part_bytes = size_t(8) << 20;
};

// "s3://bucket/some/prefix" → {bucket, "some/prefix"}. InvalidArgument naming the URI otherwise.
Result<Location> ParseUri(const std::string& uri);

// The configuration for `location` from the environment and the AWS files (see above).
// InvalidArgument when something set is malformed (a bad number, an unknown addressing style).
Result<Config> LoadConfig(const Location& location);

}  // namespace lakeindex::s3
