//===- SemaState.h - What Sema keeps beside its public results -*- C++ -*-===//
//
// Private to lib/Sema. The public structures of Cell.h say what a
// declaration, band, `at conc` block or assignment is; Sema's objects are
// these derived ones, which add what analysis works with: the syntax tree
// behind each, the module whose names it sees, evaluation flags (a
// declaration's fields being or having been evaluated) and bookkeeping for
// the dead-assignment warning. Codegen and `--explain` see only the base
// classes.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_SEMA_SEMASTATE_H
#define ARECIPE_LIB_SEMA_SEMASTATE_H

#include "arecipe/Sema/Cell.h"

namespace arecipe {
namespace ast {
class ArmStmt;
class AtConcStmt;
class BandStmt;
class EntityDecl;
class Expr;
class KnobStmt;
} // namespace ast

namespace sema {

struct Module;

/// One render clause of a knob (`-> flag "--max-num-seqs" if draft > 0`).
struct RenderInfo {
  enum Kind : uint8_t { Flag, Switch, Arg, Args, Env, Json, Yaml, JsonFile };
  Kind K;
  std::string Target; ///< The flag or variable; empty for `arg`.
  std::string Key;    ///< JSON member for `json`.
  using ListMode = Rendering::ListMode;
  ListMode Mode = Rendering::Single; ///< `flag ... each|spread`.
  const ast::Expr *Cond = nullptr;
};

struct KnobInfo {
  std::string Name;
  Type Ty;
  const ast::KnobStmt *Stmt = nullptr;
  std::vector<RenderInfo> Renders;
};

struct EntityState : EntityInfo {
  const ast::EntityDecl *Decl = nullptr;
  Module *Owner = nullptr;
  std::map<std::string, llvm::SMRange> FieldLocs;
  bool FieldsEvaluated = false; ///< Fields are filled on first use.
  bool Evaluating = false;
  /// Engines, routers and services (the process templates), in
  /// declaration order.
  std::vector<KnobInfo> Knobs;
  /// The per-cell formulas of an engine (docs/language.md §5.1): `gpus`
  /// (GPUs one replica uses), `headless` (per process; null: `node > 0`)
  /// and the `report { ... }` members, in declaration order. They are
  /// evaluated in each cell and role, never as constants.
  const ast::Expr *GpusExpr = nullptr;
  const ast::Expr *HeadlessExpr = nullptr;
  std::vector<std::pair<std::string, const ast::Expr *>> Report;

  const KnobInfo *findKnob(llvm::StringRef Name) const;
};

/// Every EntityInfo is one of Sema's.
inline EntityState &stateOf(const EntityInfo &E) {
  return static_cast<EntityState &>(const_cast<EntityInfo &>(E));
}

struct AssignmentState;

struct ArmState : ArmInfo {
  const ast::ArmStmt *Stmt = nullptr;
};

/// Every ArmInfo is one of Sema's.
inline const ArmState &stateOf(const ArmInfo &A) {
  return static_cast<const ArmState &>(A);
}

struct BandState : BandInfo {
  const ast::BandStmt *Stmt = nullptr;
};

struct AtConcState : AtConcInfo {
  const ast::AtConcStmt *Stmt = nullptr;
  const AssignmentState *Server = nullptr; ///< `server = cell(N)` here.
  int64_t ServerConc = 0;
};

struct AssignmentState : Assignment {
  /// Null for built-in defaults; the `cell(N)` call for `server`.
  const ast::Expr *ValueExpr = nullptr;
  Module *M = nullptr; ///< Where names in ValueExpr are looked up.
  /// Cells (by concurrency) where this assignment gave the value, in any
  /// arm and role.
  std::vector<int64_t> EffectiveIn;
  /// Why it did not take effect where it applied, for the dead-assignment
  /// warning: the first assignment that shadowed it.
  const AssignmentState *ShadowedBy = nullptr;
  /// The `server = cell(N)` that shadowed it in a cell, or null.
  const AssignmentState *ShadowedInServerOf = nullptr;

  void setValueExpr(const ast::Expr *E);
};

/// Every Assignment is one of Sema's.
inline const AssignmentState &stateOf(const Assignment &A) {
  return static_cast<const AssignmentState &>(A);
}

} // namespace sema
} // namespace arecipe

#endif // ARECIPE_LIB_SEMA_SEMASTATE_H
