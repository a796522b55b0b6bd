//===- SemaBuiltins.cpp - Built-in functions, constructors, pre-flight ---===//
//
// The typed built-ins of docs/language.md §6.7: min, max, floor, ceil,
// round, floordiv, len, join, format, json, dram_budget (the InferenceX
// rule, §8), cell(N); the scenario/topology constructors with named
// arguments; and the signatures of the pre-flight actions (§3.7).
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

using namespace arecipe;
using namespace arecipe::sema;

namespace {
struct Param {
  const char *Name;
  Type Ty;
  bool Required = false;
  std::optional<Value> Default = std::nullopt;
  bool Variadic = false; ///< Collects every positional argument as a list.
};
struct Signature {
  const char *Name;
  std::vector<Param> Params;
};
} // namespace

static Value quantityOf(int64_t N, Unit U) {
  return Value::quantity(*Quantity::of(Rational(N), U));
}

static const std::vector<Signature> &constructors(SemaImpl &S) {
  if (S.ConstructorSigs)
    return *static_cast<const std::vector<Signature> *>(S.ConstructorSigs.get());
  auto Owned = std::make_shared<std::vector<Signature>>();
  S.ConstructorSigs = Owned;
  std::vector<Signature> &Sigs = *Owned;
  Type Policy = Type::enumOf(S.builtinEnum("router_policy"));
  Sigs = {
      {"fixed",
       {{"isl", Type::of(Type::Int), true},
        {"osl", Type::of(Type::Int), true},
        {"ratio", Type::of(Type::Float), false,
         Value::number(*Rational::fraction(4, 5))},
        {"num_prompts", Type::of(Type::Int, true), false, Value::none()},
        {"request_rate", Type::of(Type::Float, true), false, Value::none()}}},
      {"agentic",
       {{"duration", Type::of(Type::Duration), true},
        {"trace", Type::of(Type::String, true), false, Value::none()}}},
      {"aggregated", {{"nodes", Type::of(Type::Int), false, Value::integer(1)}}},
      {"disaggregated",
       {{"prefill", Type::of(Type::Int), true},
        {"decode", Type::of(Type::Int), true},
        {"router", Type::of(Type::Router, true), false, Value::none()}}},
      {"atomesh",
       {{"policy", Policy, false,
         Value::enumMember(S.builtinEnum("router_policy"), "round_robin")},
        {"session_header", Type::of(Type::String, true), false, Value::none()},
        {"port", Type::of(Type::Int), false, Value::integer(8080)}}},
  };
  return Sigs;
}

static const std::vector<Signature> &preflightActions(SemaImpl &S) {
  if (S.PreflightSigs)
    return *static_cast<const std::vector<Signature> *>(S.PreflightSigs.get());
  auto Owned = std::make_shared<std::vector<Signature>>();
  S.PreflightSigs = Owned;
  std::vector<Signature> &Sigs = *Owned;
  Type Str = Type::of(Type::String);
  Sigs = {
      {"unset_env", {{"names", Type::listOf(Str), true, std::nullopt, true}}},
      {"require_version",
       {{"tool", Str, true},
        {"pattern", Str, true},
        {"on_mismatch", Type::enumOf(S.builtinEnum("on_mismatch")), false,
         Value::enumMember(S.builtinEnum("on_mismatch"), "warn")}}},
      {"stage_model",
       {{"repo", Str, true},
        {"attempts", Type::of(Type::Int), false, Value::integer(5)},
        {"delay", Type::of(Type::Duration), false,
         quantityOf(60, Unit::Second)}}},
      {"check_paths",
       {{"paths", Type::listOf(Str), true, std::nullopt, true},
        {"on", Type::enumOf(S.builtinEnum("node_scope")), false,
         Value::enumMember(S.builtinEnum("node_scope"), "all_nodes")}}},
      {"wait_clean_gpus",
       {{"max_used", Type::of(Type::Float), false,
         Value::number(*Rational::fraction(1, 100))},
        {"timeout", Type::of(Type::Duration), false,
         quantityOf(10, Unit::Minute)}}},
      {"prepare_cache",
       {{"dir", Str, true},
        {"from_image", Type::of(Type::String, true), false, Value::none()},
        {"scope", Type::enumOf(S.builtinEnum("cache_scope")), false,
         Value::enumMember(S.builtinEnum("cache_scope"), "node_user_image")}}},
      {"verify_import", {{"package", Str, true}, {"expect", Str, true}}},
      {"run",
       {{"argv", Type::listOf(Str), true},
        {"timeout", Type::of(Type::Duration), false,
         quantityOf(5, Unit::Minute)}}},
  };
  return Sigs;
}

