//===- SemaImpl.h - The semantic analyzer's internal state -----*- C++ -*-===//
//
// Private to lib/Sema. One SemaImpl analyzes a main file and its imports
// (loaded through the front end's ModuleLoader). The objects it works on
// are in SemaState.h, the built-in tables in Builtins.h. Its member
// functions are split by topic, Clang style:
//   SemaModules.cpp  imports, scopes, duplicate declarations, name lookup
//   SemaDecl.cpp     entities (hardware, model, engine), knobs, types
//   SemaExpr.cpp     the evaluator (exact values, units, operators, limits)
//   SemaBuiltins.cpp built-in functions, constructors, dram_budget
//   SemaRecipe.cpp   a recipe's statements, levels, bands, `at conc`
//   SemaCells.cpp    per-cell resolution, late binding, cycles, cell(N)
//   SemaChecks.cpp   checks, constraints, pre-flights, dead code
//   SemaProcesses.cpp roles' GPUs, placement, routers, services, ports
//   SemaRender.cpp   what each process renders, generated files
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_SEMA_SEMAIMPL_H
#define ARECIPE_LIB_SEMA_SEMAIMPL_H

#include "SemaState.h"
#include "arecipe/AST/Decl.h"
#include "arecipe/Basic/Diagnostic.h"

#include "arecipe/Sema/Sema.h"
#include "arecipe/Support/Suggestions.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>

namespace arecipe::sema {

struct ConstantInfo {
  const ast::LetDecl *Decl = nullptr;
  Module *Owner = nullptr;
  std::optional<Value> V;
  bool Evaluated = false;
  bool Evaluating = false;
};

/// What a name in a file's scope denotes.
struct Symbol {
  enum Kind : uint8_t { Entity, Enum, Constant, Alias };
  Kind K = Constant;
  EntityState *Ent = nullptr;
  EnumInfo *En = nullptr;
  ConstantInfo *Const = nullptr;
  Module *Target = nullptr; ///< For Alias.
  Module *Owner = nullptr;
  llvm::SMRange NameRange;
};

struct Module {
  std::string Name; ///< The SourceMgr buffer identifier.
  std::string RealPath;
  unsigned BufferID = 0;
  ast::File *AST = nullptr;
  llvm::StringMap<Symbol> Own;  ///< Declared in this file.
  std::vector<Module *> Unqualified;
  llvm::StringMap<Module *> Aliases;
  std::vector<EnumInfo *> VisibleEnums; ///< Own and unqualified imports'.
  bool Loading = false;
};

/// How a name of a recipe's cell scope is declared.
struct CellName {
  enum Kind : uint8_t { Field, Knob, Let, OpenMap };
  Kind K = Field;
  Type Ty;
  bool ServerSide = true;
  bool PerCell = true; ///< False: recipe body only (engine, model, ...).
  /// Recipe or arm body only (`concurrency`, `server_reuse`).
  bool PerArm = false;
  const KnobInfo *KnobDecl = nullptr;
  const AssignmentState *LetDecl = nullptr;

