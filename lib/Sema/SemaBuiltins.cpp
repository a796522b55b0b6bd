//===- SemaBuiltins.cpp - Built-in functions, constructors, pre-flight ---===//
//
// The tables of Builtins.h -- the built-in functions of docs/language.md
// §6.7 with one handler each, the scenario/topology/router constructors and
// the pre-flight actions (§3.7) -- and the calls that use them: evalCall
// (argument binding, arity, then the handler), evalPreflight and
// dram_budget (the InferenceX rule, §8).
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "SemaImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <unordered_map>

using namespace arecipe;
using namespace arecipe::sema;

static Value quantityOf(int64_t N, Unit U) {
  return Value::quantity(*Quantity::of(Rational(N), U));
}

std::optional<Value> BuiltinCall::mismatch(size_t N, llvm::StringRef Want) {
  S.diag(E->getArgs()[N].Value->getRange(), DiagID::err_type_mismatch)
      << (Name.str() + "()") << Want << Args[N].describeType() << Args[N].str();
  return std::nullopt;
}

// The handlers, one per built-in function -------------------------------

static std::optional<Value> minOrMax(BuiltinCall &C) {
  std::vector<Value> Args = C.Args;
  if (Args.size() == 1 && Args[0].kind() == ValueKind::List) {
    Value List = Args[0];
    Args.assign(List.elements().begin(), List.elements().end());
  }
  if (Args.empty()) {
    C.S.diag(C.E->getRange(), DiagID::err_call_arity) << C.Name << 1 << 0;
    return std::nullopt;
  }
  bool Min = C.Name == "min";
  Value Best = Args[0];
  for (size_t N = 0; N < Args.size(); ++N) {
    const Value &V = Args[N];
    bool Num = V.isNumeric() && Best.isNumeric();
    bool Qty = V.kind() == ValueKind::Quantity &&
               Best.kind() == ValueKind::Quantity &&
               V.getQuantity().dimension() == Best.getQuantity().dimension();
    if (!Num && !Qty) {
      // The elements of one list argument are no arguments: the caret goes
      // to the list. (The message shows the value of the same index, which
      // for a list is its first element, not the one that failed.)
      size_t Arg = std::min(N, C.E->getArgs().size() - 1);
      C.S.diag(C.E->getArgs()[Arg].Value->getRange(), DiagID::err_type_mismatch)
          << (C.Name.str() + "()") << "numbers or quantities of one dimension"
          << Args[Arg].describeType() << Args[Arg].str();
      return std::nullopt;
    }
    bool Less = Num ? V.getNumber() < Best.getNumber()
                    : *V.getQuantity().compare(Best.getQuantity()) < 0;
    bool Greater = Num ? Best.getNumber() < V.getNumber()
                       : *V.getQuantity().compare(Best.getQuantity()) > 0;
    if ((Min && Less) || (!Min && Greater))
      Best = V;
  }
  return Best;
}

static std::optional<Value> rounded(BuiltinCall &C, Rounding Mode) {
  if (!C.Args[0].isNumeric())
    return C.mismatch(0, "a number");
  return Value::integer(*C.Args[0].getNumber().round(Mode));
}

static std::optional<Value> floorFn(BuiltinCall &C) {
  return rounded(C, Rounding::Floor);
}
static std::optional<Value> ceilFn(BuiltinCall &C) {
  return rounded(C, Rounding::Ceil);
}
static std::optional<Value> roundFn(BuiltinCall &C) {
  return rounded(C, Rounding::HalfAwayFromZero);
}

static std::optional<Value> floordivFn(BuiltinCall &C) {
  if (C.Args[0].kind() != ValueKind::Int)
    return C.mismatch(0, "int");
  if (C.Args[1].kind() != ValueKind::Int)
    return C.mismatch(1, "int");
  if (C.Args[1].getInt() == 0) {
    C.S.diag(C.E->getRange(), DiagID::err_division_by_zero)
        << C.S.cellSuffix(C.Ctx);
    return std::nullopt;
  }
  NumericResult<Rational> Q =
      Rational::fraction(C.Args[0].getInt(), C.Args[1].getInt());
  if (!Q) {
    C.S.diag(C.E->getRange(), DiagID::err_arith_overflow)
        << C.S.sourceText(C.E->getRange()) << C.S.cellSuffix(C.Ctx);
    return std::nullopt;
  }
  return Value::integer(*Q->round(Rounding::Floor));
}

static std::optional<Value> lenFn(BuiltinCall &C) {
  const Value &V = C.Args[0];
  if (V.kind() == ValueKind::List)
    return Value::integer(V.listSize());
  if (V.kind() == ValueKind::Map)
    return Value::integer(V.getEntries().size());
  if (V.kind() == ValueKind::String)
    return Value::integer(V.getString().size());
  return C.mismatch(0, "a list, map or string");
}

static std::optional<Value> joinFn(BuiltinCall &C) {
  if (C.Args[0].kind() != ValueKind::List)
    return C.mismatch(0, "list<string>");
  if (C.Args[1].kind() != ValueKind::String)
    return C.mismatch(1, "string");
  std::string Out;
  const std::string &Separator = C.Args[1].getString();
  size_t N = 0;
  for (Value E : C.Args[0].elements()) {
    std::optional<std::string> S = renderValue(E);
    if (!S)
      return C.mismatch(0, "list<string>");
    uint64_t Grown = Out.size() + (N ? Separator.size() : 0) + S->size();
    if (C.S.tooLarge(Grown, C.E->getRange(), "'join(...)'"))
      return std::nullopt;
    Out += (N++ ? Separator : "") + *S;
  }
  return C.S.admit(Value::string(std::move(Out)), C.E->getRange(),
                   "'join(...)'");
}

