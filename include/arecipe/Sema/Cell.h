//===- Cell.h - Resolved cells: Sema's output -------------------*- C++ -*-===//
//
// What semantic analysis produces for one recipe: one Cell per concurrency,
// every knob, field and `let` value resolved to a Value together with its
// provenance (the assignment that defined it, its precedence level, and the
// names its formula read), the band holding the cell, the cell whose server
// it runs (`server = cell(N)`), the GPUs and nodes it occupies and the
// engine renderings that apply in it. Codegen reads these structures and
// nothing else from Sema; they hold no parse-tree types and are not changed
// after analysis.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SEMA_CELL_H
#define ARECIPE_SEMA_CELL_H

#include "arecipe/Sema/Value.h"

#include "llvm/Support/SMLoc.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace arecipe {
namespace ast {
class EntityDecl;
class Expr;
class KnobStmt;
class Stmt;
class BandStmt;
class AtConcStmt;
} // namespace ast

namespace sema {

struct Module;

/// Precedence levels, lowest first (docs/language.md §7.2). ServerFrom
/// marks a value a cell took from the cell named by `server = cell(N)`.
enum class Level : uint8_t {
  Default,
  Recipe,
  Band,
  AtConc,
  ServerFrom,
  CommandLine,
};
/// "default", "recipe", "band", "at-conc", "server-from", "command-line"
/// (the plan's `origin.level`).
llvm::StringRef getSpelling(Level L);

struct EnumInfo {
  std::string Name;
  std::vector<std::string> Members;
  llvm::SMRange Loc; ///< Invalid for built-in enums.
  bool hasMember(llvm::StringRef M) const;
};

/// One render clause of a knob (`-> flag "--max-num-seqs" if draft > 0`).
struct RenderInfo {
  enum Kind : uint8_t { Flag, Switch, Arg, Args, Env, Json, Yaml, JsonFile };
  /// How `flag` renders a list: one word, `each` element after its own flag,
  /// or `spread` after one flag.
  enum ListMode : uint8_t { Single, Each, Spread };
  Kind K;
  std::string Target;   ///< The flag, variable or file; empty for `arg(s)`.
  std::string Key;      ///< The member ("a.b") for `json`, `yaml`, `json_file`.
  std::string Negative; ///< `switch "--x" else "--no-x"`: the false form.
  ListMode Mode = Single;
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
};

/// A hardware, model, engine, router or service declaration with its
/// constant fields.
struct EntityInfo {
  enum Kind : uint8_t { Recipe, Hardware, Engine, Model, Router, Service };
  Kind K;
  std::string Name;
  const ast::EntityDecl *Decl = nullptr;
  Module *Owner = nullptr;
  /// `extends PARENT`: the parent, once resolved (null without `extends`,
  /// and for the declaration whose `extends` closed a cycle).
  const EntityInfo *Parent = nullptr;
  bool ParentResolved = false;
  /// Constant fields (`gpus_per_node`, `id`, `command`, `endpoints.health`),
  /// filled on first use.
  std::map<std::string, Value> Fields;
  std::map<std::string, llvm::SMRange> FieldLocs;
  bool FieldsEvaluated = false;
  bool Evaluating = false;
  /// Engines, routers and services: the knobs in declaration order, the
  /// parent's first (a redeclared knob in the parent's place).
  std::vector<KnobInfo> Knobs;
  /// Engines, routers and services: the knobs, `emit` blocks, checks and
  /// `file` statements in rendering order -- the parent's members (a
  /// redeclared knob in place), then this declaration's own.
  std::vector<TemplateMember> Body;

  bool isTemplate() const { return K == Engine || K == Router || K == Service; }
  const KnobInfo *findKnob(llvm::StringRef Name) const;
};

struct BandInfo;
struct AtConcInfo;

/// One assignment that may define a name in some cells.
struct Assignment {
  std::string Name; ///< "window", "env.PYTHONHASHSEED", "client.warmup".
  Level L = Level::Recipe;
  const ast::Expr *ValueExpr = nullptr; ///< Null for built-ins and --set.
  std::optional<Value> Literal;         ///< Built-in defaults and --set.
  llvm::SMRange Range;                  ///< The whole statement.
  llvm::SMRange NameRange;
  Module *M = nullptr; ///< Where names in ValueExpr are looked up.
  const BandInfo *Band = nullptr;
  const AtConcInfo *At = nullptr;
  bool IsLet = false;
  bool IsKnobDefault = false;
  /// Cells (by concurrency) where this assignment gave the value.
  std::vector<int64_t> EffectiveIn;
  /// Why it did not take effect where it applied, for the dead-assignment
  /// warning: the first assignment that shadowed it.
  const Assignment *ShadowedBy = nullptr;
  int64_t ShadowedInServerOf = 0; ///< Non-zero: shadowed by cell(N).