static const char *const PlainFunctions[] = {
    "min",  "max",  "floor",  "ceil",        "round", "floordiv",
    "len",  "join", "format", "json",        "dram_budget", "cell",
    "decimal"};

bool SemaImpl::isBuiltinFunction(llvm::StringRef Name) const {
  for (const char *F : PlainFunctions)
    if (Name == F)
      return true;
  for (const Signature &S : constructors(const_cast<SemaImpl &>(*this)))
    if (Name == S.Name)
      return true;
  return false;
}

static std::optional<std::vector<std::pair<std::string, Value>>>
bindTo(SemaImpl &S, const Signature &Sig, llvm::ArrayRef<ast::Argument> Args,
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
        for (const Value &E : C->getElements())
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
    if (P.Variadic)
      VariadicElems.push_back(*C);
    else
      Bound[Index] = *C;
  }
  if (!Ok)
    return std::nullopt;
  std::vector<std::pair<std::string, Value>> Out;
  for (size_t N = 0; N < Sig.Params.size(); ++N) {
    const Param &P = Sig.Params[N];
    if (P.Variadic) {
      if (VariadicElems.empty() && P.Required) {
        S.diag(CallRange, DiagID::err_missing_argument) << Sig.Name << P.Name;
        return std::nullopt;
      }
      Out.emplace_back(P.Name, Value::list(VariadicElems));
      continue;
    }
    if (!Bound[N]) {
      if (P.Required) {
        S.diag(CallRange, DiagID::err_missing_argument) << Sig.Name << P.Name;
        return std::nullopt;
      }
      Bound[N] = P.Default;
    }
    Out.emplace_back(P.Name, *Bound[N]);
  }
  return Out;
}

std::optional<std::vector<std::pair<std::string, Value>>>
SemaImpl::bindArguments(llvm::StringRef Callee,
                        llvm::ArrayRef<ast::Argument> Args,
                        llvm::SMRange CallRange, const EvalCtx &Ctx) {
  for (const Signature &Sig : constructors(*this))
    if (Callee == Sig.Name)
      return bindTo(*this, Sig, Args, CallRange, Ctx);
  return std::nullopt;
}

std::optional<PreflightAction>
SemaImpl::evalPreflight(const ast::PreflightStmt &P, const EvalCtx &Ctx) {
  llvm::StringRef Name = P.getAction().Name;
  for (const Signature &Sig : preflightActions(*this)) {
    if (Name != Sig.Name)
      continue;
    auto Args = bindTo(*this, Sig, P.getArgs(), P.getRange(), Ctx);
    if (!Args)
      return std::nullopt;
    PreflightAction A;
    A.Action = Name.str();
    A.Args = std::move(*Args);
    return A;
  }
  std::vector<std::string> Names;
  for (const Signature &Sig : preflightActions(*this))
    Names.push_back(Sig.Name);
  auto B = diag(P.getAction().Range, DiagID::err_unknown_preflight);
  B << Name;
  didYouMean(B, P.getAction().Range, Name, Names);
  return std::nullopt;
}

