//===- SemaExpr.cpp - Evaluating expressions exactly ---------------------===//
//
// The evaluator of docs/language.md §6: exact integers (overflow is an
// error), exact rationals for floats, dimension-checked quantities, shell
// division (`/` truncates toward zero, `%` keeps the dividend's sign),
// lists, ranges, maps, strings with interpolation, conditionals, indexing,
// members and `as UNIT` conversions. Names are resolved here: in a cell,
// recipe names are late-bound through resolveName(); elsewhere only
// constants are visible.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

using namespace arecipe;
using namespace arecipe::sema;

static bool isCellMapPrefix(llvm::StringRef N) {
  return N == "env" || N == "labels" || N == "client" || N == "profile" ||
         N == "slurm" || N == "ready" || N == "services";
}

std::vector<std::string> SemaImpl::namesVisible(const EvalCtx &Ctx) {
  std::vector<std::string> Out;
  for (const LocalScope *L = Ctx.Locals; L; L = L->Outer)
    Out.push_back(L->Name.str());
  if (Ctx.Recipe)
    for (const auto &[N, _] : Ctx.Recipe->Names)
      if (N.find('.') == std::string::npos)
        Out.push_back(N);
  for (auto &E : Ctx.M->Own)
    Out.push_back(E.first().str());
  for (Module *I : Ctx.M->Unqualified)
    for (auto &E : I->Own)
      Out.push_back(E.first().str());
  for (const EnumInfo *E : Ctx.M->VisibleEnums)
    for (const std::string &Mem : E->Members)
      Out.push_back(Mem);
  return Out;
}

std::optional<Value> SemaImpl::evalName(const ast::NameExpr *E,
                                        const EvalCtx &Ctx) {
  llvm::StringRef Name = E->getName().Name;
  for (const LocalScope *L = Ctx.Locals; L; L = L->Outer)
    if (L->Name == Name)
      return L->V;
  if (Ctx.Expected && Ctx.Expected->K == Type::Enum &&
      Ctx.Expected->EnumType && Ctx.Expected->EnumType->hasMember(Name))
    return Value::enumMember(Ctx.Expected->EnumType, Name);

  // The render context of a process (`role`, `node`, a router's knobs).
  if (Ctx.Process || Ctx.Instance)
    if (std::optional<Value> V = lookupProcessName(Ctx, Name, E->getRange())) {
      if (Ctx.Cell)
        ++Ctx.Cell->ProcessReads;
      return V;
    }

  if (RecipeState::NameSlot *Slot = Ctx.Recipe ? &Ctx.Recipe->slot(E) : nullptr;
      Slot && Slot->CN) {
    // The slot is handed on: one hash of the name per read, not two.
    if (Ctx.Cell)
      return resolveName(*Ctx.Cell, Name, E->getRange(), Ctx.Deps, Ctx.Role,
                         Ctx.Cell->R == Ctx.Recipe ? Slot : nullptr);
    diag(E->getRange(), DiagID::err_not_constant) << Name << Ctx.What;
    return std::nullopt;
  }

  if (const Symbol *S = lookupSymbol(*Ctx.M, Name)) {
    switch (S->K) {
    case Symbol::Entity:
      return Value::entity(S->Ent);
    case Symbol::Constant:
      return constantValue(*S->Const, E->getRange());
    case Symbol::Enum:
      diag(E->getRange(), DiagID::err_not_allowed_here)
          << ("enum '" + Name.str() + "'") << "an expression";
      return std::nullopt;
    case Symbol::Alias:
      diag(E->getRange(), DiagID::err_not_allowed_here)
          << ("import alias '" + Name.str() + "'")
          << "an expression without a member";
      return std::nullopt;
    }
  }

  std::vector<const EnumInfo *> Enums = enumsWithMember(*Ctx.M, Name);
  if (Enums.size() == 1)
    return Value::enumMember(Enums[0], Name);
  if (Enums.size() > 1) {
    std::string List;
    for (size_t N = 0; N < Enums.size(); ++N)
      List += (N ? (N + 1 == Enums.size() ? " and '" : ", '") : "'") +
              Enums[N]->Name + "'";
    diag(E->getRange(), DiagID::err_ambiguous_name) << Name << List;
    return std::nullopt;
  }

  if (isBuiltinFunction(Name)) {
    diag(E->getRange(), DiagID::err_not_allowed_here)
        << ("built-in function '" + Name.str() + "'")
        << "an expression without a call";
    return std::nullopt;
  }
  std::vector<std::string> Visible = namesVisible(Ctx);
  auto B = diag(E->getRange(), DiagID::err_undeclared_name);
  B << Name;
  // `image = rocm`, `--set env.X=on`: a string needs its quotes.
  if (!suggestSpelling(Name, Visible) && Ctx.Expected &&
      (Ctx.Expected->K == Type::String || Ctx.Expected->K == Type::Scalar)) {
    std::string Quoted = "\"" + Name.str() + "\"";
    B.note(E->getLoc(), DiagID::note_did_you_mean_string)
        << Quoted << E->getRange() << FixIt::replace(E->getRange(), Quoted);
    return std::nullopt;
  }
  didYouMean(B, E->getRange(), Name, Visible);
  return std::nullopt;
}

