//===- TraceFormats.cpp - Readers for public agentic trace formats --------===//
//
// Both readers share one line loop (readJsonLines) and one error collector
// (TraceErrors) with the messages of Trace.cpp's reader; JSON is parsed in
// one place (parseLine), so moving to another validating JSON reader touches
// only that function.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Client/TraceFormats.h"

#include "arecipe/Client/PromptText.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <functional>
#include <set>

using namespace arecipe::client;
using nlohmann::json;

std::string_view arecipe::client::traceFormatName(TraceFormat F) {
  switch (F) {
  case TraceFormat::Arecipe:
    return "arecipe";
  case TraceFormat::Mooncake:
    return "mooncake";
  case TraceFormat::Weka:
    return "weka";
  }
  return "arecipe";
}

std::optional<TraceFormat> arecipe::client::parseTraceFormat(std::string_view Name) {
  for (TraceFormat F : {TraceFormat::Arecipe, TraceFormat::Mooncake, TraceFormat::Weka})
    if (traceFormatName(F) == Name)
      return F;
  return std::nullopt;
}

namespace {
/// Collects "file:line: field: reason" up to a limit, counting the rest.
class TraceErrors {
public:
  TraceErrors(std::string File, size_t Max, std::vector<std::string> &Out)
      : File(std::move(File)), Max(Max), Out(Out) {}
  /// Always false, so a check can `return Errs.add(...)`.
  bool add(size_t Line, const std::string &Field, const std::string &Why) {
    if (Out.size() < Max)
      Out.push_back(File + ":" + std::to_string(Line) + ": " + Field + ": " + Why);
    else
      ++Dropped;
    return false;
  }
  void finish(bool NoSessions) {
    if (Dropped)
      Out.push_back(File + ": and " + std::to_string(Dropped) + " more error" +
                    (Dropped == 1 ? "" : "s"));
    if (NoSessions && Out.empty())
      Out.push_back(File + ": no sessions");
  }

private:
  std::string File;
  size_t Max;
  std::vector<std::string> &Out;
  size_t Dropped = 0;
};

/// The one place a trace line is parsed; a discarded value is invalid JSON.
json parseLine(std::string_view Line) {
  return json::parse(Line.begin(), Line.end(), nullptr, /*allow_exceptions=*/false);
}

/// Streams Path a line at a time; Fn sees each non-blank line's number and
/// parsed value. Returns false when the file cannot be opened.
bool readJsonLines(const std::string &Path, TraceErrors &Errs, const char *What,
                   const std::function<void(size_t, const json &)> &Fn) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return false;
  std::string Line;
  for (size_t No = 1; std::getline(In, Line); ++No) {
    if (Line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    json J = parseLine(Line);
    if (J.is_discarded()) {
      Errs.add(No, What, "not valid JSON");
      continue;
    }
    Fn(No, J);
  }
  return true;
}

/// Typed field access that reports with the field's path.
class Checker {
public:
  Checker(TraceErrors &Errs, size_t Line) : Errs(Errs), Line(Line) {}
  bool fail(const std::string &Field, const std::string &Why) {
    Ok = false;
    return Errs.add(Line, Field, Why);
  }
  bool object(const json &J, const std::string &Field) {
    return J.is_object() || fail(Field, "expected an object");
  }
  /// Required unless Default is given.
  std::optional<int64_t> integer(const json &J, const std::string &Path, const char *Key,
                                 int64_t Min, std::optional<int64_t> Default = std::nullopt) {
    auto It = J.find(Key);
    if (It == J.end() || (It->is_null() && Default)) {
      if (Default)
        return Default;
      fail(Path + Key, "missing");
      return std::nullopt;
    }
    if (!It->is_number_integer() || It->get<int64_t>() < Min) {
      fail(Path + Key, Min > 0 ? "expected a positive integer" : "expected a non-negative integer");
      return std::nullopt;
    }
    return It->get<int64_t>();
  }
  std::optional<double> seconds(const json &J, const std::string &Path, const char *Key,
                                bool Required) {
    auto It = J.find(Key);
    if (It == J.end() || (!Required && It->is_null())) {
      if (Required)
        fail(Path + Key, "missing");
      return std::nullopt;
    }
    if (!It->is_number() || !std::isfinite(It->get<double>()) || It->get<double>() < 0) {
      fail(Path + Key, "expected a non-negative number");
      return std::nullopt;
    }
    return It->get<double>();
  }
  std::optional<std::string> string(const json &J, const std::string &Path, const char *Key,
                                    bool Required, bool NonEmpty = false) {
    auto It = J.find(Key);
    if (It == J.end()) {
      if (Required)
        fail(Path + Key, "missing");
      return std::nullopt;
    }
    if (!It->is_string() || (NonEmpty && It->get_ref<const std::string &>().empty())) {
      fail(Path + Key, NonEmpty ? "expected a non-empty string" : "expected a string");
      return std::nullopt;
    }
    return It->get<std::string>();
  }
  void stringList(const json &J, const std::string &Path, const char *Key, bool Required) {
    auto It = J.find(Key);
    if (It == J.end()) {
      if (Required)
        fail(Path + Key, "missing");
      return;
    }
    bool Good = It->is_array();
    if (Good)
      for (const json &E : *It)
        Good &= E.is_string();
    if (!Good)
      fail(Path + Key, "expected an array of strings");
  }
  std::optional<std::vector<uint64_t>> hashIds(const json &J, const std::string &Path,
                                               bool Required) {
    auto It = J.find("hash_ids");
    if (It == J.end()) {
      if (Required)
        fail(Path + "hash_ids", "missing");
      return Required ? std::nullopt
                      : std::optional<std::vector<uint64_t>>(std::vector<uint64_t>{});
    }
    std::vector<uint64_t> Ids;
    if (!It->is_array()) {
      fail(Path + "hash_ids", "expected an array of block ids");
      return std::nullopt;
    }
    for (const json &Id : *It) {
      // Block ids are later scaled into 64-token blocks; 2^40 leaves room.
      if (!Id.is_number_unsigned() || Id.get<uint64_t>() >= (uint64_t(1) << 40)) {
        fail(Path + "hash_ids", "block ids must be integers in [0, 2^40)");
        return std::nullopt;
      }
      Ids.push_back(Id.get<uint64_t>());
    }
    return Ids;
  }
  void onlyKeys(const json &J, const std::string &Path, std::initializer_list<const char *> Known) {
    for (const auto &[Key, V] : J.items()) {
      bool Found = false;
      for (const char *K : Known)
        Found |= Key == K;
      if (!Found)
        fail(Path + Key, "unknown field");
    }
  }
  bool ok() const { return Ok; }

private:
  TraceErrors &Errs;
  size_t Line;
  bool Ok = true;
};

/// Tokens in N blocks of B: (N-1)B < Tokens <= NB, as the JSONL reader
/// demands of 64-token blocks.
bool fitsBlocks(Checker &C, const std::string &Field, int64_t Tokens, size_t N, int64_t B) {
  int64_t Max = int64_t(N) * B;
  if (Tokens > Max - B && Tokens <= Max)
    return true;
  return C.fail(Field, std::to_string(Tokens) + " does not fit " + std::to_string(N) +
                           " blocks of " + std::to_string(B) + " tokens (expected " +
                           std::to_string(std::max<int64_t>(1, Max - B + 1)) + ".." +
                           std::to_string(Max) + ")");
}

/// arecipe blocks for NewTokens tokens starting at token Offset of a prompt
/// whose source blocks (of B tokens) are Ids: source block h, part j maps to
/// Base + h * (B / 64) + j, so equal source blocks give equal text.
std::vector<uint64_t> mapBlocks(const std::vector<uint64_t> &Ids, int64_t B, int64_t Offset,
                                int64_t NewTokens, uint64_t Base, uint64_t Fresh) {
  std::vector<uint64_t> Out;
  int64_t Parts = B / BlockTokens;
  for (int64_t T = Offset; T < Offset + NewTokens; T += BlockTokens) {
    size_t Index = size_t(T / B);
    if (Index < Ids.size())
      Out.push_back(Base + Ids[Index] * uint64_t(Parts) + uint64_t((T % B) / BlockTokens));
    else
      Out.push_back(Fresh + uint64_t(T / BlockTokens)); // beyond the recorded blocks
  }
  return Out;
}

//===-- Mooncake ----------------------------------------------------------===//

TraceLoadResult readMooncake(const std::string &Path, const TraceReadOptions &O) {
  TraceLoadResult R;
  TraceErrors Errs(Path, O.MaxErrors, R.Errors);
  int64_t B = O.MooncakeBlockTokens;
  if (B < BlockTokens || B % BlockTokens) {
    R.Errors.push_back(Path + ": the Mooncake block size must be a positive multiple of 64, got " +
                       std::to_string(B));
    return R;
  }
  bool Opened = readJsonLines(Path, Errs, "request", [&](size_t Line, const json &J) {
    Checker C(Errs, Line);
    if (!C.object(J, "request"))
      return;
    C.onlyKeys(J, "", {"timestamp", "input_length", "output_length", "hash_ids"});
    C.seconds(J, "", "timestamp", true); // milliseconds; validated, not replayed
    std::optional<int64_t> In = C.integer(J, "", "input_length", 1);
    std::optional<int64_t> Out = C.integer(J, "", "output_length", 1);
    std::optional<std::vector<uint64_t>> Ids = C.hashIds(J, "", true);
    if (Ids && Ids->empty())
      C.fail("hash_ids", "expected a non-empty array of block ids");
    if (In && Ids && !Ids->empty())
      fitsBlocks(C, "input_length", *In, Ids->size(), B);
    if (!C.ok())
      return;
    TraceTurn T;
    T.InputTokens = *In;
    T.OutputTokens = *Out;
    T.HashIds = mapBlocks(*Ids, B, 0, *In, 0, 0);
    TraceSession S;
    S.Id = "mooncake-" + std::to_string(Line);
    S.Turns.push_back(std::move(T));
    R.Sessions.push_back(std::move(S));
  });
  if (!Opened) {
    R.Errors.push_back(Path + ": cannot open the trace file");
    return R;
  }
  Errs.finish(R.Sessions.empty());
  return R;
}

//===-- Weka --------------------------------------------------------------===//

class WekaConverter {
public:
  WekaConverter(Checker &C, uint64_t Base, int64_t B) : C(C), Base(Base), B(B) {}

