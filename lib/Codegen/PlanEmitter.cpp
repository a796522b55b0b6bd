//===- PlanEmitter.cpp - `arecipec --emit plan` ---------------------------===//

#include "arecipe/Codegen/PlanEmitter.h"

#include "arecipe/Support/JsonWriter.h"

#include "llvm/Support/raw_ostream.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstdlib>
#include <type_traits>

using namespace arecipe;
using namespace arecipe::codegen;
using arecipe::support::JsonKey;
using arecipe::support::JsonWriter;
using namespace arecipe::support::json_literals;

OrderedJSON codegen::toJSON(const PlanNumber &N) {
  if (N.isInteger())
    return N.numerator();
  return static_cast<double>(N.numerator()) /
         static_cast<double>(N.denominator());
}

std::string codegen::toText(const PlanNumber &N) {
  if (N.isInteger())
    return std::to_string(N.numerator());
  std::string S;
  JsonWriter::appendDouble(S, static_cast<double>(N.numerator()) /
                                  static_cast<double>(N.denominator()));
  return S;
}

/// A recipe value as the plan holds it: the compact JSON of sema::toJSON
/// read back as a document (so a float is the nearest double, written in
/// its shortest form). Only a map whose keys spell the same goes this way;
/// every other value is written by writeValue below.
static OrderedJSON valueJSON(const sema::Value &V) {
  return OrderedJSON::parse(sema::toJSON(V));
}

static void writeNumber(JsonWriter &W, const PlanNumber &N) {
  if (N.isInteger())
    W.number(N.numerator());
  else
    W.number(static_cast<double>(N.numerator()) /
             static_cast<double>(N.denominator()));
}

static void writeNumber(JsonWriter &W, JsonKey Key, const PlanNumber &N) {
  W.key(Key);
  writeNumber(W, N);
}

/// The JSON of the map's keys as sema::toJSON spells them, or nullopt when
/// two keys spell the same (then the document sema::toJSON's text parses
/// to, which keeps the first key's place and the last value, is the
/// reference; writeValue falls back to it).
static std::optional<std::vector<std::string>>
distinctKeys(const std::vector<std::pair<sema::Value, sema::Value>> &Entries) {
  std::vector<std::string> Keys;
  Keys.reserve(Entries.size());
  for (const auto &[K, E] : Entries) {
    std::optional<std::string> KS = sema::renderValue(K);
    Keys.push_back(KS ? std::move(*KS) : K.str());
  }
  std::vector<llvm::StringRef> Sorted(Keys.begin(), Keys.end());
  llvm::sort(Sorted);
  if (std::adjacent_find(Sorted.begin(), Sorted.end()) != Sorted.end())
    return std::nullopt;
  return Keys;
}

/// V written as valueJSON(V) would be dumped, without the round trip
/// through text: the same cases as sema::toJSON, each as the parse of its
/// text gives it back.
void codegen::writeValue(const sema::Value &V, JsonWriter &W) {
  switch (V.kind()) {
  case sema::ValueKind::Float: {
    NumericResult<std::string> D = V.getNumber().toDecimalString();
    if (!D)
      return W.string(V.getNumber().str());
    // The exact decimal read as a double, as the JSON parser reads it.
    return W.number(std::strtod(D->c_str(), nullptr));
  }
  case sema::ValueKind::Int:
    return W.number(V.getInt());
  case sema::ValueKind::Bool:
    return W.boolean(V.getBool());
  case sema::ValueKind::None:
    return W.null();
  case sema::ValueKind::Quantity:
  case sema::ValueKind::Range:
  case sema::ValueKind::Server:
  case sema::ValueKind::Record:
    return W.string(V.str());
  case sema::ValueKind::List:
    W.beginArray();
    V.forEachRun(
        [&](llvm::ArrayRef<sema::Value> Items) {
          for (const sema::Value &E : Items)
            writeValue(E, W);
        },
        [&](int64_t Lo, int64_t Step, uint64_t Count) {
          for (uint64_t N = 0; N < Count; ++N)
            W.number(Lo + Step * static_cast<int64_t>(N));
        });
    return W.endArray();
  case sema::ValueKind::Map: {
    const auto &Entries = V.getEntries();
    std::optional<std::vector<std::string>> Keys = distinctKeys(Entries);
    if (!Keys)
      return W.value(valueJSON(V));
    W.beginObject();
    for (size_t N = 0; N < Entries.size(); ++N) {
      W.key((*Keys)[N]);
      writeValue(Entries[N].second, W);
    }
    return W.endObject();
  }
  default: {
    std::optional<std::string> S = sema::renderValue(V);
    return W.string(S ? *S : V.str());
  }
  }
}

