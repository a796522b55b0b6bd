//===- FastParserTest.cpp - The fast parser against the reference --------===//
//
// The fast parser (lib/Parse/FastParser.cpp) must build exactly the tree of
// the ANTLR parser for every text it accepts, and leave every other text to
// it. These tests run both on every recipe of the repository, on the
// `--set` values the lit tests use and on hand-written texts aimed at the
// places where the two could part (parse::compareParsersOnFile), and check
// that the fast parser does accept the well-formed recipes: were it to give
// up on everything, every comparison would pass and measure nothing.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Parse/ParserDiff.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

using namespace arecipe;
using namespace arecipe::parse;

namespace {

std::string sourcePath(llvm::StringRef Rel) {
  llvm::SmallString<256> P(ARECIPE_SOURCE_ROOT);
  llvm::sys::path::append(P, Rel);
  return std::string(P);
}

/// Every file below Dir whose name ends in Ext (any file when Ext is
/// empty), sorted so that failures read the same on every run.
std::vector<std::string> filesBelow(llvm::StringRef Dir, llvm::StringRef Ext) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(sourcePath(Dir), EC), End;
       It != End && !EC; It.increment(EC)) {
    if (It->type() == llvm::sys::fs::file_type::regular_file &&
        llvm::StringRef(It->path()).endswith(Ext))
      Out.push_back(It->path());
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::string readFile(const std::string &Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  return Buffer ? (*Buffer)->getBuffer().str() : std::string();
}

TEST(FastParserTest, AgreesWithReferenceOnEveryRecipe) {
  std::vector<std::string> Files;
  for (const char *Dir : {"examples", "std", "test", "bench"})
    for (std::string &F : filesBelow(Dir, ".arecipe"))
      Files.push_back(std::move(F));
  // The fuzzers' seed corpora hold recipes without the extension too.
  for (const char *Dir : {"fuzz/corpus/parse", "fuzz/corpus/sema"})
    for (std::string &F : filesBelow(Dir, ""))
      Files.push_back(std::move(F));

  unsigned Clean = 0, Accepted = 0;
  std::vector<std::string> Bailed; // Clean for the reference, not for us.
  for (const std::string &Path : Files) {
    ParserComparison C = compareParsersOnFile(Path, readFile(Path));
    EXPECT_EQ(C.Difference, "") << Path;
    Clean += C.ReferenceClean;
    Accepted += C.FastAccepted;
    if (C.ReferenceClean && !C.FastAccepted)
      Bailed.push_back(Path);
  }
  // A walk that found nothing would compare nothing.
  ASSERT_GT(Files.size(), 400u);
  EXPECT_GT(Accepted, 0u);
  std::string BailedList;
  for (const std::string &B : Bailed)
    BailedList += B + "\n";
  // The recipes, the standard library and the examples are well formed and
  // must take the fast path: giving up there is correct but slow.
  for (const std::string &B : Bailed)
    EXPECT_TRUE(B.find("/test/") != std::string::npos ||
                B.find("/fuzz/") != std::string::npos)
        << "the fast parser gave up on " << B;
  std::printf("[ parsers ] %zu files, %u clean for the reference, %u taken "
              "by the fast parser, %zu clean ones left to the reference:\n%s",
              Files.size(), Clean, Accepted, Bailed.size(), BailedList.c_str());
}

TEST(FastParserTest, AgreesWithReferenceOnSetValues) {
  // The values of every `--set name=value` in the lit tests.
  std::regex SetOption(R"(--set[ =]+('[^']*'|"[^"]*"|[^ ]+))");
  std::vector<std::string> Values;
  for (const std::string &Path : filesBelow("test", "")) {
    if (!llvm::StringRef(Path).endswith(".test") &&
        !llvm::StringRef(Path).endswith(".arecipe"))
      continue;
    std::string Text = readFile(Path);
    for (std::sregex_iterator It(Text.begin(), Text.end(), SetOption), End;
         It != End; ++It) {
      const std::string Matched = (*It)[1].str();
      llvm::StringRef Option = Matched;
      if (Option.size() >= 2 &&
          (Option.front() == '\'' || Option.front() == '"'))
        Option = Option.drop_front().drop_back();
      if (Option.contains('='))
        Values.push_back(Option.split('=').second.str());
    }
  }
  ASSERT_GT(Values.size(), 20u);
  unsigned Clean = 0, Accepted = 0;
  for (const std::string &V : Values) {
    ParserComparison C = compareParsersOnExpr(V);
    EXPECT_EQ(C.Difference, "") << V;
    Clean += C.ReferenceClean;
    Accepted += C.FastAccepted;
    EXPECT_EQ(C.FastAccepted, C.ReferenceClean) << V;
  }
  std::printf("[ parsers ] %zu --set values, %u clean for the reference, %u "
              "taken by the fast parser\n",
              Values.size(), Clean, Accepted);
}

/// Texts the fast parser must take, one per construct of the grammar.
const char *const Accepted[] = {
    "",
    "// only a comment\n/* and a block */",
    "import \"std/engines/vllm.arecipe\" as v\nimport \"x\"\n",
    "let a = 1\nlet b = 0x1F\nlet c = 1_000\nlet d = 2.5e-3\nlet e = 1e9",
    "let q = [128GB, 1.5s, 60s, 2min]",
    "let s = \"a\\tb\\u{1F600}\\\"\\\\x\" + r\"raw\\n\"",
    // An escape is a backslash and one character: each string ends at its
    // last quote.
    "let s = \"a\\\\\" + \"b\"\nlet t = [\"\\\\\", \"\\\\\\\"\", \"\\\\\\\\\"]",
    "let s = \"\\\\${n}\" + \"\\${n\\\\\" + \"}\\\\\"",
    "let s = \"n=${n + 1} and ${f(x)[0].y}!\"",
    "let e = -a.b(c)[d] as GB floor * 2 + 3 % 4 - 5 / 6",
    "let r = [1 .. 10, 1..10 step 2, conc in 8..16, a .. b + 1 step c * 2]",
    "let l = not a and b or c == d and e != f and g <= h",
    "let c = a if b else c if d else e",
    "let m = {\"k\": 1, 2: [3, 4,], }",
    "let c = [x * 2 for x in xs if x > 1]\nlet d = [x for x in a.b]",
    "let p = (a + b) * (c < d)\nlet q = ((1))",
    "let u = x as MiB ceil\nlet v = y as s round\nlet w = z as GB",
    "let f = f(a, b = 2, c = [1],)",
    "enum mode { a, b, c, }\nenum empty {}",
    "recipe r extends base.parent { tp = 8; a.b.c = 1 }",
    "hardware h {} engine e {} model m {} router x {} service s extends t {}",
    "recipe r { flag \"--x\" each = [1] }",
    "recipe r {\n band mid when conc in 8..16 { dcp = 8 }\n at conc 14, 16 "
    "{ server = cell(16) }\n arm tp4 { tp = 4 }\n check tp % dcp == 0 : "
    "\"dcp must divide tp\"\n preflight gpu_free(min = 80GB, 2)\n let w = 2 * "
    "conc\n env { A = \"1\" }\n file \"a.yaml\" = yaml({a: 1})\n}",
    "engine e {\n knob dcp : int = 1 where tp % dcp == 0 -> flag \"--dcp\" "
    "if dcp > 1\n knob l : list<int>? -> flag \"--l\" each -> json \"--j\" "
    "\"a.b\"\n knob m : map<string, list<int>> -> switch \"--x\" else "
    "\"--no-x\" -> arg -> args -> env \"X\" -> yaml \"f\" \"k\" -> json_file "
    "\"f\" \"k\"\n emit when a > 1 { flag \"--a\" spread = [1]; switch \"--b\" "
    "else \"--c\" = true; flag \"--d\"; args [\"x\"] }\n}",
    "tune t for r {\n dcp in [1, 8]\n maximize tput_per_gpu\n p90_ttft <= 2s\n "
    "tput >= 10 tok/s/user\n band mid { x in [1, 2] }\n at conc 8, 12 { "
    "minimize y }\n}",
    ("recipe r { model = kimi_k3; json = 1; file = 2; args = 3; flag.x = 4; "
     "knob { } }"),
};

TEST(FastParserTest, TakesEveryConstruct) {
  for (const char *Text : Accepted) {
    ParserComparison C = compareParsersOnFile("t.arecipe", Text);
    EXPECT_EQ(C.Difference, "") << Text;
    EXPECT_TRUE(C.ReferenceClean) << Text;
    EXPECT_TRUE(C.FastAccepted) << Text;
  }
}

/// Texts where the two parsers could part: lexical corner cases, ANTLR's
/// prediction, errors, limits. Either parser may take them, as long as
/// the results agree.
const char *const Corners[] = {
    "let s = \"\\${x\" + \"}\"", // an escaped `${` is text
    "let s = \"${x\" + \"}\"",   // the STRING rule's longest match
    "let s = \"a\\\nlet t = 1",  // a backslash last on its line
    "let s = \"a\\\r\nlet t = 1",
    "let s = \"a\\", // ... and last in the file
    "let s = \"a\\\\\\",
    "let s = \"a\\\\\\\"",
    "let s = \"\\\"\nlet t = \"b\"",
    "let s = \"a\\\\\" + \"b\\\"",
    "let s = \"\\\\\\q\"",     // an escaped backslash, then a bad escape
    "let s = \"${\"",          // a quote inside an interpolation
    "let s = \"${}\"",         // an empty interpolation
    "let s = \"unterminated",  //
    "let s = r\"unterminated", //
    "let x = 0x\nlet y = 0xZZ\nlet z = 1e\nlet w = 1e3GB\nlet v = 1.e5",
    "let x = 1__0\nlet y = 1_\nlet z = 99999999999999999999",
    "let x = 5 sec\nlet y = 5sec",
    "let x = a < b < c", // err_chained_comparison
    "let x = (a < b) < c",
    "let x = 1 .. 2 == 3 .. 4 step 5",
    "let x = a .. b .. c step d",
    "let x = 1 .. a or b step 2",
    "let x = [a for a in b if c else d]",
    "let x = [a for a in b if c if d else e]",
    "let x = a if b if c else d else e",
    "recipe r { x = y as GB floor\n floor = 1 }",
    "recipe r { x = y as GB floor\n z = 1 }",
    "engine e { knob k : int -> flag \"--k\" each\n each = 1 }",
    "engine e { knob k : int where\n where = 1 }",
    "recipe r { args { } }",
    "recipe r { args {a: 1} }",
    "recipe r { args - 1 }",
    "tune t for r { a >= 1 maximize m }",
    "tune t for r { a >= 1 maximize\n m in [1] }",
    "tune t for r { a >= 1 x\n y in [1] }",
    "import \"a\"; import \"b\"",
    "import \"${x}\"",
    ";;let x = 1;; recipe r { ; a = 1;; }",
    "recipe r { a = 1 b = 2 }",
    "recipe r { a = }",
    "let x = !a",
    "let x = a\n\x01",
    "\xEF\xBB\xBFlet x = 1",
    "let x = \"\xC3\xA9\" // \xC3\xA9\n/* \xC3\xA9 */ let y = 2",
    "let x = \xC3\xA9",
    "/* unterminated",
    "let x = list<int>",
    "engine e { knob k : list<list<int>>= 1 }",
    "let x = 1 as",
    "let x = f(a = )",
    "let x = f(,)",
    "let x = [,]",
    "let x = {,}",
    "let x = {a}",
    "let x = - - - - 1",
    "let x = not not a",
    "let x = a.b.c.d(e)(f)[g][h]",
    "let x = -1 .. 5\nlet y = not a .. b",
    "let x = a in b in c",
    "let x = a if b else c if d",
    "let x = 1 step 2",
    "let x = \"${a}${b}c\\$d\"",
    "let x = \"${a\\}\"",
    "recipe r { file \"x\" = 1; file { } ; file.x = 2 }",
    "recipe r { emit { } ; emit = 1 }",
    "recipe r { arm { } }",
    "recipe r { x = 5 sec = 3 }",
    "recipe extends extends p {}\nrecipe r { recipe { } }",
    "let x = a.floor\nlet y = z as floor\nlet w = f(floor = 1)",
    "let x = 1\r\nlet y = \"a\r\"",
    "tune t for r { a >= 1 tok/s/user; b <= 2s; maximize m; }",
    "let x = [1 for x in y]\nlet z = [a for b in c if d][0]",
};

TEST(FastParserTest, AgreesOnCornerCases) {
  for (const char *Text : Corners) {
    ParserComparison C = compareParsersOnFile("t.arecipe", Text);
    EXPECT_EQ(C.Difference, "") << Text;
  }
}

TEST(FastParserTest, LimitsLeaveTheTextToTheReference) {
  // Deep nesting of every kind: the reference reports or accepts, the fast
  // parser must agree or give up, and never run out of stack.
  std::string Minus = "let x = " + std::string(3000, '-') + "1";
  std::string Parens =
      "let x = " + std::string(300, '(') + "1" + std::string(300, ')');
  std::string Brackets =
      "let x = " + std::string(250, '[') + "1" + std::string(250, ']');
  std::string Sum = "let x = 1";
  for (int I = 0; I < 1100; ++I)
    Sum += " + 1";
  std::string Types = "engine e { knob k : ";
  for (int I = 0; I < 600; ++I)
    Types += "list<";
  Types += "int" + std::string(600, '>') + " }";
  for (const std::string &Text : {Minus, Parens, Brackets, Sum, Types}) {
    ParserComparison C = compareParsersOnFile("t.arecipe", Text);
    EXPECT_EQ(C.Difference, "") << Text.substr(0, 40);
  }
  ParseLimits Small;
  Small.MaxExprDepth = 3;
  Small.MaxNesting = 2;
  for (const char *Text :
       {"let x = 1 + 2 + 3 + 4", "let x = 1 + 2 + 3", "let x = [[[1]]]",
        "let x = [[1]]", "recipe r { preflight p(f(g(1))) }",
        "recipe r { preflight p(f(1)) }"}) {
    ParserComparison C = compareParsersOnFile("t.arecipe", Text, Small);
    EXPECT_EQ(C.Difference, "") << Text;
  }
}

} // namespace