// decimal(x, n): x with exactly n fraction digits, rounded half away from
// zero, for flags whose launchers print a fixed precision (`3.00`).
static std::optional<Value> decimalFn(BuiltinCall &C) {
  if (!C.Args[0].isNumeric())
    return C.mismatch(0, "float");
  if (C.Args[1].kind() != ValueKind::Int || C.Args[1].getInt() < 0 ||
      C.Args[1].getInt() > 18)
    return C.mismatch(1, "int in 0..18");
  NumericResult<std::string> S = C.Args[0].getNumber().toDecimalString(
      static_cast<unsigned>(C.Args[1].getInt()), Rounding::HalfAwayFromZero);
  if (!S)
    return C.mismatch(0, "float");
  return Value::string(*S);
}

static std::optional<Value> formatFn(BuiltinCall &C) {
  if (C.Args[0].kind() != ValueKind::String)
    return C.mismatch(0, "string");
  const std::string &F = C.Args[0].getString();
  std::string Out;
  size_t Next = 1;
  for (size_t P = 0; P < F.size(); ++P) {
    if (F.compare(P, 2, "{}") != 0) {
      Out += F[P];
      continue;
    }
    ++P;
    if (Next >= C.Args.size()) {
      C.S.diag(C.E->getRange(), DiagID::err_call_arity)
          << C.Name << int64_t(Next + 1) << int64_t(C.Args.size());
      return std::nullopt;
    }
    std::optional<std::string> S = renderValue(C.Args[Next]);
    if (!S)
      return C.mismatch(Next, "a value with a text form");
    if (C.S.tooLarge(Out.size() + S->size(), C.E->getRange(), "'format(...)'"))
      return std::nullopt;
    Out += *S;
    ++Next;
  }
  if (Next != C.Args.size()) {
    C.S.diag(C.E->getRange(), DiagID::err_call_arity)
        << C.Name << int64_t(Next) << int64_t(C.Args.size());
    return std::nullopt;
  }
  return C.S.admit(Value::string(std::move(Out)), C.E->getRange(),
                   "'format(...)'");
}

/// The range of the argument bound to parameter N of a function with
/// Params (named arguments may come in any order), else the call's.
static llvm::SMRange argRange(const BuiltinCall &C, const BuiltinFunction &F,
                              size_t N) {
  size_t Positional = 0;
  for (const ast::Argument &A : C.E->getArgs()) {
    if (A.isNamed() ? A.Name.Name == F.Params[N].Name : Positional++ == N)
      return A.Value->getRange();
  }
  return C.E->getRange();
}

static std::optional<Value> jsonFn(BuiltinCall &C) {
  if (C.Args[0].kind() != ValueKind::Map && C.Args[0].kind() != ValueKind::List)
    return C.mismatch(0, "a map or list");
  int64_t Indent = C.Args[2].getInt();
  if (Indent < 0 || Indent > 16) {
    const BuiltinFunction &F = *builtins().function("json");
    C.S.diag(argRange(C, F, 2), DiagID::err_type_mismatch)
        << "json(indent)"
        << "int in 0..16" << C.Args[2].describeType() << C.Args[2].str();
    return std::nullopt;
  }
  std::string Why;
  std::optional<std::string> S = renderJSON(
      C.Args[0], C.Args[1].getBool(), &Why, static_cast<unsigned>(Indent));
  if (!S) {
    C.S.diag(C.E->getArgs()[0].Value->getRange(), DiagID::err_not_terminating)
        << Why;
    return std::nullopt;
  }
  return C.S.admit(Value::string(std::move(*S)), C.E->getRange(),
                   "'json(...)'");
}

static std::optional<Value> yamlFn(BuiltinCall &C) {
  if (C.Args[0].kind() != ValueKind::Map && C.Args[0].kind() != ValueKind::List)
    return C.mismatch(0, "a map or list");
  int64_t Indent = C.Args[1].getInt();
  if (Indent < 2 || Indent > 8) {
    C.S.diag(argRange(C, *builtins().function("yaml"), 1),
             DiagID::err_yaml_indent)
        << Indent;
    return std::nullopt;
  }
  YamlStyle Style;
  Style.Indent = static_cast<unsigned>(Indent);
  Style.FlowLists = C.Args[2].getBool();
  std::string Why;
  std::optional<std::string> S = renderYAML(C.Args[0], &Why, Style);
  if (!S) {
    C.S.diag(C.E->getArgs()[0].Value->getRange(), DiagID::err_not_terminating)
        << Why;
    return std::nullopt;
  }
  return C.S.admit(Value::string(std::move(*S)), C.E->getRange(),
                   "'yaml(...)'");
}

/// sorted()'s order: numbers by value, strings by bytes, quantities of one
/// dimension by size; nullopt when the two cannot be ordered.
static std::optional<bool> lessThan(const Value &A, const Value &B) {
  if (A.isNumeric() && B.isNumeric())
    return A.getNumber() < B.getNumber();
  if (A.kind() == ValueKind::String && B.kind() == ValueKind::String)
    return A.getString() < B.getString();
  if (A.kind() == ValueKind::Quantity && B.kind() == ValueKind::Quantity) {
    NumericResult<std::strong_ordering> O =
        A.getQuantity().compare(B.getQuantity());
    if (!O)
      return std::nullopt;
    return *O < 0;
  }
  return std::nullopt;
}

static std::optional<std::vector<Value>> sortValues(BuiltinCall &C, size_t Arg,
                                                    std::vector<Value> Elems) {
  for (size_t N = 1; N < Elems.size(); ++N)
    if (!lessThan(Elems[0], Elems[N])) {
      C.S.diag(C.E->getArgs()[std::min(Arg, C.E->getArgs().size() - 1)]
                   .Value->getRange(),
               DiagID::err_unsortable)
          << C.Name << (Elems[0].describeType() + " " + Elems[0].str())
          << (Elems[N].describeType() + " " + Elems[N].str());
      return std::nullopt;
    }
  std::stable_sort(
      Elems.begin(), Elems.end(),
      [](const Value &A, const Value &B) { return *lessThan(A, B); });
  return Elems;
}

