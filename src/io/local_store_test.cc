#include <fcntl.h>
#include <signal.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "io/store_conformance.h"
#include "lakeindex/object_store.h"
#include "util/test_util.h"

namespace lakeindex {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<ObjectStore> MustOpen(const std::string& root) {
  Result<std::unique_ptr<ObjectStore>> store = OpenLocalStore(root);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return nullptr;
  return std::shared_ptr<ObjectStore>(std::move(store).value());
}

INSTANTIATE_TEST_SUITE_P(Local, ObjectStoreConformance,
                         ::testing::Values(StoreFactory{
                             "local",
                             [](const std::string& dir) { return MustOpen(dir + "/root"); }}),
                         StoreFactoryName);

std::string Slurp(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class LocalStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Join("table");
    store_ = MustOpen(root_);
    ASSERT_NE(store_, nullptr);
  }

  testing::TempDir dir_;
  std::string root_;
  std::shared_ptr<ObjectStore> store_;
};

TEST_F(LocalStoreTest, CreatesRootAndWritesPlainFiles) {
  EXPECT_TRUE(fs::is_directory(root_));
  EXPECT_EQ(store_->Describe(), fs::canonical(root_).string());
  ASSERT_TRUE(store_->Write("data/deep/er/x.parquet", "PAR1").ok());
  EXPECT_EQ(Slurp(root_ + "/data/deep/er/x.parquet"), "PAR1");
  ASSERT_TRUE(store_->CreateIfAbsent("_versions/00000000000000000001.manifest", "{}").ok());
  EXPECT_EQ(Slurp(root_ + "/_versions/00000000000000000001.manifest"), "{}");
  // No temporary files remain next to the objects.
  for (const auto& entry : fs::recursive_directory_iterator(root_)) {
    EXPECT_EQ(entry.path().filename().string().rfind(".tmp-", 0), std::string::npos)
        << entry.path();
  }
}

// Temporary files anywhere under `root` (a streamed object in progress or left behind).
std::vector<std::string> TempFiles(const std::string& root) {
  std::vector<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().filename().string().starts_with(".tmp-")) out.push_back(entry.path());
  }
  return out;
}

// A process killed mid-write leaves its hidden temporary file, which no listing shows; only
// RemoveAbandonedWrites finds it, and removes it once its process is gone and it is older than
// the cutoff. A live writer's file (this process's) stays.
TEST_F(LocalStoreTest, AKilledWritersTemporaryFileIsRemovedOnceItsProcessIsGone) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto opened = OpenLocalStore(root_);
    if (!opened.ok()) ::_exit(3);
    auto writer = (*opened)->OpenWriter("data/big.parquet");
    if (!writer.ok() || !(*writer)->Append(std::string(1 << 20, 'x')).ok()) ::_exit(2);
    ::kill(::getpid(), SIGKILL);  // mid-object
    ::_exit(1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  auto mine = store_->OpenWriter("_tmp/live.parquet");
  ASSERT_TRUE(mine.ok());
  ASSERT_TRUE((*mine)->Append("still writing").ok());
  ASSERT_EQ(TempFiles(root_).size(), 2u);
  EXPECT_TRUE(store_->List("").value().empty()) << "listings hide temporary files";

  // Not yet past the cutoff: stays.
  auto removed = store_->RemoveAbandonedWrites("", 0);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_TRUE(removed->empty());
  // Another prefix: stays.
  removed = store_->RemoveAbandonedWrites("_tmp/", std::numeric_limits<int64_t>::max());
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(removed->empty());
  removed = store_->RemoveAbandonedWrites("", std::numeric_limits<int64_t>::max());
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  ASSERT_EQ(removed->size(), 1u);
  EXPECT_TRUE(removed->front().starts_with("data/.tmp-" + std::to_string(pid) + "-")) << removed->front();
  ASSERT_EQ(TempFiles(root_).size(), 1u) << "the live writer's file stays";
  ASSERT_TRUE((*mine)->Close().ok());
  EXPECT_EQ(store_->List("_tmp/").value().size(), 1u);
  EXPECT_TRUE(TempFiles(root_).empty());
}

