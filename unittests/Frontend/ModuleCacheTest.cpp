//===- ModuleCacheTest.cpp - Parsed files shared across compilations -----===//
//
// A ModuleCache must be invisible in what a compilation produces: a cached
// compile writes the same plan bytes and reports the same diagnostics (text
// and locations) as an uncached one, a file edited on disk or an override
// changed between compilations is parsed afresh, and compilations with
// different overrides of one path never see each other's text.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Frontend/ModuleCache.h"
#include "CompileResult.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/TextDiagnosticPrinter.h"
#include "arecipe/Frontend/CompilerInstance.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <chrono>
#include <filesystem>
#include <fstream>

using namespace arecipe;
using namespace arecipe::frontend;
using namespace arecipe::frontend::test;

namespace {

const std::string Root = ARECIPE_SOURCE_ROOT;
const std::string Example = Root + "/examples/kimik3-mi355x-atom.arecipe";
const std::string Atom = Root + "/std/engines/atom.arecipe";

std::string readFile(const std::string &Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  EXPECT_TRUE(bool(Buffer)) << Path;
  return Buffer ? (*Buffer)->getBuffer().str() : "";
}

void writeFile(const std::string &Path, const std::string &Text) {
  std::ofstream OS(Path, std::ios::binary | std::ios::trunc);
  OS << Text;
}

/// Text with its only occurrence of From replaced by To.
std::string replaced(std::string Text, const std::string &From,
                     const std::string &To) {
  size_t At = Text.find(From);
  EXPECT_NE(At, std::string::npos) << From;
  EXPECT_EQ(Text.find(From, At + 1), std::string::npos) << From;
  return At == std::string::npos ? Text : Text.replace(At, From.size(), To);
}

CompilerInvocation exampleInvocation() {
  CompilerInvocation Inv;
  Inv.MainFile = Example;
  Inv.StdRoot = Root;
  return Inv;
}

/// Compiles Inv without a cache, then twice through Cache (the second
/// taking what the first kept), and expects the same plan bytes and the
/// same diagnostics every time. Returns the uncached result.
Result expectSameThroughCache(const CompilerInvocation &Inv,
                              ModuleCache &Cache) {
  Result Fresh = compile(Inv, nullptr);
  for (int I = 0; I < 2; ++I) {
    Result Cached = compile(Inv, &Cache);
    EXPECT_EQ(Cached.Plan, Fresh.Plan) << "cached compile " << I;
    EXPECT_EQ(Cached.Diags, Fresh.Diags) << "cached compile " << I;
  }
  return Fresh;
}

TEST(ModuleCacheTest, CachedCompileWritesTheSameBytes) {
  ModuleCache Cache;
  Result Fresh = expectSameThroughCache(exampleInvocation(), Cache);
  ASSERT_EQ(Fresh.Plan.rfind("{\n  \"schema\": \"arecipe.plan/v1.1\"", 0), 0u)
      << Fresh.Diags;
  EXPECT_EQ(Fresh.Diags, "");
  // The example and the five std files it imports (one through another):
  // parsed by the first cached compile, taken from the cache by the second.
  ModuleCache::Stats St = Cache.getStats();
  EXPECT_EQ(St.Misses, 6u);
  EXPECT_EQ(St.Hits, 6u);
  EXPECT_EQ(St.Entries, 6u);
}

TEST(ModuleCacheTest, SemaErrorsInACachedFileAreReportedEveryTime) {
  // The file parses cleanly (so its tree is cached) but does not analyse.
  ModuleCache Cache;
  CompilerInvocation Inv = exampleInvocation();
  Inv.Overrides[Example] =
      replaced(readFile(Example), "tp          = 8", "tp          = eight");
  Result Fresh = expectSameThroughCache(Inv, Cache);
  EXPECT_EQ(Fresh.Plan, "");
  EXPECT_NE(Fresh.Diags.find(":23:17: error: use of undeclared name 'eight'"),
            std::string::npos)
      << Fresh.Diags;
  EXPECT_EQ(Cache.getStats().Hits, 6u);
}

TEST(ModuleCacheTest, SyntaxErrorsAndWarningsAreNotCached) {
  ModuleCache Cache;
  // A warning in the main file (a stray `;`), an error in an import.
  CompilerInvocation Inv = exampleInvocation();
  Inv.Overrides[Example] = readFile(Example) + ";;\n";
  Inv.Overrides[Atom] = readFile(Atom) + "\nlet = 3\n";
  Result Fresh = expectSameThroughCache(Inv, Cache);
  EXPECT_NE(Fresh.Diags.find("warning: "), std::string::npos) << Fresh.Diags;
  EXPECT_NE(Fresh.Diags.find("std/engines/atom.arecipe:"), std::string::npos)
      << Fresh.Diags;
  EXPECT_NE(Fresh.Diags.find("error: "), std::string::npos) << Fresh.Diags;
  // Only the four clean std files were kept.
  EXPECT_EQ(Cache.getStats().Entries, 4u);
}

TEST(ModuleCacheTest, FileEditedOnDiskIsParsedAgain) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("modcache", Dir));
  std::string Main = std::string(Dir) + "/main.arecipe";
  std::string Text = readFile(Example);
  writeFile(Main, Text);
  CompilerInvocation Inv = exampleInvocation();
  Inv.MainFile = Main;
  ModuleCache Cache;
  Result Before = expectSameThroughCache(Inv, Cache);
  ASSERT_NE(Before.Plan, "") << Before.Diags;
  // Same size, likely the same mtime second: only the bytes tell.
  writeFile(Main, replaced(Text, "max_num_seqs           = 32",
                           "max_num_seqs           = 48"));
  Result After = compile(Inv, &Cache);
  EXPECT_NE(After.Plan, Before.Plan);
  EXPECT_EQ(After.Plan, compile(Inv, nullptr).Plan);
  EXPECT_NE(After.Plan.find("\"48\""), std::string::npos);
  // Back to the first text: the first version's tree is still cached.
  writeFile(Main, Text);
  uint64_t Hits = Cache.getStats().Hits;
  EXPECT_EQ(compile(Inv, &Cache).Plan, Before.Plan);
  EXPECT_EQ(Cache.getStats().Hits, Hits + 6);
  llvm::sys::fs::remove(Main);
  llvm::sys::fs::remove(Dir);
}

