// The CLI on s3:// (moto started here): the same tour as on a local directory gives the same
// answers; boto3 sees the objects we write, and a table it uploads opens; bad URIs are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "util/moto.h"

namespace lakeindex {
namespace {

using clitest::CliResult;
using clitest::ReadFileText;
using clitest::RunCli;
using testing::TempDir;

constexpr const char* kBucket = testing::MotoServer::kSharedBucket;

testing::MotoServer& Moto() { return testing::MotoServer::Shared(); }

// boto3 on the shared server: its output (the test fails if the snippet does).
std::string Boto3(const std::string& code) {
  auto out = Moto().Boto3(code);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::string();
}

TEST(CliS3Test, TheTourGivesTheSameAnswersOnS3AsOnADirectory) {
  Moto();
  TempDir dir;
  const std::string events = dir.Join("e.parquet"), more = dir.Join("more.csv");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "20000", "--output", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "3000", "--seed", "9", "--output", more}).code, 0);
  const std::string local = dir.Join("t"), remote = std::string("s3://") + kBucket + "/tour/t";
  const std::vector<std::vector<std::string>> steps = {
      {"create", "@", "--from", events, "--rows-per-file", "7000"},
      {"index", "create", "@", "--column", "score", "--type", "btree"},
      {"index", "create", "@", "--column", "ts", "--type", "zonemap"},
      {"delete", "@", "--where", "score < 20 OR id BETWEEN 300 AND 900"},
      {"append", "@", "--from", more},
      {"layout", "@", "--otree", "x,y", "--cube-rows", "1000"},
      {"optimize", "@"},
  };
  const std::vector<std::vector<std::string>> queries = {
      {"query", "@", "--format", "csv", "--where", "score BETWEEN 10 AND 12"},
      {"query", "@", "--format", "csv", "--where", "x BETWEEN 100 AND 250 AND y BETWEEN 600 AND 700"},
      {"query", "@", "--format", "csv", "--sample", "0.05", "--select", "id"},
      {"query", "@", "--format", "csv", "--version", "2", "--where", "id < 50"},
  };
  auto with = [](std::vector<std::string> args, const std::string& table) {
    std::replace(args.begin(), args.end(), std::string("@"), table);
    return args;
  };
  for (const auto& step : steps) {
    CliResult a = RunCli(dir, with(step, local));
    CliResult b = RunCli(dir, with(step, remote));
    ASSERT_EQ(a.code, 0) << step[0] << ": " << a.err;
    ASSERT_EQ(b.code, 0) << step[0] << " on S3: " << b.err;
    for (const auto& q : queries) {
      CliResult qa = RunCli(dir, with(q, local));
      CliResult qb = RunCli(dir, with(q, remote));
      // The same answer, or the same refusal (a sample before the table has an OTree layout).
      EXPECT_EQ(qb.code, qa.code) << qa.err << qb.err;
      EXPECT_EQ(qb.err, qa.err);
      EXPECT_EQ(clitest::SortedLines(qb.out), clitest::SortedLines(qa.out)) << "after " << step[0] << ": " << q[q.size() - 1];
    }
  }
  CliResult v = RunCli(dir, {"verify", remote});
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  CliResult versions = RunCli(dir, {"versions", remote});
  EXPECT_EQ(versions.code, 0) << versions.err;
  const std::string local_versions = RunCli(dir, {"versions", local}).out;
  EXPECT_EQ(std::count(versions.out.begin(), versions.out.end(), '\n'),
            std::count(local_versions.begin(), local_versions.end(), '\n'));

  // boto3 sees the table: manifests, data files, index files.
  const std::string keys = Boto3("p = s3.get_paginator('list_objects_v2')\n"
                                      "ks = [o['Key'] for page in p.paginate(Bucket='" + std::string(kBucket) +
                                          "', Prefix='tour/t/') for o in page.get('Contents', [])]\n"
                                      "print(sum(k.endswith('.manifest') for k in ks), sum(k.endswith('.parquet') and '/data/' in k for k in ks) > 0, any('_indices/' in k for k in ks))");
  size_t manifests = 0;
  for (const auto& e : std::filesystem::directory_iterator(local + "/_versions")) {
    manifests += e.path().extension() == ".manifest";
  }
  EXPECT_GE(manifests, 6u);
  EXPECT_EQ(keys, std::to_string(manifests) + " True True\n");

  // Explain and stats show no credentials.
  CliResult ex = RunCli(dir, {"explain", remote, "--where", "score BETWEEN 10 AND 12", "--analyze"});
  ASSERT_EQ(ex.code, 0) << ex.err;
  CliResult st = RunCli(dir, {"stats", remote});
  ASSERT_EQ(st.code, 0) << st.err;
  for (const CliResult* r : {&ex, &st}) {
    EXPECT_EQ(r->out.find(Moto().secret_key()), std::string::npos) << r->out;
    EXPECT_EQ(r->err.find(Moto().secret_key()), std::string::npos) << r->err;
  }
}