  /// Converts one request list (a session's or a sub-agent's) into Out and
  /// any sessions split off it (context rewrites) into Extra.
  void requests(const json &List, const std::string &Path, const std::string &Id,
                std::vector<TraceSession> &Out, bool Root) {
    TraceSession S;
    S.Id = Id;
    int64_t Context = 0;
    std::vector<uint64_t> PrevIds;
    double PrevEnd = -1;
    size_t Part = 0;
    for (size_t I = 0; I < List.size(); ++I) {
      const json &E = List[I];
      std::string P = Path + "[" + std::to_string(I) + "]";
      if (!C.object(E, P))
        continue;
      std::optional<std::string> Type = C.string(E, P + ".", "type", true);
      if (!Type)
        continue;
      if (*Type == "subagent") {
        subagent(E, P, S, Out, Root);
        continue;
      }
      if (*Type != "n" && *Type != "s") {
        C.fail(P + ".type", "expected \"n\", \"s\" or \"subagent\"");
        continue;
      }
      if (*Type == "n")
        C.onlyKeys(E, P + ".",
                   {"t", "type", "model", "in", "out", "hash_ids", "input_types", "output_types",
                    "stop", "api_time", "think_time"});
      else
        C.onlyKeys(E, P + ".",
                   {"t", "type", "model", "in", "out", "hash_ids", "input_types", "output_types",
                    "stop", "api_time", "think_time", "ttft"});
      std::optional<double> At = C.seconds(E, P + ".", "t", true);
      C.string(E, P + ".", "model", true);
      std::optional<int64_t> In = C.integer(E, P + ".", "in", 0);
      std::optional<int64_t> OutTokens = C.integer(E, P + ".", "out", 0);
      std::optional<std::vector<uint64_t>> Ids = C.hashIds(E, P + ".", false);
      C.stringList(E, P + ".", "input_types", false);
      C.stringList(E, P + ".", "output_types", false);
      C.string(E, P + ".", "stop", false);
      std::optional<double> Api = C.seconds(E, P + ".", "api_time", false);
      std::optional<double> Think = C.seconds(E, P + ".", "think_time", false);
      if (*Type == "s")
        C.seconds(E, P + ".", "ttft", false);
      if (In && Ids && !Ids->empty() && *In > 0)
        fitsBlocks(C, P + ".in", *In, Ids->size(), B);
      if (!At || !In || !OutTokens || !Ids || !C.ok())
        continue;
      if (*In < 1) {
        C.fail(P + ".in", "expected a positive integer");
        continue;
      }
      // The recorded prompt must extend the history the replay resends
      // (earlier prompts and outputs); a shorter prompt, or one whose full
      // blocks differ from the previous prompt's, rewrote the context and
      // starts a new session.
      bool Extends = *In > Context;
      size_t Full = PrevIds.empty() ? 0 : PrevIds.size() - 1;
      for (size_t K = 0; Extends && K < Full; ++K)
        Extends = K < Ids->size() && (*Ids)[K] == PrevIds[K];
      if (!S.Turns.empty() && !Extends) {
        Out.push_back(std::move(S));
        S = TraceSession();
        S.Id = Id + "~" + std::to_string(++Part);
        Context = 0;
      }
      TraceTurn T;
      T.InputTokens = *In - Context;
      T.OutputTokens = std::max<int64_t>(1, *OutTokens);
      T.HashIds = mapBlocks(*Ids, B, Context, T.InputTokens, Base, Base + (uint64_t(1) << 43));
      if (Think)
        T.ThinkTimeS = *Think;
      else if (PrevEnd >= 0)
        T.ThinkTimeS = std::max(0.0, *At - PrevEnd);
      PrevEnd = Api ? *At + *Api : -1;
      Context += T.InputTokens + T.OutputTokens;
      PrevIds = *Ids;
      S.Turns.push_back(std::move(T));
    }
    if (!S.Turns.empty())
      Out.push_back(std::move(S));
  }

private:
  void subagent(const json &E, const std::string &P, TraceSession &Parent,
                std::vector<TraceSession> &Out, bool Root) {
    C.onlyKeys(E, P + ".",
               {"t", "type", "agent_id", "subagent_type", "duration_ms", "total_tokens",
                "tool_use_count", "status", "requests", "models", "tool_tokens", "system_tokens"});
    C.seconds(E, P + ".", "t", true);
    C.string(E, P + ".", "agent_id", true);
    C.string(E, P + ".", "subagent_type", true);
    C.string(E, P + ".", "status", true);
    C.stringList(E, P + ".", "models", true);
    for (const char *K :
         {"duration_ms", "total_tokens", "tool_use_count", "tool_tokens", "system_tokens"})
      C.integer(E, P + ".", K, 0, 0);
    auto Reqs = E.find("requests");
    if (Reqs == E.end() || !Reqs->is_array()) {
      C.fail(P + ".requests", "expected an array");
      return;
    }
    if (Parent.Turns.empty() && Root) {
      C.fail(P, "a sub-agent before the session's first request");
      return;
    }
    std::vector<TraceSession> Converted;
    requests(*Reqs, P + ".requests", "", Converted, false);
    // arecipe's model has one level of sub-agents: a sub-agent's own
    // sub-agents (and its context-rewrite parts) join its parent's turn.
    std::vector<TraceSession> Flat;
    for (TraceSession &S : Converted) {
      std::vector<TraceSession> Nested;
      for (TraceTurn &T : S.Turns) {
        for (TraceSession &N : T.Subagents)
          Nested.push_back(std::move(N));
        T.Subagents.clear();
      }
      Flat.push_back(std::move(S));
      for (TraceSession &N : Nested)
        Flat.push_back(std::move(N));
    }
    if (Parent.Turns.empty()) {
      // Inside a sub-agent, before its first request: a sibling.
      for (TraceSession &S : Flat)
        Out.push_back(std::move(S));
      return;
    }
    for (TraceSession &S : Flat)
      Parent.Turns.back().Subagents.push_back(std::move(S));
  }

