//===- InferenceXEmitter.cpp - `arecipec --emit inferencex` ---------------===//

#include "arecipe/Codegen/InferenceXEmitter.h"

#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

using namespace arecipe;
using namespace arecipe::codegen;
using sema::Value;
using sema::ValueKind;

static const Value *get(const sema::Cell &C, llvm::StringRef Name) {
  const sema::ResolvedValue *RV = C.find(Name);
  return RV && !RV->V.isNone() ? &RV->V : nullptr;
}

/// The label Name of a cell (labels may differ per arm), else Default.
static std::string label(const sema::Cell &C, llvm::StringRef Name,
                         std::string Default) {
  const Value *V = get(C, Name);
  return V && V->kind() == ValueKind::String ? V->getString() : Default;
}

/// The master-config key of cell C: its `labels.config_key`, else the
/// recipe name with `-` for `_`.
static std::string cellKey(const sema::RecipeCells &R, const sema::Cell &C) {
  std::string Key = R.Name;
  std::replace(Key.begin(), Key.end(), '_', '-');
  return label(C, "labels.config_key", Key);
}

std::string codegen::configKey(const sema::RecipeCells &R) {
  if (R.Cells.empty()) {
    std::string Key = R.Name;
    std::replace(Key.begin(), Key.end(), '_', '-');
    return Key;
  }
  return cellKey(R, R.Cells.front());
}

/// The image as the runner pulls it. Enroot's import URI separates a
/// registry host from the repository path with `#` (`nvcr.io#nvidia/...`);
/// a first component that names no host (no `.` or `:`, not `localhost`,
/// as in Docker Hub's `vllm/vllm-openai`) is part of the path, so such a
/// name is the same either way.
static std::string runnerImage(const sema::Cell &C, std::string Image) {
  if (label(C, "labels.image_pull", "docker") != "enroot")
    return Image;
  size_t Slash = Image.find('/');
  if (Slash == std::string::npos)
    return Image;
  llvm::StringRef Host = llvm::StringRef(Image).take_front(Slash);
  if (Host.contains('.') || Host.contains(':') || Host == "localhost")
    Image[Slash] = '#';
  return Image;
}

bool codegen::checkInferenceX(const sema::Compilation &Comp,
                              DiagnosticEngine &Diags) {
  bool Ok = true;
  std::set<const sema::Assignment *> Reported;
  for (const auto &RP : Comp.recipes())
    for (const sema::Cell &C : RP->Cells) {
      const sema::ResolvedValue *RV = C.find("labels.image_pull");
      if (!RV || RV->V.isNone() ||
          (RV->V.kind() == ValueKind::String &&
           (RV->V.getString() == "docker" || RV->V.getString() == "enroot")))
        continue;
      Ok = false;
      if (RV->From && Reported.insert(RV->From).second)
        Diags.report(RV->From->FormulaRange.isValid() ? RV->From->FormulaRange
                                                      : RV->From->Range,
                     DiagID::err_inferencex_image_pull)
            << RV->V.describeType() << RV->V.str();
    }
  return Ok;
}

/// A report value as InferenceX's YAML writes it: maps in flow style
/// (`{name: lmcache}`), strings bare, bools `true`/`false`.
static std::string yamlValue(const Value &V) {
  switch (V.kind()) {
  case ValueKind::String:
  case ValueKind::Enum:
    return V.getString();
  case ValueKind::Bool:
    return V.getBool() ? "true" : "false";
  case ValueKind::Map:
  case ValueKind::Record: {
    std::string Out = "{";
    for (const auto &[K, E] : V.getEntries())
      Out += (Out.size() > 1 ? ", " : "") +
             (K.kind() == ValueKind::String ? K.getString() : K.str()) + ": " +
             yamlValue(E);
    return Out + "}";
  }
  case ValueKind::List: {
    std::string Out = "[";
    for (Value E : V.elements())
      Out += (Out.size() > 1 ? ", " : "") + yamlValue(E);
    return Out + "]";
  }
  default:
    return sema::renderValue(V).value_or(V.str());
  }
}

