//===- Cell.h - Resolved cells: Sema's output -------------------*- C++ -*-===//
//
// What semantic analysis produces for one recipe: one Cell per arm and
// concurrency,
// every knob, field and `let` value resolved to a Value together with its
// provenance (the assignment that defined it, its precedence level, and the
// names its formula read), the band holding the cell, the cell whose server
// it runs (`server = cell(N)`), the GPUs and nodes it occupies and its
// processes (engines, routers, services) with the renderings that apply to
// each. Codegen and `--explain` read these
// structures and nothing else from Sema; they hold no syntax tree and no
// evaluation state (Sema keeps that in lib/Sema/SemaState.h, in objects
// derived from these), and are not changed after analysis.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SEMA_CELL_H
#define ARECIPE_SEMA_CELL_H

#include "arecipe/Sema/Value.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SMLoc.h"

#include <iterator>
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
  Arm,
  Band,
  AtConc,
  ServerFrom,
  CommandLine,
};
/// "default", "recipe", "arm", "band", "at-conc", "server-from",
/// "command-line" (the plan's `origin.level`).
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
  /// Transparent comparison: looked up by StringRef without a string.
  std::map<std::string, Value, std::less<>> Fields;
  bool isTemplate() const { return K == Engine || K == Router || K == Service; }

protected:
  EntityInfo() = default; ///< Made by Sema only.
};

struct ArmInfo;

/// A band of a recipe.
struct BandInfo {
  std::string Name;
  llvm::SMRange NameRange;
  const ArmInfo *Arm = nullptr; ///< Null: a band of the recipe body.
  /// Concurrencies the band matches (of its arm, or of any arm).
  std::vector<int64_t> Concs;
};

/// An `at conc` block of a recipe.
struct AtConcInfo {
  const ArmInfo *Arm = nullptr; ///< Null: an `at conc` of the recipe body.
  std::vector<int64_t> Concs;   ///< The concurrencies it names.
  /// The whole `at conc ... { ... }` statement: an editor finds the block
  /// under the cursor by it (a block may assign nothing).
  llvm::SMRange Range;
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
  /// "prefill" or "decode" for `prefill.tp = 4` (Name is then "tp"): it
  /// applies to that role of a disaggregated cell and, at equal level,
  /// wins over an assignment to the shared name. Empty: every role.
  std::string Role;
  /// The `arm NAME { ... }` the assignment sits in (its own level, or a
  /// band or `at conc` of the arm); null: every arm.
  const ArmInfo *Arm = nullptr;
  const BandInfo *Band = nullptr;
  const AtConcInfo *At = nullptr;
  bool IsLet = false;
  bool IsKnobDefault = false;

  /// "band 'mid'", "'at conc 14'", "the recipe body", "arm 'tp4'", "the
  /// engine default", "the command line".
  std::string describeSite() const;

protected:
  Assignment() = default; ///< Made by Sema only.
};

/// One search-space arm of a recipe (`arm tp4 { ... }`, docs/language.md
/// §3.11). A recipe without arms has one arm with an empty name, so every
/// cell belongs to exactly one arm.
struct ArmInfo {
  std::string Name; ///< Empty: the recipe has no `arm` statements.
  llvm::SMRange NameRange;
  size_t Index = 0;
  /// The arm's concurrencies, ascending (its own `concurrency`, else the
  /// recipe's), and that list as a value with its provenance.
  std::vector<int64_t> Concurrency;
  /// Set when the list was written `geometric(start, end)` (factor 2):
  /// InferenceX's `conc-start`/`conc-end` say the same.
  std::optional<std::pair<int64_t, int64_t>> Geometric;

protected:
  ArmInfo() = default; ///< Made by Sema only.
};

/// The cell names a formula read, in first-use order. Every cell that
/// takes a cell-invariant formula's value shares one list: copying a
/// resolved value copies a reference, not the names. A list being filled
/// (Sema only) is copied first if another value shares it.
class DepList {
public:
  using const_iterator = std::vector<std::string>::const_iterator;
  DepList() = default;
  DepList(std::initializer_list<std::string> Names)
      : L(std::make_shared<const std::vector<std::string>>(Names)) {}
  const_iterator begin() const { return names().begin(); }
  const_iterator end() const { return names().end(); }
  size_t size() const { return names().size(); }
  bool empty() const { return !L || L->empty(); }
  const std::vector<std::string> &names() const {
    static const std::vector<std::string> None;
    return L ? *L : None;
  }
  /// Appends Name unless the list holds it.
  void add(llvm::StringRef Name);

private:
  std::shared_ptr<const std::vector<std::string>> L;
};

