//===- JsonWriterTest.cpp - Indented JSON written as it is produced -------===//
//
// The writer's contract is nlohmann's dump, byte for byte (the plan's
// format): each test builds the same document both ways and compares.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Support/JsonWriter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace arecipe::support;
using namespace arecipe::support::json_literals;
using nlohmann::ordered_json;

namespace {

std::string written(const ordered_json &V, int Indent) {
  JsonWriter W(Indent);
  W.value(V);
  EXPECT_TRUE(W.complete());
  return std::string(W.text());
}

std::string stringLiteral(std::string_view S) {
  std::string Out;
  JsonWriter::appendString(Out, S);
  return Out;
}

std::string doubleText(double D) {
  std::string Out;
  JsonWriter::appendDouble(Out, D);
  return Out;
}

TEST(JsonWriter, NestingAndIndentAsDump) {
  ordered_json V = ordered_json::parse(R"({
    "z": 1, "a": [1, [], {}, [2, [3, {"k": null}]], {"x": true, "y": false}],
    "empty_obj": {}, "empty_list": [], "s": "text", "neg": -7, "f": 0.5,
    "deep": {"a": {"b": {"c": [[[]]]}}}
  })");
  for (int Indent : {-1, 0, 2, 4})
    EXPECT_EQ(written(V, Indent), V.dump(Indent)) << "indent " << Indent;
  // Scalars at the top level, and empty containers.
  for (const char *Text :
       {"null", "true", "3", "-3", "1.5", "\"x\"", "[]", "{}"}) {
    ordered_json S = ordered_json::parse(Text);
    EXPECT_EQ(written(S, 2), S.dump(2)) << Text;
  }
}

TEST(JsonWriter, TokenCallsGiveTheDumpOfTheSameDocument) {
  JsonWriter W;
  W.beginObject();
  W.member("id", "c1");
  W.member("conc", int64_t(64));
  W.member("line", 12u);
  W.member("ok", true);
  W.member("none", nullptr);
  W.key("argv");
  W.beginArray();
  W.string("python3");
  W.string("-m");
  W.endArray();
  W.key("env");
  W.beginObject();
  W.endObject();
  W.key("ratio");
  W.number(0.8);
  W.key("dom");
  W.value(ordered_json::parse(R"({"b": [1, {"c": 2}], "a": {}})"));
  W.endObject();
  EXPECT_TRUE(W.complete());
  ordered_json V;
  V["id"] = "c1";
  V["conc"] = 64;
  V["line"] = 12u;
  V["ok"] = true;
  V["none"] = nullptr;
  V["argv"] = {"python3", "-m"};
  V["env"] = ordered_json::object();
  V["ratio"] = 0.8;
  V["dom"] = ordered_json::parse(R"({"b": [1, {"c": 2}], "a": {}})");
  EXPECT_EQ(W.text(), V.dump(2));
}

TEST(JsonWriter, ClearKeepsThePlaceInTheDocument) {
  JsonWriter W;
  std::string All;
  W.beginArray();
  for (int I = 0; I < 3; ++I) {
    W.beginObject();
    W.member("i", int64_t(I));
    W.endObject();
    All += W.text();
    W.clear();
  }
  W.endArray();
  All += W.text();
  EXPECT_EQ(All,
            ordered_json::parse(R"([{"i": 0}, {"i": 1}, {"i": 2}])").dump(2));
}