template <typename T>
static void writeOr(JsonWriter &W, JsonKey Key, const std::optional<T> &V) {
  W.key(Key);
  if (!V)
    return W.null();
  if constexpr (std::is_same_v<T, std::string>)
    W.string(*V);
  else if constexpr (std::is_same_v<T, bool>)
    W.boolean(*V);
  else
    W.number(static_cast<int64_t>(*V));
}

static void writeStrings(JsonWriter &W, JsonKey Key,
                         const std::vector<std::string> &L) {
  W.key(Key);
  W.beginArray();
  for (const std::string &S : L)
    W.string(S);
  W.endArray();
}

/// Pairs as an object whose keys are the pairs' names, as assigning them
/// one by one to a JSON object gives it: a repeated name keeps its first
/// place and takes the last value.
template <typename V, typename WriteFn>
static void writePairs(JsonWriter &W,
                       const std::vector<std::pair<std::string, V>> &Pairs,
                       WriteFn Write) {
  W.beginObject();
  for (size_t N = 0; N < Pairs.size(); ++N) {
    bool Seen = false;
    for (size_t M = 0; M < N && !Seen; ++M)
      Seen = Pairs[M].first == Pairs[N].first;
    if (Seen)
      continue;
    size_t Last = N;
    for (size_t M = N + 1; M < Pairs.size(); ++M)
      if (Pairs[M].first == Pairs[N].first)
        Last = M;
    W.key(Pairs[N].first);
    Write(Pairs[Last].second);
  }
  W.endObject();
}

/// `"Key": [...]`, one element per item.
template <typename Range, typename Fn>
static void writeArray(JsonWriter &W, JsonKey Key, const Range &Items,
                       Fn Each) {
  W.key(Key);
  W.beginArray();
  for (const auto &E : Items)
    Each(E);
  W.endArray();
}

/// `{...}` with the members Members writes.
template <typename Fn> static void writeObject(JsonWriter &W, Fn Members) {
  W.beginObject();
  Members();
  W.endObject();
}

static void writeOrigin(JsonWriter &W, const KnobOrigin &O) {
  W.beginObject();
  if (O.Where) {
    W.member("file"_key, std::string_view(O.Where->File));
    W.member("line"_key, O.Where->Line);
    W.member("col"_key, O.Where->Col);
  }
  llvm::StringRef Level = sema::getSpelling(O.Level);
  W.key("level"_key);
  W.string(std::string_view(Level.data(), Level.size()));
  W.endObject();
}

