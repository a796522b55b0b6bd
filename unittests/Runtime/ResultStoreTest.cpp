//===- ResultStoreTest.cpp - Atomic results and resume --------------------===//

#include "arecipe/Runtime/ResultStore.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace arecipe::runtime;
namespace fs = std::filesystem;

namespace {

struct StoreFixture : ::testing::Test {
  fs::path Dir = fs::temp_directory_path() / ("store-" + std::to_string(getpid()));
  void TearDown() override { fs::remove_all(Dir); }
};

TEST_F(StoreFixture, ResumeTrustsOnlyASummaryForTheSameCell) {
  ResultStore Store(Dir.string());
  std::string Err;
  ASSERT_TRUE(Store.create(Err)) << Err;
  Cell C;
  C.Id = "c8";
  C.Digest = "aaaa";
  ASSERT_TRUE(Store.resetCell(C, Err)) << Err;
  EXPECT_FALSE(Store.finishedSummary(C));
  nlohmann::ordered_json S;
  S["arecipe_run"]["status"] = "ok";
  S["arecipe_run"]["cell_digest"] = "aaaa";
  ASSERT_TRUE(Store.writeCellSummary(C, S, Err)) << Err;
  EXPECT_TRUE(Store.finishedSummary(C));
  C.Digest = "bbbb"; // the plan changed this cell: run it again
  EXPECT_FALSE(Store.finishedSummary(C));
  std::ofstream(Store.summaryPath(C)) << "{ truncated";
  EXPECT_FALSE(Store.finishedSummary(C));
}

TEST_F(StoreFixture, SweepFilesListPendingCells) {
  ResultStore Store(Dir.string());
  std::string Err;
  ASSERT_TRUE(Store.create(Err));
  LaunchPlan Plan;
  Plan.RecipeName = "r";
  Cell C;
  C.Id = "c1";
  C.Conc = 1;
  C.Gpus = 8;
  Plan.Cells.push_back(C);
  ASSERT_TRUE(Store.writeSweep(Plan, true, 10, Err)) << Err;
  std::ifstream In(Dir / "summary.csv");
  std::string Header, Row;
  std::getline(In, Header);
  std::getline(In, Row);
  EXPECT_EQ(Row, "c1,1,,pending,8,,,,,,,,,,");
}

} // namespace
