//===- SemaModules.cpp - Imports, scopes and name lookup -----------------===//
//
// Loading each imported file once (found and parsed by the front end's
// ModuleLoader), diagnosing missing imports and import cycles, building
// each file's scope with duplicate declarations diagnosed, and looking
// names up in it. Imports are not transitive: a file sees its own
// declarations and those of the files it imports directly.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "SemaImpl.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <set>

using namespace arecipe;
using namespace arecipe::sema;

SemaImpl::SemaImpl(llvm::SourceMgr &SM, DiagnosticEngine &Diags,
                   SemaOptions Opts)
    : SM(SM), Diags(Diags), Opts(std::move(Opts)) {
  Sink = std::make_unique<DiagnosticEngine>(SM, nullptr);
  Sink->setErrorLimit(0);
}

DiagnosticBuilder SemaImpl::diag(llvm::SMRange R, DiagID ID) {
  if (Silent)
    return Sink->report(R, ID);
  bool Fresh = Reported.insert({R.Start.getPointer(), unsigned(ID)}).second;
  if (!Fresh)
    return Sink->report(R, ID);
  return Diags.report(R, ID);
}

DiagnosticBuilder SemaImpl::report(llvm::SMRange R, DiagID ID) {
  if (Silent)
    return Sink->report(R, ID);
  return Diags.report(R, ID);
}

DiagnosticBuilder SemaImpl::diag(llvm::SMLoc L, DiagID ID) {
  return diag(llvm::SMRange(L, L), ID);
}

std::string SemaImpl::cellLabel(const CellState &CS, llvm::StringRef Role) {
  std::string L = CS.C->label();
  return Role.empty() ? L : L + " (" + Role.str() + ")";
}

std::string SemaImpl::cellSuffix(const EvalCtx &E) const {
  if (E.Cell)
    return " in cell " + cellLabel(*E.Cell, E.Role);
  if (E.Conc)
    return " for conc=" + std::to_string(*E.Conc);
  return "";
}

llvm::StringRef SemaImpl::sourceText(llvm::SMRange R) const {
  if (!R.isValid())
    return {};
  return llvm::StringRef(R.Start.getPointer(),
                         R.End.getPointer() - R.Start.getPointer());
}

const EnumInfo *SemaImpl::builtinEnum(llvm::StringRef Name) const {
  return builtins().enumNamed(Name);
}

Module *SemaImpl::loadModule(const SourceFile &File) {
  auto Owned = std::make_unique<Module>();
  Module &M = *Owned;
  Modules.push_back(std::move(Owned));
  M.Name = SM.getMemoryBuffer(File.BufferID)->getBufferIdentifier().str();
  M.RealPath = File.RealPath;
  M.BufferID = File.BufferID;
  M.AST = File.AST;
  ast::File *F = File.AST;
  if (!F)
    return &M;

  for (ast::Decl *D : F->getDecls()) {
    if (auto *E = llvm::dyn_cast<ast::EntityDecl>(D)) {
      auto Info = std::make_unique<EntityState>();
      Info->K = static_cast<EntityInfo::Kind>(E->getEntityKind());
      Info->Name = E->getName().Name.str();
      Info->Decl = E;
      Info->Owner = &M;
      Symbol S;
      S.K = Symbol::Entity;
      S.Ent = Info.get();
      S.NameRange = E->getName().Range;
      Entities.push_back(std::move(Info));
      declare(M, E->getName().Name, S);
    } else if (auto *E = llvm::dyn_cast<ast::EnumDecl>(D)) {
      auto Info = std::make_unique<EnumInfo>();
      Info->Name = E->getName().Name.str();
      Info->Loc = E->getName().Range;
      for (const ast::Identifier &Mem : E->getMembers()) {
        if (Info->hasMember(Mem.Name)) {
          diag(Mem.Range, DiagID::err_redefinition) << Mem.Name;
          Diags.report(Info->Loc, DiagID::note_previous_definition)
              << Info->Name;
          continue;
        }
        Info->Members.push_back(Mem.Name.str());
      }
      Symbol S;
      S.K = Symbol::Enum;
      S.En = Info.get();
      S.NameRange = E->getName().Range;
      M.VisibleEnums.push_back(Info.get());
      Enums.push_back(std::move(Info));
      declare(M, E->getName().Name, S);
    } else if (auto *L = llvm::dyn_cast<ast::LetDecl>(D)) {
      auto Info = std::make_unique<ConstantInfo>();
      Info->Decl = L;
      Info->Owner = &M;
      Symbol S;
      S.K = Symbol::Constant;
      S.Const = Info.get();
      S.NameRange = L->getName().Range;
      Constants.push_back(std::move(Info));
      declare(M, L->getName().Name, S);
    }
  }

  M.Loading = true;
  LoadStack.push_back(&M);
  for (ast::ImportDecl *Imp : F->getImports()) {
    Module *Target = importModule(M, *Imp);
    if (!Target)
      continue;
    if (!Imp->getAlias().empty()) {
      Symbol S;
      S.K = Symbol::Alias;
      S.Target = Target;
      S.NameRange = Imp->getAlias().Range;
      declare(M, Imp->getAlias().Name, S);
      continue;
    }
    if (std::find(M.Unqualified.begin(), M.Unqualified.end(), Target) !=
        M.Unqualified.end())
      continue;
    // Two declarations of one name visible in this file: the importer's own
    // or an earlier import's come first.
    for (auto &Entry : Target->Own) {
      if (Entry.second.K == Symbol::Alias)
        continue;
      const Symbol *Prev = lookupSymbol(M, Entry.first());
      if (Prev && !(Prev->Owner == Target)) {
        diag(Imp->getRange(), DiagID::err_redefinition) << Entry.first();
        Diags.report(Prev->NameRange, DiagID::note_previous_definition)
            << Entry.first();
      }
    }
    M.Unqualified.push_back(Target);
    for (auto &Entry : Target->Own)
      if (Entry.second.K == Symbol::Enum)
        M.VisibleEnums.push_back(Entry.second.En);
  }
  LoadStack.pop_back();
  M.Loading = false;
  return &M;
}