namespace {
/// The fields of each pre-flight action after its `action`, in schema
/// order.
struct PreflightFields {
  JsonWriter &W;
  void operator()(const preflight::UnsetEnv &S) {
    writeStrings(W, "names"_key, S.Names);
  }
  void operator()(const preflight::RequireVersion &S) {
    W.member("tool"_key, S.Tool);
    writeStrings(W, "probe"_key, S.Probe);
    W.member("pattern"_key, S.Pattern);
    W.member("on_mismatch"_key,
             S.OnMismatchDo == preflight::RequireVersion::OnMismatch::Fail
                 ? "fail"
                 : "warn");
  }
  void operator()(const preflight::StageModel &S) {
    W.member("repo"_key, S.Repo);
    W.member("attempts"_key, S.Attempts);
    writeNumber(W, "delay_s"_key, S.DelayS);
    W.key("env"_key);
    W.beginObject();
    W.endObject();
  }
  void operator()(const preflight::CheckPaths &S) {
    writeStrings(W, "paths"_key, S.Paths);
    W.member("nodes"_key,
             S.On == preflight::CheckPaths::Nodes::All ? "all" : "rank0");
  }
  void operator()(const preflight::WaitCleanGpus &S) {
    writeNumber(W, "max_used_fraction"_key, S.MaxUsedFraction);
    writeNumber(W, "timeout_s"_key, S.TimeoutS);
    W.member("poll_s"_key, S.PollS);
  }
  void operator()(const preflight::PrepareCache &S) {
    W.member("dir"_key, S.Dir);
    if (S.FromImagePath)
      W.member("from_image_path"_key, *S.FromImagePath);
    W.member("scope"_key, S.Scope);
    W.member("fallback"_key, "private");
  }
  void operator()(const preflight::VerifyImport &S) {
    W.member("package"_key, S.Package);
    writeStrings(W, "python"_key, S.Python);
    W.member("expect_prefix"_key, S.ExpectPrefix);
  }
  void operator()(const preflight::RunStep &S) {
    writeStrings(W, "argv"_key, S.Argv);
    writeNumber(W, "timeout_s"_key, S.TimeoutS);
  }
  void operator()(const preflight::Capture &S) {
    W.member("name"_key, S.Name);
    writeStrings(W, "argv"_key, S.Argv);
    writeNumber(W, "timeout_s"_key, S.TimeoutS);
    if (S.SimulatedOutput)
      W.member("simulated_output"_key, *S.SimulatedOutput);
  }
};

static const char *endpointName(ClientEndpoint E) {
  return E == ClientEndpoint::Chat ? "chat" : "completions";
}

struct WorkloadFields {
  JsonWriter &W;
  void operator()(std::monostate) { W.null(); }
  void operator()(const AgenticWorkload &A) {
    W.beginObject();
    W.member("kind"_key, "agentic");
    W.member("trace"_key, A.Trace);
    writeNumber(W, "duration_s"_key, A.DurationS);
    writeNumber(W, "warmup_s"_key, A.WarmupS);
    writeNumber(W, "max_failed_fraction"_key, A.MaxFailedFraction);
    if (A.Endpoint)
      W.member("endpoint"_key, endpointName(*A.Endpoint));
    W.endObject();
  }
  void operator()(const FixedWorkload &F) {
    W.beginObject();
    W.member("kind"_key, "fixed");
    W.member("isl"_key, F.Isl);
    W.member("osl"_key, F.Osl);
    writeNumber(W, "range_ratio"_key, F.RangeRatio);
    // v1.1: a v1 plan's lengths are vLLM's rule, so "around" needs no
    // field and such a plan stays v1.
    if (F.RangeRule == "below")
      W.member("range_rule"_key, F.RangeRule);
    W.member("num_prompts"_key, F.NumPrompts);
    W.member("warmup"_key, F.Warmup);
    W.member("ignore_eos"_key, true);
    writeNumber(W, "request_rate"_key, F.RequestRate);
    if (F.UseChatTemplate)
      W.member("use_chat_template"_key, *F.UseChatTemplate);
    if (F.Endpoint)
      W.member("endpoint"_key, endpointName(*F.Endpoint));
    if (F.PromptMode) {
      W.member("prompt_mode"_key, *F.PromptMode);
      W.member("tokenizer"_key, F.Tokenizer);
    }
    W.endObject();
  }
};
} // namespace

static void writeEnv(JsonWriter &W, const ProcessSpec::EnvMap &Env) {
  W.beginObject();
  for (const auto &[Name, Value] : Env)
    W.member(Name, Value);
  W.endObject();
}