  /// Resolved once per role in a disaggregated cell: engine knobs, `let`
  /// values and `env.*` (docs/language.md §4.3).
  bool isPerRole(llvm::StringRef Name) const {
    return K == Knob || K == Let || Name.startswith("env.");
  }
};

struct CheckInfo {
  const ast::Expr *Cond = nullptr;
  const ast::StringLiteral *Message = nullptr;
  Module *M = nullptr;
  const ArmState *Arm = nullptr;
  const BandState *Band = nullptr;
  const AtConcState *At = nullptr;
};

struct PreflightInfo {
  const ast::PreflightStmt *Stmt = nullptr;
  const ArmState *Arm = nullptr;
  const BandState *Band = nullptr;
  const AtConcState *At = nullptr;
};

/// A cell's key: its arm's index and its concurrency.
using CellKey = std::pair<size_t, int64_t>;

struct RecipeState;

/// How a knob with render clauses fared in one cell, over its processes.
struct KnobRenderState {
  bool Rendered = false;
  /// Every clause was skipped because its condition was false.
  bool Blocked = true;
  const ast::Expr *FalseCond = nullptr; ///< The first false condition.
};

/// A recipe assignment to a knob that renders nothing in some cells because
/// its render conditions are false there.
struct SilentKnob {
  const ast::Expr *Cond = nullptr;
  std::vector<std::string> Cells; ///< Cell ids: `c8`, `arm.c8`.
};

/// Per-cell evaluation state.
struct CellState {
  Cell *C = nullptr;
  RecipeState *R = nullptr;
  /// Keys being evaluated (cycles); each views the key of the resolveName
  /// call that evaluates it, which returns before it is popped.
  std::vector<llvm::StringRef> Stack;
  std::vector<const AssignmentState *> StackFrom;
  llvm::StringSet<> Failed; ///< Keys (`tp`, `prefill.tp`) that failed.
  /// Reads of `conc` and of the cell's layout (`dram_budget`): a formula
  /// during which this grows depends on the cell.
  unsigned CellReads = 0;
  /// Reads of a process's render context or of a router's or service's
  /// knobs: a render condition during which this grows depends on the
  /// process.
  unsigned ProcessReads = 0;
  bool Resolved = false;
  /// Set once `topology` is resolved: from then on Cell::Roles is known and
  /// server-side names resolve per role.
  bool TopologyKnown = false;
  CellKey key() const;
};

/// A formula's value that is the same in every cell, with the names it read.
struct SharedValue {
  Value V;
  DepList Deps;
};

/// Where an evaluation records the cell names it reads: a plain list (a
/// check's or render condition's) or a resolved value's DepList. Null:
/// nowhere.
class DepSink {
public:
  DepSink() = default;
  DepSink(std::nullptr_t) {}
  DepSink(std::vector<std::string> *V) : V(V) {}
  DepSink(DepList *D) : D(D) {}
  explicit operator bool() const { return V || D; }
  /// Records Name unless it is recorded (a sink is a pointer: const).
  void add(llvm::StringRef Name) const {
    if (D)
      D->add(Name);
    else if (V && std::find(V->begin(), V->end(), Name) == V->end())
      V->push_back(Name.str());
  }

private:
  std::vector<std::string> *V = nullptr;
  DepList *D = nullptr;
};

struct RecipeState {
  RecipeCells *Out = nullptr;
  EntityState *Recipe = nullptr;
  /// The recipe's engine (Out->Engine), with its knobs; null without one.
  const EntityState *Engine = nullptr;
  Module *M = nullptr;
  std::vector<ArmState *> Arms;   ///< Declaration order (Out->Arms).
  std::vector<BandState *> Bands; ///< Source order.
  std::vector<AtConcState *> Ats; ///< Source order.
  /// Out->Assignments as Sema's objects.
  std::vector<AssignmentState *> Assignments;
  /// Looked up by StringRef for every name a cell reads (std::less<>: no
  /// string built per lookup).
  std::map<std::string, CellName, std::less<>> Names;
  std::map<std::string, std::vector<AssignmentState *>, std::less<>> ByName;
  /// A name of the cell scope as resolveName sees it: its declaration (null
  /// for a name the scope does not declare) and its assignments.
  struct NameSlot {
    const CellName *CN = nullptr;
    /// Null while the name has no assignment.
    std::vector<AssignmentState *> *As = nullptr;
    unsigned Id = 0; ///< Dense, in order of first lookup.
  };
  /// Names and ByName by one hash per read instead of two ordered searches
  /// (a cell reads every name, often several times). Filled on first
  /// lookup; it points into the maps' nodes, which never move, and looks a
  /// missing declaration or assignment list up again until it exists. The
  /// ordered maps stay the ones that are iterated, since their order
  /// decides evaluation and diagnostic order.
  llvm::StringMap<NameSlot> Slots;
  NameSlot &slot(llvm::StringRef Name);
  /// The keys of every cell's Values (the cells share them).
  std::shared_ptr<CellKeys> Keys = std::make_shared<CellKeys>();
  /// Keys's id of a slot's key in a role, by `Id * KnownRoles +
  /// roleIndex` (CellKeys::None until first stored): resolveName finds a
  /// name's value in a cell by two indexings, without a hash of the key.
  std::vector<unsigned> KeyIds;
  static constexpr unsigned KnownRoles = 3; ///< "", "prefill", "decode".
  /// The id of Key (Name, or `Role.Name`), the slot's key in the role
  /// RoleIdx.
  unsigned keyId(const NameSlot &S, unsigned RoleIdx, llvm::StringRef Key);
  /// Names in order with their slots: what every cell resolves, without a
  /// hash per name and cell (rebuilt when Names has grown).
  std::vector<std::pair<llvm::StringRef, NameSlot *>> NameOrder;
  /// `router.NAME = ...`: knobs of whichever router a cell's topology
  /// names, resolved with the router (SemaProcesses.cpp).
  std::vector<AssignmentState *> RouterAssignments;
  std::vector<CheckInfo> Checks;
  std::vector<PreflightInfo> Preflights;
  const AssignmentState *ConcurrencyAssign = nullptr;
  /// Per arm: the `concurrency` assignment that gave its list.
  std::vector<const AssignmentState *> ArmConcurrencyAssign;
  std::map<CellKey, CellState> Cells;
  std::map<CellKey, const AssignmentState *> ServerAssign; ///< By client cell.
  std::set<std::pair<const Assignment *, const Assignment *>> ReportedPairs;
  /// Formulas evaluated once and shared by every cell (per role): a
  /// recipe-level list is not rebuilt in each cell (F12).
  /// Keyed by the assignment and roleIndex(role).
  llvm::DenseMap<std::pair<const Assignment *, unsigned>, SharedValue> Shared;
  /// A small number for each role name ("" is 0), so a Shared key is not a
  /// string.
  unsigned roleIndex(llvm::StringRef Role);
  std::vector<std::string> RoleNames;
  /// Names (role-qualified in a role) whose value is the same in every
  /// cell: their assignments all apply to every cell and the winning
  /// formula read no `conc`, no cell layout and only names of this set.
  llvm::StringSet<> SameInEveryCell;
  /// Adds Key, the slot's key in role RoleIdx, to SameInEveryCell: every
  /// cell finds it so, and a flag by key id spares a hash of the key in
  /// each of them.
  void markSameInEveryCell(const NameSlot &S, unsigned RoleIdx,
                           llvm::StringRef Key);
  std::vector<bool> SameById;
  /// Conditions (a knob's `where`, a check) that held in a cell, for a
  /// role (roleIndex), while reading only SameInEveryCell names and
  /// nothing of the cell itself: they hold in every cell and are not
  /// evaluated again. The flag: the condition read a role's value.
  llvm::DenseMap<std::pair<const ast::Expr *, unsigned>, bool> HoldsEverywhere;
  /// Records Cond as holding everywhere when Deps (what it read) allow it
  /// and it read nothing of the cell (CS.CellReads is still CellReads).
  void noteHolds(const CellState &CS, const ast::Expr *Cond,
                 llvm::StringRef Role, const std::vector<std::string> &Deps,
                 unsigned CellReads, bool PerRole);
  /// Whether Deps are all SameInEveryCell.
  bool sameInEveryCell(const std::vector<std::string> &Deps) const;
  /// A render or `emit` condition evaluated in some process for an engine
  /// role (roleIndex) while reading only SameInEveryCell names, nothing of
  /// the cell and nothing of the process: its value in every process of
  /// that role in every cell. FromCommandLine: a false condition that a
  /// `--set` made false (SemaRender.cpp).
  struct RenderCond {
    bool On = false;
    bool FromCommandLine = false;
  };
  llvm::DenseMap<std::pair<const ast::Expr *, unsigned>, RenderCond>
      RenderConds;
  /// A render or `emit` condition of an engine process without a role that
  /// read resolved values of the cell only (nothing of its layout, nothing
  /// of the process): its result for the values it read, so a cell that
  /// reads the same values (a band's `draft = 3` in each of its cells) is
  /// not evaluated again. A few per condition (SemaRender.cpp).
  struct RenderCondMemo {
    std::vector<std::string> Deps;
    std::vector<std::pair<Value, Level>> Read; ///< Per Deps entry.
    RenderCond Result;
  };
  llvm::DenseMap<const ast::Expr *, std::vector<RenderCondMemo>>
      RenderCondMemos;
  /// `engine` is missing or did not evaluate (reported): assignments of
  /// names that are no recipe field are not reported again.
  bool EngineFailed = false;
  /// Diagnostics about one assignment that hold in several cells, already
  /// reported (a role in an aggregated cell, ...).
  std::set<std::pair<const Assignment *, unsigned>> ReportedOnce;
  /// Context overflows already warned about, by where the warning points
  /// and its numbers: cells that share them are reported once.
  std::set<std::pair<const char *, std::string>> ContextOverflows;
  /// A router's or service's failed check or constraint, reported once per
  /// cell however many processes of the template the cell runs.
  std::set<std::pair<const ast::Stmt *, std::string>> TemplateFailures;
  bool HasBands = false;
  bool BandsFailed = false; ///< A condition failed: skip coverage checks.
  /// Resolving some cell reported an error: names a failed cell would have
  /// defined (files, captures) are not reported as unknown.
  bool CellsFailed = false;
  std::set<const Assignment *> PinnedByServer; ///< Already diagnosed.
  /// `file_path(NAME)` and `capture(NAME)` calls, by name, at their first
  /// use: each must name a file or a `preflight capture` of the recipe.
  std::map<std::string, llvm::SMRange> FileRefs, CaptureRefs;
  /// Assignments whose knob renders nothing in some cells (reported once
  /// each, after every cell).
  std::map<const Assignment *, SilentKnob> Silent;
};

/// A file or capture name: letters, digits, '.', '_', '-', not hidden.
bool isValidFileName(llvm::StringRef Name);

/// The scenario parameter (`ratio`, `isl`, …) that InferenceX's or a
/// benchmark client's name (`range_ratio`, `input_len`, …) stands for.
std::optional<llvm::StringRef> scenarioParameterFor(llvm::StringRef Name);

/// A name bound by a comprehension (`x` in `[e for x in L]`), innermost
/// first.
struct LocalScope {
  llvm::StringRef Name;
  Value V;
  const LocalScope *Outer = nullptr;
};

/// Where an expression is evaluated.
struct EvalCtx {
  Module *M = nullptr;
  CellState *Cell = nullptr;       ///< Null: a constant context.
  RecipeState *Recipe = nullptr;   ///< Its names are not constants.
  std::optional<int64_t> Conc;     ///< Bound `conc` without a cell (bands).
  llvm::StringRef What;            ///< "a file-level constant", ...
  const Type *Expected = nullptr;  ///< Resolves bare enum members.
  DepSink Deps;
  /// Comprehension variables in scope; they shadow every other name.
  const LocalScope *Locals = nullptr;
  /// Set while rendering for one process: the render context (`role`,
  /// `rank`, `node`, ...) and, for a router or service, its knobs.
  const ProcessInfo *Process = nullptr;
  /// The role a formula is evaluated for in a disaggregated cell: its
  /// server-side names resolve to that role's values. Empty: a shared
  /// formula, which may read a per-role name only where the roles agree.
  std::string Role;
  /// Set while resolving a router's or service's knobs.
  struct InstanceState *Instance = nullptr;
};

/// A router or service process whose knobs are being resolved: each knob
/// takes the highest-level of its default, the call's argument and a
/// `router.NAME` assignment, evaluated on demand (a knob may read another).
struct InstanceState {
  struct Choice {
    const ast::Expr *E = nullptr; ///< Null: Literal.
    std::optional<Value> Literal;
    Module *M = nullptr;
    Level L = Level::Default;
    const AssignmentState *From = nullptr; ///< A `router.NAME` assignment.
    llvm::SMRange Range;
  };
  ProcessInfo *P = nullptr;
  CellState *CS = nullptr;
  std::map<std::string, Choice> Chosen;
  std::vector<std::string> Stack;
  std::set<std::string> Failed;
};

/// The largest concurrency the runtime runs (a conc outside [1, this] is an
/// error, F11).
constexpr int64_t MaxConcurrency = 1048576;
/// The most elements a list or range may materialise (F12,
/// docs/language.md); a larger one is an error, not an unbounded loop.
constexpr int64_t MaxListElements = 1000000;
/// The most cells one recipe may expand to (F12): every cell is a server
/// launch, and a longer list is a mistake, not a sweep.
constexpr int64_t MaxCellsPerRecipe = 10000;
/// The largest value a formula may make (docs/language.md §9), in elements
/// and string bytes (Value::size: nested lists and maps counted through),
/// like a list's length: a string that doubles on every line, a map of
/// maps or a join otherwise grow without bound.
constexpr uint64_t MaxValueSize = 1000000;
/// What the values one compilation makes may hold in total, in the same
/// units (elements held one by one, map entries, string bytes; a range in
/// a list counts 1, a value shared by copies once): the per-value limit
/// times many formulas or many cells is bounded too.
constexpr uint64_t MaxValuesTotal = 64000000;

class SemaImpl {
public:
  SemaImpl(llvm::SourceMgr &SM, DiagnosticEngine &Diags, SemaOptions Opts);