/// A list's elements, one Value each (a range in it is expanded; a list
/// holds at most MaxListElements).
static std::vector<Value> elementsOf(const Value &List) {
  std::vector<Value> Out;
  Out.reserve(List.listSize());
  for (Value E : List.elements())
    Out.push_back(std::move(E));
  return Out;
}

/// The same for equal values (8 and 8.0 are equal); values with the same
/// key are compared one by one.
static std::string uniqueKey(const Value &V) {
  if (V.isNumeric()) {
    Rational R = V.getNumber();
    return "n" + std::to_string(R.numerator()) + "/" +
           std::to_string(R.denominator());
  }
  std::string Kind = std::to_string(static_cast<int>(V.kind()));
  if (std::optional<std::string> S = renderValue(V))
    return Kind + ":" + *S;
  return Kind + "?";
}

/// The elements in first-occurrence order without repeats; linear in the
/// elements but for values of one key (a list of a million numbers must
/// not take a million squared comparisons).
static std::vector<Value> uniqueValues(const std::vector<Value> &Elems) {
  std::vector<Value> Out;
  std::unordered_map<std::string, std::vector<size_t>> Seen;
  for (const Value &E : Elems) {
    std::vector<size_t> &Same = Seen[uniqueKey(E)];
    if (llvm::any_of(Same, [&](size_t I) { return Out[I] == E; }))
      continue;
    Same.push_back(Out.size());
    Out.push_back(E);
  }
  return Out;
}

static std::optional<Value> sortedFn(BuiltinCall &C) {
  if (C.Args[0].kind() != ValueKind::List)
    return C.mismatch(0, "a list");
  std::optional<std::vector<Value>> Out =
      sortValues(C, 0, elementsOf(C.Args[0]));
  if (!Out)
    return std::nullopt;
  return C.S.admit(Value::list(std::move(*Out)), C.E->getRange(),
                   "'sorted(...)'");
}

static std::optional<Value> uniqueFn(BuiltinCall &C) {
  if (C.Args[0].kind() != ValueKind::List)
    return C.mismatch(0, "a list");
  return C.S.admit(Value::list(uniqueValues(elementsOf(C.Args[0]))),
                   C.E->getRange(), "'unique(...)'");
}

static std::optional<Value> unionFn(BuiltinCall &C) {
  std::vector<Value> All;
  uint64_t Size = 0;
  for (size_t N = 0; N < C.Args.size(); ++N) {
    if (C.Args[N].kind() != ValueKind::List)
      return C.mismatch(N, "a list");
    Size += C.Args[N].listSize();
  }
  // Like `+`: the lists together are at most MaxListElements.
  if (Size > (uint64_t)MaxListElements) {
    C.S.diag(C.E->getRange(), DiagID::err_concat_too_large)
        << C.S.sourceText(C.E->getRange()) << int64_t(Size) << MaxListElements;
    return std::nullopt;
  }
  for (const Value &L : C.Args)
    for (Value E : L.elements())
      All.push_back(std::move(E));
  std::optional<std::vector<Value>> Out = sortValues(C, 0, uniqueValues(All));
  if (!Out)
    return std::nullopt;
  return C.S.admit(Value::list(std::move(*Out)), C.E->getRange(),
                   "'union(...)'");
}

// geometric(start, end, factor): InferenceX's conc-start/conc-end sweep.
// Each value is the previous one times the factor; a value past the end is
// clamped to it, and the end is always the last value.
static std::optional<Value> geometricFn(BuiltinCall &C) {
  const BuiltinFunction &F = *builtins().function("geometric");
  int64_t Start = C.Args[0].getInt(), End = C.Args[1].getInt(),
          Factor = C.Args[2].getInt();
  if (Start < 1) {
    C.S.diag(argRange(C, F, 0), DiagID::err_geometric_start) << Start;
    return std::nullopt;
  }
  if (Factor < 2) {
    C.S.diag(argRange(C, F, 2), DiagID::err_geometric_factor) << Factor;
    return std::nullopt;
  }
  if (Start > End) {
    C.S.diag(C.E->getRange(), DiagID::err_geometric_empty) << Start << End;
    return std::nullopt;
  }
  std::vector<Value> Out;
  for (int64_t X = Start;;) {
    Out.push_back(Value::integer(X));
    if (X == End)
      break;
    int64_t Next;
    if (__builtin_mul_overflow(X, Factor, &Next) || Next > End)
      Next = End;
    X = Next;
  }
  return Value::list(std::move(Out));
}

/// A name the runtime writes under the cell's directory or records: no
/// path separators, no placeholder braces, not hidden.
bool arecipe::sema::isValidFileName(llvm::StringRef Name) {
  if (Name.empty() || Name.front() == '.' || Name.size() > 255)
    return false;
  return llvm::all_of(Name, [](char Ch) {
    return llvm::isAlnum(Ch) || Ch == '.' || Ch == '_' || Ch == '-';
  });
}

static std::optional<Value> placeholderName(BuiltinCall &C,
                                            llvm::StringRef Kind) {
  if (C.Args[0].kind() != ValueKind::String)
    return C.mismatch(0, "string");
  const std::string &Name = C.Args[0].getString();
  if (!isValidFileName(Name)) {
    C.S.diag(C.E->getArgs()[0].Value->getRange(), DiagID::err_bad_file_name)
        << Name;
    return std::nullopt;
  }
  if (C.Ctx.Recipe) {
    auto &Refs =
        Kind == "file" ? C.Ctx.Recipe->FileRefs : C.Ctx.Recipe->CaptureRefs;
    Refs.try_emplace(Name, C.E->getArgs()[0].Value->getRange());
  }
  return Value::string("{" + Kind.str() + ":" + Name + "}");
}