namespace {
/// What one search-space item fixes; cells of one arm that agree share it.
struct Item {
  const sema::ArmInfo *Arm = nullptr;
  std::string Utilization; ///< The block it goes in ("" for none).
  /// The fixed-seq-len entry it goes in: its cells' isl and osl (arms
  /// may run different scenarios).
  std::pair<int64_t, int64_t> SeqLen{0, 0};
  std::vector<std::pair<std::string, std::string>> Fields;
  std::vector<int64_t> Concs;
};
} // namespace

static std::string decimal(const Rational &R) {
  if (NumericResult<std::string> S = R.toDecimalString())
    return *S;
  return R.str();
}

/// The engine's report member for Role ("" in an aggregated cell).
static const Value *report(const sema::Cell &C, llvm::StringRef Name,
                           llvm::StringRef Role = "") {
  auto It =
      C.Report.find(Role.empty() ? Name.str() : Role.str() + "." + Name.str());
  return It == C.Report.end() ? nullptr : &It->second;
}

/// A string field of the recipe's engine (inherited ones included).
static std::string engineField(const sema::RecipeCells &R,
                               llvm::StringRef Name) {
  if (!R.Engine)
    return "";
  auto It = R.Engine->Fields.find(Name.str());
  return It != R.Engine->Fields.end() && It->second.kind() == ValueKind::String
             ? It->second.getString()
             : "";
}

/// InferenceX's `framework`: `labels.framework`, else what the engine
/// declares (`framework`, and `framework_disagg` for a disaggregated
/// recipe, by default the framework with `-disagg`), else its name.
static std::string framework(const sema::RecipeCells &R, const sema::Cell &C,
                             bool Disagg) {
  std::string Name = engineField(R, "framework");
  if (Name.empty())
    Name = R.Engine ? R.Engine->Name : "";
  if (Disagg) {
    std::string D = engineField(R, "framework_disagg");
    Name = D.empty() ? Name + "-disagg" : D;
  }
  return label(C, "labels.framework", Name);
}

/// InferenceX's name of the router in front of the cell's engines (its
/// declaration's `framework`), or "".
static std::string routerFramework(const sema::Cell &C) {
  const Value *Topo = get(C, "topology");
  const Value *Router = Topo ? Topo->lookup("router") : nullptr;
  const sema::EntityInfo *T =
      Router && !Router->isNone() ? Router->getEntity() : nullptr;
  if (!T)
    return "";
  auto It = T->Fields.find("framework");
  return It != T->Fields.end() && It->second.kind() == ValueKind::String
             ? It->second.getString()
             : "";
}

static Item itemOf(const sema::Cell &C, bool Agentic, const std::string &Spec) {
  Item A;
  A.Arm = C.Arm;
  const Value *Backend =
      report(C, "kv_offload_backend", C.isDisaggregated() ? "prefill" : "");
  if (C.DramUtilization && Backend)
    A.Utilization = decimal(*C.DramUtilization);
  auto Add = [&](std::string K, const Value *V) {
    if (V)
      A.Fields.emplace_back(K, yamlValue(*V));
  };
  const Value *Topo = get(C, "topology");
  bool Disagg = C.isDisaggregated();
  if (C.Nodes > 1 || Disagg) {
    // Worker pools: prefill and decode; an aggregated multi-node server is
    // one prefill pool of its replicas and an empty decode pool. A pool
    // states its parallelism in full (InferenceX's defaults: pp 1, ep 1,
    // no dp-attention).
    A.Fields.emplace_back("spec-decoding", Spec);
    for (const char *Pool : {"prefill", "decode"}) {
      llvm::StringRef Role = Disagg ? Pool : "";
      int64_t Workers = 0;
      if (Disagg)
        Workers = Topo->lookup(Pool)->getInt();
      else if (llvm::StringRef(Pool) == "prefill")
        Workers = Topo->lookup("replicas")->getInt();
      auto Field = [&](const char *Name, std::string Default) {
        const Value *V = report(C, Name, Role);
        return V ? yamlValue(*V) : Default;
      };
      A.Fields.emplace_back(
          Pool, "{num-worker: " + std::to_string(Workers) +
                    ", tp: " + Field("tp", "1") + ", pp: " + Field("pp", "1") +
                    ", ep: " + Field("ep", "1") +
                    ", dp-attn: " + Field("dp_attention", "false") + "}");
    }
  } else {
    Add("tp", report(C, "tp"));
    Add("ep", report(C, "ep"));
    Add("dp-attn", report(C, "dp_attention"));
    Add("pp", report(C, "pp"));
    Add("dcp-size", report(C, "dcp_size"));
    A.Fields.emplace_back("spec-decoding", Spec);
  }
  // Offloading is a field of agentic entries.
  if (Agentic) {
    llvm::StringRef Role = Disagg ? "prefill" : "";
    Add("kv-offloading", report(C, "kv_offloading", Role));
    Add("kv-offload-backend", report(C, "kv_offload_backend", Role));
  }
  return A;
}