namespace {
/// The text of each place of the cell written last (a knob by its place
/// in the cell's sorted list, a process's `env` by the process's place),
/// with what it was written from (Source). Most of a plan's knobs and
/// environments are the same in every cell, and each is a dozen tokens of
/// writing: the next cell copies the text when Source says its place holds
/// the same again, and writes it (keeping the new text) otherwise.
///
/// The texts are kept in one buffer, not a string each (the first cell
/// would allocate one per place): a new text is appended, and when the
/// buffer is full and holds more replaced text than live text, the live
/// texts are copied to a new one, so a plan of any number of cells keeps
/// about one cell's texts.
template <typename Source> class TextsByPlace {
public:
  /// Item at place Index: the kept text, or Write() (which writes one
  /// object, perhaps after a separator) and keeps its text.
  template <typename Item, typename WriteFn>
  void write(JsonWriter &W, size_t Index, const Item &I, WriteFn &&Write) {
    if (Index >= Entries.size())
      Entries.resize(Index + 1);
    Entry &E = Entries[Index];
    // An object's text is never empty: Size 0 is a place not yet written.
    if (E.Size && E.Depth == W.depth() && E.From.sameAs(I))
      return W.rawValue(std::string_view(Texts).substr(E.Offset, E.Size));
    size_t Before = W.text().size();
    Write();
    // What was written: any separator before the object, then the object.
    std::string_view Text = W.text().substr(Before);
    Text.remove_prefix(Text.find('{'));
    E.From.take(I);
    E.Depth = W.depth();
    keep(E, Text);
  }

private:
  struct Entry {
    Source From;
    size_t Depth = 0;
    size_t Offset = 0, Size = 0; ///< The text in Texts.
  };
  /// Replaces E's text with Text.
  void keep(Entry &E, std::string_view Text) {
    Live -= E.Size;
    E.Size = 0;
    if (Texts.size() + Text.size() > Texts.capacity() &&
        Texts.size() - Live > Live) {
      std::string Fresh;
      Fresh.reserve(2 * (Live + Text.size()));
      for (Entry &O : Entries)
        if (O.Size) {
          size_t Offset = Fresh.size();
          Fresh.append(Texts, O.Offset, O.Size);
          O.Offset = Offset;
        }
      Texts.swap(Fresh);
    }
    E.Offset = Texts.size();
    E.Size = Text.size();
    Texts.append(Text);
    Live += Text.size();
  }
  std::vector<Entry> Entries;
  std::string Texts;
  size_t Live = 0; ///< Bytes of Texts that entries refer to.
};

/// What a process's `env` text was written from: the lowering shares one
/// map between the cells that give a process the same environment, so the
/// same map (or an equal one) writes the same object. Holding the map
/// keeps it alive, so its address is never another's.
struct EnvSource {
  std::shared_ptr<const ProcessSpec::EnvMap> Env;
  bool sameAs(const ProcessSpec &P) const {
    return Env && P.Env && (Env == P.Env || *Env == *P.Env);
  }
  void take(const ProcessSpec &P) { Env = P.Env; }
};
using EnvTexts = TextsByPlace<EnvSource>;
} // namespace

