//===- Json.cpp - Reading JSON that someone else wrote --------------------===//

#include "arecipe/Support/Json.h"

#include "arecipe/Support/Utf8.h"

#include <fmt/format.h>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace arecipe::support {

namespace {

std::string lineCol(std::string_view Text, size_t Offset) {
  size_t Line = 1, Col = 1;
  for (size_t I = 0; I < Offset && I < Text.size(); ++I) {
    if (Text[I] == '\n') {
      ++Line;
      Col = 1;
    } else {
      ++Col;
    }
  }
  return fmt::format("{}:{}", Line, Col);
}

/// Where a list or object opens level MaxDepth + 1, outside strings; npos
/// when none does. A linear scan, so a hostile text is refused before a
/// tree of that depth is ever built.
size_t tooDeepAt(std::string_view Text, size_t MaxDepth) {
  size_t Depth = 0;
  bool InString = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
      continue;
    }
    if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > MaxDepth)
        return I;
    } else if ((C == ']' || C == '}') && Depth > 0) {
      --Depth;
    }
  }
  return std::string_view::npos;
}

/// nlohmann's what() without its "[json.exception.KIND.N] " prefix.
std::string exceptionReason(const char *What) {
  std::string Why = What;
  if (!Why.empty() && Why.front() == '[')
    if (size_t Close = Why.find("] "); Close != std::string::npos)
      Why = Why.substr(Close + 2);
  return Why;
}

/// "line:col" of the token an exception quotes ("... parsing '1e400'"), or
/// "" when it quotes none found in the text.
std::string exceptionPosition(std::string_view Text, const char *What) {
  std::string_view Why = What;
  size_t Open = Why.find('\'');
  size_t Close = Open == std::string_view::npos ? Open : Why.find('\'', Open + 1);
  if (Close == std::string_view::npos || Close == Open + 1)
    return "";
  size_t At = Text.find(Why.substr(Open + 1, Close - Open - 1));
  return At == std::string_view::npos ? "" : lineCol(Text, At);
}

template <typename JsonT>
bool parseInto(std::string_view Text, JsonT &Out, JsonSyntaxError &Err, const JsonLimits &L) {
  if (Text.size() > L.MaxBytes) {
    Err = {"",
           fmt::format("the text is {} bytes, more than the limit of {}", Text.size(), L.MaxBytes)};
    return false;
  }
  if (size_t At = tooDeepAt(Text, L.MaxDepth); At != std::string_view::npos) {
    Err = {lineCol(Text, At), fmt::format("nesting deeper than {} levels", L.MaxDepth)};
    return false;
  }
  try {
    Out = JsonT::parse(Text);
    return true;
  } catch (const nlohmann::json::parse_error &E) {
    std::string Why = E.what();
    size_t Pos = Why.find(": syntax error");
    Err = {lineCol(Text, E.byte == 0 ? 0 : E.byte - 1),
           Pos == std::string::npos ? "invalid JSON" : Why.substr(Pos + 2)};
  } catch (const nlohmann::json::exception &E) {
    // out_of_range.406 (a number beyond double) and anything else the
    // parser throws: an error, never an abort.
    Err = {exceptionPosition(Text, E.what()), "invalid JSON: " + exceptionReason(E.what())};
  }
  return false;
}

} // namespace

bool parseJson(std::string_view Text, json &Out, JsonSyntaxError &Err, const JsonLimits &Limits) {
  return parseInto(Text, Out, Err, Limits);
}

bool parseJson(std::string_view Text, ordered_json &Out, JsonSyntaxError &Err,
               const JsonLimits &Limits) {
  return parseInto(Text, Out, Err, Limits);
}

std::optional<json> parseJsonOrNull(std::string_view Text, const JsonLimits &Limits) {
  json V;
  JsonSyntaxError Err;
  if (!parseInto(Text, V, Err, Limits))
    return std::nullopt;
  return V;
}

std::optional<ordered_json> parseOrderedJsonOrNull(std::string_view Text,
                                                   const JsonLimits &Limits) {
  ordered_json V;
  JsonSyntaxError Err;
  if (!parseInto(Text, V, Err, Limits))
    return std::nullopt;
  return V;
}