bool SemaImpl::tooLarge(uint64_t Size, llvm::SMRange Where,
                        llvm::StringRef What) {
  if (Size <= MaxValueSize)
    return false;
  diag(Where, DiagID::err_value_too_large) << What << MaxValueSize;
  return true;
}

std::optional<Value> SemaImpl::admit(Value V, llvm::SMRange Where,
                                     llvm::StringRef What) {
  if (tooLarge(V.size(), Where, What))
    return std::nullopt;
  // What this value holds that no other value holds already: its string,
  // its own elements, its entries.
  uint64_t Made = 0;
  switch (V.kind()) {
  case ValueKind::String:
    Made = V.size();
    break;
  case ValueKind::List:
    Made = V.listStoredElements();
    break;
  case ValueKind::Map:
  case ValueKind::Record:
    Made = V.getEntries().size();
    break;
  default:
    break;
  }
  ValuesTotal += Made;
  if (ValuesTotal <= MaxValuesTotal)
    return V;
  // Once is enough: every later value fails the same way.
  if (!ValuesTotalReported) {
    ValuesTotalReported = true;
    Diags.report(Where, DiagID::err_values_too_large) << MaxValuesTotal;
  }
  return std::nullopt;
}

std::optional<bool> SemaImpl::evalBool(const ast::Expr *E, const EvalCtx &Ctx,
                                       llvm::StringRef What) {
  std::optional<Value> V = eval(E, Ctx);
  if (!V)
    return std::nullopt;
  if (V->kind() != ValueKind::Bool) {
    diag(E->getRange(), DiagID::err_not_bool)
        << What << V->describeType() << V->str();
    return std::nullopt;
  }
  return V->getBool();
}

std::optional<int64_t> SemaImpl::evalInt(const ast::Expr *E,
                                         const EvalCtx &Ctx,
                                         llvm::StringRef What) {
  std::optional<Value> V = eval(E, Ctx);
  if (!V)
    return std::nullopt;
  if (V->kind() != ValueKind::Int) {
    diag(E->getRange(), DiagID::err_type_mismatch)
        << What << "int" << V->describeType() << V->str();
    return std::nullopt;
  }
  return V->getInt();
}

void SemaImpl::reportNumericError(NumericError Err, llvm::SMRange R,
                                  llvm::StringRef OpText, const Value &L,
                                  const Value &Rv, const EvalCtx &Ctx) {
  switch (Err) {
  case NumericError::DivisionByZero:
    diag(R, DiagID::err_division_by_zero) << cellSuffix(Ctx);
    return;
  case NumericError::NotTerminating:
    diag(R, DiagID::err_not_terminating) << L.str();
    return;
  case NumericError::DimensionMismatch:
    diag(R, DiagID::err_unit_mismatch)
        << (OpText == "+"   ? "add"
            : OpText == "-" ? "subtract"
                            : "compare")
        << L.describeType() << Rv.describeType() << L.str() << Rv.str();
    return;
  default:
    diag(R, DiagID::err_arith_overflow) << sourceText(R) << cellSuffix(Ctx);
    return;
  }
}

static Quantity asQuantity(const Value &V) {
  if (V.kind() == ValueKind::Quantity)
    return V.getQuantity();
  return Quantity::number(V.getNumber());
}