void SemaImpl::declare(Module &M, llvm::StringRef Name, Symbol S) {
  S.Owner = &M;
  auto [It, Inserted] = M.Own.try_emplace(Name, S);
  if (!Inserted) {
    diag(S.NameRange, DiagID::err_redefinition) << Name;
    Diags.report(It->second.NameRange, DiagID::note_previous_definition)
        << Name;
  }
}

Module *SemaImpl::importModule(Module &From, const ast::ImportDecl &Imp) {
  llvm::StringRef Target = Imp.getTarget()->getPlainValue();
  llvm::SMRange Where = Imp.getTarget()->getRange();
  std::optional<ImportTarget> Found =
      Opts.Loader->find(Target, From.RealPath, From.Name);
  if (!Found) {
    diag(Where, DiagID::err_import_not_found) << Target;
    return nullptr;
  }
  for (const auto &Loaded : Modules) {
    if (Loaded->RealPath != Found->RealPath)
      continue;
    if (Loaded->Loading) {
      std::string Cycle;
      auto It = std::find(LoadStack.begin(), LoadStack.end(), Loaded.get());
      for (; It != LoadStack.end(); ++It)
        Cycle += (*It)->Name + " -> ";
      Cycle += Loaded->Name;
      diag(Where, DiagID::err_import_cycle) << Cycle;
      return nullptr;
    }
    return Loaded.get();
  }
  std::optional<SourceFile> File = Opts.Loader->load(*Found, Where);
  if (!File)
    return nullptr;
  return loadModule(*File);
}

const Symbol *SemaImpl::lookupSymbol(Module &M, llvm::StringRef Name) {
  auto It = M.Own.find(Name);
  if (It != M.Own.end())
    return &It->second;
  for (Module *I : M.Unqualified) {
    auto J = I->Own.find(Name);
    if (J != I->Own.end() && J->second.K != Symbol::Alias)
      return &J->second;
  }
  return nullptr;
}

std::vector<const EnumInfo *> SemaImpl::enumsWithMember(Module &M,
                                                        llvm::StringRef Name) {
  std::vector<const EnumInfo *> Out;
  for (const EnumInfo *E : M.VisibleEnums)
    if (E->hasMember(Name))
      Out.push_back(E);
  if (Out.empty())
    for (const EnumInfo &E : builtins().Enums)
      if (E.hasMember(Name))
        Out.push_back(&E);
  return Out;
}

bool SemaImpl::loadModules(const SourceFile &MainFile) {
  Main = loadModule(MainFile);
  // Declarations of every loaded file are checked even when unused, so a
  // mistake in std/ shows up where it is, not in the first recipe using it.
  for (const auto &E : Entities)
    if (E->K != EntityInfo::Recipe)
      evaluateEntityFields(*E);
    else
      resolveParent(*E); // Only to report that a recipe cannot extend.
  for (const auto &C : Constants)
    constantValue(*C, C->Decl->getName().Range);
  Sink->flush();
  return !Diags.hasErrors();
}

