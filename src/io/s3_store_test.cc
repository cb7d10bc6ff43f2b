// The S3 store against moto (a real S3 emulator on a loopback port, started here) and against a
// scripted HTTP server for the faults moto cannot produce; boto3 as the independent client.
#include "io/s3_store.h"

#include <arpa/inet.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <thread>

#include "io/store_conformance.h"
#include "util/moto.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

constexpr const char* kBucket = testing::MotoServer::kSharedBucket;

testing::MotoServer& Moto() { return testing::MotoServer::Shared(); }

s3::Config MotoConfig(const std::string& prefix, const testing::MotoServer& moto) {
  s3::Config c;
  c.location = {kBucket, prefix};
  c.endpoint = moto.endpoint();
  c.path_style = true;
  c.credentials = {moto.access_key(), moto.secret_key(), ""};
  return c;
}

std::string FreshPrefix() {
  static std::atomic<int> n{0};
  return "t" + std::to_string(::getpid()) + "-" + std::to_string(n++) + "/table";
}

std::shared_ptr<ObjectStore> MotoStore(const std::string& prefix) {
  auto store = s3::OpenStore(MotoConfig(prefix, Moto()));
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return std::shared_ptr<ObjectStore>(std::move(store).value());
}

INSTANTIATE_TEST_SUITE_P(S3, ObjectStoreConformance,
                         ::testing::Values(StoreFactory{"moto", [](const std::string&) { return MotoStore(FreshPrefix()); }}),
                         StoreFactoryName);

// boto3 on the shared server: its output (the test fails if the snippet does).
std::string Boto3(const std::string& code) {
  auto out = Moto().Boto3(code);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::string();
}

TEST(S3StoreTest, Boto3ReadsWhatWeWriteAndWeReadWhatItWrites) {
  const std::string prefix = FreshPrefix();
  auto store = MotoStore(prefix);
  const std::string binary("a\0b\xff\nc", 6);
  ASSERT_TRUE(store->Write("data/x y+z.bin", binary).ok());
  ASSERT_TRUE(store->CreateIfAbsent("_versions/1.manifest", "{}").ok());
  // boto3 lists the keys under the prefix and reads the bytes back.
  const std::string listed = Boto3("r = s3.list_objects_v2(Bucket='" + std::string(kBucket) + "', Prefix='" + prefix +
                                   "/')\nprint(sorted(o['Key'] for o in r['Contents']))\n"
                                   "print(s3.get_object(Bucket='" + kBucket + "', Key='" + prefix +
                                   "/data/x y+z.bin')['Body'].read().hex())");
  EXPECT_EQ(listed, "['" + prefix + "/_versions/1.manifest', '" + prefix + "/data/x y+z.bin']\n610062ff0a63\n");
  // boto3 uploads; we list and read.
  Boto3("s3.put_object(Bucket='" + std::string(kBucket) + "', Key='" + prefix + "/up/é&<.txt', Body=b'from boto3')");
  auto list = store->List("up/");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].path, "up/é&<.txt");
  EXPECT_EQ((*list)[0].size, 10u);
  EXPECT_GT((*list)[0].mtime_ms, 1700000000000);
  EXPECT_EQ(store->Read("up/é&<.txt").value(), "from boto3");
  EXPECT_EQ(store->ReadRange("up/é&<.txt", 5, 5).value(), "boto3");
}

TEST(S3StoreTest, ListFollowsContinuationTokensAndDeleteManyBatches) {
  const std::string prefix = FreshPrefix();
  auto store = MotoStore(prefix);
  // More than one page of 1,000 keys.
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < 1203; i += 8) {
        char key[32];
        std::snprintf(key, sizeof(key), "k/%05d", i);
        ASSERT_TRUE(store->Write(key, "x").ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  auto list = store->List("k/");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 1203u);
  EXPECT_EQ(list->front().path, "k/00000");
  EXPECT_EQ(list->back().path, "k/01202");

  // DeleteMany: 1,000 keys a request (XML-escaped), absent keys fine; boto3 finds none left.
  const std::string odd = "k/a&b <c>'\".txt";
  ASSERT_TRUE(store->Write(odd, "x").ok());
  std::vector<std::string> doomed = {odd, "k/absent"};
  for (const ObjectInfo& o : *list) doomed.push_back(o.path);
  s3::RequestCounters counters;
  auto counted = s3::OpenStore(MotoConfig(prefix, Moto()), &counters);
  ASSERT_TRUE(counted.ok()) << counted.status().ToString();
  Status deleted = (*counted)->DeleteMany(doomed);
  ASSERT_TRUE(deleted.ok()) << deleted.ToString();
  EXPECT_EQ(counters.requests.load(), 2u);  // 1,205 keys
  EXPECT_EQ(Boto3("r = s3.list_objects_v2(Bucket='" + std::string(kBucket) + "', Prefix='" + prefix +
                  "/k/')\nprint(r['KeyCount'])"),
            "0\n");
  EXPECT_TRUE((*counted)->DeleteMany({}).ok());
  EXPECT_TRUE((*counted)->DeleteMany({"../escape"}).IsInvalidArgument());
}

