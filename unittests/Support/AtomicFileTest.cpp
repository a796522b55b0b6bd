//===- AtomicFileTest.cpp - Files replaced whole or not at all ------------===//

#include "arecipe/Support/AtomicFile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace arecipe::support;
namespace fs = std::filesystem;

namespace {

struct AtomicFileTest : ::testing::Test {
  fs::path Dir = fs::temp_directory_path() / ("atomic-" + std::to_string(getpid()));
  void SetUp() override { fs::create_directories(Dir); }
  void TearDown() override { fs::remove_all(Dir); }
  std::string read(const fs::path &P) {
    std::ifstream In(P);
    return std::string((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  }
};

TEST_F(AtomicFileTest, ReplacesAndLeavesNoTemporary) {
  std::string Err, Path = (Dir / "f.json").string();
  ASSERT_TRUE(writeFileAtomically(Path, "one", Err)) << Err;
  ASSERT_TRUE(writeFileAtomically(Path, "two", Err)) << Err;
  EXPECT_EQ(read(Path), "two");
  EXPECT_EQ(std::distance(fs::directory_iterator(Dir), fs::directory_iterator()), 1);
}

TEST_F(AtomicFileTest, FailureNamesTheFileAndLeavesNothing) {
  std::string Err;
  EXPECT_FALSE(writeFileAtomically((Dir / "missing" / "f").string(), "x", Err));
  EXPECT_NE(Err.find("cannot write " + (Dir / "missing").string()), std::string::npos) << Err;
  EXPECT_NE(Err.find("No such file or directory"), std::string::npos) << Err;
  EXPECT_TRUE(fs::is_empty(Dir));
}

TEST_F(AtomicFileTest, ModeAppliesToTheNewFile) {
  std::string Err, Path = (Dir / "private.json").string();
  ASSERT_TRUE(writeFileAtomically(Path, "secret", Err, 0600)) << Err;
  struct stat St;
  ASSERT_EQ(stat(Path.c_str(), &St), 0);
  EXPECT_EQ(St.st_mode & 0777, 0600u);
}

TEST_F(AtomicFileTest, ASymlinkInPlaceOfTheTargetIsReplacedNotFollowed) {
  // A link planted where the result goes must not redirect the write.
  fs::path Victim = Dir / "victim";
  std::ofstream(Victim) << "keep";
  fs::create_symlink(Victim, Dir / "results.json");
  std::string Err;
  ASSERT_TRUE(writeFileAtomically((Dir / "results.json").string(), "new", Err)) << Err;
  EXPECT_EQ(read(Victim), "keep");
  EXPECT_FALSE(fs::is_symlink(Dir / "results.json"));
  EXPECT_EQ(read(Dir / "results.json"), "new");
}

TEST_F(AtomicFileTest, AStaleTemporaryOfAnEarlierRunIsNoObstacle) {
  // A killed run left its temporary; a later one may get the same pid.
  std::string Path = (Dir / "summary.json").string();
  std::ofstream(Path + ".tmp." + std::to_string(getpid()) + ".0") << "stale";
  std::ofstream(Path + ".tmp." + std::to_string(getpid()) + ".1") << "stale";
  std::string Err;
  ASSERT_TRUE(writeFileAtomically(Path, "new", Err)) << Err;
  ASSERT_TRUE(writeFileAtomically(Path, "newer", Err)) << Err;
  EXPECT_EQ(read(Path), "newer");
}

} // namespace