/// A resolved value with its provenance.
struct ResolvedValue {
  Value V;
  Level L = Level::Default;
  /// The defining assignment; null for a name nothing assigns (an optional
  /// knob without default is none).
  const Assignment *From = nullptr;
  /// Cell names the formula read, in first-use order ("conc" included).
  DepList Deps;
  /// Set when the value is cell N's (`server = cell(N)`, chains followed).
  std::optional<int64_t> ServerFrom;
};

/// The keys a recipe's cells hold values under (`tp`, `prefill.tp`,
/// `env.X`), shared by all its cells: each key is one string with a dense
/// id, so a cell stores a value by id and builds no string per name, and
/// the ids are kept in key order, which is the order a cell's values are
/// iterated in (deterministic output depends on it). Sema adds keys while
/// it resolves the cells; readers only look them up.
class CellKeys {
public:
  static constexpr unsigned None = ~0u;
  /// Key's id, or None.
  unsigned lookup(llvm::StringRef Key) const {
    auto It = Ids.find(Key);
    return It == Ids.end() ? None : It->second;
  }
  const std::string &key(unsigned Id) const { return *Keys[Id]; }
  size_t size() const { return Keys.size(); }
  /// Ids in ascending key order.
  llvm::ArrayRef<unsigned> sorted() const { return Order; }
  /// Key's id, added if new.
  unsigned add(llvm::StringRef Key);

private:
  /// Owned one by one: a cell's entries refer to these strings.
  std::vector<std::unique_ptr<std::string>> Keys;
  llvm::StringMap<unsigned> Ids;
  std::vector<unsigned> Order;
};

/// A cell's values by key, iterated in ascending key order like the
/// std::map it replaces. A value is stored once, in a slot its key's id
/// indexes, without a search, a tree node or a copy of the key (resolving a
/// cell stores every name, and that cost dominated the resolution); the
/// order comes from the recipe's CellKeys. A stored value stays where it is
/// until the table is destroyed: pointers to it stay valid while more
/// values are added.
class ValueTable {
public:
  /// What iteration yields: `for (const auto &[Name, RV] : C.Values)`.
  struct Entry {
    const std::string &first;
    ResolvedValue second;
  };
  class const_iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    using pointer = const Entry *;
    using reference = const Entry &;
    const_iterator() = default;
    reference operator*() const { return *T->ById[T->Keys->sorted()[Pos]]; }
    pointer operator->() const { return &**this; }
    const_iterator &operator++() {
      ++Pos;
      skipAbsent();
      return *this;
    }
    bool operator==(const const_iterator &O) const { return Pos == O.Pos; }
    bool operator!=(const const_iterator &O) const { return Pos != O.Pos; }

  private:
    friend class ValueTable;
    const_iterator(const ValueTable *T, size_t Pos) : T(T), Pos(Pos) {
      skipAbsent();
    }
    void skipAbsent();
    const ValueTable *T = nullptr;
    size_t Pos = 0; ///< In T->Keys->sorted().
  };

  ValueTable() = default;
  explicit ValueTable(std::shared_ptr<const CellKeys> Keys)
      : Keys(std::move(Keys)) {}
  ValueTable(const ValueTable &O);
  ValueTable &operator=(const ValueTable &O);
  ValueTable(ValueTable &&) noexcept = default;
  ValueTable &operator=(ValueTable &&) noexcept = default;

  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, Keys ? Keys->size() : 0}; }
  size_t size() const { return Count; }
  bool empty() const { return Count == 0; }
  /// The first entry whose key is not less than Key.
  const_iterator lower_bound(llvm::StringRef Key) const;
  /// Key's value, or null.
  const ResolvedValue *lookup(llvm::StringRef Key) const;
  const CellKeys *keys() const { return Keys.get(); }

  /// The value of the key with that id (CellKeys), or null.
  const ResolvedValue *at(unsigned Id) const {
    return Id < ById.size() && ById[Id] ? &ById[Id]->second : nullptr;
  }
  ResolvedValue *at(unsigned Id) {
    return Id < ById.size() && ById[Id] ? &ById[Id]->second : nullptr;
  }
  /// Sets the value of the key with that id; returns where it is kept.
  ResolvedValue &set(unsigned Id, ResolvedValue RV);
  void erase(unsigned Id);