TEST_F(LocalStoreTest, StreamedWriterUsesOneTempFileAndRemovesItOnEveryEnd) {
  auto w = store_->OpenWriter("idx/page_data.parquet");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->Append(std::string(3 << 20, 'x')).ok());  // bypasses the buffer
  ASSERT_TRUE((*w)->Append("tail").ok());
  EXPECT_EQ(TempFiles(root_).size(), 1u);
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_TRUE(TempFiles(root_).empty());
  EXPECT_EQ(fs::file_size(root_ + "/idx/page_data.parquet"), (3u << 20) + 4);

  // Abandoned: the temp file goes with the writer.
  {
    auto gone = store_->OpenWriter("idx/gone");
    ASSERT_TRUE(gone.ok());
    ASSERT_TRUE((*gone)->Append("partial").ok());
    EXPECT_EQ(TempFiles(root_).size(), 1u);
  }
  EXPECT_TRUE(TempFiles(root_).empty());
  EXPECT_FALSE(fs::exists(root_ + "/idx/gone"));

  // A Close that cannot publish (the target is a non-empty directory) fails naming the target,
  // removes the temp file at once, and the error sticks.
  fs::create_directories(root_ + "/idx/dir/child");
  auto blocked = store_->OpenWriter("idx/dir");
  ASSERT_TRUE(blocked.ok());
  ASSERT_TRUE((*blocked)->Append("bytes").ok());
  Status st = (*blocked)->Close();
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_NE(st.message().find("idx/dir"), std::string::npos) << st.ToString();
  EXPECT_TRUE(TempFiles(root_).empty());
  EXPECT_EQ((*blocked)->Append("more").code(), st.code());
  EXPECT_EQ((*blocked)->Close().code(), st.code());
  EXPECT_TRUE(fs::is_directory(root_ + "/idx/dir/child"));
}

// Scratch objects (under kScratchPrefix: a command's temporaries) are not fsynced, and otherwise
// written, streamed, published whole, listed and deleted as any other object.
TEST_F(LocalStoreTest, ScratchObjectsBehaveAsAnyOther) {
  EXPECT_TRUE(IsScratchPath("_tmp/layout-1-rows.parquet"));
  EXPECT_FALSE(IsScratchPath("data/_tmp/x"));
  EXPECT_FALSE(IsScratchPath("_tmpx/y"));
  const std::string key = std::string(kScratchPrefix) + "run-0";
  ASSERT_TRUE(store_->Write(key, "whole").ok());
  EXPECT_EQ(store_->Read(key).value(), "whole");
  auto w = store_->OpenWriter(std::string(kScratchPrefix) + "run-1");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->Append(std::string(3 << 20, 'r')).ok());
  EXPECT_FALSE(fs::exists(root_ + "/_tmp/run-1"));  // published only at Close
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(fs::file_size(root_ + "/_tmp/run-1"), 3u << 20);
  EXPECT_TRUE(TempFiles(root_).empty());
  auto listed = store_->List(kScratchPrefix);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 2u);
  ASSERT_TRUE(store_->DeleteMany({key, std::string(kScratchPrefix) + "run-1"}).ok());
  EXPECT_TRUE(store_->List(kScratchPrefix).value().empty());
}

TEST_F(LocalStoreTest, RootThatIsAFileIsRefused) {
  std::ofstream(dir_.Join("file")) << "x";
  EXPECT_FALSE(OpenLocalStore(dir_.Join("file")).ok());
  EXPECT_FALSE(OpenLocalStore("").ok());
}

TEST_F(LocalStoreTest, ListHidesTemporaryFilesAndReportsMtime) {
  ASSERT_TRUE(store_->Write("d/a", "12345").ok());
  // A temp file left by a crashed writer.
  std::ofstream(root_ + "/d/.tmp-999-deadbeef") << "partial";
  auto list = store_->List("");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].path, "d/a");
  EXPECT_EQ((*list)[0].size, 5u);
  struct stat st;
  ASSERT_EQ(::stat((root_ + "/d/a").c_str(), &st), 0);
  EXPECT_EQ((*list)[0].mtime_ms, int64_t(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000);
}

TEST_F(LocalStoreTest, ReadsFilesWrittenByOthers) {
  fs::create_directories(root_ + "/ext");
  std::ofstream(root_ + "/ext/f.csv") << "a,b\n";
  EXPECT_EQ(store_->Read("ext/f.csv").value(), "a,b\n");
  EXPECT_EQ(store_->List("ext/").value().size(), 1u);
}