  bool loadModules(const SourceFile &Main);
  bool analyze(std::vector<SetOption> Sets);

  llvm::SourceMgr &SM;
  DiagnosticEngine &Diags;
  SemaOptions Opts;
  Module *Main = nullptr;
  std::vector<std::unique_ptr<RecipeCells>> Recipes;

  // Diagnostics ------------------------------------------------------------
  /// Reports unless this (location, id) was reported already: errors in
  /// formulas recur in every cell and are shown once.
  /// Silenced and repeated diagnostics go to Sink, which has no consumer.
  DiagnosticBuilder diag(llvm::SMRange R, DiagID ID);
  DiagnosticBuilder diag(llvm::SMLoc L, DiagID ID);
  /// Reports every time (per-cell facts such as a failed check), unless
  /// silenced.
  DiagnosticBuilder report(llvm::SMRange R, DiagID ID);
  bool Silent = false;
  std::unique_ptr<DiagnosticEngine> Sink;
  std::set<std::pair<const char *, unsigned>> Reported;
  std::string cellSuffix(const EvalCtx &E) const;
  /// `conc=14` / `tp4.c14`, with ` (prefill)` when Role is set.
  static std::string cellLabel(const CellState &CS, llvm::StringRef Role = "");
  llvm::StringRef sourceText(llvm::SMRange R) const;