private:
  std::shared_ptr<const CellKeys> Keys;
  /// By key id; null where the cell has no value.
  std::vector<Entry *> ById;
  /// Entries in blocks that never grow past their capacity, so an entry
  /// never moves.
  std::vector<std::vector<Entry>> Blocks;
  size_t Count = 0;
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

/// How the runtime knows a process is ready (docs/plan-schema.md).
enum class Readiness : uint8_t {
  Http,    ///< its health endpoint answers
  Tcp,     ///< a TCP connect to its port succeeds
  Alive,   ///< it is still running after AliveFor
  Running, ///< started (a headless engine process)
};

/// One process of a cell (docs/language.md §4.2): a node of an engine
/// replica, a router or a side service, placed on a node of the cell's
/// allocation, with the renderings of its template that apply to it.
/// Render conditions, `emit` items and router/service knobs read the
/// render context from here (`role`, `rank`, `replica`, `node`, `nodes`,
/// `gpus_here`, `leader_addr`, `headless`, and for routers and services
/// the engine processes they front).
struct ProcessInfo {
  enum Kind : uint8_t { Engine, Router, Service };
  Kind K = Engine;
  std::string Name; ///< Unique in the cell: `server`, `prefill-0-node1`, ...
  /// server | worker | prefill | decode | router | service.
  std::string Role;
  /// The role whose values an engine process renders: "" for an
  /// aggregated cell, "prefill" or "decode".
  std::string ValueRole;
  const EntityInfo *Template = nullptr;
  std::string Instance; ///< `services.NAME`: NAME; the router: "router".
  /// v1's `rank`: the replica, or the node of an aggregated replica.
  int64_t Rank = 0;
  int64_t Replica = 0; ///< Index within its role; a service's instance.
  int64_t Node = 0;    ///< Index within its replica.
  /// Nodes of its replica (routers and services: of the cell).
  int64_t Nodes = 1;
  int64_t NodeRank = 0;   ///< The node of the cell's allocation it runs on.
  int64_t LeaderNode = 0; ///< NodeRank of its replica's first node.
  int64_t FirstGpu = 0;   ///< First device index it uses on its node.
  int64_t Gpus = 0;       ///< GPUs it uses on its node (`gpus_here`).
  bool Headless = false;  ///< No HTTP API: no port, no endpoints.
  std::optional<int64_t> Port;
  bool BeforeEngines = false; ///< Started (and ready) before the engines.
  bool InheritsEnv = true;    ///< Gets the cell's `env.*`.
  /// Gets the environment of the engine process on its node (`node_env`).
  bool NodeEnv = false;
  Readiness Ready = Readiness::Http;
  Rational AliveFor;              ///< Seconds, for Readiness::Alive.
  std::vector<std::string> After; ///< Process names that must be ready first.
  /// Router and service knobs, resolved for this process.
  std::map<std::string, ResolvedValue, std::less<>> Knobs;
  std::vector<Rendering> Renderings; ///< Template declaration order.
  /// The template's `file` statements and `yaml`/`json_file` members, as
  /// evaluated for this process (the cell's Files hold them once).
  std::vector<GeneratedFile> Files;

  const ResolvedValue *findKnob(llvm::StringRef Name) const;
};

