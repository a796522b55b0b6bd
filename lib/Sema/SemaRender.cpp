//===- SemaRender.cpp - What each process of a cell renders ---------------===//
//
// The render half of docs/language.md §3.8, §3.9 and §5: for each process of
// a cell, the engine's knobs (render clauses whose condition holds, in the
// forms flag, `flag "--x="`, each, spread, switch/else, arg, args, env,
// json, yaml and json_file members) and `emit` items, in the merged body of
// the engine and its `extends` parents; the files a process generates
// (`file` statements and the members rendered into them) and the cell's
// own files (recipe-level `file` statements); `none`, which renders
// nothing; and the warning for a knob that was set but renders nothing in
// a cell because every one of its render conditions is false there.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

using namespace arecipe;
using namespace arecipe::sema;

namespace {
using KnobRender = KnobRenderState;

/// The members rendered into one generated file of a process.
struct MemberFile {
  std::string Name;
  Rendering::Kind K;
  Value Map = Value::map({});
};

/// What one process renders besides its argv and environment items.
struct ProcessState {
  std::vector<MemberFile> MemberFiles;
  /// Who rendered each member so far, by (flag or file, member path).
  std::map<std::pair<std::string, std::string>, std::string> Owners;
};
} // namespace

/// Map with member Path set to V; nullopt when Path, or an object on the
/// way to it, is already set.
static std::optional<Value> withMember(const Value &Map,
                                       llvm::ArrayRef<llvm::StringRef> Path,
                                       const Value &V) {
  std::vector<std::pair<Value, Value>> Entries = Map.getEntries();
  for (auto &[K, E] : Entries) {
    if (K.kind() != ValueKind::String || K.getString() != Path[0])
      continue;
    if (Path.size() == 1 || E.kind() != ValueKind::Map)
      return std::nullopt;
    std::optional<Value> Sub = withMember(E, Path.drop_front(), V);
    if (!Sub)
      return std::nullopt;
    E = *Sub;
    return Value::map(std::move(Entries));
  }
  Value Inner = V;
  if (Path.size() > 1)
    Inner = *withMember(Value::map({}), Path.drop_front(), V);
  Entries.emplace_back(Value::string(Path[0].str()), Inner);
  return Value::map(std::move(Entries));
}

/// Checks that a member of a JSON flag or a generated file is rendered
/// once; reports the second knob that renders it, naming the target as
/// `WhereKind 'Target'` (the label is built only then: this runs per
/// member, process and cell).
static bool claimMember(SemaImpl &S, ProcessState &PS, llvm::StringRef Owner,
                        llvm::StringRef Target, llvm::StringRef Key,
                        llvm::StringRef WhereKind, llvm::SMRange Range) {
  for (const auto &[Slot, Prev] : PS.Owners) {
    if (Slot.first != Target)
      continue;
    llvm::StringRef A = Slot.second, B = Key;
    bool Overlap = A == B || (A.startswith(B) && A[B.size()] == '.') ||
                   (B.startswith(A) && B[A.size()] == '.');
    if (!Overlap)
      continue;
    S.diag(Range, DiagID::err_member_conflict)
        << Owner << Key << (WhereKind + " '" + Target + "'").str() << Prev;
    return false;
  }
  PS.Owners[{Target.str(), Key.str()}] = Owner.str();
  return true;
}

static llvm::SmallVector<llvm::StringRef, 4> memberPath(llvm::StringRef Key) {
  llvm::SmallVector<llvm::StringRef, 4> Path;
  Key.split(Path, '.');
  return Path;
}

/// A list whose elements are strings: the words of `args`.
static bool isStringList(const Value &V) {
  return V.kind() == ValueKind::List &&
         llvm::all_of(V.elements(), [](const Value &E) {
           return E.kind() == ValueKind::String;
         });
}