static std::optional<Value> filePathFn(BuiltinCall &C) {
  return placeholderName(C, "file");
}

static std::optional<Value> captureFn(BuiltinCall &C) {
  return placeholderName(C, "capture");
}

/// `{KIND:K}` for node K of the cell's allocation: its address
/// (`node_addr`) or its host name (`node_host`), which launchers use where a
/// peer is reached by name (a control plane's URL, a per-node log file).
static std::optional<Value> nodePlaceholder(BuiltinCall &C,
                                            llvm::StringRef Kind) {
  if (C.Args[0].kind() != ValueKind::Int || C.Args[0].getInt() < 0)
    return C.mismatch(0, "int >= 0");
  return Value::string("{" + Kind.str() + ":" +
                       std::to_string(C.Args[0].getInt()) + "}");
}

static std::optional<Value> nodeAddrFn(BuiltinCall &C) {
  return nodePlaceholder(C, "node_addr");
}

static std::optional<Value> nodeHostFn(BuiltinCall &C) {
  return nodePlaceholder(C, "node_host");
}

/// `{dir:logs}`: the directory the runtime gives a cell's processes for what
/// they write themselves (a launcher's per-node config dump), known only at
/// run time.
static std::optional<Value> logDirFn(BuiltinCall &) {
  return Value::string("{dir:logs}");
}

static std::optional<Value> dramBudgetFn(BuiltinCall &C) {
  if (!C.Args[0].isNumeric())
    return C.mismatch(0, "float");
  return C.S.dramBudget(C.Args[0], C.E, C.Ctx);
}

static std::optional<Value> cellFn(BuiltinCall &C) {
  C.S.diag(C.E->getRange(), DiagID::err_not_allowed_here)
      << "'cell(...)'"
      << "an expression; write 'server = cell(N)' in 'at conc'";
  return std::nullopt;
}

// The tables ----------------------------------------------------------------