TEST(CliS3Test, ATableUploadedByBoto3Opens) {
  Moto();
  TempDir dir;
  const std::string events = dir.Join("e.parquet"), local = dir.Join("t");
  ASSERT_EQ(RunCli(dir, {"gen", "--rows", "5000", "--output", events}).code, 0);
  ASSERT_EQ(RunCli(dir, {"create", local, "--from", events, "--rows-per-file", "2000"}).code, 0);
  ASSERT_EQ(RunCli(dir, {"index", "create", local, "--column", "id", "--type", "btree"}).code, 0);
  // As `aws s3 cp --recursive` would: every file under the directory, key = relative path.
  Boto3("root = '" + local + "'\n"
             "for d, _, fs in os.walk(root):\n"
             "    for f in fs:\n"
             "        p = os.path.join(d, f)\n"
             "        s3.upload_file(p, '" + std::string(kBucket) + "', 'uploaded/' + os.path.relpath(p, root))\n");
  const std::string remote = std::string("s3://") + kBucket + "/uploaded";
  CliResult a = RunCli(dir, {"query", local, "--format", "csv", "--where", "id BETWEEN 100 AND 300"});
  CliResult b = RunCli(dir, {"query", remote, "--format", "csv", "--where", "id BETWEEN 100 AND 300"});
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(b.out, a.out);
  EXPECT_EQ(std::count(b.out.begin(), b.out.end(), '\n'), 202);
}

TEST(CliS3Test, StoreUrisAreCheckedAndFileUrisWork) {
  Moto();
  TempDir dir;
  clitest::WriteFileText(dir.Join("a.csv"), "id,name\n1,a\n2,b\n");
  CliResult gs = RunCli(dir, {"create", "gs://bucket/t", "--from", dir.Join("a.csv")});
  EXPECT_NE(gs.code, 0);
  EXPECT_NE(gs.err.find("unsupported scheme 'gs://'"), std::string::npos) << gs.err;
  CliResult rel = RunCli(dir, {"create", "file://relative/t", "--from", dir.Join("a.csv")});
  EXPECT_NE(rel.code, 0);
  EXPECT_NE(rel.err.find("absolute path"), std::string::npos) << rel.err;
  CliResult bucket = RunCli(dir, {"create", "s3://B_ad/t", "--from", dir.Join("a.csv")});
  EXPECT_NE(bucket.code, 0);
  EXPECT_NE(bucket.err.find("bad bucket name"), std::string::npos) << bucket.err;

  const std::string uri = "file://" + dir.Join("f");
  CliResult made = RunCli(dir, {"create", uri, "--from", dir.Join("a.csv")});
  ASSERT_EQ(made.code, 0) << made.err;
  EXPECT_EQ(RunCli(dir, {"query", dir.Join("f"), "--format", "csv"}).out, "id,name\n1,a\n2,b\n");
  EXPECT_EQ(RunCli(dir, {"query", uri, "--format", "csv"}).out, "id,name\n1,a\n2,b\n");

  CliResult missing = RunCli(dir, {"query", "s3://no-such-bucket-here/t"});
  EXPECT_NE(missing.code, 0);
  EXPECT_NE(missing.err.find("no-such-bucket-here"), std::string::npos) << missing.err;
  CliResult absent = RunCli(dir, {"query", std::string("s3://") + kBucket + "/never/made"});
  EXPECT_NE(absent.code, 0);
  EXPECT_NE(absent.err.find("no lakeindex table at 's3://lakeindex-test/never/made'"), std::string::npos) << absent.err;
  // Creating over an existing S3 table is refused, as on a directory.
  ASSERT_EQ(RunCli(dir, {"create", std::string("s3://") + kBucket + "/twice", "--from", dir.Join("a.csv")}).code, 0);
  CliResult again = RunCli(dir, {"create", std::string("s3://") + kBucket + "/twice", "--from", dir.Join("a.csv")});
  EXPECT_NE(again.code, 0);
  EXPECT_NE(again.err.find("already exists at s3://lakeindex-test/twice"), std::string::npos) << again.err;
}

}  // namespace
}  // namespace lakeindex
