//===- CellsJSON.cpp - `arecipec --emit cells` ----------------------------===//
//
// Resolved cells as deterministic JSON: recipes in source order with their
// `concurrency` list once, cells by arm and ascending concurrency, each
// with its processes (one per line) and the engine's report, knobs sorted by
// name with one knob per line (so a test can check one knob of one cell
// with a single FileCheck line), each with its value, level and origin
// (file:line:col as the SourceMgr names the file).
//
//===----------------------------------------------------------------------===//

#include "arecipe/Basic/SourceLocation.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "nlohmann/json.hpp"

using namespace arecipe;
using namespace arecipe::sema;

static std::string quote(llvm::StringRef S) {
  return nlohmann::json(S.str()).dump();
}

static std::string origin(const llvm::SourceMgr &SM, llvm::SMRange R) {
  std::optional<std::string> Where = formatLocation(SM, R.Start);
  return Where ? quote(*Where) : "null";
}

static const char *renderKind(Rendering::Kind K) {
  switch (K) {
  case Rendering::Flag:
    return "flag";
  case Rendering::Switch:
    return "switch";
  case Rendering::Arg:
    return "arg";
  case Rendering::Args:
    return "args";
  case Rendering::Env:
    return "env";
  case Rendering::Json:
    return "json";
  case Rendering::Yaml:
    return "yaml";
  case Rendering::JsonFile:
    return "json_file";
  }
  return "?";
}

/// `{"value", "length" (lists), "level", "server_from"?, "origin"}` on one
/// line.
static void emitValue(const llvm::SourceMgr &SM, const ResolvedValue &RV,
                      llvm::raw_ostream &OS) {
  OS << "{\"value\": " << toJSON(RV.V);
  if (RV.V.kind() == ValueKind::List)
    OS << ", \"length\": " << RV.V.listSize();
  OS << ", \"level\": " << quote(getSpelling(RV.L));
  if (RV.ServerFrom)
    OS << ", \"server_from\": " << *RV.ServerFrom;
  OS << ", \"origin\": "
     << origin(SM, RV.From ? RV.From->Range : llvm::SMRange()) << "}";
}