BuiltinTables::BuiltinTables() {
  Enums = {
      {"precision", {"fp4", "fp8", "bf16"}, {}},
      {"mode", {"bench", "eval"}, {}},
      {"placement", {"first_node"}, {}},
      {"readiness", {"http", "tcp"}, {}},
      {"start_order", {"before_engines", "after_engines"}, {}},
      {"server_reuse", {"cell", "arm"}, {}},
      {"on_mismatch", {"warn", "fail"}, {}},
      {"node_scope", {"all_nodes", "rank0"}, {}},
      {"cache_scope", {"node_user_image"}, {}},
      {"client_endpoint", {"completions", "chat"}, {}},
  };
  auto Member = [&](const char *Enum, const char *M) {
    return Value::enumMember(enumNamed(Enum), M);
  };
  constexpr unsigned Any = BuiltinFunction::Variadic;
  const char *RoundSig = "(float) → int";
  Functions = {
      {"min", 1, Any, "(T, T, …) → T",
       "the smallest of numbers or of quantities of one dimension; one list "
       "argument stands for its elements",
       minOrMax},
      {"max", 1, Any, "(T, T, …) → T",
       "the largest of numbers or of quantities of one dimension; one list "
       "argument stands for its elements",
       minOrMax},
      {"floordiv", 2, 2, "(int, int) → int",
       "division rounding toward negative infinity", floordivFn},
      {"floor", 1, 1, RoundSig, "rounding toward negative infinity", floorFn},
      {"ceil", 1, 1, RoundSig, "rounding toward positive infinity", ceilFn},
      {"round", 1, 1, RoundSig, "rounding half away from zero", roundFn},
      {"len", 1, 1, "(list | map | string) → int",
       "the number of elements, entries or bytes", lenFn},
      {"join", 2, 2, "(list<string>, string) → string",
       "the elements' text forms (§6.6), the separator between them", joinFn},
      {"format", 1, Any, "(string, …) → string",
       "each `{}` replaced by the text form of the next argument", formatFn},
      {"decimal", 2, 2, "(float, int) → string",
       "exactly n fraction digits, half away from zero: `decimal(3.0, 2)` "
       "is `\"3.00\"`",
       decimalFn},
      {"json",
       1,
       3,
       "(map | list, spaced: bool = false, indent: int = 0) → string",
       "JSON, map keys in insertion order: compact, or with `\", \"` and "
       "`\": \"` between items when `spaced`; `indent` n > 0 puts each "
       "member on its own line, n spaces deeper per level (Python's "
       "`json.dumps(indent = n)`)",
       jsonFn,
       true,
       {{"value", Type(), true},
        {"spaced", Type::of(Type::Bool), false, Value::boolean(false)},
        {"indent", Type::of(Type::Int), false, Value::integer(0)}}},
      {"yaml",
       1,
       3,
       "(map | list, indent: int = 2, flow_lists: bool = false) → string",
       "block YAML, keys in insertion order, `indent` spaces per level (2 to "
       "8); with `flow_lists`, a list of scalars inline: `[1, 2, 3]`",
       yamlFn,
       true,
       {{"value", Type(), true},
        {"indent", Type::of(Type::Int), false, Value::integer(2)},
        {"flow_lists", Type::of(Type::Bool), false, Value::boolean(false)}}},
      {"sorted", 1, 1, "(list) → list",
       "ascending: numbers, strings or quantities of one dimension", sortedFn},
      {"unique", 1, 1, "(list) → list",
       "the elements without repeats, each at its first place", uniqueFn},
      {"union", 1, Any, "(list, list, …) → list", "`sorted(unique(a + b + …))`",
       unionFn},
      {"geometric",
       2,
       3,
       "(int, int, factor: int = 2) → list<int>",
       "start, start × factor, …; a value past the end is clamped to it and "
       "the end is last: `geometric(4, 48)` is `[4, 8, 16, 32, 48]`",
       geometricFn,
       true,
       {{"start", Type::of(Type::Int), true},
        {"end", Type::of(Type::Int), true},
        {"factor", Type::of(Type::Int), false, Value::integer(2)}}},
      {"file_path", 1, 1, "(string) → string",
       "where the cell's file of that name is at run time (`{file:NAME}`)",
       filePathFn},
      {"capture", 1, 1, "(string) → string",
       "the trimmed output of `preflight capture(NAME, argv)` at run time "
       "(`{capture:NAME}`)",
       captureFn},
      {"node_addr", 1, 1, "(int) → string",
       "the address of node K of the cell's allocation at run time "
       "(`{node_addr:K}`)",
       nodeAddrFn},
      {"node_host", 1, 1, "(int) → string",
       "the host name of node K of the cell's allocation at run time "
       "(`{node_host:K}`)",
       nodeHostFn},
      {"log_dir", 0, 0, "() → string",
       "the directory the cell's processes write their own files into at "
       "run time (`{dir:logs}`)",
       logDirFn},
      {"dram_budget", 1, 1, "(float) → size",
       "the InferenceX CPU DRAM rule (§8) for the recipe's hardware and the "
       "cell's GPUs",
       dramBudgetFn},
      {"cell", 1, 1, "(int) → server", "only as `server = cell(N)`", cellFn,
       /*EvaluatesArguments=*/false},
  };
  Type Str = Type::of(Type::String);
  Constructors = {
      {"fixed",
       {{"isl", Type::of(Type::Int), true},
        {"osl", Type::of(Type::Int), true},
        {"ratio", Type::of(Type::Float), false,
         Value::number(*Rational::fraction(4, 5))},
        {"num_prompts", Type::of(Type::Int, true), false, Value::none()},
        {"request_rate", Type::of(Type::Float, true), false, Value::none()},
        {"range", Str, false, Value::string("below")}},
       "scenario",
       "random prompts of up to `isl` tokens answered with up to `osl`, "
       "each length drawn from [⌊L × `ratio`⌋, L] (`range = \"below\"`, "
       "InferenceX's client) or [⌊L(1 − `ratio`)⌋, ⌊L(1 + `ratio`)⌋] "
       "(`range = \"around\"`, vLLM's)"},
      {"agentic",
       {{"duration", Type::of(Type::Duration), true},
        {"trace", Type::of(Type::String, true), false, Value::none()}},
       "scenario",
       "a replay of an agentic trace for `duration`"},
      {"aggregated",
       {{"nodes", Type::of(Type::Int, true), false, Value::none()},
        {"replicas", Type::of(Type::Int), false, Value::integer(1)},
        {"router", Type::of(Type::Router, true), false, Value::none()}},
       "topology",
       "`replicas` servers of the engine, each on the nodes its GPUs need "
       "(`nodes`, when given, must agree), behind `router` (§4.1)"},
      {"disaggregated",
       {{"prefill", Type::of(Type::Int), true},
        {"decode", Type::of(Type::Int), true},
        {"router", Type::of(Type::Router, true), false, Value::none()}},
       "topology",
       "`prefill` prefill servers and `decode` decode servers behind "
       "`router`, which is required (§4.1)"},
      {"role_leader",
       {{"role", Type::of(Type::String), true}},
       "placement",
       "a router's or service's `on`: the first node of the role's first "
       "replica (§5.2)"},
      {"every_node",
       {{"role", Type::of(Type::String), true}},
       "placement",
       "a router's or service's `on`: one process on each node of the role "
       "(§5.2)"},
      {"every_server",
       {{"role", Type::of(Type::String), true}},
       "placement",
       "a router's or service's `on`: one process on each node of the role "
       "where an engine process serves HTTP (§5.2)"},
      {"replica_leaders",
       {{"role", Type::of(Type::String), true}},
       "placement",
       "a router's or service's `on`: one process on the first node of each "
       "replica of the role (§5.2)"},
      {"alive",
       {{"after", Type::of(Type::Duration), true}},
       "readiness",
       "a router's or service's `ready`: still running after the duration "
       "(§5.2)"},
  };
  PreflightActions = {
      {"unset_env", {{"names", Type::listOf(Str), true, std::nullopt, true}}},
      {"require_version",
       {{"tool", Str, true},
        {"pattern", Str, true},
        {"on_mismatch", Type::enumOf(enumNamed("on_mismatch")), false,
         Member("on_mismatch", "warn")}}},
      {"stage_model",
       {{"repo", Str, true},
        {"attempts", Type::of(Type::Int), false, Value::integer(5)},
        {"delay", Type::of(Type::Duration), false,
         quantityOf(60, Unit::Second)}}},
      {"check_paths",
       {{"paths", Type::listOf(Str), true, std::nullopt, true},
        {"on", Type::enumOf(enumNamed("node_scope")), false,
         Member("node_scope", "all_nodes")}}},
      {"wait_clean_gpus",
       {{"max_used", Type::of(Type::Float), false,
         Value::number(*Rational::fraction(1, 100))},
        {"timeout", Type::of(Type::Duration), false,
         quantityOf(10, Unit::Minute)}}},
      {"prepare_cache",
       {{"dir", Str, true},
        {"from_image", Type::of(Type::String, true), false, Value::none()},
        {"scope", Type::enumOf(enumNamed("cache_scope")), false,
         Member("cache_scope", "node_user_image")}}},
      {"verify_import", {{"package", Str, true}, {"expect", Str, true}}},
      {"capture",
       {{"name", Str, true},
        {"argv", Type::listOf(Str), true},
        {"timeout", Type::of(Type::Duration), false,
         quantityOf(5, Unit::Minute)},
        // What `arecipe-run --simulate` takes as the output: a probe of
        // GPU-node hardware cannot answer on a machine without one.
        {"simulated", Type::of(Type::String, true), false, Value::none()}}},
      {"run",
       {{"argv", Type::listOf(Str), true},
        {"timeout", Type::of(Type::Duration), false,
         quantityOf(5, Unit::Minute)}}},
  };
}

