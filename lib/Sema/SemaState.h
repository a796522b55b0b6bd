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

#include "llvm/ADT/StringMap.h"

namespace arecipe {
namespace ast {
class ArmStmt;
class AtConcStmt;
class BandStmt;
class EntityDecl;
class Expr;
class KnobStmt;
class Stmt;
} // namespace ast

namespace sema {

struct Module;

/// One render clause of a knob (`-> flag "--max-num-seqs" if draft > 0`).
struct RenderInfo {
  enum Kind : uint8_t { Flag, Switch, Arg, Args, Env, Json, Yaml, JsonFile };
  Kind K;
  std::string Target;   ///< The flag, variable or file; empty for `arg(s)`.
  std::string Key;      ///< The member ("a.b") for `json`, `yaml`, `json_file`.
  std::string Negative; ///< `switch "--x" else "--no-x"`: the false form.
  using ListMode = Rendering::ListMode;
  ListMode Mode = Rendering::Single; ///< `flag ... each|spread`.
  const ast::Expr *Cond = nullptr;
};

struct KnobInfo {
  std::string Name;
  Type Ty;
  const ast::KnobStmt *Stmt = nullptr;
  /// The file of the declaration that declared it (a parent's, for an
  /// inherited knob): where its default, constraint and render conditions
  /// look names up.
  Module *M = nullptr;
  std::vector<RenderInfo> Renders;
};

/// One statement of a process template's merged body (docs/language.md
/// §2.3): with the file its names are looked up in.
struct TemplateMember {
  const ast::Stmt *S = nullptr;
  Module *M = nullptr;
  /// A knob's place in its template's Knobs (-1 for other members), so a
  /// rendering finds its KnobInfo per process without a lookup by name.
  int Knob = -1;
};

struct EntityState : EntityInfo {
  const ast::EntityDecl *Decl = nullptr;
  Module *Owner = nullptr;
  /// `extends PARENT`: the parent, once resolved (null without `extends`,
  /// and for the declaration whose `extends` closed a cycle).
  const EntityState *Parent = nullptr;
  bool ParentResolved = false;
  std::map<std::string, llvm::SMRange> FieldLocs;
  bool FieldsEvaluated = false; ///< Fields are filled on first use.
  bool Evaluating = false;
  /// Engines, routers and services: the knobs in declaration order, the
  /// parent's first (a redeclared knob in the parent's place).
  std::vector<KnobInfo> Knobs;
  /// Engines, routers and services: the knobs, `emit` blocks, checks and
  /// `file` statements in rendering order -- the parent's members (a
  /// redeclared knob in place), then this declaration's own.
  std::vector<TemplateMember> Body;
  /// The per-cell formulas of an engine (docs/language.md §5.1): `gpus`
  /// (GPUs one replica uses), `headless` (per process; null: `node > 0`)
  /// and the `report { ... }` members, in declaration order. They are
  /// evaluated in each cell and role, never as constants.
  const ast::Expr *GpusExpr = nullptr;
  const ast::Expr *HeadlessExpr = nullptr;
  std::vector<std::pair<std::string, const ast::Expr *>> Report;

  const KnobInfo *findKnob(llvm::StringRef Name) const;

private:
  /// Knobs by name, for findKnob, which renderings and router knobs call
  /// per knob and per process (a scan made that quadratic in the knobs).
  /// Rebuilt when Knobs has grown: a knob is only ever appended or
  /// replaced in place under its own name.
  mutable llvm::StringMap<unsigned> KnobIndex;
  mutable size_t KnobsIndexed = 0;
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