std::optional<Value> SemaImpl::arith(ast::BinaryOp Op, const Value &L,
                                     const Value &R, const ast::BinaryExpr *E,
                                     const EvalCtx &Ctx) {
  llvm::StringRef OpText = ast::getSpelling(Op);
  bool LQ = L.kind() == ValueKind::Quantity, RQ = R.kind() == ValueKind::Quantity;
  auto Invalid = [&]() -> std::optional<Value> {
    diag(E->getOpRange(), DiagID::err_invalid_operands)
        << OpText << (L.describeType() + " " + L.str())
        << (R.describeType() + " " + R.str());
    return std::nullopt;
  };
  if (L.kind() == ValueKind::List && R.kind() == ValueKind::List) {
    if (Op != ast::BinaryOp::Add)
      return Invalid();
    uint64_t Size = L.listSize() + R.listSize();
    if (Size > (uint64_t)MaxListElements) {
      diag(E->getOpRange(), DiagID::err_concat_too_large)
          << sourceText(E->getRange()) << int64_t(Size) << MaxListElements;
      return std::nullopt;
    }
    // Ranges in either list stay ranges.
    ListBuilder Out;
    for (const Value *Part : {&L, &R})
      Part->forEachRun(
          [&](llvm::ArrayRef<Value> Run) {
            for (const Value &V : Run)
              Out.add(V);
          },
          [&](int64_t Lo, int64_t Step, uint64_t Count) {
            Out.addSteps(Lo, Step, Count);
          });
    return admit(Out.take(), E->getRange(), "this list");
  }
  if ((LQ || L.isNumeric()) && (RQ || R.isNumeric()) && (LQ || RQ)) {
    if (Op == ast::BinaryOp::Rem)
      return Invalid();
    Quantity A = asQuantity(L), B = asQuantity(R);
    NumericResult<Quantity> Res = Op == ast::BinaryOp::Add   ? A.add(B)
                                  : Op == ast::BinaryOp::Sub ? A.sub(B)
                                  : Op == ast::BinaryOp::Mul ? A.mul(B)
                                                             : A.div(B);
    if (!Res) {
      reportNumericError(Res.error(), E->getRange(), OpText, L, R, Ctx);
      return std::nullopt;
    }
    return Value::quantity(*Res);
  }
  if (L.kind() == ValueKind::Int && R.kind() == ValueKind::Int) {
    int64_t A = L.getInt(), B = R.getInt(), Out = 0;
    bool Overflow = false;
    switch (Op) {
    case ast::BinaryOp::Add:
      Overflow = __builtin_add_overflow(A, B, &Out);
      break;
    case ast::BinaryOp::Sub:
      Overflow = __builtin_sub_overflow(A, B, &Out);
      break;
    case ast::BinaryOp::Mul:
      Overflow = __builtin_mul_overflow(A, B, &Out);
      break;
    case ast::BinaryOp::Div:
    case ast::BinaryOp::Rem: {
      NumericResult<int64_t> Res = Op == ast::BinaryOp::Div
                                       ? divideTowardZero(A, B)
                                       : remainderTowardZero(A, B);
      if (!Res) {
        reportNumericError(Res.error(), E->getRange(), OpText, L, R, Ctx);
        return std::nullopt;
      }
      return Value::integer(*Res);
    }
    default:
      return Invalid();
    }
    if (Overflow) {
      diag(E->getRange(), DiagID::err_arith_overflow)
          << sourceText(E->getRange()) << cellSuffix(Ctx);
      return std::nullopt;
    }
    return Value::integer(Out);
  }
  if (L.isNumeric() && R.isNumeric()) {
    Rational A = L.getNumber(), B = R.getNumber();
    NumericResult<Rational> Res = Rational();
    switch (Op) {
    case ast::BinaryOp::Add:
      Res = A.add(B);
      break;
    case ast::BinaryOp::Sub:
      Res = A.sub(B);
      break;
    case ast::BinaryOp::Mul:
      Res = A.mul(B);
      break;
    case ast::BinaryOp::Div:
      Res = A.div(B);
      break;
    default:
      return Invalid();
    }
    if (!Res) {
      reportNumericError(Res.error(), E->getRange(), OpText, L, R, Ctx);
      return std::nullopt;
    }
    return Value::number(*Res);
  }
  return Invalid();
}

std::optional<Value> SemaImpl::compare(ast::BinaryOp Op, const Value &L,
                                       const Value &R,
                                       const ast::BinaryExpr *E,
                                       const EvalCtx &Ctx) {
  llvm::StringRef OpText = ast::getSpelling(Op);
  auto Invalid = [&]() -> std::optional<Value> {
    diag(E->getOpRange(), DiagID::err_invalid_operands)
        << OpText << (L.describeType() + " " + L.str())
        << (R.describeType() + " " + R.str());
    return std::nullopt;
  };
  bool LQ = L.kind() == ValueKind::Quantity, RQ = R.kind() == ValueKind::Quantity;
  if (Op == ast::BinaryOp::In) {
    if (R.kind() == ValueKind::Range) {
      if (L.kind() != ValueKind::Int)
        return Invalid();
      return Value::boolean(
          rangeContains(R.getLo(), R.getHi(), R.getStep(), L.getInt()));
    }
    if (R.kind() == ValueKind::List) {
      for (Value X : R.elements())
        if (X == L)
          return Value::boolean(true);
      return Value::boolean(false);
    }
    if (R.kind() == ValueKind::Map) {
      for (const auto &[K, _] : R.getEntries())
        if (K == L)
          return Value::boolean(true);
      return Value::boolean(false);
    }
    return Invalid();
  }
  if (LQ || RQ) {
    if (!(LQ || L.isNumeric()) || !(RQ || R.isNumeric()))
      return L.isNone() || R.isNone() ? std::optional<Value>(Value::boolean(
                                            Op == ast::BinaryOp::Ne))
                                      : Invalid();
    NumericResult<std::strong_ordering> C = asQuantity(L).compare(asQuantity(R));
    if (!C) {
      reportNumericError(C.error(), E->getRange(), OpText, L, R, Ctx);
      return std::nullopt;
    }
    std::strong_ordering O = *C;
    switch (Op) {
    case ast::BinaryOp::Eq:
      return Value::boolean(O == 0);
    case ast::BinaryOp::Ne:
      return Value::boolean(O != 0);
    case ast::BinaryOp::Lt:
      return Value::boolean(O < 0);
    case ast::BinaryOp::Le:
      return Value::boolean(O <= 0);
    case ast::BinaryOp::Gt:
      return Value::boolean(O > 0);
    default:
      return Value::boolean(O >= 0);
    }
  }
  if (Op == ast::BinaryOp::Eq || Op == ast::BinaryOp::Ne) {
    bool Comparable = L.isNone() || R.isNone() || L.kind() == R.kind() ||
                      (L.isNumeric() && R.isNumeric());
    if (!Comparable)
      return Invalid();
    return Value::boolean((L == R) == (Op == ast::BinaryOp::Eq));
  }
  if (!L.isNumeric() || !R.isNumeric())
    return Invalid();
  std::strong_ordering O = L.getNumber() <=> R.getNumber();
  switch (Op) {
  case ast::BinaryOp::Lt:
    return Value::boolean(O < 0);
  case ast::BinaryOp::Le:
    return Value::boolean(O <= 0);
  case ast::BinaryOp::Gt:
    return Value::boolean(O > 0);
  default:
    return Value::boolean(O >= 0);
  }
}