// The InferenceX CPU DRAM rule (domain.md §3), exactly:
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
  int64_t Used = cellGpusPerServer(*Ctx.Cell, E->getRange());
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
  if (!Callee) {
    diag(E->getCallee()->getRange(), DiagID::err_not_callable)
        << sourceText(E->getCallee()->getRange());
    return std::nullopt;
  }
  llvm::StringRef Name = Callee->getName().Name;
  for (const Signature &Sig : constructors(*this))
    if (Name == Sig.Name) {
      auto Fields = bindTo(*this, Sig, E->getArgs(), E->getRange(), Ctx);
      if (!Fields)
        return std::nullopt;
      std::vector<std::pair<Value, Value>> Entries;
      for (auto &[K, V] : *Fields)
        Entries.emplace_back(Value::string(K), V);
      return Value::record(Name, std::move(Entries));
    }
  if (!isBuiltinFunction(Name)) {
    if (lookupSymbol(*Ctx.M, Name) ||
        (Ctx.Recipe && Ctx.Recipe->Names.count(Name.str()))) {
      diag(Callee->getRange(), DiagID::err_not_callable) << Name;
      return std::nullopt;
    }
    std::vector<std::string> Names(std::begin(PlainFunctions),
                                   std::end(PlainFunctions));
    for (const Signature &Sig : constructors(*this))
      Names.push_back(Sig.Name);
    auto B = diag(Callee->getRange(), DiagID::err_undeclared_name);
    B << Name;
    didYouMean(B, Callee->getRange(), Name, Names);
    return std::nullopt;
  }

  if (Name == "cell") {
    diag(E->getRange(), DiagID::err_not_allowed_here)
        << "'cell(...)'" << "an expression; write 'server = cell(N)' in 'at conc'";
    return std::nullopt;
  }

  std::vector<Value> Args;
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
    Args.push_back(*V);
  }
  auto Arity = [&](size_t Want) {
    if (Args.size() == Want)
      return true;
    diag(E->getRange(), DiagID::err_call_arity)
        << Name << int64_t(Want) << int64_t(Args.size());
    return false;
  };
  auto Mismatch = [&](size_t N, llvm::StringRef Want) -> std::optional<Value> {
    diag(E->getArgs()[N].Value->getRange(), DiagID::err_type_mismatch)
        << (Name.str() + "()") << Want << Args[N].describeType()
        << Args[N].str();
    return std::nullopt;
  };

  if (Name == "min" || Name == "max") {
    if (Args.size() == 1 && Args[0].kind() == ValueKind::List)
      Args = Args[0].getElements();
    if (Args.empty()) {
      diag(E->getRange(), DiagID::err_call_arity) << Name << 1 << 0;
      return std::nullopt;
    }
    Value Best = Args[0];
    for (size_t N = 0; N < Args.size(); ++N) {
      const Value &V = Args[N];
      bool Num = V.isNumeric() && Best.isNumeric();
      bool Qty = V.kind() == ValueKind::Quantity &&
                 Best.kind() == ValueKind::Quantity &&
                 V.getQuantity().dimension() == Best.getQuantity().dimension();
      if (!Num && !Qty)
        return Mismatch(std::min(N, E->getArgs().size() - 1),
                        "numbers or quantities of one dimension");
      bool Less = Num ? V.getNumber() < Best.getNumber()
                      : *V.getQuantity().compare(Best.getQuantity()) < 0;
      bool Greater = Num ? Best.getNumber() < V.getNumber()
                         : *V.getQuantity().compare(Best.getQuantity()) > 0;
      if ((Name == "min" && Less) || (Name == "max" && Greater))
        Best = V;
    }
    return Best;
  }
  if (Name == "floor" || Name == "ceil" || Name == "round") {
    if (!Arity(1))
      return std::nullopt;
    if (!Args[0].isNumeric())
      return Mismatch(0, "a number");
    Rounding Mode = Name == "floor"  ? Rounding::Floor
                    : Name == "ceil" ? Rounding::Ceil
                                     : Rounding::HalfAwayFromZero;
    return Value::integer(*Args[0].getNumber().round(Mode));
  }
  if (Name == "floordiv") {
    if (!Arity(2))
      return std::nullopt;
    if (Args[0].kind() != ValueKind::Int)
      return Mismatch(0, "int");
    if (Args[1].kind() != ValueKind::Int)
      return Mismatch(1, "int");
    if (Args[1].getInt() == 0) {
      diag(E->getRange(), DiagID::err_division_by_zero) << cellSuffix(Ctx);
      return std::nullopt;
    }
    NumericResult<Rational> Q = Rational::fraction(Args[0].getInt(), Args[1].getInt());
    if (!Q) {
      diag(E->getRange(), DiagID::err_arith_overflow)
          << sourceText(E->getRange()) << cellSuffix(Ctx);
      return std::nullopt;
    }
    return Value::integer(*Q->round(Rounding::Floor));
  }
  if (Name == "len") {
    if (!Arity(1))
      return std::nullopt;
    if (Args[0].kind() == ValueKind::List)
      return Value::integer(Args[0].getElements().size());
    if (Args[0].kind() == ValueKind::Map)
      return Value::integer(Args[0].getEntries().size());
    if (Args[0].kind() == ValueKind::String)
      return Value::integer(Args[0].getString().size());
    return Mismatch(0, "a list, map or string");
  }
  if (Name == "join") {
    if (!Arity(2))
      return std::nullopt;
    if (Args[0].kind() != ValueKind::List)
      return Mismatch(0, "list<string>");
    if (Args[1].kind() != ValueKind::String)
      return Mismatch(1, "string");
    std::string Out;
    for (size_t N = 0; N < Args[0].getElements().size(); ++N) {
      std::optional<std::string> S = renderValue(Args[0].getElements()[N]);
      if (!S)
        return Mismatch(0, "list<string>");
      Out += (N ? Args[1].getString() : "") + *S;
    }
    return Value::string(Out);
  }
  // decimal(x, n): x with exactly n fraction digits, rounded half away from
  // zero, for flags whose launchers print a fixed precision (`3.00`).
  if (Name == "decimal") {
    if (!Arity(2))
      return std::nullopt;
    if (!Args[0].isNumeric())
      return Mismatch(0, "float");
    if (Args[1].kind() != ValueKind::Int || Args[1].getInt() < 0 ||
        Args[1].getInt() > 18)
      return Mismatch(1, "int in 0..18");
    NumericResult<std::string> S = Args[0].getNumber().toDecimalString(
        static_cast<unsigned>(Args[1].getInt()), Rounding::HalfAwayFromZero);
    if (!S)
      return Mismatch(0, "float");
    return Value::string(*S);
  }
  if (Name == "format") {
    if (Args.empty() || Args[0].kind() != ValueKind::String) {
      if (Args.empty()) {
        diag(E->getRange(), DiagID::err_call_arity) << Name << 1 << 0;
        return std::nullopt;
      }
      return Mismatch(0, "string");
    }
    const std::string &F = Args[0].getString();
    std::string Out;
    size_t Next = 1;
    for (size_t P = 0; P < F.size(); ++P) {
      if (F.compare(P, 2, "{}") != 0) {
        Out += F[P];
        continue;
      }
      ++P;
      if (Next >= Args.size()) {
        diag(E->getRange(), DiagID::err_call_arity)
            << Name << int64_t(Next + 1) << int64_t(Args.size());
        return std::nullopt;
      }
      std::optional<std::string> S = renderValue(Args[Next]);
      if (!S)
        return Mismatch(Next, "a value with a text form");
      Out += *S;
      ++Next;
    }
    if (Next != Args.size()) {
      diag(E->getRange(), DiagID::err_call_arity)
          << Name << int64_t(Next) << int64_t(Args.size());
      return std::nullopt;
    }
    return Value::string(Out);
  }
  if (Name == "json") {
    if (!Arity(1))
      return std::nullopt;
    if (Args[0].kind() != ValueKind::Map && Args[0].kind() != ValueKind::List)
      return Mismatch(0, "a map or list");
    std::string Why;
    std::optional<std::string> S = renderValue(Args[0], &Why);
    if (!S) {
      diag(E->getArgs()[0].Value->getRange(), DiagID::err_not_terminating)
          << Why;
      return std::nullopt;
    }
    return Value::string(*S);
  }
  // dram_budget
  if (!Arity(1))
    return std::nullopt;
  if (!Args[0].isNumeric())
    return Mismatch(0, "float");
  return dramBudget(Args[0], E, Ctx);
}