const EnumInfo *BuiltinTables::enumNamed(llvm::StringRef Name) const {
  for (const EnumInfo &E : Enums)
    if (E.Name == Name)
      return &E;
  return nullptr;
}

const BuiltinFunction *BuiltinTables::function(llvm::StringRef Name) const {
  for (const BuiltinFunction &F : Functions)
    if (Name == F.Name)
      return &F;
  return nullptr;
}

static const Signature *findSignature(const std::vector<Signature> &Sigs,
                                      llvm::StringRef Name) {
  for (const Signature &S : Sigs)
    if (Name == S.Name)
      return &S;
  return nullptr;
}

const Signature *BuiltinTables::constructor(llvm::StringRef Name) const {
  return findSignature(Constructors, Name);
}

const Signature *BuiltinTables::preflightAction(llvm::StringRef Name) const {
  return findSignature(PreflightActions, Name);
}

const BuiltinTables &arecipe::sema::builtins() {
  static const BuiltinTables Tables;
  return Tables;
}

/// A parameter type as a signature shows it: the type's name without the
/// examples Type::str() adds for messages.
static std::string paramType(const Type &T) {
  std::string Name;
  switch (T.K) {
  case Type::Scenario:
    Name = "scenario";
    break;
  case Type::Topology:
    Name = "topology";
    break;
  case Type::Router:
    Name = "router";
    break;
  case Type::Service:
    Name = "service";
    break;
  default:
    return T.str();
  }
  return T.Optional ? Name + "?" : Name;
}

std::string arecipe::sema::describeSignature(const Signature &Sig) {
  std::string Out = "(";
  for (size_t N = 0; N < Sig.Params.size(); ++N) {
    const Param &P = Sig.Params[N];
    Out += (N ? ", " : "") + std::string(P.Name) + ": " + paramType(P.Ty);
    if (P.Default)
      Out += " = " + P.Default->str();
  }
  return Out + ") → " + Sig.Result;
}

std::vector<BuiltinInfo> arecipe::sema::listBuiltins() {
  std::vector<BuiltinInfo> Out;
  for (const BuiltinFunction &F : builtins().Functions)
    Out.push_back({F.Name, F.Signature, F.Doc});
  for (const Signature &S : builtins().Constructors)
    Out.push_back({S.Name, describeSignature(S), S.Doc});
  return Out;
}

// Calls ------------------------------------------------------------------

bool SemaImpl::isBuiltinFunction(llvm::StringRef Name) const {
  return builtins().function(Name) || builtins().constructor(Name);
}

/// fixed(range, ratio): the two length rules the client knows
/// (docs/metrics.md, "Workloads") and the ratios each can draw with;
/// reported at the argument that is wrong, or at the call when it is a
/// default.
bool SemaImpl::checkFixedLengths(
    llvm::ArrayRef<std::pair<std::string, Value>> Fields,
    const ast::CallExpr *E) {
  auto Field = [&](llvm::StringRef Name) -> const Value * {
    for (const auto &[K, V] : Fields)
      if (K == Name)
        return &V;
    return nullptr;
  };
  auto Where = [&](llvm::StringRef Name) {
    for (const ast::Argument &A : E->getArgs())
      if (A.isNamed() && A.Name.Name == Name)
        return A.Value->getRange();
    return E->getRange();
  };
  const Value *Range = Field("range");
  const Value *Ratio = Field("ratio");
  if (!Range || !Ratio || Range->kind() != ValueKind::String ||
      !Ratio->isNumeric())
    return true;
  const std::string &Rule = Range->getString();
  if (Rule != "below" && Rule != "around") {
    diag(Where("range"), DiagID::err_fixed_range) << Rule;
    return false;
  }
  // "below" draws from [floor(L r), L], so r = 1 is L itself; "around"
  // needs r < 1 to keep the shortest length above zero.
  Rational R = Ratio->getNumber();
  bool Around = Rule == "around";
  if (R < Rational(0) || R > Rational(1) || (Around && R == Rational(1))) {
    diag(Where("ratio"), DiagID::err_fixed_ratio)
        << R.str() << Rule << (Around ? "[0, 1)" : "[0, 1]");
    return false;
  }
  return true;
}

namespace {
/// The parameters a call binds its arguments to: a constructor's, a
/// pre-flight action's or a built-in function's (whose Params are not a
/// Signature: a view, so a call copies no parameter table).
struct ParamList {
  const char *Name;
  llvm::ArrayRef<Param> Params;
};
} // namespace