static void emitCell(const llvm::SourceMgr &SM, const Cell &C,
                     llvm::raw_ostream &OS) {
  OS << "        {\n";
  OS << "          \"arm\": "
     << (C.Arm && !C.Arm->Name.empty() ? quote(C.Arm->Name) : "null") << ",\n";
  OS << "          \"conc\": " << C.Conc << ",\n";
  OS << "          \"band\": " << (C.Band ? quote(C.Band->Name) : "null")
     << ",\n";
  OS << "          \"server_from\": "
     << (C.ServerFrom ? std::to_string(*C.ServerFrom) : "null") << ",\n";
  OS << "          \"gpus\": " << C.Gpus << ",\n";
  OS << "          \"nodes\": " << C.Nodes << ",\n";
  OS << "          \"gpus_by_role\": {";
  for (size_t I = 0; I < C.GpusByRole.size(); ++I)
    OS << (I ? ", " : "") << quote(C.GpusByRole[I].first) << ": "
       << C.GpusByRole[I].second;
  OS << "},\n";
  // One process per line: where it runs, its GPUs and port.
  OS << "          \"processes\": [\n";
  for (size_t I = 0; I < C.Processes.size(); ++I) {
    const ProcessInfo &P = C.Processes[I];
    OS << "            {\"name\": " << quote(P.Name)
       << ", \"role\": " << quote(P.Role)
       << ", \"template\": " << quote(P.Template ? P.Template->Name : "")
       << ", \"node_rank\": " << P.NodeRank << ", \"gpus\": [";
    for (int64_t G = 0; P.K == ProcessInfo::Engine && G < P.Gpus; ++G)
      OS << (G ? ", " : "") << P.FirstGpu + G;
    OS << "], \"port\": " << (P.Port ? std::to_string(*P.Port) : "null")
       << ", \"headless\": " << (P.Headless ? "true" : "false");
    if (!P.After.empty()) {
      OS << ", \"after\": [";
      for (size_t J = 0; J < P.After.size(); ++J)
        OS << (J ? ", " : "") << quote(P.After[J]);
      OS << "]";
    }
    OS << "}" << (I + 1 < C.Processes.size() ? "," : "") << "\n";
  }
  OS << "          ],\n";
  OS << "          \"report\": {";
  size_t R = 0;
  for (const auto &[Name, V] : C.Report)
    OS << (R++ ? ", " : "") << quote(Name) << ": " << toJSON(V);
  OS << "},\n";
  OS << "          \"knobs\": {\n";
  size_t N = 0;
  for (const auto &[Name, RV] : C.Values) {
    OS << "            " << quote(Name) << ": ";
    emitValue(SM, RV, OS);
    OS << (++N < C.Values.size() ? "," : "") << "\n";
  }
  OS << "          },\n";
  OS << "          \"renderings\": [\n";
  llvm::ArrayRef<Rendering> Renderings = C.renderings();
  for (size_t I = 0; I < Renderings.size(); ++I) {
    const Rendering &R = Renderings[I];
    OS << "            {\"kind\": " << quote(renderKind(R.K));
    if (!R.Target.empty())
      OS << ", \"target\": " << quote(R.Target);
    if (!R.Key.empty())
      OS << ", \"key\": " << quote(R.Key);
    if (R.Mode != Rendering::Single)
      OS << ", \"list\": "
         << quote(R.Mode == Rendering::Each ? "each" : "spread");
    if (R.V)
      OS << ", \"value\": " << toJSON(*R.V);
    if (!R.Knob.empty())
      OS << ", \"knob\": " << quote(R.Knob);
    OS << "}" << (I + 1 < Renderings.size() ? "," : "") << "\n";
  }
  OS << "          ],\n";
  OS << "          \"preflight\": [\n";
  for (size_t I = 0; I < C.Preflight.size(); ++I) {
    const PreflightAction &P = C.Preflight[I];
    OS << "            {\"action\": " << quote(P.Action);
    for (const auto &[Name, V] : P.Args)
      OS << ", " << quote(Name) << ": " << toJSON(V);
    OS << "}" << (I + 1 < C.Preflight.size() ? "," : "") << "\n";
  }
  OS << "          ]";
  // Only a cell with files has the field (cells of v1 recipes are as
  // before).
  if (!C.Files.empty()) {
    OS << ",\n          \"files\": [\n";
    for (size_t I = 0; I < C.Files.size(); ++I)
      OS << "            {\"name\": " << quote(C.Files[I].Name)
         << ", \"content\": " << quote(C.Files[I].Content) << "}"
         << (I + 1 < C.Files.size() ? "," : "") << "\n";
    OS << "          ]";
  }
  OS << "\n        }";
}

void arecipe::sema::emitCellsJSON(const Compilation &Comp,
                                  llvm::raw_ostream &OS) {
  const llvm::SourceMgr &SM = Comp.getSourceMgr();
  OS << "{\n  \"schema\": \"arecipe.cells/v1\",\n  \"recipes\": [\n";
  auto Recipes = Comp.recipes();
  for (size_t I = 0; I < Recipes.size(); ++I) {
    const RecipeCells &R = *Recipes[I];
    OS << "    {\n";
    OS << "      \"name\": " << quote(R.Name) << ",\n";
    OS << "      \"file\": " << quote(R.File) << ",\n";
    OS << "      \"engine\": " << (R.Engine ? quote(R.Engine->Name) : "null")
       << ",\n";
    OS << "      \"hardware\": "
       << (R.Hardware ? quote(R.Hardware->Name) : "null") << ",\n";
    OS << "      \"model\": " << (R.Model ? quote(R.Model->Name) : "null")
       << ",\n";
    // Once per recipe: the list is no knob of one cell (F12).
    OS << "      \"concurrency\": ";
    if (R.ConcurrencyValue.From)
      emitValue(SM, R.ConcurrencyValue, OS);
    else
      OS << "null";
    OS << ",\n";
    OS << "      \"cells\": [\n";
    for (size_t J = 0; J < R.Cells.size(); ++J) {
      emitCell(SM, R.Cells[J], OS);
      OS << (J + 1 < R.Cells.size() ? ",\n" : "\n");
    }
    OS << "      ]\n";
    OS << "    }" << (I + 1 < Recipes.size() ? "," : "") << "\n";
  }
  OS << "  ]\n}\n";
}
