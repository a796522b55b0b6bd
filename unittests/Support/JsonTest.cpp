//===- JsonTest.cpp - Reading JSON that someone else wrote ----------------===//

#include "arecipe/Support/Json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace arecipe::support;

TEST(Json, NestingDeeperThanTheLimitIsAnErrorNotACrash) {
  // Finding 2: 100,000 nested lists; nlohmann's copy and dump recurse.
  std::string Deep = "{\"x\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  json V;
  JsonSyntaxError Err;
  EXPECT_FALSE(parseJson(Deep, V, Err));
  EXPECT_EQ(Err.Position, "1:70"); // the object is level 1
  EXPECT_EQ(Err.Message, "nesting deeper than 64 levels");
  std::string Fine = std::string(64, '[') + std::string(64, ']');
  EXPECT_TRUE(parseJson(Fine, V, Err)) << Err.Message;
  // Brackets inside strings do not count.
  EXPECT_TRUE(parseJson("[\"" + std::string(1000, '[') + "\\\"[\"]", V, Err)) << Err.Message;
}

TEST(Json, SizeLimitSyntaxAndRangeErrors) {
  json V;
  JsonSyntaxError Err;
  EXPECT_FALSE(parseJson(std::string(100, ' '), V, Err, JsonLimits{64, 10}));
  EXPECT_EQ(Err.Message, "the text is 100 bytes, more than the limit of 10");
  EXPECT_FALSE(parseJson("{\n  \"a\": }", V, Err));
  EXPECT_EQ(Err.Position, "2:8");
  EXPECT_EQ(Err.Message.rfind("syntax error while parsing value", 0), 0u) << Err.Message;
  EXPECT_FALSE(parseJson("[1e400]", V, Err));
  EXPECT_EQ(Err.Position, "1:2");
  EXPECT_EQ(Err.Message, "invalid JSON: number overflow parsing '1e400'");
  EXPECT_FALSE(parseJsonOrNull("{"));
  EXPECT_TRUE(parseOrderedJsonOrNull("{\"b\": 1, \"a\": 2}"));
}

TEST(Json, DumpReplacesInvalidUtf8) {
  // Finding 1: a log tail with \xff used to abort the dump.
  ordered_json J = {{"log_tail", "probe said \xff here"}, {"cut", "\xe2\x82"}};
  EXPECT_EQ(dumpJson(J),
            "{\"log_tail\":\"probe said \xef\xbf\xbd here\",\"cut\":\"\xef\xbf\xbd\xef\xbf\xbd\"}");
  json K = {{"k\xff", 1}};
  EXPECT_EQ(dumpJson(K), "{\"k\xef\xbf\xbd\":1}");
}

TEST(Json, ReadJsonFileRefusesWhatItCannotTrust) {
  std::string Dir = ::testing::TempDir() + "/json-" + std::to_string(getpid());
  std::filesystem::create_directories(Dir);
  std::ofstream(Dir + "/ok.json") << "{\"a\": [1, 2]}";
  std::ofstream(Dir + "/deep.json") << std::string(100, '[') << std::string(100, ']');
  std::ofstream(Dir + "/big.json") << "[" << std::string(100, ' ') << "]";
  EXPECT_TRUE(readJsonFile(Dir + "/ok.json"));
  EXPECT_FALSE(readJsonFile(Dir + "/deep.json"));
  EXPECT_FALSE(readJsonFile(Dir + "/big.json", JsonLimits{64, 50}));
  EXPECT_FALSE(readJsonFile(Dir + "/missing.json"));
  EXPECT_FALSE(readJsonFile(Dir)); // a directory
  std::filesystem::remove_all(Dir);
}

TEST(Json, ObjectReaderNamesEveryBadFieldByPath) {
  json Doc = json::parse(R"({"name": 5, "n": 1e3, "list": [{"a": "x"}, 3],
                             "argv": ["a", "b\u0000c"], "kind": "z"})");
  JsonErrors Errs;
  JsonObject F(&Doc, "", Errs);
  EXPECT_EQ(F.str("name", true), "");
  EXPECT_EQ(F.integer("n", true, 7, 0), 7);
  EXPECT_EQ(F.number("n", true, 0, 0, 100), 0);
  for (auto &E : F.list("list", true))
    F.element(E).nonEmptyStr("a");
  EXPECT_TRUE(F.strings("argv", true, true).empty());
  EXPECT_EQ(F.oneOf("kind", true, {"x", "y"}), "");
  F.object("missing", true);
  std::vector<std::string> Lines;
  for (const JsonErrors::Entry &E : Errs.entries())
    Lines.push_back(E.Path + ": " + E.Message);
  std::vector<std::string> Expected = {
      "name: expected a string, got an integer",
      "n: expected an integer, got a number",
      "n: expected a number in [0, 100], got 1000",
      "list[1]: expected an object, got an integer",
      "argv[1]: contains a NUL byte, which no program, file name or environment can receive",
      "kind: expected one of 'x', 'y'",
      "missing: missing required field"};
  EXPECT_EQ(Lines, Expected);
}

TEST(Json, ErrorsAreCappedCountedAndEscaped) {
  JsonErrors Errs(2);
  Errs.setContext("t.jsonl:3: ");
  Errs.add("a\nb", "x\x1b");
  Errs.add("c", "y");
  Errs.add("d", "z");
  ASSERT_EQ(Errs.entries().size(), 2u);
  EXPECT_EQ(Errs.entries()[0].Path, "t.jsonl:3: a\\nb");
  EXPECT_EQ(Errs.entries()[0].Message, "x\\x1b");
  EXPECT_EQ(Errs.dropped(), 1u);
}
