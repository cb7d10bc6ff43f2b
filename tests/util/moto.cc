#include "util/moto.h"

#include "util/test_util.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

extern char** environ;

namespace lakeindex::testing {

std::string MotoServer::Python() { return LAKEINDEX_MOTO_PYTHON; }

Result<std::unique_ptr<MotoServer>> MotoServer::Start(const std::vector<std::string>& buckets, bool auth) {
  const std::string python = Python();
  if (python.empty()) {
    return Status::NotSupported("no Python with moto and boto3 was found when the build was configured "
                                "(scripts/install-deps.sh checks for it); the S3 tests need one");
  }
  const std::string script = std::string(LAKEINDEX_SOURCE_DIR) + "/tests/s3/moto_server.py";
  std::vector<std::string> args = {python, script};
  for (const std::string& b : buckets) {
    args.push_back("--bucket");
    args.push_back(b);
  }
  if (auth) args.push_back("--auth");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0) return Status::IOError("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);  // request logs
  std::unique_ptr<MotoServer> server(new MotoServer());
  const int rc = posix_spawn(&server->pid_, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in_pipe[0]);
  close(out_pipe[1]);
  server->stdin_fd_ = in_pipe[1];
  if (rc != 0) {
    close(out_pipe[0]);
    server->pid_ = -1;
    return Status::IOError("cannot start " + python + ": " + std::strerror(rc));
  }
  std::string line;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (line.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{out_pipe[0], POLLIN, 0};
    if (poll(&p, 1, int(left.count())) <= 0) break;
    char buf[512];
    const ssize_t n = read(out_pipe[0], buf, sizeof(buf));
    if (n <= 0) break;
    line.append(buf, size_t(n));
  }
  close(out_pipe[0]);
  if (line.find('\n') == std::string::npos) {
    return Status::IOError("moto_server.py did not start within 90 s (output: '" + line + "')");
  }
  auto j = nlohmann::json::parse(line.substr(0, line.find('\n')), nullptr, false);
  if (j.is_discarded() || !j.contains("endpoint")) return Status::IOError("moto_server.py said '" + line + "'");
  server->endpoint_ = j["endpoint"];
  server->access_key_ = j["access_key"];
  server->secret_key_ = j["secret_key"];
  return server;
}

MotoServer::~MotoServer() {
  if (stdin_fd_ >= 0) close(stdin_fd_);
  if (pid_ <= 0) return;
  for (int i = 0; i < 100; ++i) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

MotoServer& MotoServer::Shared() {
  static std::unique_ptr<MotoServer> server = [] {
    auto s = Start({kSharedBucket});
    if (!s.ok()) {
      std::fprintf(stderr, "cannot start moto: %s\n", s.status().ToString().c_str());
      std::abort();
    }
    for (const std::string& kv : (*s)->Environment()) {
      const size_t eq = kv.find('=');
      setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 1);
    }
    return std::move(s).value();
  }();
  return *server;
}

Result<std::string> MotoServer::Boto3(const std::string& code) const {
  TempDir dir;
  const std::string script = dir.Join("boto.py"), out = dir.Join("boto.out");
  std::ofstream(script) << "import boto3, os, sys\n"
                        << "s3 = boto3.client('s3', endpoint_url='" << endpoint_ << "', region_name='us-east-1', "
                        << "aws_access_key_id='" << access_key_ << "', aws_secret_access_key='" << secret_key_ << "')\n"
                        << code << "\n";
  const int rc = std::system((Python() + " " + script + " > " + out + " 2>&1").c_str());
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (rc != 0) return Status::IOError("boto3 snippet failed: " + text);
  return text;
}

std::vector<std::string> MotoServer::Environment() const {
  return {"AWS_ENDPOINT_URL=" + endpoint_, "AWS_ACCESS_KEY_ID=" + access_key_, "AWS_SECRET_ACCESS_KEY=" + secret_key_,
          "AWS_REGION=us-east-1"};
}

}  // namespace lakeindex::testing