/// Sets Path's modification time an hour back: long enough ago that its
/// stamp stands for its bytes (FileSource in lib/Frontend).
void age(const std::filesystem::path &Path) {
  std::filesystem::last_write_time(
      Path,
      std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
}

TEST(ModuleCacheTest, SettledFilesAreNotReadAgainAndEditsAreSeen) {
  // The example and a copy of std/ next to it (found first, relative to
  // the importer), all last written an hour ago.
  llvm::SmallString<128> Made;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("modstamp", Made));
  std::filesystem::path Dir(std::string(Made.str()));
  std::filesystem::copy(Root + "/std", Dir / "std",
                        std::filesystem::copy_options::recursive);
  writeFile((Dir / "main.arecipe").string(), readFile(Example));
  for (const auto &E : std::filesystem::recursive_directory_iterator(Dir))
    if (E.is_regular_file())
      age(E.path());
  std::filesystem::path LocalAtom = Dir / "std/engines/atom.arecipe";
  CompilerInvocation Inv = exampleInvocation();
  Inv.MainFile = (Dir / "main.arecipe").string();
  ModuleCache Cache;
  Result Before = expectSameThroughCache(Inv, Cache);
  ASSERT_NE(Before.Plan, "") << Before.Diags;
  // The first cached compile read the six files, the second none.
  ModuleCache::Stats St = Cache.getStats();
  EXPECT_EQ(St.FileReads, 6u);
  EXPECT_EQ(St.ReadsSaved, 6u);

  // An import saved again, same size: a new modification time.
  std::string AtomText = readFile(LocalAtom.string());
  writeFile(LocalAtom.string(),
            replaced(AtomText, "\"0.0.0.0\"", "\"0.0.0.1\""));
  Result After = compile(Inv, &Cache);
  EXPECT_NE(After.Plan.find("\"0.0.0.1\""), std::string::npos);
  EXPECT_EQ(After.Plan, compile(Inv, nullptr).Plan);
  EXPECT_EQ(Cache.getStats().FileReads, 7u);
  // Written just now, its stamp is not trusted yet (a second write in the
  // same clock tick would keep it): it is read again, and an edit that
  // keeps size and time is still seen.
  auto Time = std::filesystem::last_write_time(LocalAtom);
  writeFile(LocalAtom.string(),
            replaced(AtomText, "\"0.0.0.0\"", "\"0.0.0.2\""));
  std::filesystem::last_write_time(LocalAtom, Time);
  EXPECT_NE(compile(Inv, &Cache).Plan.find("\"0.0.0.2\""), std::string::npos);
  EXPECT_EQ(Cache.getStats().FileReads, 8u);
  // Old again: read once more for its new stamp, then trusted.
  age(LocalAtom);
  EXPECT_NE(compile(Inv, &Cache).Plan.find("\"0.0.0.2\""), std::string::npos);
  EXPECT_NE(compile(Inv, &Cache).Plan.find("\"0.0.0.2\""), std::string::npos);
  EXPECT_EQ(Cache.getStats().FileReads, 9u);

  // Replaced by another file of the same size and time (a new inode).
  std::filesystem::path Other = Dir / "other.arecipe";
  writeFile(Other.string(), replaced(AtomText, "\"0.0.0.0\"", "\"0.0.0.3\""));
  std::filesystem::last_write_time(Other,
                                   std::filesystem::last_write_time(LocalAtom));
  std::filesystem::rename(Other, LocalAtom);
  Result Replaced = compile(Inv, &Cache);
  EXPECT_NE(Replaced.Plan.find("\"0.0.0.3\""), std::string::npos);
  EXPECT_EQ(Replaced.Plan, compile(Inv, nullptr).Plan);
  EXPECT_EQ(Replaced.Diags, "");

  // An override of a settled file wins over the record of it.
  CompilerInvocation Edited = Inv;
  Edited.Overrides[LocalAtom.string()] =
      replaced(AtomText, "\"0.0.0.0\"", "\"0.0.0.4\"");
  EXPECT_NE(compile(Edited, &Cache).Plan.find("\"0.0.0.4\""),
            std::string::npos);
  EXPECT_NE(compile(Inv, &Cache).Plan.find("\"0.0.0.3\""), std::string::npos);
  std::filesystem::remove_all(Dir);
}

