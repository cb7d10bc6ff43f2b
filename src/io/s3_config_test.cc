// s3:// URIs and the configuration users already have for the AWS tools: environment first,
// then the profile's entries in ~/.aws/credentials and ~/.aws/config.
#include "io/s3_config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "util/test_util.h"

namespace lakeindex::s3 {
namespace {

TEST(S3ConfigTest, Uris) {
  auto a = ParseUri("s3://my-bucket.1/tables/trips/");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->bucket, "my-bucket.1");
  EXPECT_EQ(a->prefix, "tables/trips");
  EXPECT_EQ(ParseUri("s3://bkt").value().prefix, "");
  for (const char* bad : {"s3://B_ad/t", "s3://ab/t", "s3://bucket//t", "gs://bucket/t", "bucket/t", "s3:///t"}) {
    auto r = ParseUri(bad);
    EXPECT_TRUE(r.status().IsInvalidArgument()) << bad;
    EXPECT_NE(r.status().message().find(bad), std::string::npos) << r.status().ToString();
  }
}

class S3ConfigEnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION",
                          "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_SHARED_CREDENTIALS_FILE",
                          "AWS_CONFIG_FILE", "LAKEINDEX_S3_ADDRESSING", "LAKEINDEX_S3_MAX_ATTEMPTS",
                          "LAKEINDEX_S3_TIMEOUT_MS", "LAKEINDEX_S3_PART_MB"}) {
      unsetenv(v);
    }
    setenv("HOME", home_.path().c_str(), 1);
    std::filesystem::create_directories(home_.Join(".aws"));
    std::ofstream(home_.Join(".aws/credentials")) << "[default]\naws_access_key_id = AKDEFAULT\n"
                                                     "aws_secret_access_key = secret-default\n\n"
                                                     "[team]\naws_access_key_id=AKTEAM\naws_secret_access_key=secret-team\n"
                                                     "aws_session_token = token-team\n";
    std::ofstream(home_.Join(".aws/config")) << "[default]\nregion = us-west-2\n\n"
                                                "[profile team]\nregion = eu-west-1\n"
                                                "endpoint_url = http://minio.local:9000/\n"
                                                "s3 =\n  addressing_style = virtual\n";
  }
  testing::TempDir home_;
  const Location loc_{"bkt", "t"};
};

TEST_F(S3ConfigEnvTest, DefaultProfileAndAwsEndpoint) {
  auto c = LoadConfig(loc_);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key, "AKDEFAULT");
  EXPECT_EQ(c->credentials.secret_key, "secret-default");
  EXPECT_EQ(c->region, "us-west-2");
  EXPECT_EQ(c->endpoint, "https://s3.us-west-2.amazonaws.com");
  EXPECT_FALSE(c->path_style);  // virtual-hosted on AWS
}

TEST_F(S3ConfigEnvTest, NamedProfileWithEndpointAndAddressing) {
  setenv("AWS_PROFILE", "team", 1);
  auto c = LoadConfig(loc_);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key, "AKTEAM");
  EXPECT_EQ(c->credentials.session_token, "token-team");
  EXPECT_EQ(c->region, "eu-west-1");
  EXPECT_EQ(c->endpoint, "http://minio.local:9000");
  EXPECT_FALSE(c->path_style);  // the profile's addressing_style wins over the endpoint's default
  setenv("LAKEINDEX_S3_ADDRESSING", "path", 1);
  EXPECT_TRUE(LoadConfig(loc_).value().path_style);
}

TEST_F(S3ConfigEnvTest, EnvironmentWinsOverFiles) {
  setenv("AWS_PROFILE", "team", 1);
  setenv("AWS_ACCESS_KEY_ID", "AKENV", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "secret-env", 1);
  setenv("AWS_REGION", "ap-south-1", 1);
  setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9999", 1);
  auto c = LoadConfig(loc_);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key, "AKENV");
  EXPECT_EQ(c->credentials.session_token, "");  // the environment's pair, not the profile's token
  EXPECT_EQ(c->region, "ap-south-1");
  EXPECT_EQ(c->endpoint, "http://127.0.0.1:9999");
  setenv("AWS_ENDPOINT_URL_S3", "https://s3.example.com", 1);  // the S3-specific one wins
  EXPECT_EQ(LoadConfig(loc_).value().endpoint, "https://s3.example.com");
}

TEST_F(S3ConfigEnvTest, BadSettingsAreRefusedNamingThem) {
  setenv("LAKEINDEX_S3_MAX_ATTEMPTS", "lots", 1);
  auto c = LoadConfig(loc_);
  EXPECT_TRUE(c.status().IsInvalidArgument());
  EXPECT_NE(c.status().message().find("LAKEINDEX_S3_MAX_ATTEMPTS"), std::string::npos) << c.status().ToString();
  unsetenv("LAKEINDEX_S3_MAX_ATTEMPTS");
  setenv("LAKEINDEX_S3_PART_MB", "1", 1);
  EXPECT_TRUE(LoadConfig(loc_).status().IsInvalidArgument());
  unsetenv("LAKEINDEX_S3_PART_MB");
  setenv("AWS_ENDPOINT_URL", "ftp://x", 1);
  EXPECT_TRUE(LoadConfig(loc_).status().IsInvalidArgument());
  unsetenv("AWS_ENDPOINT_URL");
  setenv("LAKEINDEX_S3_ADDRESSING", "sideways", 1);
  EXPECT_TRUE(LoadConfig(loc_).status().IsInvalidArgument());
}

}  // namespace
}  // namespace lakeindex::s3