  Checker &C;
  uint64_t Base;
  int64_t B;
};

TraceLoadResult readWeka(const std::string &Path, const TraceReadOptions &O) {
  TraceLoadResult R;
  TraceErrors Errs(Path, O.MaxErrors, R.Errors);
  std::set<std::string> Ids;
  size_t Index = 0;
  bool Opened = readJsonLines(Path, Errs, "session", [&](size_t Line, const json &J) {
    Checker C(Errs, Line);
    if (!C.object(J, "session"))
      return;
    ++Index;
    C.onlyKeys(J, "",
               {"id", "models", "block_size", "hash_id_scope", "tool_tokens", "system_tokens",
                "requests", "totals"});
    std::optional<std::string> Id = C.string(J, "", "id", true, true);
    if (Id && !Ids.insert(*Id).second)
      C.fail("id", "duplicate session id '" + *Id + "'");
    C.stringList(J, "", "models", true);
    std::optional<int64_t> B = C.integer(J, "", "block_size", 1);
    if (B && *B % BlockTokens)
      C.fail("block_size", std::to_string(*B) + " is not a multiple of 64");
    std::optional<std::string> Scope = C.string(J, "", "hash_id_scope", true);
    if (Scope && *Scope != "local" && *Scope != "global")
      C.fail("hash_id_scope", "expected \"local\" or \"global\"");
    C.integer(J, "", "tool_tokens", 0, 0);
    C.integer(J, "", "system_tokens", 0, 0);
    auto Reqs = J.find("requests");
    if (Reqs == J.end() || !Reqs->is_array() || Reqs->empty())
      C.fail("requests", "expected a non-empty array");
    if (!C.ok())
      return;
    // "local": block ids name blocks within this session only, so each
    // session gets its own id range; "global": one namespace for the file.
    uint64_t Base = *Scope == "local" ? uint64_t(Index) << 44 : 0;
    WekaConverter W(C, Base, *B);
    std::vector<TraceSession> Sessions;
    W.requests(*Reqs, "requests", *Id, Sessions, true);
    if (!C.ok())
      return;
    if (Sessions.empty())
      C.fail("requests", "no request of type \"n\" or \"s\"");
    for (TraceSession &S : Sessions)
      R.Sessions.push_back(std::move(S));
  });
  if (!Opened) {
    R.Errors.push_back(Path + ": cannot open the trace file");
    return R;
  }
  Errs.finish(R.Sessions.empty());
  if (!R.Errors.empty())
    R.Sessions.clear();
  return R;
}
} // namespace

TraceLoadResult arecipe::client::loadTrace(const std::string &Path, const TraceReadOptions &O) {
  switch (O.Format) {
  case TraceFormat::Arecipe:
    return loadTraceFile(Path);
  case TraceFormat::Mooncake: {
    TraceLoadResult R = readMooncake(Path, O);
    if (!R.ok())
      R.Sessions.clear();
    return R;
  }
  case TraceFormat::Weka:
    return readWeka(Path, O);
  }
  return loadTraceFile(Path);
}