TEST(JsonWriter, EveryByteEscapedAsDumpEscapesIt) {
  // Each ASCII byte alone and inside text (control characters, quote,
  // backslash, DEL).
  for (int C = 0; C < 0x80; ++C) {
    std::string S(1, static_cast<char>(C));
    EXPECT_EQ(stringLiteral(S), ordered_json(S).dump()) << "byte " << C;
    std::string T = "a" + S + "b" + S;
    EXPECT_EQ(stringLiteral(T), ordered_json(T).dump()) << "byte " << C;
  }
  // ... and at every position of a longer text, which the writer checks
  // eight bytes at a time: a byte to escape in any lane of a word, next to
  // bytes that are not (a word-wise check that missed one lane, or
  // mistook a neighbour such as '!' or '[' for a quote or backslash,
  // would show here).
  for (int C = 0; C < 0x80; ++C)
    for (size_t Pos = 0; Pos < 24; ++Pos) {
      std::string T = "0123456789abcdefghijklmnopq!#[]^_ ~";
      T[Pos] = static_cast<char>(C);
      ASSERT_EQ(stringLiteral(T), ordered_json(T).dump())
          << "byte " << C << " at " << Pos;
    }
  // Valid UTF-8 of every length is copied as it is (ensure_ascii off).
  for (const char *S : {"caf\xc3\xa9", "\xe2\x82\xac 5", "\xf0\x9f\x98\x80",
                        "\xef\xbf\xbf", "tab\there \"quoted\" back\\slash"})
    EXPECT_EQ(stringLiteral(S), ordered_json(S).dump()) << S;
  // Keys are escaped the same way.
  JsonWriter W;
  W.beginObject();
  W.member("k\"\n\x01", "v");
  W.endObject();
  ordered_json V;
  V["k\"\n\x01"] = "v";
  EXPECT_EQ(W.text(), V.dump(2));
}

TEST(JsonWriter, LiteralKeysWriteWhatStringKeysWrite) {
  // A JsonKey is copied with its separator and indentation without being
  // escaped; the text is the dump's in every layout, first member or not,
  // in objects nested in arrays and objects.
  for (int Indent : {-1, 0, 2, 4}) {
    JsonWriter W(Indent);
    W.beginObject();
    W.member("id"_key, "c1");
    W.key("knobs"_key);
    W.beginArray();
    for (int I = 0; I < 2; ++I) {
      W.beginObject();
      W.member("name"_key, std::string_view("tp"));
      W.member("value"_key, int64_t(I));
      W.key(JsonKey("origin"));
      W.beginObject();
      W.member("level"_key, "recipe");
      W.endObject();
      W.endObject();
    }
    W.endArray();
    W.key("empty"_key);
    W.beginObject();
    W.endObject();
    W.member(""_key, nullptr);
    W.endObject();
    ordered_json V = ordered_json::parse(R"({"id": "c1", "knobs": [
      {"name": "tp", "value": 0, "origin": {"level": "recipe"}},
      {"name": "tp", "value": 1, "origin": {"level": "recipe"}}],
      "empty": {}, "": null})");
    EXPECT_EQ(W.text(), V.dump(Indent)) << "indent " << Indent;
  }
}

TEST(JsonWriter, IndentationDeeperThanTheRunOfSpaces) {
  // Indentation is copied from a run of 128 spaces; a deeper line is
  // filled instead. Both sides of that depth, with keys of both kinds and
  // array elements.
  for (int Indent : {2, 3}) {
    JsonWriter W(Indent);
    ordered_json V = ordered_json::array();
    ordered_json *Inner = &V;
    W.beginArray();
    for (int Depth = 0; Depth < 80; ++Depth) {
      W.beginObject();
      W.member("d"_key, int64_t(Depth));
      W.key("next");
      W.beginArray();
      W.string("x");
      ordered_json Level;
      Level["d"] = Depth;
      Level["next"] = ordered_json::array({"x"});
      Inner->push_back(std::move(Level));
      Inner = &Inner->back()["next"];
    }
    for (int Depth = 0; Depth < 80; ++Depth) {
      W.endArray();
      W.endObject();
    }
    W.endArray();
    EXPECT_TRUE(W.complete());
    EXPECT_EQ(W.text(), V.dump(Indent)) << "indent " << Indent;
  }
}