/// A process of a cell; Envs, when given, copies the text of an
/// environment the cell before wrote for the process at Index.
static void writeProcess(JsonWriter &W, const ProcessSpec &P, bool V11,
                         EnvTexts *Envs, size_t Index) {
  W.beginObject();
  W.member("name"_key, P.Name);
  W.member("role"_key, P.Role);
  W.member("node_rank"_key, P.NodeRank);
  writeStrings(W, "argv"_key, P.Argv);
  W.key("env"_key);
  if (Envs)
    Envs->write(W, Index, P, [&] { writeEnv(W, P.env()); });
  else
    writeEnv(W, P.env());
  writeStrings(W, "env_unset"_key, P.EnvUnset);
  W.key("gpus"_key);
  if (P.Gpus) {
    W.beginArray();
    for (int64_t G : *P.Gpus)
      W.number(G);
    W.endArray();
  } else {
    W.null();
  }
  W.member("numa"_key, nullptr);
  writeOr(W, "port"_key, P.Port);
  W.key("endpoints"_key);
  if (P.Endpoints)
    writePairs(W, *P.Endpoints,
               [&](const std::string &Path) { W.string(Path); });
  else
    W.null();
  writeStrings(W, "after"_key, P.After);
  W.key("ready"_key);
  W.beginObject();
  writeNumber(W, "startup_timeout_s"_key, P.StartupTimeoutS);
  writeNumber(W, "stall_timeout_s"_key, P.StallTimeoutS);
  writeOr(W, "requires_model"_key, P.RequiresModel);
  switch (P.Ready) {
  case ProcessSpec::Readiness::Default:
    break;
  case ProcessSpec::Readiness::Tcp:
    W.member("kind"_key, "tcp");
    break;
  case ProcessSpec::Readiness::Alive:
    W.member("kind"_key, "alive");
    writeNumber(W, "alive_s"_key, P.AliveS);
    break;
  }
  W.endObject();
  W.member("serves_api"_key, P.ServesApi);
  if (V11) {
    W.member("template"_key, P.Template);
    W.member("replica"_key, P.Replica);
    writeOr(W, "node"_key, P.Node);
    if (P.SimRouter) {
      W.key("sim_router"_key);
      W.beginObject();
      writeOr(W, "policy"_key, P.SimRouter->Policy);
      writeOr(W, "header"_key, P.SimRouter->Header);
      W.endObject();
    }
  }
  W.endObject();
}

static void writeKnob(JsonWriter &W, const PlanKnob &K) {
  writeObject(W, [&] {
    W.member("name"_key, std::string_view(K.Name));
    W.key("value"_key);
    writeValue(*K.Value, W);
    W.key("origin"_key);
    writeOrigin(W, K.Origin);
  });
}

static bool sameOrigin(const KnobOrigin &A, const KnobOrigin &B) {
  if (A.Level != B.Level || A.Where.has_value() != B.Where.has_value())
    return false;
  // The file names of one compilation are one string each: the same
  // view unless the names differ.
  return !A.Where ||
         (A.Where->Line == B.Where->Line && A.Where->Col == B.Where->Col &&
          ((A.Where->File.data() == B.Where->File.data() &&
            A.Where->File.size() == B.Where->File.size()) ||
           A.Where->File == B.Where->File));
}

namespace {
/// What a knob's text was written from: the same name, an
/// indistinguishable value and the same origin write the same object.
struct KnobSource {
  /// A view: the name is Sema's, which outlives the writing of the plan.
  llvm::StringRef Name;
  /// A copy keeps the value alive, so isSameAs cannot mistake a later
  /// value for it.
  sema::Value Value;
  KnobOrigin Origin;
  bool sameAs(const PlanKnob &K) const {
    return Name == K.Name && sameOrigin(Origin, K.Origin) &&
           Value.isIndistinguishableFrom(*K.Value);
  }
  void take(const PlanKnob &K) {
    Name = K.Name;
    Value = *K.Value;
    Origin = K.Origin;
  }
};

using KnobTexts = TextsByPlace<KnobSource>;
} // namespace

/// What emitPlan keeps of the cell written last, so the next cell copies
/// the text of the parts that are the same.
struct CellTexts {
  KnobTexts Knobs;
  EnvTexts Envs;
};