/// Adds the rendering of Value V under clause RI (already past its
/// condition) to Out; false when V renders nothing.
static bool renderValueAs(SemaImpl &S, ProcessState &PS, const RenderInfo &RI,
                          const Value &V, llvm::StringRef Knob,
                          llvm::SMRange Where, std::vector<Rendering> &Out) {
  if (V.isNone())
    return false;
  Rendering R;
  R.K = static_cast<Rendering::Kind>(RI.K);
  R.Target = RI.Target;
  R.Key = RI.Key;
  R.Mode = RI.Mode;
  R.Knob = Knob.str();
  R.V = V;
  switch (RI.K) {
  case RenderInfo::Switch:
    if (V.kind() != ValueKind::Bool)
      return false;
    if (!V.getBool()) {
      if (RI.Negative.empty())
        return false;
      R.Target = RI.Negative;
    }
    break;
  case RenderInfo::Flag:
    if (RI.Mode != Rendering::Single && V.kind() == ValueKind::List &&
        V.listSize() == 0)
      return false;
    break;
  case RenderInfo::Args:
    // A knob whose type is no list was reported where it is declared.
    if (!Knob.empty() && V.kind() != ValueKind::List)
      return false;
    if (!isStringList(V)) {
      S.diag(Where, DiagID::err_type_mismatch)
          << "args"
          << "list<string>" << V.describeType() << V.str();
      return false;
    }
    if (V.listSize() == 0)
      return false;
    break;
  case RenderInfo::Json: {
    if (!claimMember(S, PS, Knob, RI.Target, RI.Key, "flag", Where))
      return false;
    break;
  }
  case RenderInfo::Yaml:
  case RenderInfo::JsonFile: {
    if (!claimMember(S, PS, Knob, RI.Target, RI.Key, "file", Where))
      return false;
    auto File = llvm::find_if(PS.MemberFiles, [&](const MemberFile &F) {
      return F.Name == RI.Target;
    });
    if (File == PS.MemberFiles.end()) {
      PS.MemberFiles.push_back({RI.Target, R.K});
      File = std::prev(PS.MemberFiles.end());
    } else if (File->K != R.K) {
      S.diag(Where, DiagID::err_file_kinds_differ) << RI.Target;
      return false;
    }
    auto Path = memberPath(RI.Key);
    File->Map = *withMember(File->Map, Path, V);
    break;
  }
  default:
    break;
  }
  Out.push_back(std::move(R));
  return true;
}

std::optional<RecipeState::RenderCond>
SemaImpl::renderCondition(RecipeState &R, CellState &CS, const ProcessInfo &P,
                          const ast::Expr *Cond, const EvalCtx &Ctx,
                          llvm::StringRef What) {
  // Engine processes only: a router's or service's conditions read its
  // own knobs.
  bool Cacheable = P.K == ProcessInfo::Engine;
  std::pair<const ast::Expr *, unsigned> Key{Cond, R.roleIndex(P.ValueRole)};
  if (Cacheable)
    if (auto It = R.RenderConds.find(Key); It != R.RenderConds.end())
      return It->second;
  // By the values read: a name read without a role is found where
  // resolveName found it (findCellValue with no role), and only a value
  // already resolved in this cell is compared, so taking the memo skips
  // no resolution that evaluating would have done.
  bool Memoisable = Cacheable && P.ValueRole.empty();
  auto ValueRead = [&](llvm::StringRef Dep) { return memoRead(R, CS, Dep); };
  if (Memoisable)
    if (const RecipeState::RenderCond *Kept =
            R.RenderCondMemos.find(Cond, ValueRead))
      return *Kept;
  std::vector<std::string> Read;
  EvalCtx CondCtx = Ctx;
  CondCtx.Deps = &Read;
  unsigned CellReads = CS.CellReads, ProcessReads = CS.ProcessReads;
  unsigned Errors = Diags.errorCount(), Warnings = Diags.warningCount();
  std::optional<bool> On = evalBool(Cond, CondCtx, What);
  if (!On)
    return std::nullopt;
  RecipeState::RenderCond Result;
  Result.On = *On;
  // A condition the command line made false (`--mode eval` drops the
  // forced acceptance) is deliberate, not a mistake.
  if (!*On)
    Result.FromCommandLine = llvm::any_of(Read, [&](const std::string &N) {
      const ResolvedValue *D = CS.C->find(N, P.ValueRole);
      return D && D->L == Level::CommandLine;
    });
  if (!Cacheable || CS.CellReads != CellReads ||
      CS.ProcessReads != ProcessReads)
    return Result;
  if (R.sameInEveryCell(Read)) {
    R.RenderConds[Key] = Result;
    return Result;
  }
  // Kept for its values when it reported nothing (a later cell taking it
  // would not report either).
  if (Memoisable && Diags.errorCount() == Errors &&
      Diags.warningCount() == Warnings)
    R.RenderCondMemos.add(Cond, std::move(Read), ValueRead, Result);
  return Result;
}

