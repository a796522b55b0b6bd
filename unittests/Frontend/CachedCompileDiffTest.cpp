//===- CachedCompileDiffTest.cpp - A cached compile equals an uncached one ===//
//
// The differential check that keeps the ModuleCache honest: every recipe of
// the repository that bench/compile/plan-bytes.sh compiles (examples/,
// test/, bench/ and std/, recipes that fail included) is compiled in
// process as `arecipec --emit plan` would, once without a cache and once
// through one ModuleCache shared by all files and warmed by a compile of
// every file before. The cached compile is then the second of its file,
// every import (std/ above all) is a cache hit, and what the cache lets a
// compile skip -- the parse, the read of an unchanged file, the eager check
// of declarations an earlier compile found clean -- is skipped. Success,
// plan bytes and diagnostics text must be those of the uncached compile.
// Files written for `-verify` are compiled without it and just compared.
//
//===----------------------------------------------------------------------===//

#include "CompileResult.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

using namespace arecipe;
using namespace arecipe::frontend;
using namespace arecipe::frontend::test;

namespace {

const std::string Root = ARECIPE_SOURCE_ROOT;

/// The recipes plan-bytes.sh compiles, relative to Root and sorted, so
/// diagnostics name them as the script's runs do.
std::vector<std::string> recipeFiles() {
  std::vector<std::string> Files;
  for (const char *Dir : {"examples", "test", "bench", "std"})
    for (const auto &Entry :
         std::filesystem::recursive_directory_iterator(Root + "/" + Dir))
      if (Entry.is_regular_file() && Entry.path().extension() == ".arecipe")
        Files.push_back(
            std::filesystem::relative(Entry.path(), Root).generic_string());
  std::sort(Files.begin(), Files.end());
  return Files;
}

/// `arecipec FILE -I examples --emit plan [--mode eval]`.
CompilerInvocation invocationFor(const std::string &File, bool Eval) {
  CompilerInvocation Inv;
  Inv.MainFile = File;
  Inv.IncludeDirs = {"examples"};
  Inv.StdRoot = Root;
  Inv.EvalMode = Eval;
  return Inv;
}

class CachedCompileDiffTest : public ::testing::Test {
protected:
  // Relative paths, as plan-bytes.sh runs the compiler from the root.
  void SetUp() override {
    Saved = std::filesystem::current_path();
    std::filesystem::current_path(Root);
  }
  void TearDown() override { std::filesystem::current_path(Saved); }

  /// Compiles every file in Mode without a cache, then through one warmed
  /// cache, and compares.
  void compareAll(bool Eval) {
    std::vector<std::string> Files = recipeFiles();
    // Enough to know the search found the repository's recipes.
    ASSERT_GT(Files.size(), 100u);
    ModuleCache Cache;
    for (const std::string &F : Files)
      compile(invocationFor(F, Eval), &Cache);
    ModuleCache::Stats Warm = Cache.getStats();
    unsigned Plans = 0;
    for (const std::string &F : Files) {
      CompilerInvocation Inv = invocationFor(F, Eval);
      Result Plain = compile(Inv, nullptr);
      Result Cached = compile(Inv, &Cache);
      // A plan is never empty: an empty one is a failed compile.
      Plans += !Plain.Plan.empty();
      EXPECT_EQ(Cached.Plan.empty(), Plain.Plan.empty()) << F;
      EXPECT_EQ(Cached.Diags, Plain.Diags) << F;
      // Not EXPECT_EQ on the texts: a differing plan of 100 kB would
      // drown the report; the first differing byte says where.
      if (Cached.Plan != Plain.Plan) {
        auto [A, B] = std::mismatch(Plain.Plan.begin(), Plain.Plan.end(),
                                    Cached.Plan.begin(), Cached.Plan.end());
        size_t At = A - Plain.Plan.begin();
        ADD_FAILURE() << F << ": plans differ at byte " << At << ": '"
                      << Plain.Plan.substr(At > 80 ? At - 80 : 0, 160)
                      << "' uncached, '"
                      << Cached.Plan.substr(At > 80 ? At - 80 : 0, 160)
                      << "' cached";
      }
    }
    // The comparison means something only if the second round hit the
    // cache (std/ imports at least) and some files compiled to a plan.
    ModuleCache::Stats After = Cache.getStats();
    EXPECT_GT(After.Hits - Warm.Hits, Files.size());
    EXPECT_GT(Plans, 50u);
  }

private:
  std::filesystem::path Saved;
};

TEST_F(CachedCompileDiffTest, BenchModeCachedEqualsUncached) {
  compareAll(/*Eval=*/false);
}

TEST_F(CachedCompileDiffTest, EvalModeCachedEqualsUncached) {
  compareAll(/*Eval=*/true);
}

} // namespace