/// writeCell, copying the text of a knob or environment the cell before
/// wrote the same when Texts is given.
static void writeCellWith(const PlanCell &C, JsonWriter &W, CellTexts *Texts) {
  KnobTexts *Knobs = Texts ? &Texts->Knobs : nullptr;
  W.beginObject();
  W.member("id"_key, C.Id);
  W.member("recipe"_key, C.Recipe);
  // v1.1's fields only in a cell that uses v1.1, so a v1 plan stays v1.
  bool V11 = usesV11(C);
  if (V11) {
    writeOr(W, "arm"_key, C.Arm);
  }
  W.member("conc"_key, C.Conc);
  writeOr(W, "band"_key, C.Band);
  writeOr(W, "server_from"_key, C.ServerFrom);
  W.member("gpus"_key, C.Gpus);
  W.member("nodes"_key, C.Nodes);
  if (V11) {
    W.key("gpus_by_role"_key);
    writePairs(W, C.GpusByRole, [&](int64_t Gpus) { W.number(Gpus); });
    W.member("server_reuse"_key,
             C.ServerReuse == PlanCell::Reuse::Arm ? "arm" : "cell");
  }
  W.key("knobs"_key);
  W.beginArray();
  for (size_t N = 0; N < C.Knobs.size(); ++N)
    if (Knobs)
      Knobs->write(W, N, C.Knobs[N], [&] { writeKnob(W, C.Knobs[N]); });
    else
      writeKnob(W, C.Knobs[N]);
  W.endArray();
  writeArray(W, "preflight"_key, C.Preflight, [&](const PreflightStep &S) {
    writeObject(W, [&] {
      W.member("action"_key, actionName(S));
      std::visit(PreflightFields{W}, S);
    });
  });
  W.key("processes"_key);
  W.beginArray();
  for (size_t N = 0; N < C.Processes.size(); ++N)
    writeProcess(W, C.Processes[N], V11, Texts ? &Texts->Envs : nullptr, N);
  W.endArray();
  // v1.1: only a cell with files has the field, so a v1 plan stays v1.
  if (!C.Files.empty())
    writeArray(W, "files"_key, C.Files, [&](const PlanFile &F) {
      writeObject(W, [&] {
        W.member("name"_key, F.Name);
        W.member("content"_key, F.Content);
      });
    });
  W.key("client"_key);
  W.beginObject();
  W.member("target"_key, C.Client.Target);
  W.member("served_model_name"_key, C.Client.ServedModelName);
  W.member("concurrency"_key, C.Client.Concurrency);
  W.key("workload"_key);
  std::visit(WorkloadFields{W}, C.Client.Workload);
  writeOr(W, "session_header"_key, C.Client.SessionHeader);
  W.endObject();
  writeArray(W, "profile"_key, C.Profile, [&](const ProfileWindow &P) {
    writeObject(W, [&] {
      writeNumber(W, "start_s"_key, P.StartS);
      writeNumber(W, "duration_s"_key, P.DurationS);
    });
  });
  W.key("validity"_key);
  W.beginObject();
  writeNumber(W, "max_error_rate"_key, C.MaxErrorRate);
  writeOr(W, "required_metric_prefix"_key, C.RequiredMetricPrefix);
  W.endObject();
  W.endObject();
}

void codegen::writeCell(const PlanCell &C, JsonWriter &W) {
  writeCellWith(C, W, nullptr);
}

/// A simulation figure's value in the plan's units.
static void writeFigure(JsonWriter &W, const SimFigure &F) {
  if (const auto *N = std::get_if<PlanNumber>(&F.V))
    return writeNumber(W, *N);
  if (const auto *S = std::get_if<std::string>(&F.V))
    return W.string(*S);
  W.beginArray();
  for (const PlanNumber &E : std::get<std::vector<PlanNumber>>(F.V))
    writeNumber(W, E);
  W.endArray();
}

