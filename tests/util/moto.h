// Test-only: a moto S3 server (tests/s3/moto_server.py) on a loopback port, started by the test
// and stopped with it. The Python interpreter that has moto and boto3 was found at configure
// time (LAKEINDEX_MOTO_PYTHON); without one, Start fails saying so.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "lakeindex/status.h"

namespace lakeindex::testing {

class MotoServer {
 public:
  // Starts a server with these buckets; with `auth`, requests must carry valid SigV4 signatures
  // of access_key()/secret_key(). Waits at most 90 s for it to come up.
  static Result<std::unique_ptr<MotoServer>> Start(const std::vector<std::string>& buckets, bool auth = false);
  ~MotoServer();  // closes the server's stdin, waits at most 10 s, then kills it

  // The test process's one server, with the bucket kSharedBucket, started on first use (the
  // process aborts saying why if it cannot start); the AWS_* variables of Environment() are set
  // in this process, so that CLI runs it starts reach the server.
  static constexpr const char* kSharedBucket = "lakeindex-test";
  static MotoServer& Shared();

  const std::string& endpoint() const { return endpoint_; }
  const std::string& access_key() const { return access_key_; }
  const std::string& secret_key() const { return secret_key_; }
  // The Python interpreter with boto3, for checks by an independent client.
  static std::string Python();
  // Runs a Python snippet with `s3`, a boto3 client of this server, defined: its stdout and
  // stderr, or IOError with them when it fails. boto3 is the independent client of the tests.
  Result<std::string> Boto3(const std::string& code) const;
  // Environment assignments ("AWS_ENDPOINT_URL=...", keys, region) for child processes.
  std::vector<std::string> Environment() const;

 private:
  MotoServer() = default;
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  std::string endpoint_, access_key_, secret_key_;
};

}  // namespace lakeindex::testing