  // Modules (SemaModules.cpp) ---------------------------------------------
  Module *loadModule(const SourceFile &File);
  Module *importModule(Module &From, const ast::ImportDecl &Imp);
  void buildScope(Module &M);
  void declare(Module &M, llvm::StringRef Name, Symbol S);
  /// The symbol Name denotes in M (own, then unqualified imports, then
  /// aliases), or null.
  const Symbol *lookupSymbol(Module &M, llvm::StringRef Name);
  /// Enums visible in M (and built-in enums) that have member Name.
  std::vector<const EnumInfo *> enumsWithMember(Module &M, llvm::StringRef Name);
  std::vector<std::unique_ptr<Module>> Modules;
  std::vector<Module *> LoadStack;
  std::vector<std::unique_ptr<EntityState>> Entities;
  /// What the recipes' results point to (RecipeCells, Cell::Band,
  /// ResolvedValue::From), kept for the life of the Compilation.
  std::vector<std::unique_ptr<ArmState>> Arms;
  std::vector<std::unique_ptr<BandState>> Bands;
  std::vector<std::unique_ptr<AtConcState>> Ats;
  std::vector<std::unique_ptr<AssignmentState>> Assignments;
  /// Keeps A and lists it among R's assignments.
  void keepAssignment(RecipeState &R, std::unique_ptr<AssignmentState> A);
  /// A new arm of R, kept like an assignment.
  ArmState *newArm(RecipeState &R);
  std::vector<std::unique_ptr<EnumInfo>> Enums;
  std::vector<std::unique_ptr<ConstantInfo>> Constants;
  /// A built-in enum (Builtins.h), which every compilation shares.
  const EnumInfo *builtinEnum(llvm::StringRef Name) const;
  /// File-level constants being evaluated, outermost first: the cycle a
  /// dependency-cycle error prints.
  std::vector<ConstantInfo *> ConstStack;