std::optional<Value> SemaImpl::evalBinary(const ast::BinaryExpr *E,
                                          const EvalCtx &Ctx) {
  ast::BinaryOp Op = E->getOp();
  EvalCtx Inner = Ctx;
  Inner.Expected = nullptr;
  if (Op == ast::BinaryOp::And || Op == ast::BinaryOp::Or) {
    // Literal text: a condition is evaluated in every cell and process,
    // and a string built here was a malloc each time.
    llvm::StringRef What = Op == ast::BinaryOp::And ? "the operand of 'and'"
                                                    : "the operand of 'or'";
    std::optional<bool> L = evalBool(E->getLHS(), Inner, What);
    if (!L)
      return std::nullopt;
    if (*L == (Op == ast::BinaryOp::Or))
      return Value::boolean(*L);
    std::optional<bool> R = evalBool(E->getRHS(), Inner, What);
    if (!R)
      return std::nullopt;
    return Value::boolean(*R);
  }
  std::optional<Value> L = eval(E->getLHS(), Inner);
  if (!L)
    return std::nullopt;
  // `mode != eval`: a bare name compared with an enum is that enum's member.
  Type EnumCtx;
  EvalCtx RCtx = Inner;
  if (L->kind() == ValueKind::Enum && ast::isComparison(Op)) {
    EnumCtx = Type::enumOf(L->getEnum());
    RCtx.Expected = &EnumCtx;
  }
  std::optional<Value> R = eval(E->getRHS(), RCtx);
  if (!R)
    return std::nullopt;
  if (ast::isComparison(Op))
    return compare(Op, *L, *R, E, Ctx);
  return arith(Op, *L, *R, E, Ctx);
}

std::optional<Value> SemaImpl::evalString(const ast::StringLiteral *E,
                                          const EvalCtx &Ctx) {
  std::string Out;
  for (const ast::StringPart &P : E->getParts()) {
    if (!P.Interpolation) {
      if (tooLarge(Out.size() + P.Text.size(), E->getRange(), "this string"))
        return std::nullopt;
      Out += P.Text.str();
      continue;
    }
    EvalCtx Inner = Ctx;
    Inner.Expected = nullptr;
    std::optional<Value> V = eval(P.Interpolation, Inner);
    if (!V)
      return std::nullopt;
    std::string Why;
    std::optional<std::string> S = renderValue(*V, &Why);
    if (!S) {
      if (V->kind() == ValueKind::Float)
        diag(P.Range, DiagID::err_not_terminating) << V->str();
      else
        diag(P.Range, DiagID::err_type_mismatch)
            << "'${...}'" << "a value with a text form" << V->describeType()
            << V->str();
      return std::nullopt;
    }
    if (tooLarge(Out.size() + S->size(), E->getRange(), "this string"))
      return std::nullopt;
    Out += *S;
  }
  return admit(Value::string(std::move(Out)), E->getRange(), "this string");
}

