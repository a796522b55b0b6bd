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

  void null();
  void boolean(bool B);
  void number(int64_t N);
  void number(uint64_t N);
  /// NaN and infinities are written as `null`, as nlohmann does.
  void number(double D);
  void string(std::string_view S);
  /// A document built elsewhere, written at the current position.
  void value(const nlohmann::ordered_json &V);
  void value(const nlohmann::json &V);

  /// Shorthands for one member of an object.
  template <typename T> void member(std::string_view K, const T &V) {
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
  void end(bool IsObject);
  void newline(size_t Depth);

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