// A writer killed mid-object leaves an unfinished multipart upload (made here with boto3):
// RemoveAbandonedWrites aborts those under the table's prefix started before the cutoff, and
// boto3 then lists none there; another prefix's stays.
TEST(S3StoreTest, UnfinishedUploadsAreAbortedPastTheCutoff) {
  const std::string prefix = FreshPrefix(), other = FreshPrefix();
  auto store = MotoStore(prefix);
  const std::string bucket = kBucket;
  for (const std::string& key : {prefix + "/data/killed.parquet", prefix + "/_tmp/x/run.parquet", other + "/data/y"}) {
    Boto3("u = s3.create_multipart_upload(Bucket='" + bucket + "', Key='" + key + "')\n"
          "s3.upload_part(Bucket='" + bucket + "', Key='" + key + "', UploadId=u['UploadId'], PartNumber=1, Body=b'x' * 1000)");
  }
  const std::string count = "r = s3.list_multipart_uploads(Bucket='" + bucket + "', Prefix='%s/')\nprint(len(r.get('Uploads', [])))";
  auto uploads = [&](const std::string& p) {
    std::string code = count;
    code.replace(code.find("%s"), 2, p);
    return Boto3(code);
  };
  ASSERT_EQ(uploads(prefix), "2\n");
  auto removed = store->RemoveAbandonedWrites("", 0);  // all started after the cutoff
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_TRUE(removed->empty());
  removed = store->RemoveAbandonedWrites("_tmp/", std::numeric_limits<int64_t>::max());
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  ASSERT_EQ(removed->size(), 1u);
  EXPECT_EQ(removed->front(), "_tmp/x/run.parquet (unfinished upload)");
  removed = store->RemoveAbandonedWrites("", std::numeric_limits<int64_t>::max());
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  ASSERT_EQ(removed->size(), 1u);
  EXPECT_EQ(removed->front(), "data/killed.parquet (unfinished upload)");
  EXPECT_EQ(uploads(prefix), "0\n");
  EXPECT_EQ(uploads(other), "1\n") << "another table's upload stays";
}

TEST(S3StoreTest, StreamedWritesUseMultipartUploads) {
  const std::string prefix = FreshPrefix();
  auto config = MotoConfig(prefix, Moto());
  config.part_bytes = size_t(5) << 20;
  s3::RequestCounters counters;
  auto store = s3::OpenStore(config, &counters).value();
  std::string big(11 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = char(i * 2654435761u >> 24);
  {
    auto w = store->OpenWriter("big.bin").value();
    for (size_t off = 0; off < big.size(); off += 1 << 20) ASSERT_TRUE(w->Append(std::string_view(big).substr(off, 1 << 20)).ok());
    EXPECT_TRUE(store->Read("big.bin").status().IsNotFound());  // nothing visible before Close
    const uint64_t before = counters.requests;
    ASSERT_TRUE(w->Close().ok());
    EXPECT_GE(counters.requests - before, 2u);  // the last part and the completion
  }
  EXPECT_EQ(store->Size("big.bin").value(), big.size());
  EXPECT_TRUE(store->Read("big.bin").value() == big);
  {  // abandoned after two parts: no object, and the upload is aborted
    auto w = store->OpenWriter("gone.bin").value();
    ASSERT_TRUE(w->Append(big).ok());
  }
  EXPECT_TRUE(store->Read("gone.bin").status().IsNotFound());
  // (Under this test's prefix: another test of the process may leave one of its own on purpose.)
  const std::string uploads = Boto3("print(len(s3.list_multipart_uploads(Bucket='" + std::string(kBucket) + "', Prefix='" +
                                    prefix + "/').get('Uploads', [])))");
  EXPECT_EQ(uploads, "0\n");
}

// Signatures checked by moto the way botocore computes them; bad secrets are refused with a
// message about credentials that never shows a secret.
TEST(S3StoreTest, SignedRequestsAndBadCredentials) {
  auto moto = testing::MotoServer::Start({"signed-bucket"}, /*auth=*/true);
  ASSERT_TRUE(moto.ok()) << moto.status().ToString();
  s3::Config good;
  good.location = {"signed-bucket", "t"};
  good.endpoint = (*moto)->endpoint();
  good.path_style = true;
  good.credentials = {(*moto)->access_key(), (*moto)->secret_key(), ""};
  auto store = s3::OpenStore(good).value();
  Status written = store->Write("a/b c.txt", "signed");
  ASSERT_TRUE(written.ok()) << written.ToString();
  auto range = store->ReadRange("a/b c.txt", 1, 3);
  ASSERT_TRUE(range.ok()) << range.status().ToString();
  EXPECT_EQ(*range, "ign");
  // A listing signed for a prefix with '/' is refused by moto's check, also when boto3 signs it
  // (moto 5.2 verifies against the decoded query); a store at the bucket's root lists without one.
  good.location.prefix = "";
  auto root_store = s3::OpenStore(good).value();
  auto listed = root_store->List("");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].path, "t/a/b c.txt");
  ASSERT_TRUE(store->CreateIfAbsent("m", "1").ok());

  s3::Config bad = good;
  bad.credentials.secret_key = "not-the-secret-key-XYZZY";
  auto bad_store = s3::OpenStore(bad).value();
  for (Status st : {bad_store->Read("a/b c.txt").status(), bad_store->Write("x", "y"),
                    bad_store->List("").status()}) {
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("credentials"), std::string::npos) << st.ToString();
    EXPECT_NE(st.message().find("signed-bucket"), std::string::npos) << st.ToString();
    EXPECT_EQ(st.message().find("XYZZY"), std::string::npos) << st.ToString();
    EXPECT_EQ(st.message().find(good.credentials.secret_key), std::string::npos) << st.ToString();
    EXPECT_EQ(st.message().find("Signature="), std::string::npos) << st.ToString();
  }
}