std::optional<Value> SemaImpl::evalList(const ast::ListExpr *E,
                                        const EvalCtx &Ctx) {
  ListBuilder Out;
  EvalCtx Inner = Ctx;
  const Type *ElemTy = nullptr;
  if (Ctx.Expected && Ctx.Expected->K == Type::List &&
      !Ctx.Expected->Args.empty())
    ElemTy = &Ctx.Expected->Args[0];
  Inner.Expected = ElemTy;
  bool Spliced = false;
  for (const ast::Expr *Elem : E->getElements()) {
    std::optional<Value> V = eval(Elem, Inner);
    if (!V)
      return std::nullopt;
    if (V->kind() == ValueKind::Range) {
      Spliced = true;
      if ((V->getStep() > 0 && V->getLo() > V->getHi()) ||
          (V->getStep() < 0 && V->getLo() < V->getHi())) {
        diag(Elem->getRange(), DiagID::err_empty_range)
            << V->getLo() << V->getHi();
        return std::nullopt;
      }
      // At most MaxListElements (F12). The list keeps the range as its
      // bounds: `[2 .. graph_max]` costs the same in every cell, whatever
      // its length.
      uint64_t N = rangeSize(V->getLo(), V->getHi(), V->getStep());
      if (N > (uint64_t)MaxListElements - Out.size()) {
        diag(Elem->getRange(), DiagID::err_list_too_large)
            << V->str() << MaxListElements;
        return std::nullopt;
      }
      Out.addRange(V->getLo(), V->getHi(), V->getStep());
      continue;
    }
    Out.add(std::move(*V));
  }
  // `[4 .. 64 step 4, 64, 100]`: a splice that repeats an element is almost
  // always meant as a set union.
  // (Ranges hold distinct integers: a splice can repeat only when the
  // literal has more than one element; the check sorts a copy.)
  Value List = Out.take();
  if (Spliced && E->getElements().size() > 1) {
    std::vector<std::pair<Value, size_t>> Sorted;
    bool Numbers = true;
    for (Value V : List.elements()) {
      Numbers = Numbers && V.isNumeric();
      Sorted.emplace_back(std::move(V), Sorted.size());
    }
    if (Numbers) {
      std::stable_sort(Sorted.begin(), Sorted.end(),
                       [](const auto &A, const auto &B) {
                         return A.first.getNumber() < B.first.getNumber();
                       });
      // The repeat reported is the first one in list order.
      std::optional<size_t> First;
      for (size_t N = 1; N < Sorted.size(); ++N)
        if (Sorted[N].first == Sorted[N - 1].first &&
            (!First || Sorted[N].second < *First))
          First = Sorted[N].second;
      if (First)
        diag(E->getRange(), DiagID::warn_splice_duplicate)
            << List.element(*First).str();
    }
  }
  return admit(std::move(List), E->getRange(), "this list");
}

void SemaImpl::warnLinearConcurrency(const ast::Expr *List, Module *M) {
  // InferenceX's conc-start/conc-end with a step multiplies; `[4 .. 256
  // step 2]` written for it makes 127 cells instead of 7.
  auto *L = llvm::dyn_cast_or_null<ast::ListExpr>(List);
  if (!L || L->getElements().size() != 1)
    return;
  auto *R = llvm::dyn_cast<ast::RangeExpr>(L->getElements()[0]);
  if (!R || !R->getStep())
    return;
  EvalCtx Ctx;
  Ctx.M = M;
  Ctx.What = "the recipe's 'concurrency'";
  bool Was = Silent;
  Silent = true;
  std::optional<Value> V = eval(R, Ctx);
  Silent = Was;
  if (!V || V->kind() != ValueKind::Range || V->getStep() != 2)
    return;
  uint64_t Cells = rangeSize(V->getLo(), V->getHi(), V->getStep());
  if (Cells <= 8 || V->getLo() < 1)
    return;
  int64_t Geometric = 1;
  for (int64_t X = V->getLo(); X < V->getHi(); ++Geometric)
    X = X > V->getHi() / 2 ? V->getHi() : X * 2;
  diag(R->getRange(), DiagID::warn_concurrency_linear_step)
      << V->str() << int64_t(Cells) << V->getLo() << V->getHi() << Geometric;
}

std::optional<Value>
SemaImpl::evalComprehension(const ast::ComprehensionExpr *E,
                            const EvalCtx &Ctx) {
  EvalCtx Inner = Ctx;
  Inner.Expected = nullptr;
  std::optional<Value> Source = eval(E->getSource(), Inner);
  if (!Source)
    return std::nullopt;
  // The source as a list; a range stays its bounds (elements() computes
  // each element as the loop reaches it).
  Value Items;
  if (Source->kind() == ValueKind::Range) {
    uint64_t N = rangeSize(Source->getLo(), Source->getHi(), Source->getStep());
    if (N > (uint64_t)MaxListElements) {
      diag(E->getSource()->getRange(), DiagID::err_list_too_large)
          << Source->str() << MaxListElements;
      return std::nullopt;
    }
    ListBuilder B;
    if (N)
      B.addRange(Source->getLo(), Source->getHi(), Source->getStep());
    Items = B.take();
  } else if (Source->kind() == ValueKind::List) {
    Items = *Source;
  } else {
    diag(E->getSource()->getRange(), DiagID::err_comprehension_source)
        << Source->describeType() << Source->str();
    return std::nullopt;
  }
  const Type *ElemTy = nullptr;
  if (Ctx.Expected && Ctx.Expected->K == Type::List &&
      !Ctx.Expected->Args.empty())
    ElemTy = &Ctx.Expected->Args[0];
  ListBuilder Out;
  for (Value Item : Items.elements()) {
    LocalScope Scope{E->getVar().Name, std::move(Item), Ctx.Locals};
    EvalCtx Body = Inner;
    Body.Locals = &Scope;
    if (E->getCondition()) {
      std::optional<bool> Keep =
          evalBool(E->getCondition(), Body, "a comprehension's condition");
      if (!Keep)
        return std::nullopt;
      if (!*Keep)
        continue;
    }
    Body.Expected = ElemTy;
    std::optional<Value> V = eval(E->getElement(), Body);
    if (!V)
      return std::nullopt;
    Out.add(std::move(*V));
  }
  return admit(Out.take(), E->getRange(), "this list");
}