  // Declarations (SemaDecl.cpp) -------------------------------------------
  /// `extends`: finds the parent, checks its kind, breaks a cycle.
  void resolveParent(EntityState &E);
  /// An engine's, router's or service's knobs and merged body (Knobs,
  /// Body), the parent's first.
  void declareTemplate(EntityState &E);
  std::optional<KnobInfo> declareKnob(EntityState &E, const ast::KnobStmt *K);
  void checkVendor(EntityState &E);
  void checkModelFigures(EntityState &E);
  /// An engine field naming one of its knobs (`metrics_knob`,
  /// `context_knob`): the knob must exist and be of type Kind.
  void checkKnobField(EntityState &E, llvm::StringRef Field, Type::Kind Kind,
                      DiagID ID);
  void checkSimRouterKnobs(EntityState &E);
  /// For an unknown knob with no close spelling: a knob whose flag, JSON
  /// member or variable the name spells (`tensor_parallel_size` -> `tp`),
  /// a name it abbreviates (`num_spec_tokens`), a field it is the last part
  /// of (`num_prompts` -> `client.num_prompts`), or a scenario parameter
  /// (`range_ratio`); attaches the note to B.
  void suggestByMeaning(DiagnosticBuilder &B, const RecipeState &R,
                        llvm::StringRef Name, llvm::SMRange Range);
  std::optional<Type> resolveType(Module &M, const ast::TypeRef &T);
  bool evaluateEntityFields(EntityState &E);
  std::optional<Value> entityField(const EntityInfo &E, llvm::StringRef Field,
                                   llvm::SMRange Loc);
  std::optional<Value> constantValue(ConstantInfo &C, llvm::SMRange Use);

