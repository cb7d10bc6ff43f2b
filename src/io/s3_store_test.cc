// The S3 store against moto (a real S3 emulator on a loopback port, started here) and against a
// scripted HTTP server for the faults moto cannot produce; boto3 as the independent client.
#include "io/s3_store.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "io/store_conformance.h"
#include "util/moto.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

constexpr char kBucket[] = "lakeindex-test";

// One server for the whole binary (starting moto takes a few seconds).
testing::MotoServer& Moto() {
  static std::unique_ptr<testing::MotoServer> server = [] {
    auto s = testing::MotoServer::Start({kBucket});
    if (!s.ok()) {
      std::fprintf(stderr, "cannot start moto: %s\n", s.status().ToString().c_str());
      std::abort();
    }
    return std::move(s).value();
  }();
  return *server;
}

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

// Runs a Python snippet with boto3 against the shared moto server; its stdout.
std::string Boto3(const std::string& code) {
  testing::TempDir dir;
  const std::string script = dir.Join("x.py"), out = dir.Join("out");
  std::ofstream(script) << "import boto3, sys\n"
                        << "s3 = boto3.client('s3', endpoint_url='" << Moto().endpoint()
                        << "', region_name='us-east-1', aws_access_key_id='" << Moto().access_key()
                        << "', aws_secret_access_key='" << Moto().secret_key() << "')\n"
                        << code << "\n";
  const std::string cmd = testing::MotoServer::Python() + " " + script + " > " + out + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 0) << text;
  return text;
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

TEST(S3StoreTest, ListFollowsContinuationTokens) {
  auto store = MotoStore(FreshPrefix());
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
}

TEST(S3StoreTest, StreamedWritesUseMultipartUploads) {
  auto config = MotoConfig(FreshPrefix(), Moto());
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
  const std::string uploads = Boto3("print(len(s3.list_multipart_uploads(Bucket='" + std::string(kBucket) +
                                    "').get('Uploads', [])))");
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