TEST(JsonWriter, EveryLengthWithAByteToEscapeAnywhere) {
  // Strings are checked as overlapping words (8 bytes and more), two
  // overlapping halves (4 to 7) or three bytes (1 to 3): every length up
  // to 40, plain and with one byte to escape (or a non-ASCII one) at each
  // position, as values and as keys.
  const char Specials[] = {'"', '\\', '\n', '\x01', '\x1f', '\x7f', ' ', '~'};
  for (size_t Len = 0; Len <= 40; ++Len) {
    std::string Plain;
    for (size_t I = 0; I < Len; ++I)
      Plain += static_cast<char>('a' + I % 26);
    ASSERT_EQ(stringLiteral(Plain), ordered_json(Plain).dump()) << Len;
    for (size_t Pos = 0; Pos < Len; ++Pos) {
      for (char C : Specials) {
        std::string T = Plain;
        T[Pos] = C;
        ASSERT_EQ(stringLiteral(T), ordered_json(T).dump())
            << "byte " << int(C) << " at " << Pos << " of " << Len;
        JsonWriter W;
        W.beginObject();
        W.member(T, T);
        W.endObject();
        ordered_json V;
        V[T] = T;
        ASSERT_EQ(W.text(), V.dump(2));
      }
      // A byte above ASCII: valid UTF-8 is copied, a lone byte replaced.
      std::string U = Plain.substr(0, Pos) + "\xc3\xa9" + Plain.substr(Pos);
      ASSERT_EQ(stringLiteral(U), ordered_json(U).dump()) << Pos;
      std::string B = Plain;
      B[Pos] = '\xff';
      ASSERT_EQ(stringLiteral(B),
                ordered_json(B).dump(-1, ' ', false,
                                     nlohmann::json::error_handler_t::replace))
          << Pos;
    }
  }
}

TEST(JsonWriter, RawValueCopiesTextWrittenAtTheSameDepth) {
  // A value written once, its text taken without the separator before it,
  // then copied as the next elements: the same as writing each of them.
  for (int Indent : {-1, 2}) {
    JsonWriter W(Indent);
    W.beginObject();
    W.key("list"_key);
    W.beginArray();
    size_t Before = W.text().size();
    size_t Depth = W.depth();
    W.beginObject();
    W.member("k"_key, "v");
    W.key("n"_key);
    W.beginArray();
    W.number(int64_t(1));
    W.endArray();
    W.endObject();
    std::string Text(W.text().substr(Before));
    Text.erase(0, Text.find('{'));
    EXPECT_EQ(W.depth(), Depth);
    W.rawValue(Text);
    W.rawValue(Text);
    W.endArray();
    W.endObject();
    EXPECT_TRUE(W.complete());
    ordered_json V = ordered_json::parse(R"({"list": [
      {"k": "v", "n": [1]}, {"k": "v", "n": [1]}, {"k": "v", "n": [1]}]})");
    EXPECT_EQ(W.text(), V.dump(Indent)) << "indent " << Indent;
  }
}

TEST(JsonWriter, LongStringsEscapedAcrossBufferGrowth) {
  // The writer escapes into its flat buffer, copying runs of plain bytes
  // at once: strings much longer than its first 4 KB, with escapes,
  // non-ASCII and plain bytes at every position relative to a run, as
  // values and as keys, after text that leaves the buffer nearly full.
  std::mt19937 Rng(4);
  const std::string Pieces[] = {"a",      "\"",          "\\",
                                "\n",     "\x01",        "\x1f",
                                "\x7f",   "caf\xc3\xa9", "\xe2\x82\xac",
                                "plain ", "\t\t",        "\xf0\x9f\x98\x80"};
  for (size_t Prefix : {0, 1, 4000, 4090, 4095}) {
    std::string S;
    while (S.size() < 20000)
      S += Pieces[Rng() % std::size(Pieces)];
    JsonWriter W;
    W.beginObject();
    W.member("prefix", std::string(Prefix, 'p'));
    W.member("long", S);
    W.member(S, int64_t(Prefix));
    W.endObject();
    ordered_json V;
    V["prefix"] = std::string(Prefix, 'p');
    V["long"] = S;
    V[S] = Prefix;
    EXPECT_EQ(W.text(), V.dump(2)) << "prefix " << Prefix;
    EXPECT_EQ(stringLiteral(S), ordered_json(S).dump());
  }
  // A long string whose only bad byte is at the end: the fallback that
  // replaces it rewrites the whole literal.
  std::string Bad(9000, 'x');
  Bad += "\xff";
  EXPECT_EQ(stringLiteral(Bad),
            "\"" + std::string(9000, 'x') + "\xef\xbf\xbd\"");
}