  // Expressions (SemaExpr.cpp) --------------------------------------------
  std::optional<Value> eval(const ast::Expr *E, const EvalCtx &Ctx);
  /// A float or quantity literal as an exact value; an error when it does
  /// not fit the exact representation.
  std::optional<Value> evalExactLiteral(const ast::Expr *E);
  std::optional<Value> evalName(const ast::NameExpr *E, const EvalCtx &Ctx);
  std::optional<Value> evalBinary(const ast::BinaryExpr *E, const EvalCtx &Ctx);
  std::optional<Value> evalMember(const ast::MemberExpr *E, const EvalCtx &Ctx);
  std::optional<Value> evalIndex(const ast::IndexExpr *E, const EvalCtx &Ctx);
  std::optional<Value> evalConvert(const ast::ConvertExpr *E, const EvalCtx &Ctx);
  std::optional<Value> evalString(const ast::StringLiteral *E, const EvalCtx &Ctx);
  std::optional<Value> evalList(const ast::ListExpr *E, const EvalCtx &Ctx);
  std::optional<Value> evalComprehension(const ast::ComprehensionExpr *E,
                                         const EvalCtx &Ctx);
  /// Warns when a recipe's `concurrency` is one linear range with step 2
  /// that makes more than 8 cells (an InferenceX step multiplies).
  void warnLinearConcurrency(const ast::Expr *List, Module *M);
  std::optional<Value> evalMap(const ast::MapExpr *E, const EvalCtx &Ctx);
  std::optional<Value> arith(ast::BinaryOp Op, const Value &L, const Value &R,
                             const ast::BinaryExpr *E, const EvalCtx &Ctx);
  std::optional<Value> compare(ast::BinaryOp Op, const Value &L,
                               const Value &R, const ast::BinaryExpr *E,
                               const EvalCtx &Ctx);
  std::optional<bool> evalBool(const ast::Expr *E, const EvalCtx &Ctx,
                               llvm::StringRef What);
  std::optional<int64_t> evalInt(const ast::Expr *E, const EvalCtx &Ctx,
                                 llvm::StringRef What);
  void reportNumericError(NumericError Err, llvm::SMRange R,
                          llvm::StringRef OpText, const Value &L,
                          const Value &Rv, const EvalCtx &Ctx);
  /// Attaches note_did_you_mean to B when one of Candidates is close to
  /// Name (Support/Suggestions.h), written at Range, with a fix-it that
  /// replaces what is written there. Name may extend the written text to
  /// the left (`endpoints.helth` written as `helth` in an `endpoints`
  /// block): the fix-it then replaces only the written part.
  void didYouMean(DiagnosticBuilder &B, llvm::SMRange Range,
                  llvm::StringRef Name,
                  const std::vector<std::string> &Candidates) const;
  std::vector<std::string> namesVisible(const EvalCtx &Ctx);
  /// V when it is within MaxValueSize and the compilation's values stay
  /// within MaxValuesTotal; else an error at Where naming What ("this
  /// string", "'join(...)'") and nullopt.
  std::optional<Value> admit(Value V, llvm::SMRange Where,
                             llvm::StringRef What);
  /// For a string built piece by piece: true, after an error, once it
  /// would exceed MaxValueSize (checked before the piece is appended).
  bool tooLarge(uint64_t Size, llvm::SMRange Where, llvm::StringRef What);
  uint64_t ValuesTotal = 0;
  bool ValuesTotalReported = false;