std::optional<Value> SemaImpl::evalMap(const ast::MapExpr *E,
                                       const EvalCtx &Ctx) {
  std::vector<std::pair<Value, Value>> Out;
  EvalCtx Inner = Ctx;
  Inner.Expected = nullptr;
  for (const ast::MapEntry &Entry : E->getEntries()) {
    std::optional<Value> K = eval(Entry.Key, Inner);
    std::optional<Value> V = eval(Entry.Value, Inner);
    if (!K || !V)
      return std::nullopt;
    for (const auto &[PK, _] : Out)
      if (PK == *K) {
        diag(Entry.Key->getRange(), DiagID::err_duplicate_key) << K->str();
        return std::nullopt;
      }
    Out.emplace_back(*K, *V);
  }
  return admit(Value::map(std::move(Out)), E->getRange(), "this map");
}

std::optional<Value> SemaImpl::evalIndex(const ast::IndexExpr *E,
                                         const EvalCtx &Ctx) {
  EvalCtx Inner = Ctx;
  Inner.Expected = nullptr;
  std::optional<Value> Base = eval(E->getBase(), Inner);
  std::optional<Value> Index = eval(E->getIndex(), Inner);
  if (!Base || !Index)
    return std::nullopt;
  if (Base->kind() == ValueKind::List) {
    if (Index->kind() != ValueKind::Int) {
      diag(E->getIndex()->getRange(), DiagID::err_type_mismatch)
          << "a list index" << "int" << Index->describeType() << Index->str();
      return std::nullopt;
    }
    int64_t N = Index->getInt();
    int64_t Size = static_cast<int64_t>(Base->listSize());
    if (N < 0 || N >= Size) {
      diag(E->getIndex()->getRange(), DiagID::err_index_out_of_range)
          << N << Size;
      return std::nullopt;
    }
    return Base->element(N);
  }
  if (Base->kind() == ValueKind::Map) {
    for (const auto &[K, V] : Base->getEntries())
      if (K == *Index)
        return V;
    std::string Keys;
    for (const auto &[K, _] : Base->getEntries())
      Keys += (Keys.empty() ? "" : ", ") + K.str();
    diag(E->getIndex()->getRange(), DiagID::err_missing_key)
        << Index->str() << " (keys: " + Keys + ")";
    return std::nullopt;
  }
  diag(E->getRange(), DiagID::err_invalid_operands)
      << "[]" << (Base->describeType() + " " + Base->str())
      << (Index->describeType() + " " + Index->str());
  return std::nullopt;
}