/// The master entry Key of recipe R: the cells whose key it is.
static void emitEntry(const sema::RecipeCells &R, const std::string &Key,
                      const std::vector<const sema::Cell *> &Cells,
                      llvm::raw_ostream &OS) {
  const sema::Cell &First = *Cells.front();
  const Value *Image = get(First, "image");
  const Value *Precision = get(First, "precision");
  const Value *Scenario = get(First, "scenario");
  std::string Model = R.Model && R.Model->Fields.count("id")
                          ? R.Model->Fields.at("id").getString()
                          : "";
  bool Multinode = false;
  const sema::Cell *Disagg = nullptr;
  for (const sema::Cell *C : Cells) {
    Multinode |= C->Nodes > 1;
    if (C->isDisaggregated() && !Disagg)
      Disagg = C;
  }
  OS << Key << ":\n";
  OS << "  image: " << (Image ? runnerImage(First, Image->getString()) : "")
     << "\n";
  OS << "  model: " << Model << "\n";
  OS << "  model-prefix: "
     << label(First, "labels.model_prefix", Key.substr(0, Key.find('-')))
     << "\n";
  OS << "  runner: "
     << label(First, "labels.runner",
              "cluster:" + (R.Hardware ? R.Hardware->Name : ""))
     << "\n";
  OS << "  precision: " << (Precision ? Precision->getString() : "") << "\n";
  OS << "  framework: " << framework(R, First, Disagg != nullptr) << "\n";
  // The router, as InferenceX names it, with the version the recipe
  // states (`labels.router_version`; it runs whatever the image holds).
  if (std::string Router = routerFramework(First); !Router.empty()) {
    OS << "  router: {name: " << Router;
    std::string Version = label(First, "labels.router_version", "");
    if (!Version.empty())
      OS << ", version: \"" << Version << "\"";
    OS << "}\n";
  }
  OS << "  multinode: " << (Multinode ? "true" : "false") << "\n";
  if (Disagg) {
    OS << "  disagg: true\n";
    if (const Value *KV = report(*Disagg, "kv_p2p_transfer", "prefill"))
      OS << "  kv-p2p-transfer: " << yamlValue(*KV) << "\n";
  }
  bool Agentic = Scenario && Scenario->getRecordName() == "agentic";
  OS << "  scenarios:\n";
  // Items in first-cell order: one per arm, split where the arm's cells
  // differ, grouped under their dram-utilization.
  // A cell's `spec-decoding`: the method it drafts with, else `none`. An
  // arm (a recipe without `arm` statements is one) is one search-space
  // item, whose method is the one its launcher drafts with: the first a
  // cell of the arm reports. InferenceX's generator passes an item's
  // method to the launcher, which may still turn drafting off at some
  // concurrencies, so an arm that drafts at low concurrency only is an MTP
  // arm, not two items.
  auto SpecOf = [](const sema::Cell &C) {
    const Value *V =
        report(C, "spec_decoding", C.isDisaggregated() ? "decode" : "");
    return V ? yamlValue(*V) : std::string("none");
  };
  std::map<const sema::ArmInfo *, std::string> ArmSpec;
  for (const sema::Cell *C : Cells) {
    auto [It, New] = ArmSpec.try_emplace(C->Arm, SpecOf(*C));
    if (!New && It->second == "none")
      It->second = SpecOf(*C);
  }
  // The one DRAM utilization of the recipe, when its cells agree on one:
  // arms without a CPU tier run under the same budget.
  std::optional<std::string> OneUtilization;
  bool Several = false;
  for (const sema::Cell *C : Cells)
    if (C->DramUtilization) {
      std::string U = decimal(*C->DramUtilization);
      Several |= OneUtilization && *OneUtilization != U;
      OneUtilization = U;
    }
  std::vector<Item> Items;
  for (const sema::Cell *CP : Cells) {
    const sema::Cell &C = *CP;
    Item A = itemOf(C, Agentic, ArmSpec[C.Arm]);
    if (A.Utilization.empty() && OneUtilization && !Several)
      A.Utilization = *OneUtilization;
    if (const Value *S = get(C, "scenario");
        S && S->kind() == ValueKind::Record && S->getRecordName() == "fixed")
      A.SeqLen = {S->lookup("isl")->getInt(), S->lookup("osl")->getInt()};
    auto Same = [&](const Item &B) {
      return B.Arm == A.Arm && B.Utilization == A.Utilization &&
             B.SeqLen == A.SeqLen && B.Fields == A.Fields;
    };
    auto It = std::find_if(Items.begin(), Items.end(), Same);
    if (It == Items.end()) {
      A.Concs.push_back(C.Conc);
      Items.push_back(std::move(A));
    } else {
      It->Concs.push_back(C.Conc);
    }
  }
  auto EmitItem = [&](const Item &A, const char *Indent) {
    OS << Indent << "- ";
    bool FirstField = true;
    for (const auto &[K, V] : A.Fields) {
      OS << (FirstField ? "" : Indent) << (FirstField ? "" : "  ") << K << ": "
         << V << "\n";
      FirstField = false;
    }
    if (!FirstField)
      OS << Indent << "  ";
    // The whole arm, written geometric(a, b): InferenceX's range.
    if (A.Arm->Geometric && A.Concs == A.Arm->Concurrency) {
      OS << "conc-start: " << A.Arm->Geometric->first << "\n"
         << Indent << "  conc-end: " << A.Arm->Geometric->second << "\n";
      return;
    }
    OS << "conc-list: [";
    for (size_t I = 0; I < A.Concs.size(); ++I)
      OS << (I ? ", " : "") << A.Concs[I];
    OS << "]\n";
  };
  if (Agentic) {
    OS << "    agentic-coding:\n";
    std::vector<std::string> Utils;
    for (const Item &A : Items)
      if (std::find(Utils.begin(), Utils.end(), A.Utilization) == Utils.end())
        Utils.push_back(A.Utilization);
    for (const std::string &U : Utils) {
      OS << "      - ";
      if (!U.empty())
        OS << "dram-utilization: " << U << "\n        ";
      OS << "search-space:\n";
      for (const Item &A : Items)
        if (A.Utilization == U)
          EmitItem(A, "          ");
    }
  } else if (Scenario) {
    // One entry per sequence shape, in first-cell order, each with the
    // items of the arms that run it (as a master entry lists 1k1k and
    // 8k1k side by side).
    OS << "    fixed-seq-len:\n";
    std::vector<std::pair<int64_t, int64_t>> Seqs;
    for (const Item &A : Items)
      if (std::find(Seqs.begin(), Seqs.end(), A.SeqLen) == Seqs.end())
        Seqs.push_back(A.SeqLen);
    for (const auto &[Isl, Osl] : Seqs) {
      OS << "      - isl: " << Isl << "\n";
      OS << "        osl: " << Osl << "\n";
      OS << "        search-space:\n";
      for (const Item &A : Items)
        if (A.SeqLen == std::make_pair(Isl, Osl))
          EmitItem(A, "          ");
    }
  }
}

void codegen::emitInferenceX(const sema::Compilation &Comp,
                             llvm::raw_ostream &OS) {
  for (const auto &RP : Comp.recipes()) {
    const sema::RecipeCells &R = *RP;
    // One master entry per key the cells name, in first-cell order: a
    // recipe may hold the arms of several keys (a base key and its `-mtp`
    // twin), each arm setting its own `labels.config_key`.
    std::vector<std::pair<std::string, std::vector<const sema::Cell *>>> Keys;
    for (const sema::Cell &C : R.Cells) {
      std::string Key = cellKey(R, C);
      auto It = std::find_if(Keys.begin(), Keys.end(),
                             [&](const auto &K) { return K.first == Key; });
      if (It == Keys.end())
        Keys.push_back({Key, {&C}});
      else
        It->second.push_back(&C);
    }
    for (const auto &[Key, Cells] : Keys)
      emitEntry(R, Key, Cells, OS);
  }
}