TEST(S3StoreTest, MissingBucketIsNotFoundNamingIt) {
  auto config = MotoConfig("t", Moto());
  config.location.bucket = "no-such-bucket";
  auto store = s3::OpenStore(config).value();
  Status st = store->Read("x").status();
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_NE(st.message().find("no-such-bucket"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("NoSuchBucket"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace lakeindex

namespace lakeindex {
namespace {

// A loopback HTTP server answering each request with the next scripted response (the last one
// repeats): raw HTTP text sent before closing the connection, "DROP" (close without an
// answer, after reading the request), or "HANG" (never answer). Bounded: stops on destruction.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<std::string> script) : script_(std::move(script)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(listen(fd_, 16), 0);
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedServer() {
    stop_ = true;
    thread_.join();
    for (int fd : hung_) close(fd);
    close(fd_);
  }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() const { return requests_; }

  static std::string Answer(int status, const std::string& body, const std::string& extra_headers = "") {
    return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\nConnection: close\r\n" + extra_headers + "\r\n" + body;
  }

 private:
  void Serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int conn = accept(fd_, nullptr, nullptr);
      if (conn < 0) continue;
      // The request: headers, then Content-Length bytes of body (bounded by 5 s of waiting).
      std::string req;
      size_t need = std::string::npos;
      for (int spins = 0; spins < 100 && !stop_; ++spins) {
        pollfd c{conn, POLLIN, 0};
        if (poll(&c, 1, 50) <= 0) continue;
        char buf[65536];
        const ssize_t n = read(conn, buf, sizeof(buf));
        if (n <= 0) break;
        req.append(buf, size_t(n));
        const size_t end = req.find("\r\n\r\n");
        if (end != std::string::npos && need == std::string::npos) {
          size_t length = 0;
          const size_t at = req.find("Content-Length: ");
          if (at != std::string::npos && at < end) length = std::strtoull(req.c_str() + at + 16, nullptr, 10);
          need = end + 4 + length;
        }
        if (need != std::string::npos && req.size() >= need) break;
      }
      const std::string& answer = script_[std::min<size_t>(size_t(requests_), script_.size() - 1)];
      ++requests_;
      if (answer == "HANG") {
        hung_.push_back(conn);
        continue;
      }
      if (answer != "DROP") (void)!write(conn, answer.data(), answer.size());
      close(conn);
    }
  }

  std::vector<std::string> script_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::vector<int> hung_;
  std::thread thread_;
};

s3::Config ScriptedConfig(const ScriptedServer& server) {
  s3::Config c;
  c.location = {"fault-bucket", "tbl"};
  c.endpoint = server.endpoint();
  c.path_style = true;
  c.credentials = {"AKIDEXAMPLE", "secret-that-must-not-leak", ""};
  c.max_attempts = 4;
  c.idle_timeout_ms = 1000;
  c.connect_timeout_ms = 1000;
  return c;
}

TEST(S3FaultTest, SlowDownAndServerErrorsAreRetried) {
  ScriptedServer server({ScriptedServer::Answer(503, "<Error><Code>SlowDown</Code></Error>"),
                         ScriptedServer::Answer(500, "<Error><Code>InternalError</Code></Error>"),
                         ScriptedServer::Answer(200, "hello")});
  s3::RequestCounters counters;
  auto store = s3::OpenStore(ScriptedConfig(server), &counters).value();
  auto r = store->Read("data/f");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "hello");
  EXPECT_EQ(counters.requests, 3u);
  EXPECT_EQ(counters.retries, 2u);
}

TEST(S3FaultTest, TruncatedBodiesAndDroppedConnectionsAreRetried) {
  ScriptedServer server({"HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\nhello", "DROP",
                         ScriptedServer::Answer(206, "3456", "Content-Range: bytes 3-6/10\r\n")});
  auto store = s3::OpenStore(ScriptedConfig(server)).value();
  auto r = store->ReadRange("data/f", 3, 4);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "3456");
  EXPECT_EQ(server.requests(), 3);
}

TEST(S3FaultTest, PersistentFailuresAreAClearErrorWithoutSecrets) {
  ScriptedServer server({ScriptedServer::Answer(500, "<Error><Code>InternalError</Code><Message>boom</Message></Error>")});
  auto config = ScriptedConfig(server);
  auto store = s3::OpenStore(config).value();
  Status st = store->Write("data/f", "x");
  ASSERT_FALSE(st.ok());
  for (const char* part : {"fault-bucket", "data/f", "HTTP 500", "InternalError", "gave up after 4 attempts"}) {
    EXPECT_NE(st.message().find(part), std::string::npos) << part << " in " << st.ToString();
  }
  EXPECT_EQ(st.message().find(config.credentials.secret_key), std::string::npos) << st.ToString();
  EXPECT_EQ(server.requests(), 4);
}

TEST(S3FaultTest, AServerThatHangsFailsWithinBoundedTime) {
  ScriptedServer server({"HANG"});
  auto config = ScriptedConfig(server);
  config.max_attempts = 2;
  auto store = s3::OpenStore(config).value();
  const auto start = std::chrono::steady_clock::now();
  Status st = store->Read("data/f").status();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_NE(st.message().find("data/f"), std::string::npos) << st.ToString();
  EXPECT_LT(secs, 20.0);
}

TEST(S3FaultTest, NobodyListeningIsAClearError) {
  int port;
  {
    ScriptedServer gone({"DROP"});
    port = std::stoi(gone.endpoint().substr(gone.endpoint().rfind(':') + 1));
  }
  s3::Config config;
  config.location = {"fault-bucket", ""};
  config.endpoint = "http://127.0.0.1:" + std::to_string(port);
  config.path_style = true;
  config.max_attempts = 2;
  auto store = s3::OpenStore(config).value();
  Status st = store->Size("x").status();
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_NE(st.message().find(config.endpoint), std::string::npos) << st.ToString();
}

// A commit whose answer was lost: the retry finds the manifest there (412); it is ours if it
// holds our bytes, else someone else's commit won.
// A conditional write whose first answer was lost and whose retry found the object: the store
// says AlreadyExists and leaves telling ours from another writer's to the caller, who reads it back
// (table.cc, CreateManifest; TableTest.ACommitWhoseAnswerIsLostIsDecidedByReadingItBack).
TEST(S3FaultTest, ACreateWhoseRetryFindsTheObjectIsAlreadyExistsForTheCallerToReadBack) {
  {
    ScriptedServer server({"DROP", ScriptedServer::Answer(412, "<Error><Code>PreconditionFailed</Code></Error>")});
    auto store = s3::OpenStore(ScriptedConfig(server)).value();
    Status st = store->CreateIfAbsent("_versions/2.manifest", "our manifest");
    EXPECT_TRUE(st.IsAlreadyExists()) << st.ToString();
    EXPECT_EQ(server.requests(), 2);  // the PUT and its retry; no read of its own
  }
  {  // 409: a concurrent conditional write in flight; retried
    ScriptedServer server({ScriptedServer::Answer(409, "<Error><Code>ConditionalRequestConflict</Code></Error>"),
                           ScriptedServer::Answer(200, "")});
    auto store = s3::OpenStore(ScriptedConfig(server)).value();
    EXPECT_TRUE(store->CreateIfAbsent("_versions/3.manifest", "m").ok());
    EXPECT_EQ(server.requests(), 2);
  }
}

}  // namespace
}  // namespace lakeindex