std::optional<Value> SemaImpl::evalMember(const ast::MemberExpr *E,
                                          const EvalCtx &Ctx) {
  llvm::StringRef Member = E->getMember().Name;
  EvalCtx Inner = Ctx;
  Inner.Expected = nullptr;
  if (auto *N = llvm::dyn_cast<ast::NameExpr>(E->getBase())) {
    llvm::StringRef Base = N->getName().Name;
    // `prefill.tp`: the role's value of a per-role name.
    if (Ctx.Recipe && (Base == "prefill" || Base == "decode") &&
        !Ctx.Recipe->Names.count(Base) && Ctx.Recipe->Names.count(Member)) {
      if (!Ctx.Cell) {
        diag(E->getRange(), DiagID::err_not_constant)
            << (Base + "." + Member).str() << Ctx.What;
        return std::nullopt;
      }
      if (Ctx.Cell->TopologyKnown && !Ctx.Cell->C->isDisaggregated()) {
        diag(N->getRange(), DiagID::err_role_needs_disaggregated)
            << Base << cellLabel(*Ctx.Cell);
        return std::nullopt;
      }
      return resolveName(*Ctx.Cell, Member, E->getRange(), Ctx.Deps, Base);
    }
    if (Ctx.Recipe && isCellMapPrefix(Base) && !Ctx.Recipe->Names.count(Base)) {
      std::string Full = (Base + "." + Member).str();
      if (!Ctx.Cell) {
        diag(E->getRange(), DiagID::err_not_constant) << Full << Ctx.What;
        return std::nullopt;
      }
      if (Ctx.Recipe->Names.count(Full))
        return resolveName(*Ctx.Cell, Full, E->getRange(), Ctx.Deps, Ctx.Role);
      if (Base == "env" || Base == "labels")
        return Value::none();
      diag(E->getMember().Range, DiagID::err_unknown_field)
          << ("'" + Base.str() + "'") << Member;
      return std::nullopt;
    }
    if (!(Ctx.Recipe && Ctx.Recipe->Names.count(Base)))
      if (const Symbol *S = lookupSymbol(*Ctx.M, Base))
        if (S->K == Symbol::Alias) {
          auto It = S->Target->Own.find(Member);
          if (It == S->Target->Own.end()) {
            std::vector<std::string> Names;
            for (auto &Entry : S->Target->Own)
              Names.push_back(Entry.first().str());
            auto B = diag(E->getMember().Range, DiagID::err_unknown_field);
            B << ("'" + S->Target->Name + "'") << Member;
            didYouMean(B, E->getMember().Range, Member, Names);
            return std::nullopt;
          }
          const Symbol &T = It->second;
          if (T.K == Symbol::Entity)
            return Value::entity(T.Ent);
          if (T.K == Symbol::Constant)
            return constantValue(*T.Const, E->getRange());
          diag(E->getRange(), DiagID::err_not_allowed_here)
              << ("'" + Member.str() + "'") << "an expression";
          return std::nullopt;
        }
  }
  std::optional<Value> Base = eval(E->getBase(), Inner);
  if (!Base)
    return std::nullopt;
  if (Base->kind() == ValueKind::Entity)
    return entityField(*Base->getEntity(), Member, E->getMember().Range);
  if (Base->kind() == ValueKind::Record || Base->kind() == ValueKind::Map) {
    if (const Value *V = Base->lookup(Member))
      return *V;
    std::vector<std::string> Fields;
    for (const auto &[K, _] : Base->getEntries())
      if (K.kind() == ValueKind::String)
        Fields.push_back(K.getString());
    auto B = diag(E->getMember().Range, DiagID::err_unknown_field);
    B << Base->str() << Member;
    didYouMean(B, E->getMember().Range, Member, Fields);
    return std::nullopt;
  }
  diag(E->getMember().Range, DiagID::err_unknown_field)
      << (Base->describeType() + " " + Base->str()) << Member;
  return std::nullopt;
}

std::optional<Value> SemaImpl::evalConvert(const ast::ConvertExpr *E,
                                           const EvalCtx &Ctx) {
  EvalCtx Inner = Ctx;
  Inner.Expected = nullptr;
  std::optional<Value> V = eval(E->getOperand(), Inner);
  if (!V)
    return std::nullopt;
  llvm::StringRef UnitName = E->getUnitName().Name;
  std::optional<Unit> U = parseUnit(UnitName);
  if (!U) {
    std::vector<std::string> Names;
    for (Unit X : allUnits())
      Names.push_back(getSymbol(X).str());
    diag(E->getUnitName().Range, DiagID::err_unknown_conversion_unit)
        << UnitName;
    return std::nullopt;
  }
  if (V->kind() != ValueKind::Quantity ||
      V->getQuantity().dimension() != getDimension(*U)) {
    diag(E->getRange(), DiagID::err_conversion_dimension)
        << V->describeType() << V->str() << UnitName;
    return std::nullopt;
  }
  const Quantity &Q = V->getQuantity();
  if (E->getRounding() == ast::RoundingMode::Exact) {
    NumericResult<Rational> R = Q.in(*U);
    if (!R) {
      diag(E->getRange(), DiagID::err_arith_overflow)
          << sourceText(E->getRange()) << cellSuffix(Ctx);
      return std::nullopt;
    }
    if (!R->isInteger()) {
      diag(E->getRange(), DiagID::err_inexact_conversion)
          << V->str() << ("'" + UnitName.str() + "'");
      return std::nullopt;
    }
    return Value::integer(R->numerator());
  }
  Rounding Mode = E->getRounding() == ast::RoundingMode::Floor  ? Rounding::Floor
                  : E->getRounding() == ast::RoundingMode::Ceil ? Rounding::Ceil
                                                                : Rounding::HalfAwayFromZero;
  NumericResult<int64_t> R = Q.to(*U, Mode);
  if (!R) {
    diag(E->getRange(), DiagID::err_arith_overflow)
        << sourceText(E->getRange()) << cellSuffix(Ctx);
    return std::nullopt;
  }
  return Value::integer(*R);
}

std::optional<Value> SemaImpl::evalExactLiteral(const ast::Expr *E) {
  if (auto *F = llvm::dyn_cast<ast::FloatLiteral>(E)) {
    if (NumericResult<Rational> R = Rational::parseDecimal(F->getText()))
      return Value::number(*R);
  } else if (NumericResult<Quantity> Q = Quantity::parseLiteral(
                 llvm::cast<ast::QuantityLiteral>(E)->getText())) {
    return Value::quantity(*Q);
  }
  // The parser checked the literal's form: only its size can fail here.
  diag(E->getRange(), DiagID::err_arith_overflow)
      << sourceText(E->getRange()) << "";
  return std::nullopt;
}