  // Built-ins (SemaBuiltins.cpp) ------------------------------------------
  std::optional<Value> evalCall(const ast::CallExpr *E, const EvalCtx &Ctx);
  std::optional<Value> dramBudget(const Value &U, const ast::CallExpr *E,
                                  const EvalCtx &Ctx);
  bool isBuiltinFunction(llvm::StringRef Name) const;
  std::optional<PreflightAction> evalPreflight(const ast::PreflightStmt &P,
                                               const EvalCtx &Ctx);

  // Recipes (SemaRecipe.cpp) ----------------------------------------------
  void analyzeRecipe(EntityState &Recipe);
  void declareRecipeNames(RecipeState &R);
  /// Where a statement sits while a recipe body is collected.
  struct Site {
    Level L = Level::Recipe;
    ArmState *Arm = nullptr;
    const BandState *Band = nullptr;
    AtConcState *At = nullptr;
  };
  void collectStatements(RecipeState &R, llvm::ArrayRef<ast::Stmt *> Stmts,
                         const Site &Where, llvm::StringRef Prefix);
  void addFileAssignment(RecipeState &R, const ast::FileStmt &S,
                         const Site &Where);
  void addAssignment(RecipeState &R, const ast::AssignStmt &S,
                     const Site &Where, llvm::StringRef Prefix);
  /// Splits `prefill.tp` into role and name; reports an unknown role.
  /// Returns false after an error.
  bool splitRole(RecipeState &R, std::string &Name, std::string &Role,
                 llvm::SMRange NameRange);
  bool checkAssignable(RecipeState &R, llvm::StringRef Name,
                       llvm::SMRange NameRange, Level L);
  void evaluateRecipeHeader(RecipeState &R);
  /// Each arm's concurrency list (its own, else the recipe's).
  void evaluateArmConcurrency(RecipeState &R);
  /// The factor-2 `geometric(a, b)` call whose value List is, found through
  /// conditionals and file-level constants; null when there is none.
  const ast::CallExpr *geometricCall(const ast::Expr *E, Module &M,
                                     const std::vector<int64_t> &List,
                                     const std::optional<LocalScope> &Mode,
                                     int Depth = 0);
  void matchBands(RecipeState &R);
  void matchAts(RecipeState &R);
  void linkServerCells(RecipeState &R);
  /// The last `--set` of Name, or null.
  const SetOption *findSetOption(llvm::StringRef Name) const;
  void applySets(RecipeState &R);
  std::vector<SetOption> SetOptions;

  // Cells (SemaCells.cpp) -------------------------------------------------
  void resolveCell(RecipeState &R, CellState &CS);
  /// Name's value in the cell, for Role (see EvalCtx::Role).
  /// Slot, when given, is CS.R->slot(Name).
  std::optional<Value> resolveName(CellState &CS, llvm::StringRef Name,
                                   llvm::SMRange Use, DepSink Deps,
                                   llvm::StringRef Role = "",
                                   RecipeState::NameSlot *Slot = nullptr);
  /// CS.C->find(Name, Role), through CS.Known rather than a search of the
  /// ordered map.
  const ResolvedValue *findCellValue(RecipeState &R, CellState &CS,
                                     llvm::StringRef Name,
                                     llvm::StringRef Role);
  bool applies(const Assignment &A, const Cell &C) const;
  void reportConflicts(RecipeState &R, CellState &CS);
  /// Keeps one unqualified value for each per-role name the roles agree
  /// on (Cell::Values).
  void compactRoleValues(CellState &CS);