const ResolvedValue *SemaImpl::memoRead(RecipeState &R, CellState &CS,
                                        llvm::StringRef Name) {
  // Found where resolveName found a name read without a role
  // (findCellValue with no role).
  if (Name == "conc" || Name == "concurrency")
    return nullptr;
  return findCellValue(R, CS, Name, "");
}

void SemaImpl::renderProcess(RecipeState &R, CellState &CS, ProcessInfo &P,
                             std::vector<KnobRenderState> &Knobs) {
  const EntityState *Template = &stateOf(*P.Template);
  Knobs.resize(Template->Knobs.size());
  ProcessState PS;
  // A `server = cell(N)` cell starts from N's processes: it renders its own.
  P.Renderings.clear();
  P.Files.clear();
  std::vector<Rendering> &Out = P.Renderings;
  std::vector<std::pair<GeneratedFile, llvm::SMRange>> Files;
  EvalCtx Ctx = processCtx(R, CS, P, Template->Owner, "a rendering");
  // An engine knob's value is the cell's (for the process's role); a
  // router's or service's, the process's own. A process's `port` is the
  // one it was given (`port + i` for the i-th of its template on a node).
  std::optional<ResolvedValue> PortValue;
  auto ValueOf = [&](llvm::StringRef Name) -> const ResolvedValue * {
    const ResolvedValue *RV = P.K == ProcessInfo::Engine
                                  ? findCellValue(R, CS, Name, P.ValueRole)
                                  : P.findKnob(Name);
    if (Name == "port" && P.Port && RV) {
      PortValue = *RV;
      PortValue->V = Value::integer(*P.Port);
      return &*PortValue;
    }
    return RV;
  };

  auto AddFile = [&](const ast::StringLiteral *NameLit, const ast::Expr *Body) {
    std::optional<Value> Name = eval(NameLit, Ctx);
    if (!Name)
      return;
    if (!isValidFileName(Name->getString())) {
      diag(NameLit->getRange(), DiagID::err_bad_file_name) << Name->getString();
      return;
    }
    std::optional<Value> Content = eval(Body, Ctx);
    if (!Content || Content->isNone())
      return;
    if (Content->kind() != ValueKind::String) {
      diag(Body->getRange(), DiagID::err_file_not_string)
          << Name->getString() << Content->describeType() << Content->str();
      return;
    }
    for (const auto &[F, Range] : Files)
      if (F.Name == Name->getString()) {
        auto B = diag(NameLit->getRange(), DiagID::err_file_twice);
        B << F.Name;
        B.note(Range.Start, DiagID::note_file_here) << F.Name << Range;
        return;
      }
    Files.push_back(
        {{Name->getString(), Content->getString()}, NameLit->getRange()});
  };

  // A router's or service's checks and knob constraints hold per process:
  // they may read its render context and its knobs (an engine's run once
  // per cell and role, SemaChecks.cpp).
  if (P.K != ProcessInfo::Engine)
    for (const TemplateMember &Member : Template->Body) {
      Ctx.M = Member.M;
      std::string Label = cellLabel(CS, "");
      if (auto *C = llvm::dyn_cast<ast::CheckStmt>(Member.S)) {
        std::optional<bool> Ok =
            evalBool(C->getCondition(), Ctx, "a check condition");
        if (!Ok || *Ok || !R.TemplateFailures.insert({C, Label}).second)
          continue;
        std::optional<Value> Msg =
            C->getMessage() ? eval(C->getMessage(), Ctx) : std::nullopt;
        auto B =
            report(C->getCondition()->getRange(), DiagID::err_check_failed);
        B << Label
          << (Msg ? Msg->getString()
                  : sourceText(C->getCondition()->getRange()).str());
        explainFailure(C->getCondition(), Ctx, B);
      } else if (auto *K = llvm::dyn_cast<ast::KnobStmt>(Member.S)) {
        const ast::Expr *Constraint = K->getConstraint();
        const ResolvedValue *RV = ValueOf(K->getName().Name);
        if (!Constraint || !RV)
          continue;
        std::optional<bool> Ok = evalBool(Constraint, Ctx, "a constraint");
        if (!Ok || *Ok || !R.TemplateFailures.insert({K, Label}).second)
          continue;
        llvm::SMRange Where = K->getName().Range;
        if (RV->From && RV->From->FormulaRange.isValid() &&
            RV->From->L != Level::Default)
          Where = RV->From->FormulaRange;
        auto B = report(Where, DiagID::err_constraint_failed);
        B << K->getName().Name << RV->V.str() << Label;
        B.note(Constraint->getLoc(), DiagID::note_constraint_here)
            << Constraint->getRange();
        explainFailure(Constraint, Ctx, B);
      }
    }

  for (const TemplateMember &Member : Template->Body) {
    Ctx.M = Member.M;
    if (auto *K = llvm::dyn_cast<ast::KnobStmt>(Member.S)) {
      const KnobInfo *Info =
          Member.Knob >= 0 ? &Template->Knobs[Member.Knob] : nullptr;
      if (!Info || Info->Stmt != K || Info->Renders.empty())
        continue;
      const ResolvedValue *RV = ValueOf(K->getName().Name);
      if (!RV)
        continue;
      KnobRender State;
      for (const RenderInfo &RI : Info->Renders) {
        if (RI.Cond) {
          std::optional<RecipeState::RenderCond> Cond =
              renderCondition(R, CS, P, RI.Cond, Ctx, "a render condition");
          if (!Cond) {
            State.Blocked = false; // An error, not a silent knob.
            continue;
          }
          if (!Cond->On) {
            if (Cond->FromCommandLine)
              State.Blocked = false;
            else if (!State.FalseCond)
              State.FalseCond = RI.Cond;
            continue;
          }
        }
        State.Blocked = false;
        State.Rendered |= renderValueAs(*this, PS, RI, RV->V, Info->Name,
                                        K->getName().Range, Out);
      }
      KnobRenderState &Cell = Knobs[Member.Knob];
      Cell.Rendered |= State.Rendered;
      if (!State.Blocked)
        Cell.Blocked = false;
      if (!Cell.FalseCond)
        Cell.FalseCond = State.FalseCond;
      continue;
    }
    if (auto *F = llvm::dyn_cast<ast::FileStmt>(Member.S)) {
      AddFile(F->getName(), F->getValue());
      continue;
    }
    auto *Emit = llvm::dyn_cast<ast::EmitStmt>(Member.S);
    if (!Emit)
      continue;
    std::optional<RecipeState::RenderCond> On = renderCondition(
        R, CS, P, Emit->getCondition(), Ctx, "an 'emit' condition");
    if (!On || !On->On)
      continue;
    // A knob an item's value reads reaches the command line through it
    // (`flag "--x" = decimal(knob, 2)`): it is rendered, not silent.
    std::vector<std::string> Read;
    EvalCtx ItemCtx = Ctx;
    ItemCtx.Deps = &Read;
    auto MarkRead = [&](bool Rendered) {
      if (Rendered)
        for (const std::string &N : Read)
          if (const KnobInfo *K = Template->findKnob(N))
            Knobs[K - Template->Knobs.data()].Rendered = true;
    };
    for (ast::Stmt *Item : Emit->getBody().Stmts) {
      Read.clear();
      if (auto *F = llvm::dyn_cast<ast::FlagStmt>(Item)) {
        RenderInfo RI;
        RI.K = RenderInfo::Flag;
        RI.Target = F->getFlag()->getPlainValue().str();
        RI.Mode = static_cast<Rendering::ListMode>(F->getListMode());
        if (!F->getValue()) {
          // A flag without a value is a constant word, like a switch.
          Out.push_back({Rendering::Flag, RI.Target, "", RI.Mode, {}, ""});
          continue;
        }
        std::optional<Value> V = eval(F->getValue(), ItemCtx);
        if (!V)
          continue;
        if (RI.Mode != Rendering::Single && !V->isNone() &&
            V->kind() != ValueKind::List) {
          diag(F->getValue()->getRange(), DiagID::err_type_mismatch)
              << ("flag \"" + RI.Target + "\" " +
                  (RI.Mode == Rendering::Each ? "each" : "spread"))
              << "a list" << V->describeType() << V->str();
          continue;
        }
        MarkRead(renderValueAs(*this, PS, RI, *V, "", F->getValue()->getRange(),
                               Out));
      } else if (auto *Sw = llvm::dyn_cast<ast::SwitchStmt>(Item)) {
        RenderInfo RI;
        RI.K = RenderInfo::Switch;
        RI.Target = Sw->getFlag()->getPlainValue().str();
        if (Sw->getNegative())
          RI.Negative = Sw->getNegative()->getPlainValue().str();
        Value V = Value::boolean(true);
        if (Sw->getValue()) {
          std::optional<bool> B =
              evalBool(Sw->getValue(), Ctx, "a switch's value");
          if (!B)
            continue;
          V = Value::boolean(*B);
        }
        size_t Before = Out.size();
        renderValueAs(*this, PS, RI, V, "", Sw->getRange(), Out);
        if (!Sw->getValue() && Out.size() > Before)
          Out.back().V.reset(); // A constant switch has no value to show.
      } else if (auto *A = llvm::dyn_cast<ast::ArgsStmt>(Item)) {
        std::optional<Value> V = eval(A->getValue(), ItemCtx);
        if (!V)
          continue;
        RenderInfo RI;
        RI.K = RenderInfo::Args;
        MarkRead(renderValueAs(*this, PS, RI, *V, "", A->getValue()->getRange(),
                               Out));
      } else if (auto *F = llvm::dyn_cast<ast::FileStmt>(Item)) {
        AddFile(F->getName(), F->getValue());
      } else if (auto *A = llvm::dyn_cast<ast::AssignStmt>(Item);
                 A && A->getPath().size() == 2 &&
                 A->getPath()[0].Name == "env") {
        std::optional<Value> V = eval(A->getValue(), ItemCtx);
        if (!V)
          continue;
        RenderInfo RI;
        RI.K = RenderInfo::Env;
        RI.Target = A->getPath()[1].Name.str();
        MarkRead(renderValueAs(*this, PS, RI, *V, "", A->getValue()->getRange(),
                               Out));
      } else {
        diag(Item->getRange(), DiagID::err_not_allowed_here)
            << "this statement"
            << "an 'emit' block";
      }
    }
  }

  // Files with rendered members: YAML, or JSON with a final newline.
  for (const MemberFile &F : PS.MemberFiles) {
    std::string Why;
    std::optional<std::string> Text =
        F.K == Rendering::Yaml ? renderYAML(F.Map, &Why)
                               : renderJSON(F.Map, /*Spaced=*/false, &Why);
    if (!Text) {
      diag(R.Out->NameRange, DiagID::err_not_terminating) << Why;
      continue;
    }
    if (F.K == Rendering::JsonFile)
      *Text += "\n";
    bool Clash = false;
    for (const auto &[G, Range] : Files)
      if (G.Name == F.Name) {
        auto B = diag(Range, DiagID::err_file_twice);
        B << F.Name;
        Clash = true;
      }
    if (!Clash)
      Files.push_back({{F.Name, *Text}, llvm::SMRange()});
  }
  for (auto &[F, _] : Files)
    P.Files.push_back(std::move(F));
}