std::optional<Value> SemaImpl::eval(const ast::Expr *E, const EvalCtx &Ctx) {
  switch (E->getKind()) {
  case ast::NodeKind::IntegerLiteral:
    return Value::integer(llvm::cast<ast::IntegerLiteral>(E)->getValue());
  case ast::NodeKind::FloatLiteral:
  case ast::NodeKind::QuantityLiteral:
    return evalExactLiteral(E);
  case ast::NodeKind::BoolLiteral:
    return Value::boolean(llvm::cast<ast::BoolLiteral>(E)->getValue());
  case ast::NodeKind::NoneLiteral:
    return Value::none();
  case ast::NodeKind::ConcExpr:
    if (Ctx.Cell) {
      ++Ctx.Cell->CellReads;
      Ctx.Deps.add("conc");
      return Value::integer(Ctx.Cell->C->Conc);
    }
    if (Ctx.Conc)
      return Value::integer(*Ctx.Conc);
    diag(E->getRange(), DiagID::err_conc_not_available) << Ctx.What;
    return std::nullopt;
  case ast::NodeKind::StringLiteral:
    return evalString(llvm::cast<ast::StringLiteral>(E), Ctx);
  case ast::NodeKind::NameExpr:
    return evalName(llvm::cast<ast::NameExpr>(E), Ctx);
  case ast::NodeKind::ListExpr:
    return evalList(llvm::cast<ast::ListExpr>(E), Ctx);
  case ast::NodeKind::ComprehensionExpr:
    return evalComprehension(llvm::cast<ast::ComprehensionExpr>(E), Ctx);
  case ast::NodeKind::MapExpr:
    return evalMap(llvm::cast<ast::MapExpr>(E), Ctx);
  case ast::NodeKind::UnaryExpr: {
    auto *U = llvm::cast<ast::UnaryExpr>(E);
    EvalCtx Inner = Ctx;
    Inner.Expected = nullptr;
    if (U->getOp() == ast::UnaryOp::Not) {
      std::optional<bool> B = evalBool(U->getOperand(), Inner, "the operand of 'not'");
      if (!B)
        return std::nullopt;
      return Value::boolean(!*B);
    }
    std::optional<Value> V = eval(U->getOperand(), Inner);
    if (!V)
      return std::nullopt;
    if (V->kind() == ValueKind::Int) {
      if (V->getInt() == INT64_MIN) {
        diag(E->getRange(), DiagID::err_arith_overflow)
            << sourceText(E->getRange()) << cellSuffix(Ctx);
        return std::nullopt;
      }
      return Value::integer(-V->getInt());
    }
    if (V->kind() == ValueKind::Float)
      return Value::number(V->getNumber().negate());
    if (V->kind() == ValueKind::Quantity) {
      NumericResult<Quantity> Q =
          V->getQuantity().mul(Quantity::number(Rational(-1)));
      return Value::quantity(*Q);
    }
    diag(E->getRange(), DiagID::err_invalid_operands)
        << "-" << (V->describeType() + " " + V->str()) << "nothing";
    return std::nullopt;
  }
  case ast::NodeKind::BinaryExpr:
    return evalBinary(llvm::cast<ast::BinaryExpr>(E), Ctx);
  case ast::NodeKind::RangeExpr: {
    auto *R = llvm::cast<ast::RangeExpr>(E);
    EvalCtx Inner = Ctx;
    Inner.Expected = nullptr;
    std::optional<int64_t> Lo = evalInt(R->getLo(), Inner, "a range bound");
    std::optional<int64_t> Hi = evalInt(R->getHi(), Inner, "a range bound");
    std::optional<int64_t> Step = int64_t(1);
    if (R->getStep())
      Step = evalInt(R->getStep(), Inner, "a range step");
    if (!Lo || !Hi || !Step)
      return std::nullopt;
    if (*Step == 0) {
      diag(R->getStep()->getRange(), DiagID::err_zero_step);
      return std::nullopt;
    }
    return Value::range(*Lo, *Hi, *Step);
  }
  case ast::NodeKind::ConditionalExpr: {
    auto *C = llvm::cast<ast::ConditionalExpr>(E);
    EvalCtx Inner = Ctx;
    Inner.Expected = nullptr;
    std::optional<bool> B = evalBool(C->getCond(), Inner, "the condition");
    if (!B)
      return std::nullopt;
    return eval(*B ? C->getThen() : C->getElse(), Ctx);
  }
  case ast::NodeKind::CallExpr:
    return evalCall(llvm::cast<ast::CallExpr>(E), Ctx);
  case ast::NodeKind::IndexExpr:
    return evalIndex(llvm::cast<ast::IndexExpr>(E), Ctx);
  case ast::NodeKind::MemberExpr:
    return evalMember(llvm::cast<ast::MemberExpr>(E), Ctx);
  case ast::NodeKind::ConvertExpr:
    return evalConvert(llvm::cast<ast::ConvertExpr>(E), Ctx);
  default:
    return std::nullopt;
  }
}