/// The simulation figures, as members of the object W is in:
/// "calibration.X" goes into a nested `calibration` object at the place of
/// the first of them (the figures' keys are distinct: each is a row of a
/// schema table).
static void writeFigures(JsonWriter &W, const std::vector<SimFigure> &Figures) {
  auto IsCalibration = [](const SimFigure &F) {
    return llvm::StringRef(F.Key).startswith("calibration.");
  };
  bool CalibrationWritten = false;
  for (const SimFigure &F : Figures) {
    if (!IsCalibration(F)) {
      W.key(F.Key);
      writeFigure(W, F);
      continue;
    }
    if (CalibrationWritten)
      continue;
    CalibrationWritten = true;
    W.key("calibration"_key);
    W.beginObject();
    for (const SimFigure &C : Figures)
      if (IsCalibration(C)) {
        W.key(llvm::StringRef(C.Key).drop_front(strlen("calibration.")));
        writeFigure(W, C);
      }
    W.endObject();
  }
}

void codegen::writeHeader(const PlanHeader &Plan, JsonWriter &W) {
  // A plan that uses a v1.1 field says so; every other plan stays v1.
  W.member("schema"_key,
           Plan.UsesV11 ? "arecipe.plan/v1.1" : "arecipe.plan/v1");
  W.key("recipe"_key);
  writeObject(W, [&] {
    W.member("name"_key, Plan.RecipeName);
    W.member("file"_key, Plan.RecipeFile);
    W.member("mode"_key, Plan.Mode);
  });
  W.key("model"_key);
  writeObject(W, [&] {
    W.member("id"_key, Plan.ModelId);
    W.member("path"_key, Plan.ModelPath);
    writeFigures(W, Plan.ModelFigures);
  });
  writeOr(W, "image"_key, Plan.Image);
  W.key("hardware"_key);
  writeObject(W, [&] {
    W.member("name"_key, Plan.HardwareName);
    W.member("gpus_per_node"_key, Plan.GpusPerNode);
    W.member("visible_devices_env"_key, Plan.VisibleDevicesEnv);
    W.member("smi"_key, Plan.Smi);
    W.member("profile"_key, Plan.HardwareProfile);
    writeFigures(W, Plan.HardwareFigures);
  });
  W.key("engine"_key);
  writeObject(W, [&] {
    W.member("name"_key, Plan.EngineName);
    writeOr(W, "metric_prefix"_key, Plan.MetricPrefix);
  });
  W.member("container"_key, nullptr);
  W.key("slurm"_key);
  if (!Plan.Slurm)
    return W.null();
  const SlurmSpec &S = *Plan.Slurm;
  writeObject(W, [&] {
    writeOr(W, "partition"_key, S.Partition);
    writeOr(W, "account"_key, S.Account);
    W.key("time_limit_s"_key);
    if (S.TimeLimitS)
      writeNumber(W, *S.TimeLimitS);
    else
      W.null();
    W.key("nodelist"_key);
    if (S.Nodelist)
      writeValue(*S.Nodelist, W);
    else
      W.string("auto");
  });
}

void codegen::emitPlan(PlanLowering &Plan, llvm::raw_ostream &OS) {
  // The header, then the cells, 20 KB each, written straight to the
  // stream, one at a time, so the plan is never whole in memory.
  JsonWriter W;
  W.beginObject();
  writeHeader(Plan.header(), W);
  W.key("cells"_key);
  W.beginArray();
  auto Flush = [&] {
    std::string_view Text = W.text();
    OS.write(Text.data(), Text.size());
    W.clear();
  };
  CellTexts Texts;
  for (size_t I = 0; I < Plan.size(); ++I) {
    writeCellWith(Plan.cell(I), W, &Texts);
    // The cells of a plan are about the same size: once the first is
    // written, a stream into memory (compileToPlanJSON's string) makes
    // room for the whole plan at once instead of regrowing and copying
    // it as it goes. A file or pipe ignores the hint.
    if (I == 0)
      OS.reserveExtraSpace(W.text().size() * (Plan.size() + 1));
    Flush();
  }
  W.endArray();
  W.endObject();
  Flush();
  OS << "\n";
}