void SemaImpl::evaluateRenderings(RecipeState &R, CellState &CS) {
  if (!R.Out->Engine)
    return;
  Cell &C = *CS.C;
  // A cell whose topology could not be laid out still shows one server's
  // renderings.
  if (C.Processes.empty()) {
    ProcessInfo P;
    P.Name = "server";
    P.Role = "server";
    P.Template = R.Out->Engine;
    P.Gpus = C.Gpus;
    C.Processes.push_back(std::move(P));
  }
  // Whether an engine knob rendered, over the engine processes, by the
  // knob's place in R.Engine->Knobs (a vector, not a map by name: this runs
  // per knob, process and cell); routers' and services' knobs are their
  // own.
  std::vector<KnobRenderState> Knobs(R.Engine->Knobs.size());
  unsigned Errors = Diags.errorCount();
  std::vector<KnobRenderState> Other;
  for (ProcessInfo &P : C.Processes) {
    Other.clear();
    renderProcess(R, CS, P, P.K == ProcessInfo::Engine ? Knobs : Other);
  }

  // The cell's files: each process's (one content per name), then the
  // recipe's `file` statements. From[I] wrote C.Files[First + I] (a vector
  // beside the files rather than a map by name: a cell has a few files, and
  // this runs per cell).
  std::vector<const ProcessInfo *> From;
  const size_t First = C.Files.size();
  auto WrittenBy = [&](llvm::StringRef Name) -> const ProcessInfo * {
    for (size_t I = 0; I < From.size(); ++I)
      if (C.Files[First + I].Name == Name)
        return From[I];
    return nullptr;
  };
  for (const ProcessInfo &P : C.Processes)
    for (const GeneratedFile &F : P.Files) {
      auto Same = llvm::find_if(
          C.Files, [&](const GeneratedFile &G) { return G.Name == F.Name; });
      if (Same == C.Files.end()) {
        C.Files.push_back(F);
        From.push_back(&P);
      } else if (Same->Content != F.Content) {
        report(R.Out->NameRange, DiagID::err_file_differs)
            << F.Name << WrittenBy(F.Name)->Name << P.Name << cellLabel(CS);
      }
    }
  // The `file:NAME` values, found by their prefix in the sorted map.
  for (auto It = C.Values.lower_bound(llvm::StringRef("file:"));
       It != C.Values.end() && llvm::StringRef(It->first).startswith("file:");
       ++It) {
    const auto &[Name, RV] = *It;
    if (RV.V.isNone())
      continue;
    std::string File = Name.substr(5);
    if (const ProcessInfo *WriterP = WrittenBy(File)) {
      const Assignment *A = RV.From;
      const ProcessInfo &Writer = *WriterP;
      const char *Kind = Writer.K == ProcessInfo::Engine   ? "engine '"
                         : Writer.K == ProcessInfo::Router ? "router '"
                                                           : "service '";
      report(A ? A->NameRange : R.Out->NameRange, DiagID::err_file_clash)
          << File << (Kind + Writer.Template->Name + "'");
      continue;
    }
    C.Files.push_back({File, RV.V.getString()});
  }

  for (size_t N = 0; N < Knobs.size(); ++N)
    if (!R.Engine->Knobs[N].Renders.empty() && !Knobs[N].Rendered)
      C.Silent.insert(R.Engine->Knobs[N].Name);
  if (Diags.errorCount() > Errors || C.ServerRoot)
    return;
  // A knob the recipe set that renders nothing here because its render
  // conditions are all false: collected, reported once per assignment.
  for (size_t N = 0; N < Knobs.size(); ++N) {
    llvm::StringRef Name = R.Engine->Knobs[N].Name;
    const KnobRenderState &State = Knobs[N];
    if (State.Rendered || !State.Blocked || !State.FalseCond)
      continue;
    const ResolvedValue *RV = C.find(Name, C.Roles.empty() ? "" : C.Roles[0]);
    if (!RV || !RV->From || RV->V.isNone() || RV->L == Level::Default ||
        RV->L == Level::ServerFrom)
      continue;
    SilentKnob &S = R.Silent[RV->From];
    S.Cond = State.FalseCond;
    S.Cells.push_back(C.id());
  }
}

