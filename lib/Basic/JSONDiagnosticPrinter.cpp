//===- JSONDiagnosticPrinter.cpp - Machine-readable output ----------------===//

#include "arecipe/Basic/JSONDiagnosticPrinter.h"

#include "arecipe/Basic/SourceLocation.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

using namespace arecipe;
using Json = nlohmann::ordered_json;

/// {"line": L, "column": C} for a location inside a buffer, else null.
static Json position(const llvm::SourceMgr &SM, llvm::SMLoc Loc) {
  std::optional<PresumedLoc> P = getPresumedLoc(SM, Loc);
  if (!P)
    return nullptr;
  return Json{{"line", P->Line}, {"column", P->Column}};
}

static Json range(const llvm::SourceMgr &SM, llvm::SMRange R) {
  return Json{{"start", position(SM, R.Start)}, {"end", position(SM, R.End)}};
}

static Json toObject(const llvm::SourceMgr &SM, const Diagnostic &Diag) {
  Json Object;
  Object["id"] = getDiagInfo(Diag.ID).Name.str();
  Object["level"] = getLevelName(Diag.Level).str();
  Object["message"] = Diag.Message;
  if (std::optional<PresumedLoc> P = getPresumedLoc(SM, Diag.Loc)) {
    Object["file"] = P->File.str();
    Object["line"] = P->Line;
    Object["column"] = P->Column;
  } else {
    Object["file"] = nullptr;
    Object["line"] = nullptr;
    Object["column"] = nullptr;
  }
  Json Ranges = Json::array();
  for (llvm::SMRange R : Diag.Ranges)
    Ranges.push_back(range(SM, R));
  Object["ranges"] = std::move(Ranges);
  Json FixIts = Json::array();
  for (const FixIt &Fix : Diag.FixIts) {
    Json F = range(SM, Fix.Range);
    F["text"] = Fix.Text;
    FixIts.push_back(std::move(F));
  }
  Object["fixits"] = std::move(FixIts);
  Json Notes = Json::array();
  for (const Diagnostic &Note : Diag.Notes)
    Notes.push_back(toObject(SM, Note));
  Object["notes"] = std::move(Notes);
  return Object;
}

std::string JSONDiagnosticPrinter::toJSON(const llvm::SourceMgr &SM,
                                          const Diagnostic &Diag) {
  // Messages may quote bytes from a recipe that are not valid UTF-8; replace
  // them rather than fail, since diagnostics are how bad input is reported.
  return toObject(SM, Diag).dump(-1, ' ', /*ensure_ascii=*/false,
                                 Json::error_handler_t::replace);
}

void JSONDiagnosticPrinter::handleDiagnostic(const llvm::SourceMgr &SM,
                                             const Diagnostic &Diag) {
  OS << toJSON(SM, Diag) << '\n';
}