bool SemaImpl::analyze(std::vector<SetOption> Sets) {
  SetOptions = std::move(Sets);
  if (Main && Main->AST)
    for (ast::Decl *D : Main->AST->getDecls())
      if (auto *E = llvm::dyn_cast<ast::EntityDecl>(D))
        if (E->getEntityKind() == ast::EntityKind::Recipe)
          if (const Symbol *S = lookupSymbol(*Main, E->getName().Name))
            if (S->K == Symbol::Entity && S->Ent->Decl == E)
              analyzeRecipe(*S->Ent);
  // A `tune` block of the main file may name a recipe it imports: that
  // recipe is analysed as if it were the file's own (docs/tuning.md).
  std::set<const ast::EntityDecl *> Tuned;
  if (Main && Main->AST)
    for (ast::Decl *D : Main->AST->getDecls())
      if (auto *T = llvm::dyn_cast<ast::TuneDecl>(D))
        if (const Symbol *S = lookupSymbol(*Main, T->getRecipe().Name))
          if (S->K == Symbol::Entity && S->Ent->Decl &&
              S->Ent->Decl->getEntityKind() == ast::EntityKind::Recipe &&
              !llvm::is_contained(Main->AST->getDecls(), S->Ent->Decl) &&
              Tuned.insert(S->Ent->Decl).second)
            analyzeRecipe(*S->Ent);
  Sink->flush();
  return !Diags.hasErrors();
}

void SemaImpl::didYouMean(DiagnosticBuilder &B, llvm::SMRange Range,
                          llvm::StringRef Name,
                          const std::vector<std::string> &Candidates) const {
  std::optional<std::string> Best = suggestSpelling(Name, Candidates);
  if (!Best)
    return;
  DiagnosticBuilder Note = B.note(Range.Start, DiagID::note_did_you_mean);
  Note << *Best << Range;
  llvm::StringRef Written = sourceText(Range);
  if (Written.empty() || !Name.endswith(Written))
    return;
  llvm::StringRef Prefix = Name.drop_back(Written.size());
  if (llvm::StringRef(*Best).startswith(Prefix))
    Note << FixIt::replace(Range,
                           llvm::StringRef(*Best).drop_front(Prefix.size()));
}

// Compilation --------------------------------------------------------------

ModuleLoader::~ModuleLoader() = default;

const KnobInfo *EntityState::findKnob(llvm::StringRef Name) const {
  if (KnobsIndexed != Knobs.size()) {
    KnobIndex.clear();
    for (size_t N = 0; N < Knobs.size(); ++N)
      KnobIndex.try_emplace(Knobs[N].Name, N);
    KnobsIndexed = Knobs.size();
  }
  auto It = KnobIndex.find(Name);
  return It == KnobIndex.end() ? nullptr : &Knobs[It->second];
}

void AssignmentState::setValueExpr(const ast::Expr *E) {
  ValueExpr = E;
  FormulaRange = E ? E->getRange() : llvm::SMRange();
}

Compilation::Compilation(llvm::SourceMgr &SM, DiagnosticEngine &Diags,
                         SemaOptions Opts)
    : Impl(std::make_unique<SemaImpl>(SM, Diags, std::move(Opts))) {}

Compilation::~Compilation() = default;

bool Compilation::loadModules(const SourceFile &Main) {
  return Impl->loadModules(Main);
}

bool Compilation::analyze(std::vector<SetOption> Sets) {
  return Impl->analyze(std::move(Sets));
}

llvm::ArrayRef<std::unique_ptr<RecipeCells>> Compilation::recipes() const {
  return Impl->Recipes;
}

std::vector<SourceFile> Compilation::files() const {
  std::vector<SourceFile> Files;
  for (const auto &M : Impl->Modules)
    Files.push_back({M->BufferID, M->AST, M->RealPath});
  return Files;
}

std::vector<const AtConcInfo *> Compilation::atConcBlocks() const {
  std::vector<const AtConcInfo *> Blocks;
  for (const auto &A : Impl->Ats)
    Blocks.push_back(A.get());
  return Blocks;
}

const llvm::SourceMgr &Compilation::getSourceMgr() const { return Impl->SM; }