/// The value of each parameter of Sig, in Sig's order (defaults filled);
/// nullopt after an error. Only values: a built-in function, called per
/// cell and process, builds no parameter names.
static std::optional<std::vector<Value>>
bindTo(SemaImpl &S, ParamList Sig, llvm::ArrayRef<ast::Argument> Args,
       llvm::SMRange CallRange, const EvalCtx &Ctx) {
  std::vector<std::optional<Value>> Bound(Sig.Params.size());
  std::vector<Value> VariadicElems;
  size_t Positional = 0;
  bool Ok = true;
  for (const ast::Argument &A : Args) {
    size_t Index = Sig.Params.size();
    if (A.isNamed()) {
      for (size_t N = 0; N < Sig.Params.size(); ++N)
        if (A.Name.Name == Sig.Params[N].Name)
          Index = N;
      if (Index == Sig.Params.size()) {
        std::vector<std::string> Names;
        for (const Param &P : Sig.Params)
          Names.push_back(P.Name);
        auto B = S.diag(A.Name.Range, DiagID::err_unknown_argument);
        B << Sig.Name << A.Name.Name;
        // A benchmark client's spelling of a scenario parameter
        // (`range_ratio` for `ratio`) suggests the parameter it means.
        std::optional<llvm::StringRef> Meant =
            scenarioParameterFor(A.Name.Name);
        if (Meant && *Meant != A.Name.Name && llvm::is_contained(Names, *Meant))
          B.note(A.Name.Range.Start, DiagID::note_did_you_mean)
              << *Meant << A.Name.Range
              << FixIt::replace(A.Name.Range, *Meant);
        else
          S.didYouMean(B, A.Name.Range, A.Name.Name, Names);
        Ok = false;
        continue;
      }
    } else {
      Index = Positional < Sig.Params.size() ? Positional : Sig.Params.size();
      if (Index < Sig.Params.size() && !Sig.Params[Index].Variadic)
        ++Positional;
      if (Index == Sig.Params.size()) {
        S.diag(A.Range, DiagID::err_call_arity)
            << Sig.Name << int64_t(Sig.Params.size()) << int64_t(Args.size());
        return std::nullopt;
      }
    }
    const Param &P = Sig.Params[Index];
    EvalCtx Inner = Ctx;
    const Type *Want = P.Variadic ? &P.Ty.Args[0] : &P.Ty;
    Inner.Expected = Want;
    std::optional<Value> V = S.eval(A.Value, Inner);
    if (!V) {
      Ok = false;
      continue;
    }
    std::optional<Value> C = conformTo(*V, *Want);
    if (!C && P.Variadic) {
      // A list passed where the elements are collected.
      C = conformTo(*V, P.Ty);
      if (C) {
        for (Value E : C->elements())
          VariadicElems.push_back(E);
        continue;
      }
    }
    if (!C) {
      S.diag(A.Value->getRange(), DiagID::err_type_mismatch)
          << (std::string(Sig.Name) + "(" + P.Name + ")") << Want->str()
          << V->describeType() << V->str();
      Ok = false;
      continue;
    }
    if (P.Variadic) {
      VariadicElems.push_back(*C);
    } else if (Bound[Index]) {
      S.diag(A.Range, DiagID::err_duplicate_argument) << Sig.Name << P.Name;
      Ok = false;
    } else {
      Bound[Index] = *C;
    }
  }
  if (!Ok)
    return std::nullopt;
  std::vector<Value> Out;
  Out.reserve(Sig.Params.size());
  for (size_t N = 0; N < Sig.Params.size(); ++N) {
    const Param &P = Sig.Params[N];
    if (P.Variadic) {
      if (VariadicElems.empty() && P.Required) {
        S.diag(CallRange, DiagID::err_missing_argument) << Sig.Name << P.Name;
        return std::nullopt;
      }
      Out.push_back(Value::list(std::move(VariadicElems)));
      continue;
    }
    if (!Bound[N]) {
      if (P.Required) {
        S.diag(CallRange, DiagID::err_missing_argument) << Sig.Name << P.Name;
        return std::nullopt;
      }
      Bound[N] = P.Default;
    }
    Out.push_back(std::move(*Bound[N]));
  }
  return Out;
}

/// bindTo with each value under its parameter's name: a pre-flight
/// action's arguments, a constructor's fields.
static std::optional<std::vector<std::pair<std::string, Value>>>
bindNamed(SemaImpl &S, const Signature &Sig, llvm::ArrayRef<ast::Argument> Args,
          llvm::SMRange CallRange, const EvalCtx &Ctx) {
  std::optional<std::vector<Value>> Values =
      bindTo(S, {Sig.Name, Sig.Params}, Args, CallRange, Ctx);
  if (!Values)
    return std::nullopt;
  std::vector<std::pair<std::string, Value>> Out;
  Out.reserve(Values->size());
  for (size_t N = 0; N < Values->size(); ++N)
    Out.emplace_back(Sig.Params[N].Name, std::move((*Values)[N]));
  return Out;
}

std::optional<PreflightAction>
SemaImpl::evalPreflight(const ast::PreflightStmt &P, const EvalCtx &Ctx) {
  llvm::StringRef Name = P.getAction().Name;
  if (const Signature *Sig = builtins().preflightAction(Name)) {
    auto Args = bindNamed(*this, *Sig, P.getArgs(), P.getRange(), Ctx);
    if (!Args)
      return std::nullopt;
    PreflightAction A;
    A.Action = Name.str();
    A.Args = std::move(*Args);
    return A;
  }
  std::vector<std::string> Names;
  for (const Signature &Sig : builtins().PreflightActions)
    Names.push_back(Sig.Name);
  auto B = diag(P.getAction().Range, DiagID::err_unknown_preflight);
  B << Name;
  didYouMean(B, P.getAction().Range, Name, Names);
  return std::nullopt;
}