std::optional<ordered_json> readJsonFile(const std::string &Path, const JsonLimits &Limits) {
  int Fd = open(Path.c_str(), O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return std::nullopt;
  struct stat St;
  if (fstat(Fd, &St) != 0 || !S_ISREG(St.st_mode) || size_t(St.st_size) > Limits.MaxBytes) {
    close(Fd);
    return std::nullopt;
  }
  std::string Text;
  char Buf[65536];
  while (true) {
    ssize_t N = read(Fd, Buf, sizeof Buf);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0 || Text.size() + size_t(N) > Limits.MaxBytes) {
      close(Fd);
      if (N != 0)
        return std::nullopt;
      break;
    }
    Text.append(Buf, size_t(N));
  }
  return parseOrderedJsonOrNull(Text, Limits);
}

namespace {

/// V with every string and key passed through sanitizeUtf8.
template <typename JsonT> JsonT sanitizedCopy(const JsonT &V) {
  if (V.is_string())
    return sanitizeUtf8(V.template get_ref<const std::string &>());
  if (V.is_object()) {
    JsonT Out = JsonT::object();
    for (auto It = V.begin(); It != V.end(); ++It)
      Out[sanitizeUtf8(It.key())] = sanitizedCopy(It.value());
    return Out;
  }
  if (V.is_array()) {
    JsonT Out = JsonT::array();
    for (const JsonT &E : V)
      Out.push_back(sanitizedCopy(E));
    return Out;
  }
  return V;
}

template <typename JsonT> std::string dumpSafely(const JsonT &V, int Indent) {
  // Almost every document is valid UTF-8 and is dumped as it is; the rest
  // goes through the same sanitiser as every other text (one rule for
  // which bytes are replaced, in JSON and elsewhere).
  try {
    return V.dump(Indent);
  } catch (const nlohmann::json::type_error &) {
    return sanitizedCopy(V).dump(Indent);
  }
}

} // namespace

std::string dumpJson(const json &V, int Indent) { return dumpSafely(V, Indent); }

std::string dumpJson(const ordered_json &V, int Indent) { return dumpSafely(V, Indent); }

const char *jsonTypeName(const json &V) {
  switch (V.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::object:
    return "an object";
  case json::value_t::array:
    return "a list";
  case json::value_t::string:
    return "a string";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    return "an integer";
  case json::value_t::number_float:
    return "a number";
  default:
    return "an unsupported value";
  }
}

void JsonErrors::add(std::string_view Path, std::string_view Message) {
  if (Entries.size() >= Max) {
    ++Dropped;
    return;
  }
  Entries.push_back({escapeForErrorLine(Context + std::string(Path)), escapeForErrorLine(Message)});
}

std::string JsonObject::pathOf(std::string_view Key) const {
  return Path.empty() ? std::string(Key) : fmt::format("{}.{}", Path, Key);
}

void JsonObject::error(std::string_view Key, std::string_view Message) const {
  Errs.add(pathOf(Key), Message);
}

const json *JsonObject::get(std::string_view Key, bool Required) const {
  if (!Obj)
    return nullptr;
  auto It = Obj->find(Key);
  if (It == Obj->end()) {
    if (Required)
      error(Key, "missing required field");
    return nullptr;
  }
  return &*It;
}

bool JsonObject::has(std::string_view Key) const {
  const json *V = get(Key, false);
  return V && !V->is_null();
}

bool JsonObject::checkString(std::string_view At, const std::string &S) const {
  if (S.find('\0') == std::string::npos)
    return true;
  Errs.add(At, "contains a NUL byte, which no program, file name or environment can receive");
  return false;
}

std::string JsonObject::str(std::string_view Key, bool Required, std::string Default) const {
  const json *V = get(Key, Required);
  if (!V)
    return Default;
  if (!V->is_string()) {
    error(Key, fmt::format("expected a string, got {}", jsonTypeName(*V)));
    return Default;
  }
  const std::string &S = V->get_ref<const std::string &>();
  return checkString(pathOf(Key), S) ? S : Default;
}

std::string JsonObject::optStr(std::string_view Key) const {
  const json *V = get(Key, false);
  if (!V || V->is_null())
    return {};
  return str(Key, false);
}

std::string JsonObject::nonEmptyStr(std::string_view Key) const {
  const json *V = get(Key, true);
  if (!V)
    return {};
  if (!V->is_string() || V->get_ref<const std::string &>().empty()) {
    error(Key, "expected a non-empty string");
    return {};
  }
  return str(Key, true);
}

