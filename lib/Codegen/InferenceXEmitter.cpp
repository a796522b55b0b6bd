//===- InferenceXEmitter.cpp - `arecipec --emit inferencex` ---------------===//

#include "arecipe/Codegen/InferenceXEmitter.h"

#include "arecipe/Sema/Sema.h"

#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace arecipe;
using namespace arecipe::codegen;
using sema::Value;
using sema::ValueKind;

static const Value *get(const sema::Cell &C, llvm::StringRef Name) {
  const sema::ResolvedValue *RV = C.find(Name);
  return RV && !RV->V.isNone() ? &RV->V : nullptr;
}

static int64_t intOr(const sema::Cell &C, llvm::StringRef Name, int64_t D) {
  const Value *V = get(C, Name);
  return V && V->kind() == ValueKind::Int ? V->getInt() : D;
}

static std::string label(const sema::RecipeCells &R, llvm::StringRef Name,
                         std::string Default) {
  const Value *V = R.Cells.empty() ? nullptr : get(R.Cells.front(), Name);
  return V && V->kind() == ValueKind::String ? V->getString() : Default;
}

std::string codegen::configKey(const sema::RecipeCells &R) {
  std::string Key = R.Name;
  std::replace(Key.begin(), Key.end(), '_', '-');
  return label(R, "labels.config_key", Key);
}

/// The CPU offload backend a cell uses: InferenceX names it after the
/// connector, and each engine declares its tier as a different knob.
static std::string offloadBackend(const sema::Cell &C) {
  if (get(C, "lmcache"))
    return "lmcache";
  if (get(C, "cpu_offload"))
    return "vllm-simple";
  return "";
}

namespace {
/// What one search-space arm fixes; cells that agree share the arm.
struct Arm {
  std::string Utilization; ///< The block it goes in ("" for none).
  std::vector<std::pair<std::string, std::string>> Fields;
  std::vector<int64_t> Concs;
};
} // namespace

static std::string decimal(const Rational &R) {
  if (NumericResult<std::string> S = R.toDecimalString())
    return *S;
  return R.str();
}

static Arm armOf(const sema::Cell &C) {
  Arm A;
  if (C.DramUtilization && !offloadBackend(C).empty())
    A.Utilization = decimal(*C.DramUtilization);
  int64_t TP = intOr(C, "tp", 1), PP = intOr(C, "pp", 1);
  const Value *Topo = get(C, "topology");
  bool Disagg = Topo && Topo->getRecordName() == "disaggregated";
  std::string Spec = intOr(C, "draft", 0) > 0 ? "mtp" : "none";
  auto Add = [&](std::string K, std::string V) { A.Fields.emplace_back(K, V); };
  if (C.Nodes > 1) {
    // Multi-node: prefill and decode worker pools; an aggregated
    // multi-node server is one prefill worker and no decode worker.
    int64_t Prefill = Disagg ? Topo->lookup("prefill")->getInt() : 1;
    int64_t Decode = Disagg ? Topo->lookup("decode")->getInt() : 0;
    std::string Pool = "tp: " + std::to_string(TP) + ", pp: " +
                       std::to_string(PP) + ", ep: 1, dp-attn: false";
    Add("spec-decoding", Spec);
    Add("prefill", "{num-worker: " + std::to_string(Prefill) + ", " + Pool + "}");
    Add("decode", "{num-worker: " + std::to_string(Decode) + ", " + Pool + "}");
  } else {
    Add("tp", std::to_string(TP));
    if (PP > 1)
      Add("pp", std::to_string(PP));
    if (int64_t DCP = intOr(C, "dcp", 1); DCP > 1)
      Add("dcp-size", std::to_string(DCP));
    Add("spec-decoding", Spec);
  }
  if (get(C, "scenario") && get(C, "scenario")->getRecordName() == "agentic") {
    std::string Backend = offloadBackend(C);
    Add("kv-offloading", Backend.empty() ? "none" : "dram");
    if (!Backend.empty())
      Add("kv-offload-backend", "{name: " + Backend + "}");
  }
  return A;
}