  /// "band 'mid'", "'at conc 14'", "the recipe body", "the engine default",
  /// "the command line".
  std::string describeSite() const;
};

struct BandInfo {
  std::string Name;
  const ast::BandStmt *Stmt = nullptr;
  llvm::SMRange NameRange;
  std::vector<int64_t> Concs; ///< Concurrencies the band matches.
};

struct AtConcInfo {
  const ast::AtConcStmt *Stmt = nullptr;
  std::vector<int64_t> Concs;
  const Assignment *Server = nullptr; ///< `server = cell(N)` in this block.
  int64_t ServerConc = 0;
};

/// A resolved value with its provenance.
struct ResolvedValue {
  Value V;
  Level L = Level::Default;
  /// The defining assignment; null for a name nothing assigns (an optional
  /// knob without default is none).
  const Assignment *From = nullptr;
  /// Cell names the formula read, in first-use order ("conc" included).
  std::vector<std::string> Deps;
  /// Set when the value is cell N's (`server = cell(N)`, chains followed).
  std::optional<int64_t> ServerFrom;
};

/// A rendering that applies in a cell: a knob's render clause whose
/// condition holds, or an item of an `emit` block whose condition holds.
struct Rendering {
  enum Kind : uint8_t { Flag, Switch, Arg, Args, Env, Json, Yaml, JsonFile };
  Kind K;
  /// The flag (`--x`, or `--x=` for one word `--x=V`), the switch's flag as
  /// it renders (the `else` form when the value is false), the environment
  /// variable, or the file of a Yaml/JsonFile member.
  std::string Target;
  std::string Key; ///< The member ("a.b") for Json, Yaml and JsonFile.
  RenderInfo::ListMode Mode = RenderInfo::Single; ///< Flag with a list.
  std::optional<Value> V; ///< Never none: a none value renders nothing.
  std::string Knob;       ///< Empty for `emit` items.
};

/// A file the runtime writes into the cell's directory before any process
/// starts (`{file:NAME}` in argv, env and other files names its path).
struct GeneratedFile {
  std::string Name;
  std::string Content;
};

/// A pre-flight action as it runs in a cell: its name and its arguments,
/// evaluated and checked against the action's signature (defaults filled).
struct PreflightAction {
  std::string Action;
  std::vector<std::pair<std::string, Value>> Args;
};

/// One engine process of a cell's topology (domain.md §4), with the
/// renderings that apply to it. Engine render conditions and `emit` items
/// may read `role` ("server", "worker", "prefill", "decode") and `rank`
/// (the process's index within its role), which is how a multi-node
/// worker gets `--headless` and a prefill server its KV producer role.
struct ServerProcess {
  std::string Role;
  int64_t Rank = 0;
  int64_t NodeRank = 0; ///< The first node of the cell's allocation it uses.
  int64_t Gpus = 0;     ///< GPUs it uses on that node.
  std::vector<Rendering> Renderings; ///< Engine declaration order.
  /// The engine's `file` statements and `yaml`/`json_file` members, as
  /// evaluated for this process (the cell's Files hold them once).
  std::vector<GeneratedFile> Files;
};

struct Cell {
  int64_t Conc = 0;
  const BandInfo *Band = nullptr;
  std::optional<int64_t> ServerFrom; ///< The N of `server = cell(N)`.
  std::optional<int64_t> ServerRoot; ///< The end of the cell(N) chain.
  std::map<std::string, ResolvedValue> Values; ///< Sorted by name.
  int64_t Gpus = 0;
  int64_t Nodes = 0;
  /// The renderings of the first server process (what `--emit cells`
  /// shows); every process's own are in Servers.
  std::vector<Rendering> Renderings;
  std::vector<ServerProcess> Servers; ///< Prefill servers before decode.
  /// The cell's files: the engine's (each name once), then the recipe's
  /// `file` statements, by name.
  std::vector<GeneratedFile> Files;
  /// Knobs with render clauses that rendered something in some process of
  /// the cell; a knob outside it is silent here (its conditions are false
  /// or its value says nothing), which --emit changelog does not report.
  std::set<std::string> Rendered;
  std::vector<PreflightAction> Preflight; ///< Recipe, band, then at conc.
  /// The utilization of the `dram_budget(u)` a value of this cell used
  /// (the InferenceX `dram-utilization`); for `server = cell(N)`, N's.
  std::optional<Rational> DramUtilization;
  bool HasErrors = false;

  const ResolvedValue *find(llvm::StringRef Name) const;
};

/// Everything Sema knows about one recipe after analysis.
struct RecipeCells {
  std::string Name;
  std::string File; ///< As given to the compiler (or as imported).
  llvm::SMRange NameRange;
  const EntityInfo *Engine = nullptr;
  const EntityInfo *Hardware = nullptr;
  const EntityInfo *Model = nullptr;
  std::vector<int64_t> Concurrency;
  /// `concurrency` as a value, with the assignment that set it: one list
  /// that every cell's formulas share, not a value of each cell (a copy per
  /// cell made N cells cost N^2 time and memory, F12).
  ResolvedValue ConcurrencyValue;
  std::vector<std::unique_ptr<BandInfo>> Bands;
  std::vector<std::unique_ptr<AtConcInfo>> Ats;
  std::vector<std::unique_ptr<Assignment>> Assignments; ///< Source order.
  std::vector<Cell> Cells; ///< Ascending concurrency.

  const Cell *findCell(int64_t Conc) const;
  /// Name's value in cell C: the cell's own, or the recipe-level
  /// `concurrency` every cell shares; null if neither.
  const ResolvedValue *find(const Cell &C, llvm::StringRef Name) const;
  /// Every assignment to Name, lowest level first then source order.
  std::vector<const Assignment *> assignmentsTo(llvm::StringRef Name) const;
};

} // namespace sema
} // namespace arecipe

#endif // ARECIPE_SEMA_CELL_H