struct Cell {
  int64_t Conc = 0;
  const ArmInfo *Arm = nullptr;
  const BandInfo *Band = nullptr;
  std::optional<int64_t> ServerFrom; ///< The N of `server = cell(N)`.
  std::optional<int64_t> ServerRoot; ///< The end of the cell(N) chain.
  /// Iterated sorted by name. In a disaggregated cell a server-side name
  /// whose value differs between the roles appears as `prefill.NAME` and
  /// `decode.NAME` (never unqualified); one the roles agree on, once,
  /// unqualified.
  ValueTable Values;
  int64_t Gpus = 0;
  int64_t Nodes = 0;
  /// GPUs per engine role: {server} or {prefill, decode}, in that order.
  std::vector<std::pair<std::string, int64_t>> GpusByRole;
  /// The roles of the cell's engine processes: {""} for an aggregated
  /// cell, {"prefill", "decode"} for a disaggregated one.
  std::vector<std::string> Roles;
  /// Start order: services started before the engines, the engine
  /// processes (prefill replicas before decode, each replica's nodes in
  /// order), then routers and the other services.
  std::vector<ProcessInfo> Processes;
  /// The cell's files: the engine's (each name once), then the recipe's
  /// `file` statements, by name.
  std::vector<GeneratedFile> Files;
  /// Engine knobs with render clauses that rendered nothing in any process
  /// of the cell (their conditions are false or their value says nothing):
  /// --emit changelog does not report a change to a knob silent in both
  /// versions of a cell.
  std::set<std::string> Silent;
  std::vector<PreflightAction> Preflight; ///< Recipe, band, then at conc.
  /// The engine's `report { ... }` members (docs/language.md §5.1): `tp`,
  /// `spec_decoding`, ... in an aggregated cell, `prefill.tp`,
  /// `decode.tp`, ... in a disaggregated one; a member whose value is
  /// none is absent.
  std::map<std::string, Value> Report;
  /// The utilization of the `dram_budget(u)` a value of this cell used
  /// (the InferenceX `dram-utilization`); for `server = cell(N)`, N's.
  std::optional<Rational> DramUtilization;

  const ResolvedValue *find(llvm::StringRef Name) const;
  /// The renderings of the first engine process (what `--emit cells`
  /// shows); every process's own are in Processes.
  llvm::ArrayRef<Rendering> renderings() const;
  /// Name's value for Role ("" or a role of the cell): `Role.Name` when
  /// the roles differ, else the unqualified name.
  const ResolvedValue *find(llvm::StringRef Name, llvm::StringRef Role) const;
  bool isDisaggregated() const { return Roles.size() > 1; }
  /// `c14`, or `tp4.c14` in an arm.
  std::string id() const;
  /// For messages: `conc=14`, or `tp4.c14` in an arm.
  std::string label() const;
};

/// Everything Sema knows about one recipe after analysis.
struct RecipeCells {
  std::string Name;
  std::string File; ///< As given to the compiler (or as imported).
  llvm::SMRange NameRange;
  const EntityInfo *Engine = nullptr;
  const EntityInfo *Hardware = nullptr;
  const EntityInfo *Model = nullptr;
  /// Every concurrency of the recipe, ascending (of all arms).
  std::vector<int64_t> Concurrency;
  /// `concurrency` as a value, with the assignment that set it: one list
  /// that every cell's formulas share, not a value of each cell (a copy per
  /// cell made N cells cost N^2 time and memory, F12). With arms: the
  /// recipe body's list, if it has one.
  ResolvedValue ConcurrencyValue;
  /// At least one (an unnamed arm when the recipe declares none).
  std::vector<const ArmInfo *> Arms;
  /// Each arm's `concurrency` value, by arm index.
  std::vector<ResolvedValue> ArmConcurrency;
  /// Every assignment of the recipe, the engine defaults and the
  /// command line's, in the order Sema met them.
  std::vector<const Assignment *> Assignments;
  /// By arm (declaration order), then ascending concurrency.
  std::vector<Cell> Cells;

  bool hasArms() const {
    return Arms.size() > 1 || !Arms.front()->Name.empty();
  }
  /// The first cell of that concurrency (in any arm), or null.
  const Cell *findCell(int64_t Conc) const;
  /// The cell of Arm (empty: the recipe has no arms) and Conc, or null.
  const Cell *findCell(llvm::StringRef Arm, int64_t Conc) const;
  /// Name's value in cell C: the cell's own, or the `concurrency` its arm
  /// shares; null if neither.
  const ResolvedValue *find(const Cell &C, llvm::StringRef Name) const;
  /// Every assignment to Name, lowest level first then source order.
  std::vector<const Assignment *> assignmentsTo(llvm::StringRef Name) const;
};

} // namespace sema
} // namespace arecipe

#endif // ARECIPE_SEMA_CELL_H