// The InferenceX CPU DRAM rule (docs/language.md §8), exactly:
//   floor(min(dram, 2_861_022 MiB) / 1 MiB x 1_048_576 x u
//         x gpus_used / gpus_per_node / 1e9) GB
std::optional<Value> SemaImpl::dramBudget(const Value &U,
                                          const ast::CallExpr *E,
                                          const EvalCtx &Ctx) {
  if (!Ctx.Cell) {
    diag(E->getRange(), DiagID::err_not_constant)
        << "dram_budget" << Ctx.What;
    return std::nullopt;
  }
  // The budget follows the cell's GPUs and is recorded in the cell.
  ++Ctx.Cell->CellReads;
  std::optional<Value> HW =
      resolveName(*Ctx.Cell, "hardware", E->getRange(), Ctx.Deps);
  if (!HW)
    return std::nullopt;
  std::optional<Value> Dram = entityField(*HW->getEntity(), "dram", E->getRange());
  std::optional<Value> PerNode =
      entityField(*HW->getEntity(), "gpus_per_node", E->getRange());
  if (!Dram || !PerNode)
    return std::nullopt;
  // The GPUs one replica uses, as the engine says (for the role the
  // formula is evaluated for), on one node at most.
  int64_t Used = replicaGpus(*Ctx.Cell, Ctx.Role, E->getRange());
  if (Used <= 0)
    return std::nullopt;
  Used = std::min(Used, PerNode->getInt());

  NumericResult<Rational> DramMiB = Dram->getQuantity().in(Unit::MiB);
  if (!DramMiB)
    return std::nullopt;
  Rational Capped = std::min(*DramMiB, Rational(2861022), [](auto &A, auto &B) {
    return A < B;
  });
  NumericResult<Rational> Bytes = NumericResult<Rational>(Capped) *
                                  Rational(1048576) * U.getNumber() *
                                  Rational(Used) / Rational(PerNode->getInt()) /
                                  Rational(1000000000);
  if (!Bytes) {
    diag(E->getRange(), DiagID::err_arith_overflow)
        << sourceText(E->getRange()) << cellSuffix(Ctx);
    return std::nullopt;
  }
  NumericResult<int64_t> GB = Bytes->round(Rounding::Floor);
  // The InferenceX entry states the utilization, not the bytes.
  Ctx.Cell->C->DramUtilization = U.getNumber();
  return quantityOf(*GB, Unit::GB);
}

std::optional<Value> SemaImpl::evalCall(const ast::CallExpr *E,
                                        const EvalCtx &Ctx) {
  auto *Callee = llvm::dyn_cast<ast::NameExpr>(E->getCallee());
  // `alias.atomesh(...)`: a router or service of an `import ... as`.
  if (auto *M = llvm::dyn_cast<ast::MemberExpr>(E->getCallee())) {
    EvalCtx Inner = Ctx;
    Inner.Expected = nullptr;
    std::optional<Value> T = eval(M, Inner);
    if (!T)
      return std::nullopt;
    if (T->kind() == ValueKind::Entity &&
        (T->getEntity()->K == EntityInfo::Router ||
         T->getEntity()->K == EntityInfo::Service))
      return instantiateTemplate(*T->getEntity(), E, Ctx);
  }
  if (!Callee) {
    diag(E->getCallee()->getRange(), DiagID::err_not_callable)
        << sourceText(E->getCallee()->getRange());
    return std::nullopt;
  }
  llvm::StringRef Name = Callee->getName().Name;
  if (const Signature *Sig = builtins().constructor(Name)) {
    auto Fields = bindNamed(*this, *Sig, E->getArgs(), E->getRange(), Ctx);
    if (!Fields || (Name == "fixed" && !checkFixedLengths(*Fields, E)))
      return std::nullopt;
    std::vector<std::pair<Value, Value>> Entries;
    for (auto &[K, V] : *Fields)
      Entries.emplace_back(Value::string(K), V);
    return admit(Value::record(Name, std::move(Entries)), E->getRange(),
                 "'" + Name.str() + "(...)'");
  }
  const BuiltinFunction *Fn = builtins().function(Name);
  if (!Fn) {
    // A router or service declaration called with its knobs.
    if (const Symbol *S = lookupSymbol(*Ctx.M, Name);
        S && S->K == Symbol::Entity &&
        (S->Ent->K == EntityInfo::Router || S->Ent->K == EntityInfo::Service))
      return instantiateTemplate(*S->Ent, E, Ctx);
    if (lookupSymbol(*Ctx.M, Name) ||
        (Ctx.Recipe && Ctx.Recipe->Names.count(Name))) {
      diag(Callee->getRange(), DiagID::err_not_callable) << Name;
      return std::nullopt;
    }
    std::vector<std::string> Names;
    for (const BuiltinFunction &F : builtins().Functions)
      Names.push_back(F.Name);
    for (const Signature &Sig : builtins().Constructors)
      Names.push_back(Sig.Name);
    auto B = diag(Callee->getRange(), DiagID::err_undeclared_name);
    B << Name;
    didYouMean(B, Callee->getRange(), Name, Names);
    return std::nullopt;
  }

  BuiltinCall Call{*this, Name, E, {}, Ctx};
  if (!Fn->EvaluatesArguments)
    return Fn->Handler(Call);
  if (!Fn->Params.empty()) {
    auto Bound =
        bindTo(*this, {Fn->Name, Fn->Params}, E->getArgs(), E->getRange(), Ctx);
    if (!Bound)
      return std::nullopt;
    Call.Args = std::move(*Bound);
    return Fn->Handler(Call);
  }
  for (const ast::Argument &A : E->getArgs()) {
    if (A.isNamed()) {
      diag(A.Name.Range, DiagID::err_unknown_argument) << Name << A.Name.Name;
      return std::nullopt;
    }
    EvalCtx Inner = Ctx;
    Inner.Expected = nullptr;
    std::optional<Value> V = eval(A.Value, Inner);
    if (!V)
      return std::nullopt;
    Call.Args.push_back(*V);
  }
  size_t Got = Call.Args.size();
  if (Got < Fn->MinArgs || Got > Fn->MaxArgs) {
    diag(E->getRange(), DiagID::err_call_arity)
        << Name << int64_t(Got < Fn->MinArgs ? Fn->MinArgs : Fn->MaxArgs)
        << int64_t(Got);
    return std::nullopt;
  }
  return Fn->Handler(Call);
}