void SemaImpl::reportSilentKnobs(RecipeState &R) {
  for (const AssignmentState *A : R.Assignments) {
    auto It = R.Silent.find(A);
    if (It == R.Silent.end())
      continue;
    const SilentKnob &S = It->second;
    // Silent in some of its cells only: the recipe turns the knob off
    // there on purpose (a band with `draft = 0`), and that is no mistake.
    if (S.Cells.size() < A->EffectiveIn.size())
      continue;
    std::string Cells = S.Cells.size() == 1 ? "cell " : "cells ";
    for (size_t N = 0; N < S.Cells.size(); ++N)
      Cells += (N ? ", " : "") + S.Cells[N];
    diag(A->NameRange, DiagID::warn_knob_renders_nothing)
        << A->Name << Cells << sourceText(S.Cond->getRange());
  }
}

void SemaImpl::checkFileReferences(RecipeState &R) {
  // `file_path(NAME)` must name a file some cell writes; `capture(NAME)` a
  // `preflight capture(NAME, ...)` some cell runs.
  std::set<std::string> Files, Captures;
  for (const Cell &C : R.Out->Cells) {
    for (const GeneratedFile &F : C.Files)
      Files.insert(F.Name);
    for (const PreflightAction &A : C.Preflight)
      if (A.Action == "capture")
        for (const auto &[Param, V] : A.Args)
          if (Param == "name")
            Captures.insert(V.getString());
  }
  auto Check = [&](const std::map<std::string, llvm::SMRange> &Refs,
                   const std::set<std::string> &Known, DiagID ID) {
    for (const auto &[Name, Range] : Refs) {
      if (Known.count(Name))
        continue;
      auto B = diag(Range, ID);
      B << Name;
      didYouMean(B, Range, Name,
                 std::vector<std::string>(Known.begin(), Known.end()));
    }
  };
  if (R.CellsFailed)
    return;
  Check(R.FileRefs, Files, DiagID::err_unknown_file);
  Check(R.CaptureRefs, Captures, DiagID::err_unknown_capture);
}