TEST(JsonWriter, BufferKeptAndReusedAfterClear) {
  // A document written in pieces much larger than the buffer, cleared
  // after each, with reserve() before some: the pieces add up to the dump.
  JsonWriter W;
  std::string All;
  ordered_json V = ordered_json::array();
  W.beginArray();
  for (int I = 0; I < 50; ++I) {
    if (I % 7 == 0)
      W.reserve(size_t(I) * 1000);
    W.beginObject();
    std::string Text(size_t(I) * 300, static_cast<char>('a' + I % 26));
    W.member("text", Text);
    W.member("i", int64_t(I));
    W.member("f", I / 8.0);
    W.endObject();
    V.push_back({{"text", Text}, {"i", I}, {"f", I / 8.0}});
    All += W.text();
    W.clear();
  }
  W.endArray();
  All += W.text();
  EXPECT_TRUE(W.complete());
  EXPECT_EQ(All, V.dump(2));
}

TEST(JsonWriter, InvalidUtf8IsReplacedNotThrown) {
  // nlohmann's strict dump throws here; the writer never does.
  EXPECT_EQ(stringLiteral("a\xff"
                          "b"),
            "\"a\xef\xbf\xbd"
            "b\"");
  EXPECT_EQ(stringLiteral("\xc3"), "\"\xef\xbf\xbd\"");
  // The same as nlohmann's dump with replacement for a lone bad byte.
  std::string Bad = "x\x80y";
  EXPECT_EQ(stringLiteral(Bad),
            ordered_json(Bad).dump(-1, ' ', false,
                                   nlohmann::json::error_handler_t::replace));
}

TEST(JsonWriter, DoublesAsDumpWritesThem) {
  const double Values[] = {0.0,
                           -0.0,
                           0.1,
                           0.01,
                           1.0 / 3.0,
                           2.0 / 3.0,
                           100.0,
                           1e30,
                           1e-30,
                           123456789012345678.0,
                           1e15,
                           1e16,
                           1e17,
                           1e21,
                           1e22,
                           1e-5,
                           1e-4,
                           0.001,
                           5e-324,
                           std::numeric_limits<double>::min(),
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::lowest(),
                           -1.5,
                           0.8,
                           0.95,
                           1.1,
                           2.5e-7};
  for (double D : Values)
    EXPECT_EQ(doubleText(D), ordered_json(D).dump()) << D;
  // Whatever the bits, the shortest round-trip form of nlohmann's dump.
  std::mt19937_64 Rng(19);
  for (int I = 0; I < 20000; ++I) {
    uint64_t Bits = Rng();
    double D;
    std::memcpy(&D, &Bits, sizeof D);
    if (!std::isfinite(D))
      continue;
    ASSERT_EQ(doubleText(D), ordered_json(D).dump()) << "bits " << Bits;
    double R = static_cast<double>(Rng() % 1000000) / 1000.0;
    ASSERT_EQ(doubleText(R), ordered_json(R).dump()) << R;
  }
  // Not a JSON number: null, as dump writes it.
  EXPECT_EQ(doubleText(std::nan("")), "null");
  EXPECT_EQ(doubleText(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(doubleText(std::nan("")), ordered_json(std::nan("")).dump());
}

TEST(JsonWriter, IntegersAtTheirLimits) {
  JsonWriter W(-1);
  W.beginArray();
  W.number(std::numeric_limits<int64_t>::min());
  W.number(std::numeric_limits<int64_t>::max());
  W.number(std::numeric_limits<uint64_t>::max());
  W.number(int64_t(0));
  W.endArray();
  ordered_json V = {std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max(),
                    std::numeric_limits<uint64_t>::max(), 0};
  EXPECT_EQ(W.text(), V.dump());
}

} // namespace
