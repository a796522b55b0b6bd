//===- Cell.h - Resolved cells: Sema's output -------------------*- C++ -*-===//
//
// What semantic analysis produces for one recipe: one Cell per concurrency,
// every knob, field and `let` value resolved to a Value together with its
// provenance (the assignment that defined it, its precedence level, and the
// names its formula read), the band holding the cell, the cell whose server
// it runs (`server = cell(N)`), the GPUs and nodes it occupies and the
// engine renderings that apply in it. Codegen and `--explain` read these
// structures and nothing else from Sema; they hold no syntax tree and no
// evaluation state (Sema keeps that in lib/Sema/SemaState.h, in objects
// derived from these), and are not changed after analysis.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SEMA_CELL_H
#define ARECIPE_SEMA_CELL_H

#include "arecipe/Sema/Value.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/SMLoc.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace arecipe {
namespace sema {

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

/// A hardware, model, engine, router or service declaration with its
/// constant fields.
struct EntityInfo {
  enum Kind : uint8_t { Recipe, Hardware, Engine, Model, Router, Service };
  Kind K;
  std::string Name;
  /// Constant fields (`gpus_per_node`, `id`, `command`, `endpoints.health`).
  std::map<std::string, Value> Fields;

protected:
  EntityInfo() = default; ///< Made by Sema only.
};

/// A band of a recipe.
struct BandInfo {
  std::string Name;
  llvm::SMRange NameRange;
  std::vector<int64_t> Concs; ///< Concurrencies the band matches.
};

/// An `at conc` block of a recipe.
struct AtConcInfo {
  std::vector<int64_t> Concs; ///< The recipe's concurrencies it names.
};

/// One assignment that may define a name in some cells.
struct Assignment {
  std::string Name; ///< "window", "env.PYTHONHASHSEED", "client.warmup".
  Level L = Level::Recipe;
  llvm::SMRange Range; ///< The whole statement.
  llvm::SMRange NameRange;
  /// The formula as written; invalid for built-in defaults.
  llvm::SMRange FormulaRange;
  std::optional<Value> Literal; ///< Built-in defaults and `cell(N)`.
  const BandInfo *Band = nullptr;
  const AtConcInfo *At = nullptr;
  bool IsLet = false;
  bool IsKnobDefault = false;

  /// "band 'mid'", "'at conc 14'", "the recipe body", "the engine default",
  /// "the command line".
  std::string describeSite() const;

protected:
  Assignment() = default; ///< Made by Sema only.
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
  /// How `flag` renders a list: one word, `each` element after its own flag,
  /// or `spread` after one flag.
  enum ListMode : uint8_t { Single, Each, Spread };
  ListMode Mode = Single; ///< Flag with a list.
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

/// One engine process of a cell's topology (docs/sema.md#gpus-and-nodes),
/// with the renderings that apply to it. Engine render conditions and
/// `emit` items may read `role` ("server", "worker", "prefill", "decode")
/// and `rank` (the process's index within its role), which is how a
/// multi-node worker gets `--headless` and a prefill server its KV producer
/// role.
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
  std::vector<ServerProcess> Servers; ///< Prefill servers before decode.
  /// The cell's files: the engine's (each name once), then the recipe's
  /// `file` statements, by name.
  std::vector<GeneratedFile> Files;
  /// Engine knobs with render clauses that rendered nothing in any process
  /// of the cell (their conditions are false or their value says nothing):
  /// --emit changelog does not report a change to a knob silent in both
  /// versions of a cell.
  std::set<std::string> Silent;
  std::vector<PreflightAction> Preflight; ///< Recipe, band, then at conc.
  /// The utilization of the `dram_budget(u)` a value of this cell used
  /// (the InferenceX `dram-utilization`); for `server = cell(N)`, N's.
  std::optional<Rational> DramUtilization;

  const ResolvedValue *find(llvm::StringRef Name) const;
  /// The renderings of the first server process (what `--emit cells`
  /// shows); every process's own are in Servers.
  llvm::ArrayRef<Rendering> renderings() const;
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
  /// Every assignment of the recipe, the engine defaults and the
  /// command line's, in the order Sema met them.
  std::vector<const Assignment *> Assignments;
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
