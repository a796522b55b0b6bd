//===- Json.h - Reading JSON that someone else wrote ------------*- C++ -*-===//
//
// Plans, traces, cell summaries of earlier runs, rank reports, the answers
// of engines and GPU tools: JSON the tools did not write themselves. Reading
// it must never crash, throw, hang or exhaust the stack, and what is wrong
// with it must be said precisely, so one run is enough to fix a file. This
// is the one place that parses such text (bounded in size and in nesting
// depth, since nlohmann's copy and dump recurse once per level), names
// JSON types in messages, collects errors with the JSON path of the field
// (`cells[3].processes[0].argv: expected a non-empty list of strings`), and
// reads fields of an object with their types checked. It is also the one
// place that writes JSON holding text from outside: dumpJson replaces
// invalid UTF-8 instead of throwing.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SUPPORT_JSON_H
#define ARECIPE_SUPPORT_JSON_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace arecipe::support {

using nlohmann::json;
using nlohmann::ordered_json;

struct JsonLimits {
  /// The deepest nesting of lists and objects accepted.
  size_t MaxDepth = 64;
  /// The longest text accepted, in bytes.
  size_t MaxBytes = size_t(64) << 20;
};

/// Why a text was not accepted.
struct JsonSyntaxError {
  std::string Position; ///< "line:col", or empty when none applies
  std::string Message;  ///< lower-case, no trailing period
};

/// Parses Text into Out. Never throws: false with Err set for a syntax
/// error, a number beyond double, nesting deeper than Limits.MaxDepth or a
/// text longer than Limits.MaxBytes.
bool parseJson(std::string_view Text, json &Out, JsonSyntaxError &Err,
               const JsonLimits &Limits = {});
bool parseJson(std::string_view Text, ordered_json &Out, JsonSyntaxError &Err,
               const JsonLimits &Limits = {});

/// The parsed text, or nullopt for anything parseJson refuses.
std::optional<json> parseJsonOrNull(std::string_view Text, const JsonLimits &Limits = {});
std::optional<ordered_json> parseOrderedJsonOrNull(std::string_view Text,
                                                   const JsonLimits &Limits = {});

/// Reads and parses a whole file; nullopt if it is missing, unreadable,
/// larger than Limits.MaxBytes or not acceptable JSON.
std::optional<ordered_json> readJsonFile(const std::string &Path, const JsonLimits &Limits = {});

/// Serialises V; text that is not valid UTF-8 is replaced (U+FFFD), never
/// an exception. Indent -1 gives one line.
std::string dumpJson(const json &V, int Indent = -1);
std::string dumpJson(const ordered_json &V, int Indent = -1);

/// Reads of one field of JSON another process wrote (a summary of an
/// earlier run, a rank report), with the type checked: the value, or the
/// default when V is not an object, the field is missing or has another
/// type. Never throws (nlohmann's value() does on a type mismatch).
template <typename JsonT>
std::string stringAt(const JsonT &V, std::string_view Key, std::string Default = {}) {
  if (!V.is_object())
    return Default;
  auto It = V.find(Key);
  return It != V.end() && It->is_string() ? It->template get<std::string>() : Default;
}
template <typename JsonT> bool boolAt(const JsonT &V, std::string_view Key, bool Default) {
  if (!V.is_object())
    return Default;
  auto It = V.find(Key);
  return It != V.end() && It->is_boolean() ? It->template get<bool>() : Default;
}
/// The number at a JSON pointer ("/request_metrics/latency/ttft/p50").
template <typename JsonT> std::optional<double> numberAt(const JsonT &V, const char *Pointer) {
  typename JsonT::json_pointer P(Pointer);
  if (!V.contains(P) || !V.at(P).is_number())
    return std::nullopt;
  return V.at(P).template get<double>();
}
/// The object under Key, or null.
template <typename JsonT> const JsonT *objectAt(const JsonT &V, std::string_view Key) {
  if (!V.is_object())
    return nullptr;
  auto It = V.find(Key);
  return It != V.end() && It->is_object() ? &*It : nullptr;
}

/// "an object", "a list", "a string", "an integer", ... for messages.
const char *jsonTypeName(const json &V);

/// The errors of a validating read, in the order found. At most Max are
/// kept; later ones are only counted. Paths and messages quote the input,
/// so both are escaped to one printable line (escapeForErrorLine).
class JsonErrors {
public:
  struct Entry {
    std::string Path;    ///< `cells[3].argv`; empty for the whole document
    std::string Message; ///< lower-case, no trailing period
  };

  explicit JsonErrors(size_t Max = 50) : Max(Max) {}

  void add(std::string_view Path, std::string_view Message);
  /// Prepended to the path of every later error (a trace's "file:line: ").
  void setContext(std::string Context) { this->Context = std::move(Context); }

  const std::vector<Entry> &entries() const { return Entries; }
  size_t dropped() const { return Dropped; }
  bool empty() const { return Entries.empty() && Dropped == 0; }

private:
  std::vector<Entry> Entries;
  size_t Max;
  size_t Dropped = 0;
  std::string Context;
};

/// One JSON object being read, with the path that names it in errors.
/// Reading a missing optional field yields the default; a present field of
/// the wrong type is an error even when it is optional. A string holding a
/// NUL byte is an error wherever it is read: no program, file name or
/// environment can receive it whole.
class JsonObject {
public:
  using Element = std::pair<std::string, const json *>;

  /// Obj may be null (an absent or mistyped object): every read then gives
  /// its default and reports nothing more.
  JsonObject(const json *Obj, std::string Path, JsonErrors &Errs)
      : Obj(Obj), Path(std::move(Path)), Errs(Errs) {}

  std::string pathOf(std::string_view Key) const;
  void error(std::string_view Key, std::string_view Message) const;

  /// The field's value; null when absent (reported when Required).
  const json *get(std::string_view Key, bool Required) const;
  /// Present and not null.
  bool has(std::string_view Key) const;

  std::string str(std::string_view Key, bool Required, std::string Default = {}) const;
  /// A string or null (null and absent both give the empty string).
  std::string optStr(std::string_view Key) const;
  std::string nonEmptyStr(std::string_view Key) const;
  std::string oneOf(std::string_view Key, bool Required,
                    std::initializer_list<const char *> Allowed, std::string Default = {}) const;
  int64_t integer(std::string_view Key, bool Required, int64_t Default, int64_t Min,
                  int64_t Max = INT64_MAX) const;
  double number(std::string_view Key, bool Required, double Default, double Min,
                double Max = 1e300) const;
  bool boolean(std::string_view Key, bool Required, bool Default) const;
  std::vector<std::string> strings(std::string_view Key, bool Required, bool NonEmpty) const;

  /// A nested object; absent or null gives an object with no fields.
  JsonObject object(std::string_view Key, bool Required) const;
  /// Each element of a list, with its path; reports a value that is not a
  /// list.
  std::vector<Element> list(std::string_view Key, bool Required) const;
  /// An element of list() read as an object.
  JsonObject element(const Element &E) const;

  bool present() const { return Obj != nullptr; }
  const json *value() const { return Obj; }
  const std::string &path() const { return Path; }
  JsonErrors &errors() const { return Errs; }

private:
  bool checkString(std::string_view Path, const std::string &S) const;

  const json *Obj;
  std::string Path;
  JsonErrors &Errs;
};

} // namespace arecipe::support

#endif // ARECIPE_SUPPORT_JSON_H