TEST(ModuleCacheTest, OverridesTakePrecedenceAndDoNotMix) {
  ModuleCache Cache;
  std::string Text = readFile(Atom);
  CompilerInvocation A = exampleInvocation(), B = exampleInvocation();
  A.Overrides[Atom] = replaced(Text, "\"0.0.0.0\"", "\"127.0.0.1\"");
  B.Overrides[Atom] = replaced(Text, "\"0.0.0.0\"", "\"10.1.2.3\"");
  std::string Disk = compile(exampleInvocation(), nullptr).Plan;
  std::string PlanA = compile(A, nullptr).Plan;
  std::string PlanB = compile(B, nullptr).Plan;
  ASSERT_NE(PlanA.find("127.0.0.1"), std::string::npos);
  ASSERT_NE(PlanB.find("10.1.2.3"), std::string::npos);
  // Interleaved through one cache, each compilation sees its own text.
  for (int I = 0; I < 2; ++I) {
    EXPECT_EQ(compile(exampleInvocation(), &Cache).Plan, Disk);
    EXPECT_EQ(compile(A, &Cache).Plan, PlanA);
    EXPECT_EQ(compile(B, &Cache).Plan, PlanB);
  }
}

/// `--emit changelog --against`: two instances sharing one SourceMgr and
/// diagnostics stream, both importing the same std files, the new version
/// (an override of the old one's path) with an error. Returns what was
/// reported.
std::string againstPair(ModuleCache *Cache) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  TextDiagnosticPrinter Printer(OS);
  CompilerInvocation NewInv = exampleInvocation();
  NewInv.Overrides[Example] =
      replaced(readFile(Example), "tp          = 8", "tp          = eight");
  CompilerInstance Old(exampleInvocation(), &Printer);
  Old.setModuleCache(Cache);
  CompilerInstance New(NewInv, Old);
  New.setModuleCache(Cache);
  EXPECT_EQ(Old.analyze(), Status::Ok);
  EXPECT_EQ(New.analyze(), Status::Failed);
  Old.getDiagnostics().finish();
  return OS.str();
}

TEST(ModuleCacheTest, InstancesSharingASourceMgr) {
  // The second instance imports the first one's bytes; a second view of
  // them in the one SourceMgr would make their locations ambiguous, so it
  // parses its own copy. Either way, what is reported is the uncached text.
  std::string Fresh = againstPair(nullptr);
  EXPECT_NE(Fresh.find(":23:17: error: use of undeclared name 'eight'"),
            std::string::npos)
      << Fresh;
  ModuleCache Cache;
  EXPECT_EQ(againstPair(&Cache), Fresh);
  EXPECT_EQ(againstPair(&Cache), Fresh);
}

TEST(ModuleCacheTest, CompilationOutlivesTheCache) {
  auto Cache = std::make_unique<ModuleCache>();
  compile(exampleInvocation(), Cache.get());
  CompilerInstance CI(exampleInvocation(), nullptr);
  CI.setModuleCache(Cache.get());
  ASSERT_EQ(CI.analyze(), Status::Ok);
  // What the instance took from the cache stays alive with the instance.
  Cache.reset();
  ASSERT_NE(CI.lowerPlan(), nullptr);
  EXPECT_EQ(CI.getDiagnostics().errorCount(), 0u);
}

TEST(ModuleCacheTest, VersionsPerPathAreBounded) {
  ModuleCache Cache(/*VersionsPerPath=*/2);
  std::string Text = readFile(Example);
  for (int Seqs : {33, 34, 35}) {
    CompilerInvocation Inv = exampleInvocation();
    Inv.Overrides[Example] =
        replaced(Text, "max_num_seqs           = 32",
                 "max_num_seqs           = " + std::to_string(Seqs));
    EXPECT_NE(compile(Inv, &Cache).Plan, "");
  }
  // Five std files once each, and the two latest versions of the main.
  EXPECT_EQ(Cache.getStats().Entries, 7u);
}

} // namespace
