//===- JsonWriter.h - Indented JSON written as it is produced ---*- C++ -*-===//
//
// The compiler's outputs are large JSON documents (a launch plan is about
// 20 KB per cell) whose bytes must not depend on how they were produced:
// the plan's format is nlohmann::json's `dump(2)`. Building a DOM only to
// dump it costs more than the analysis that produced the values, so this
// writer appends the same text straight to a string, token by token:
// two-space indentation (or any width), `"key": value`, `[]` and `{}` for
// empty containers, strings escaped as nlohmann escapes them, doubles in
// the shortest form that reads back to the same double (nlohmann's own
// conversion, so `0.1`, `1e+30`, `100.0`). Invalid UTF-8 is replaced by
// U+FFFD, as dumpJson does, never an exception. A DOM that exists anyway
// can be written into the stream at any depth, so one document can mix
// both. The caller may write out the text so far and clear() it, and go
// on: a document of any size need not be whole in memory.
//
// The text goes into one flat buffer that grows geometrically and is kept
// across clear(): each token checks the room it needs once and is then
// copied or formatted in place (no std::string append per token, no
// temporary per value), since writing is most of what `--emit plan` costs.
// A plan is mostly short keys, short strings and indentation, so those
// three have their own fast paths: a key known when the program is
// compiled (JsonKey, `"name"_key`) is checked then and copied with its
// separator, indentation, quotes and colon after one check of the room; a
// string is checked eight bytes at a time and copied in one go when
// nothing in it needs escaping; indentation is copied from a run of
// spaces made once.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SUPPORT_JSONWRITER_H
#define ARECIPE_SUPPORT_JSONWRITER_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace arecipe::support {

/// An object key that is a literal of the program: checked when the
/// program is compiled to need no escaping (no control character, quote,
/// backslash or non-ASCII byte; a key that does is a compile error, since
/// the constructor is consteval), so the writer copies it as it is.
class JsonKey {
public:
  consteval explicit JsonKey(std::string_view K) : S(K) {
    for (char C : K)
      if (static_cast<unsigned char>(C) < 0x20 ||
          static_cast<unsigned char>(C) >= 0x80 || C == '"' || C == '\\')
        throw "a JsonKey is written as it is: no byte of it may need escaping";
  }
  constexpr std::string_view text() const { return S; }

private:
  std::string_view S;
};

namespace json_literals {
/// `"name"_key`: JsonKey("name").
consteval JsonKey operator""_key(const char *K, size_t N) {
  return JsonKey(std::string_view(K, N));
}
} // namespace json_literals

class JsonWriter {
public:
  /// Indent < 0 writes one line with no spaces (`dump()`); otherwise
  /// `dump(Indent)`.
  explicit JsonWriter(int Indent = 2) : Indent(Indent) {}

  void beginObject();
  void endObject();
  void beginArray();
  void endArray();
  /// The next member's key (inside an object; a value must follow).
  void key(std::string_view K);
  /// The same for a key checked when the program was compiled: copied
  /// with its separator and indentation without looking at its bytes.
  /// Inline, so the key's length is a constant where it is called.
  void key(JsonKey K) {
    std::string_view S = K.text();
    char *P = beforeKey(S.size() + 4);
    *P++ = '"';
    std::memcpy(P, S.data(), S.size());
    P += S.size();
    std::memcpy(P, "\": ", 3);
    P += Indent < 0 ? 2 : 3;
    Size = static_cast<size_t>(P - Buf.get());
    AfterKey = true;
  }

  void null();
  void boolean(bool B);
  void number(int64_t N);
  void number(uint64_t N);
  /// NaN and infinities are written as `null`, as nlohmann does.
  void number(double D);
  void string(std::string_view S);
  /// Text this writer wrote earlier for one value at the same depth (from
  /// the value's first byte to its last, no separator before it), copied
  /// as it is after the separator the current position needs: a caller
  /// that writes the same value again, as a plan's cells do for most of
  /// their knobs, copies it instead of writing it token by token.
  void rawValue(std::string_view Json) {
    beforeValue();
    put(Json);
  }
  /// How many containers are open: a value's text copied by rawValue is
  /// the same only at the depth it was written at.
  size_t depth() const { return Stack.size(); }
  /// A document built elsewhere, written at the current position.
  void value(const nlohmann::ordered_json &V);
  void value(const nlohmann::json &V);

  /// Shorthands for one member of an object.
  template <typename T> void member(std::string_view K, const T &V) {
    key(K);
    write(V);
  }
  template <typename T> void member(JsonKey K, const T &V) {
    key(K);
    write(V);
  }

  /// The text written so far; the writer keeps its place in the document.
  /// Valid until the next call that writes.
  std::string_view text() const { return {Buf.get(), Size}; }
  /// Forgets the text written so far (after the caller wrote it out); the
  /// writer goes on from its place in the document, and keeps its buffer.
  void clear() { Size = 0; }
  /// Makes room for Bytes more bytes of text at once (a caller that knows
  /// the size of what it will write saves the buffer's regrowth).
  void reserve(size_t Bytes) { room(Bytes); }
  /// True when every container begun has been ended.
  bool complete() const { return Stack.empty(); }

  /// Appends S as a JSON string literal (quotes included).
  static void appendString(std::string &Out, std::string_view S);
  /// Appends D as nlohmann's dump writes it.
  static void appendDouble(std::string &Out, double D);

private:
  void write(std::string_view S) { string(S); }
  void write(const std::string &S) { string(S); }
  void write(const char *S) { string(S); }
  void write(bool B) { boolean(B); }
  void write(int64_t N) { number(N); }
  void write(int N) { number(static_cast<int64_t>(N)); }
  void write(unsigned N) { number(static_cast<uint64_t>(N)); }
  void write(uint64_t N) { number(N); }
  void write(double D) { number(D); }
  void write(std::nullptr_t) { null(); }

  template <typename JsonT> void writeDom(const JsonT &V);
  /// At least N bytes free after the text; returns where to write them.
  char *room(size_t N) {
    if (Cap - Size < N)
      grow(N);
    return Buf.get() + Size;
  }
  void grow(size_t N);
  void put(char C) { *room(1) = C, ++Size; }
  void put(std::string_view S) {
    std::memcpy(room(S.size()), S.data(), S.size());
    Size += S.size();
  }
  void putString(std::string_view S);
  /// Before a value: the separator and indentation its container needs.
  void beforeValue();
  /// Before a key: writes the separator and indentation, makes room for
  /// Extra more bytes and returns where they go (Size is not yet moved
  /// past them).
  char *beforeKey(size_t Extra);
  /// Writes the comma (if Comma), the newline and Depth levels of
  /// indentation, and makes room for Extra more bytes after them.
  char *separator(bool Comma, size_t Depth, size_t Extra);
  void end(bool IsObject);

  struct Level {
    bool IsObject;
    bool Empty = true;
  };
  int Indent;
  std::vector<Level> Stack;
  bool AfterKey = false;
  std::unique_ptr<char[]> Buf;
  size_t Size = 0, Cap = 0;
};

} // namespace arecipe::support

#endif // ARECIPE_SUPPORT_JSONWRITER_H