void codegen::emitInferenceX(const sema::Compilation &Comp,
                             llvm::raw_ostream &OS) {
  for (const auto &RP : Comp.recipes()) {
    const sema::RecipeCells &R = *RP;
    if (R.Cells.empty())
      continue;
    const sema::Cell &First = R.Cells.front();
    const Value *Image = get(First, "image");
    const Value *Precision = get(First, "precision");
    const Value *Scenario = get(First, "scenario");
    std::string Model =
        R.Model && R.Model->Fields.count("id") ? R.Model->Fields.at("id").getString() : "";
    std::string Key = configKey(R);
    bool Multinode = false, Disagg = false;
    for (const sema::Cell &C : R.Cells) {
      Multinode |= C.Nodes > 1;
      if (const Value *T = get(C, "topology"))
        Disagg |= T->getRecordName() == "disaggregated";
    }
    OS << Key << ":\n";
    OS << "  image: " << (Image ? Image->getString() : "") << "\n";
    OS << "  model: " << Model << "\n";
    OS << "  model-prefix: " << label(R, "labels.model_prefix", Key.substr(0, Key.find('-')))
       << "\n";
    OS << "  runner: " << label(R, "labels.runner", "cluster:" + (R.Hardware ? R.Hardware->Name : ""))
       << "\n";
    OS << "  precision: " << (Precision ? Precision->getString() : "") << "\n";
    OS << "  framework: " << (R.Engine ? R.Engine->Name : "")
       << (Disagg ? "-disagg" : "") << "\n";
    OS << "  multinode: " << (Multinode ? "true" : "false") << "\n";
    if (Disagg)
      OS << "  disagg: true\n  kv-p2p-transfer: mooncake\n";
    bool Agentic = Scenario && Scenario->getRecordName() == "agentic";
    OS << "  scenarios:\n";
    // Arms in first-cell order, grouped under their dram-utilization.
    std::vector<Arm> Arms;
    for (const sema::Cell &C : R.Cells) {
      Arm A = armOf(C);
      auto Same = [&](const Arm &B) {
        return B.Utilization == A.Utilization && B.Fields == A.Fields;
      };
      auto It = std::find_if(Arms.begin(), Arms.end(), Same);
      if (It == Arms.end()) {
        A.Concs.push_back(C.Conc);
        Arms.push_back(std::move(A));
      } else {
        It->Concs.push_back(C.Conc);
      }
    }
    auto EmitArm = [&](const Arm &A, const char *Indent) {
      OS << Indent << "- ";
      bool FirstField = true;
      for (const auto &[K, V] : A.Fields) {
        OS << (FirstField ? "" : Indent) << (FirstField ? "" : "  ") << K << ": "
           << V << "\n";
        FirstField = false;
      }
      OS << Indent << "  conc-list: [";
      for (size_t I = 0; I < A.Concs.size(); ++I)
        OS << (I ? ", " : "") << A.Concs[I];
      OS << "]\n";
    };
    if (Agentic) {
      OS << "    agentic-coding:\n";
      std::vector<std::string> Utils;
      for (const Arm &A : Arms)
        if (std::find(Utils.begin(), Utils.end(), A.Utilization) == Utils.end())
          Utils.push_back(A.Utilization);
      for (const std::string &U : Utils) {
        OS << "      - ";
        if (!U.empty())
          OS << "dram-utilization: " << U << "\n        ";
        OS << "search-space:\n";
        for (const Arm &A : Arms)
          if (A.Utilization == U)
            EmitArm(A, "          ");
      }
    } else if (Scenario) {
      OS << "    fixed-seq-len:\n";
      OS << "      - isl: " << Scenario->lookup("isl")->getInt() << "\n";
      OS << "        osl: " << Scenario->lookup("osl")->getInt() << "\n";
      OS << "        search-space:\n";
      for (const Arm &A : Arms)
        EmitArm(A, "          ");
    }
  }
}