  // Processes (SemaProcesses.cpp) ----------------------------------------
  /// GPUs one replica of the engine uses in Role (the engine's `gpus`
  /// formula); -1 after an error.
  int64_t replicaGpus(CellState &CS, llvm::StringRef Role, llvm::SMRange Use);
  /// The roles of the cell's topology, once `topology` is resolved.
  void setRoles(CellState &CS);
  /// Replicas, nodes, processes, GPUs, ports, routers and services.
  void layoutCell(RecipeState &R, CellState &CS);
  void placeServices(RecipeState &R, CellState &CS);
  void instantiate(RecipeState &R, CellState &CS, ProcessInfo &P,
                   const Value &Call, Level CallLevel, llvm::SMRange CallRange,
                   llvm::StringRef AssignPrefix);
  std::optional<Value> resolveInstanceKnob(InstanceState &I,
                                           llvm::StringRef Name,
                                           llvm::SMRange Use);
  void checkPorts(RecipeState &R, CellState &CS);
  /// `role`, `node`, `prefill_urls`, a router's knob, ... while rendering
  /// one process; nullopt when Name is none of them.
  std::optional<Value> lookupProcessName(const EvalCtx &Ctx,
                                         llvm::StringRef Name,
                                         llvm::SMRange Use);
  /// `atomesh(policy = dp_sticky)`: an instance of a router or service
  /// declaration, its arguments checked against the template's knobs.
  std::optional<Value> instantiateTemplate(const EntityInfo &T,
                                           const ast::CallExpr *E,
                                           const EvalCtx &Ctx);
  /// The engine's `report { ... }` members for Role of the cell.
  void evaluateReport(RecipeState &R, CellState &CS);
  /// An engine's `gpus`, `headless` or `report { }` statement: recorded
  /// in E as a per-cell formula (true), or not one of them (false).
  bool collectTemplateFormula(EntityState &E, const ast::Stmt *S);

  // Checks and renderings (SemaChecks.cpp) ---------------------------------
  void runChecks(RecipeState &R, CellState &CS);
  void checkConstraints(RecipeState &R, CellState &CS);
  void checkContextLength(RecipeState &R, CellState &CS);
  /// A size is a count of bytes: one that is not whole (`60.8GiB`) is an
  /// error at Where, since nothing rounds without a named rounding
  /// (docs/units.md).
  bool checkWholeBytes(const Value &V, llvm::StringRef Name,
                       llvm::SMRange Where);
  bool checkFixedLengths(llvm::ArrayRef<std::pair<std::string, Value>> Fields,
                         const ast::CallExpr *E);
  /// The context of a formula evaluated for one process of a cell (a
  /// template's `headless`, render conditions, `emit` blocks): the process's
  /// render context and the role its values are read for.
  EvalCtx processCtx(RecipeState &R, CellState &CS, const ProcessInfo &P,
                     Module *M, llvm::StringRef What) const {
    EvalCtx Ctx;
    Ctx.M = M;
    Ctx.Cell = &CS;
    Ctx.Recipe = &R;
    Ctx.What = What;
    Ctx.Process = &P;
    Ctx.Role = P.ValueRole;
    return Ctx;
  }
  void evaluatePreflights(RecipeState &R, CellState &CS);
  void reportDeadAssignments(RecipeState &R);
  void explainFailure(const ast::Expr *Cond, const EvalCtx &Ctx,
                      DiagnosticBuilder &B);

  // Renderings and files (SemaRender.cpp) -----------------------------------
  void evaluateRenderings(RecipeState &R, CellState &CS);
  /// A render or `emit` condition of process P, evaluated with Ctx or taken
  /// from R.RenderConds or R.RenderCondMemos; nullopt after an error.
  std::optional<RecipeState::RenderCond>
  renderCondition(RecipeState &R, CellState &CS, const ProcessInfo &P,
                  const ast::Expr *Cond, const EvalCtx &Ctx,
                  llvm::StringRef What);
  void renderProcess(RecipeState &R, CellState &CS, ProcessInfo &P,
                     llvm::StringMap<KnobRenderState> &Knobs);
  void reportSilentKnobs(RecipeState &R);
  void checkFileReferences(RecipeState &R);
};

} // namespace arecipe::sema

#endif // ARECIPE_LIB_SEMA_SEMAIMPL_H
