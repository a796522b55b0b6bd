//===- InstallLayoutTest.cpp - Where a running tool finds its data --------===//
//
// The data directory follows the executable: <exe dir>/../share/arecipe,
// whatever the prefix, and nothing of the build machine is involved.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Support/InstallLayout.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace arecipe::support;

TEST(InstallLayoutTest, DataDirIsShareArecipeBesideBin) {
  EXPECT_EQ(dataDirFor("/usr/bin/arecipec"), "/usr/share/arecipe");
  EXPECT_EQ(dataDirFor("/opt/x/bin/arecipe-sim"), "/opt/x/share/arecipe");
  EXPECT_EQ(dataDirFor("/tmp/moved/prefix/bin/arecipe-run"),
            "/tmp/moved/prefix/share/arecipe");
}

TEST(InstallLayoutTest, DataDirIsNormalised) {
  EXPECT_EQ(dataDirFor("/opt/x/bin/../bin/./arecipec"), "/opt/x/share/arecipe");
}

TEST(InstallLayoutTest, UnknownExecutableHasNoDataDir) {
  EXPECT_EQ(dataDirFor(""), "");
}

TEST(InstallLayoutTest, RunningExecutableIsThisTest) {
  std::string Exe = executablePath();
  ASSERT_FALSE(Exe.empty());
  EXPECT_TRUE(std::filesystem::path(Exe).is_absolute());
  EXPECT_EQ(std::filesystem::path(Exe).filename(), "SupportTests");
  EXPECT_EQ(executableDir(), std::filesystem::path(Exe).parent_path().string());
  EXPECT_EQ(dataDir(), dataDirFor(Exe));
  EXPECT_EQ(simProfilesDir(), dataDir() + "/sim");
}