std::string JsonObject::oneOf(std::string_view Key, bool Required,
                              std::initializer_list<const char *> Allowed,
                              std::string Default) const {
  const json *V = get(Key, Required);
  if (!V)
    return Default;
  std::string Choices;
  for (const char *A : Allowed) {
    if (V->is_string() && V->get_ref<const std::string &>() == A)
      return A;
    Choices += fmt::format("{}'{}'", Choices.empty() ? "" : ", ", A);
  }
  error(Key, fmt::format("expected one of {}", Choices));
  return Default;
}

int64_t JsonObject::integer(std::string_view Key, bool Required, int64_t Default, int64_t Min,
                            int64_t Max) const {
  const json *V = get(Key, Required);
  if (!V)
    return Default;
  if (!V->is_number_integer()) {
    error(Key, fmt::format("expected an integer, got {}", jsonTypeName(*V)));
    return Default;
  }
  int64_t N = V->is_number_unsigned() && V->get<uint64_t>() > uint64_t(INT64_MAX)
                  ? INT64_MAX
                  : V->get<int64_t>();
  if (N < Min || N > Max) {
    error(Key, Max == INT64_MAX
                   ? fmt::format("expected an integer >= {}, got {}", Min, N)
                   : fmt::format("expected an integer in [{}, {}], got {}", Min, Max, N));
    return Default;
  }
  return N;
}

double JsonObject::number(std::string_view Key, bool Required, double Default, double Min,
                          double Max) const {
  const json *V = get(Key, Required);
  if (!V)
    return Default;
  if (!V->is_number()) {
    error(Key, fmt::format("expected a number, got {}", jsonTypeName(*V)));
    return Default;
  }
  double D = V->get<double>();
  if (!(D >= Min && D <= Max)) {
    error(Key, Max >= 1e300 ? fmt::format("expected a number >= {}, got {}", Min, D)
                            : fmt::format("expected a number in [{}, {}], got {}", Min, Max, D));
    return Default;
  }
  return D;
}

bool JsonObject::boolean(std::string_view Key, bool Required, bool Default) const {
  const json *V = get(Key, Required);
  if (!V)
    return Default;
  if (!V->is_boolean()) {
    error(Key, fmt::format("expected a boolean, got {}", jsonTypeName(*V)));
    return Default;
  }
  return V->get<bool>();
}

std::vector<std::string> JsonObject::strings(std::string_view Key, bool Required,
                                             bool NonEmpty) const {
  const json *V = get(Key, Required);
  if (!V)
    return {};
  auto Bad = [&] {
    error(Key, NonEmpty ? "expected a non-empty list of strings" : "expected a list of strings");
    return std::vector<std::string>{};
  };
  if (!V->is_array() || (NonEmpty && V->empty()))
    return Bad();
  std::vector<std::string> Out;
  for (const json &E : *V) {
    if (!E.is_string())
      return Bad();
    Out.push_back(E.get<std::string>());
  }
  for (size_t I = 0; I < Out.size(); ++I)
    if (!checkString(fmt::format("{}[{}]", pathOf(Key), I), Out[I]))
      return {};
  return Out;
}

JsonObject JsonObject::object(std::string_view Key, bool Required) const {
  const json *V = get(Key, Required);
  if (V && !V->is_object()) {
    if (!V->is_null() || Required)
      error(Key, fmt::format("expected an object, got {}", jsonTypeName(*V)));
    V = nullptr;
  }
  return JsonObject(V, pathOf(Key), Errs);
}

std::vector<JsonObject::Element> JsonObject::list(std::string_view Key, bool Required) const {
  const json *V = get(Key, Required);
  std::vector<Element> Out;
  if (!V || (V->is_null() && !Required))
    return Out;
  if (!V->is_array()) {
    error(Key, fmt::format("expected a list, got {}", jsonTypeName(*V)));
    return Out;
  }
  for (size_t I = 0; I < V->size(); ++I)
    Out.push_back({fmt::format("{}[{}]", pathOf(Key), I), &(*V)[I]});
  return Out;
}

JsonObject JsonObject::element(const Element &E) const {
  if (!E.second->is_object()) {
    Errs.add(E.first, fmt::format("expected an object, got {}", jsonTypeName(*E.second)));
    return JsonObject(nullptr, E.first, Errs);
  }
  return JsonObject(E.second, E.first, Errs);
}

} // namespace arecipe::support