TEST_F(LocalStoreTest, SymlinksLeavingTheRootAreRefused) {
  const std::string outside = dir_.Join("outside");
  fs::create_directories(outside);
  std::ofstream(outside + "/secret") << "secret";
  fs::create_directory_symlink(outside, root_ + "/escape_dir");
  fs::create_symlink(outside + "/secret", root_ + "/escape_file");
  fs::create_directories(root_ + "/sub");
  fs::create_directory_symlink("../..", root_ + "/sub/up");  // relative escape

  for (const char* key : {"escape_dir/secret", "escape_file", "escape_dir/new", "sub/up/x"}) {
    EXPECT_TRUE(store_->Read(key).status().IsInvalidArgument()) << key;
    EXPECT_TRUE(store_->Size(key).status().IsInvalidArgument()) << key;
    EXPECT_TRUE(store_->ReadRanges(key, {{0, 1}, {2, 1}}).status().IsInvalidArgument()) << key;
    EXPECT_TRUE(store_->Write(key, "x").IsInvalidArgument()) << key;
    EXPECT_TRUE(store_->CreateIfAbsent(key, "x").IsInvalidArgument()) << key;
    EXPECT_TRUE(store_->Delete(key).IsInvalidArgument()) << key;
  }
  EXPECT_TRUE(store_->List("escape_dir/").status().IsInvalidArgument());
  // Nothing outside was touched, and escaping entries are not listed.
  EXPECT_EQ(Slurp(outside + "/secret"), "secret");
  EXPECT_FALSE(fs::exists(outside + "/new"));
  const std::vector<ObjectInfo> listed = store_->List("").value();
  for (const ObjectInfo& info : listed) {
    EXPECT_EQ(info.path.find("escape"), std::string::npos) << info.path;
    EXPECT_EQ(info.path.find("up/"), std::string::npos) << info.path;
  }
  Status st = store_->Read("escape_dir/secret").status();
  EXPECT_NE(st.message().find("outside"), std::string::npos) << st.ToString();
}

TEST_F(LocalStoreTest, SymlinksInsideTheRootAreFollowed) {
  ASSERT_TRUE(store_->Write("real/f", "data").ok());
  fs::create_directory_symlink(root_ + "/real", root_ + "/alias");
  fs::create_symlink("real/f", root_ + "/link_f");
  EXPECT_EQ(store_->Read("alias/f").value(), "data");
  EXPECT_EQ(store_->Read("link_f").value(), "data");
  // A symlinked file is listed, a symlinked directory is not descended (no cycles).
  std::vector<std::string> paths;
  const std::vector<ObjectInfo> listed = store_->List("").value();
  for (const ObjectInfo& i : listed) paths.push_back(i.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"link_f", "real/f"}));
}

TEST_F(LocalStoreTest, CreateIfAbsentIsAtomicAcrossProcesses) {
  for (int round = 0; round < 3; ++round) {
    const std::string key = "_versions/" + std::to_string(round) + ".manifest";
    constexpr int kProcs = 4;
    int gate[2];
    ASSERT_EQ(::pipe(gate), 0);
    std::vector<pid_t> pids;
    for (int p = 0; p < kProcs; ++p) {
      pid_t pid = ::fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        // Child: its own store handle, released together with the others by the gate.
        ::close(gate[1]);
        char c;
        (void)!::read(gate[0], &c, 1);
        auto opened = OpenLocalStore(root_);
        if (!opened.ok()) ::_exit(3);
        Status st = (*opened)->CreateIfAbsent(key, "process " + std::to_string(p));
        ::_exit(st.ok() ? 0 : st.IsAlreadyExists() ? 1 : 2);
      }
      pids.push_back(pid);
    }
    ::close(gate[0]);
    ::close(gate[1]);  // EOF releases every child at once
    std::vector<int> codes;
    for (pid_t pid : pids) {
      int status = 0;
      ASSERT_EQ(::waitpid(pid, &status, 0), pid);
      ASSERT_TRUE(WIFEXITED(status));
      codes.push_back(WEXITSTATUS(status));
    }
    int winners = 0, winner = -1;
    for (int p = 0; p < kProcs; ++p) {
      EXPECT_LE(codes[p], 1) << "process " << p << " failed with code " << codes[p];
      if (codes[p] == 0) {
        ++winners;
        winner = p;
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    EXPECT_EQ(store_->Read(key).value(), "process " + std::to_string(winner));
  }
  EXPECT_EQ(store_->List("_versions/").value().size(), 3u);
}

TEST_F(LocalStoreTest, ReadRangeOfTruncatedFileIsCorruption) {
  ASSERT_TRUE(store_->Write("f", std::string(100, 'x')).ok());
  ASSERT_EQ(::truncate((root_ + "/f").c_str(), 40), 0);
  Result<std::string> r = store_->ReadRange("f", 30, 20);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find(store_->Describe() + "/f"), std::string::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().message().find("[30, +20)"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("size 40"), std::string::npos) << r.status().ToString();
  // ReadRanges (one open for all its ranges) names the range that falls past the end the same way.
  Result<std::vector<std::string>> rs = store_->ReadRanges("f", {{0, 10}, {30, 20}});
  ASSERT_FALSE(rs.ok());
  EXPECT_TRUE(rs.status().IsCorruption());
  EXPECT_NE(rs.status().message().find("[30, +20)"), std::string::npos) << rs.status().ToString();
}

}  // namespace
}  // namespace lakeindex
