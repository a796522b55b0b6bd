//===- ASTBuilder.cpp - ANTLR parse tree to arecipe AST ------------------===//

#include "ASTBuilder.h"

#include "Literals.h"
#include "StringLiteralDecoder.h"

#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/Unit.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>

using namespace arecipe;
using namespace arecipe::parse;
using namespace arecipe::ast;
using llvm::SMRange;
using llvm::StringRef;

/// A context is unusable when its rule caught a syntax error (reported
/// already) or when the parser never reached it.
static bool isBroken(antlr4::ParserRuleContext *C) {
  return !C || C->exception != nullptr;
}

SMRange ASTBuilder::rangeOf(antlr4::Token *T) const {
  if (T->getType() == antlr4::Token::EOF) {
    llvm::SMLoc End = Src.getLoc(Src.getNumCodePoints());
    return {End, End};
  }
  return Src.getRange(T->getStartIndex(), T->getStopIndex());
}

SMRange ASTBuilder::rangeOf(antlr4::ParserRuleContext *C) const {
  antlr4::Token *Start = C->getStart();
  antlr4::Token *Stop = C->getStop();
  SMRange R = rangeOf(Start);
  if (Stop && Stop->getType() != antlr4::Token::EOF &&
      Stop->getTokenIndex() >= Start->getTokenIndex())
    R.End = rangeOf(Stop).End;
  return R;
}

StringRef ASTBuilder::textOf(antlr4::Token *T) const {
  return Src.getBytes(T->getStartIndex(), T->getStopIndex());
}

std::optional<Identifier> ASTBuilder::ident(P::IdentContext *C) {
  if (isBroken(C) || !C->getStart())
    return std::nullopt;
  antlr4::Token *T = C->getStart();
  return Identifier{Ctx.copyString(textOf(T)), rangeOf(T)};
}

//===-- Files and declarations --------------------------------------------===//

File *ASTBuilder::buildFile(P::FileContext *C, StringRef Name, SMRange Range) {
  llvm::SmallVector<ImportDecl *, 8> Imports;
  llvm::SmallVector<Decl *, 16> Decls;
  if (C) {
    for (antlr4::tree::ParseTree *Child : C->children) {
      if (auto *I = dynamic_cast<P::ImportDeclContext *>(Child)) {
        if (ImportDecl *D = buildImport(I))
          Imports.push_back(D);
      } else if (auto *D = dynamic_cast<P::DeclarationContext *>(Child)) {
        if (Decl *Built = buildDecl(D))
          Decls.push_back(Built);
      } else if (auto *T = dynamic_cast<antlr4::tree::TerminalNode *>(Child)) {
        if (T->getSymbol()->getType() == P::SEMI)
          warnExtraSemicolon(T);
      }
    }
  }
  return Ctx.create<File>(Range, Ctx.copyString(Name),
                          Ctx.copyArray(llvm::ArrayRef<ImportDecl *>(Imports)),
                          Ctx.copyArray(llvm::ArrayRef<Decl *>(Decls)));
}

ImportDecl *ASTBuilder::buildImport(P::ImportDeclContext *C) {
  if (isBroken(C) || !C->target)
    return nullptr;
  std::vector<StringPiece> Pieces;
  StringRef Text = textOf(C->target);
  if (!decodeStringLiteral(Text, &Diags, Pieces))
    return nullptr;
  llvm::SmallVector<StringPart, 2> Parts;
  for (StringPiece &Piece : Pieces) {
    if (Piece.IsInterpolation)
      return nullptr; // An import path is a plain string; Sema says so.
    Parts.push_back({Ctx.copyString(Piece.Text), nullptr, Piece.Range});
  }
  auto *Target = Ctx.create<StringLiteral>(
      rangeOf(C->target), false, Ctx.copyArray(llvm::ArrayRef<StringPart>(Parts)));
  Identifier Alias;
  if (C->alias) {
    std::optional<Identifier> A = ident(C->alias);
    if (!A)
      return nullptr;
    Alias = *A;
  }
  return Ctx.create<ImportDecl>(rangeOf(C), Target, Alias);
}

Decl *ASTBuilder::buildDecl(P::DeclarationContext *C) {
  if (isBroken(C))
    return nullptr;
  if (auto *E = C->entityDecl()) {
    if (isBroken(E) || !E->kind)
      return nullptr;
    std::optional<Identifier> Name = ident(E->name);
    std::optional<Block> Body = buildBlock(E->block());
    if (!Name || !Body)
      return nullptr;
    llvm::SmallVector<Identifier, 2> Parent;
    if (E->parent) {
      if (isBroken(E->parent))
        return nullptr;
      for (P::IdentContext *Segment : E->parent->ident()) {
        std::optional<Identifier> Id = ident(Segment);
        if (!Id)
          return nullptr;
        Parent.push_back(*Id);
      }
    }
    EntityKind Kind = EntityKind::Recipe;
    switch (E->kind->getType()) {
    case P::HARDWARE: Kind = EntityKind::Hardware; break;
    case P::ENGINE: Kind = EntityKind::Engine; break;
    case P::MODEL: Kind = EntityKind::Model; break;
    case P::ROUTER:
      Kind = EntityKind::Router;
      break;
    case P::SERVICE:
      Kind = EntityKind::Service;
      break;
    default: break;
    }
    return Ctx.create<EntityDecl>(
        rangeOf(E), Kind, *Name,
        Ctx.copyArray(llvm::ArrayRef<Identifier>(Parent)), *Body);
  }
  if (auto *E = C->enumDecl()) {
    std::optional<Identifier> Name = ident(E->name);
    if (isBroken(E) || !Name)
      return nullptr;
    llvm::SmallVector<Identifier, 8> Members;
    for (P::IdentContext *M : E->ident()) {
      if (M == E->name)
        continue;
      std::optional<Identifier> Id = ident(M);
      if (!Id)
        return nullptr;
      Members.push_back(*Id);
    }
    return Ctx.create<EnumDecl>(rangeOf(E), *Name,
                                Ctx.copyArray(llvm::ArrayRef<Identifier>(Members)));
  }
  if (auto *L = C->letDecl()) {
    std::optional<Identifier> Name = ident(L->name);
    Expr *Value = isBroken(L) ? nullptr : buildRootExpr(L->expr());
    if (!Name || !Value)
      return nullptr;
    return Ctx.create<LetDecl>(rangeOf(L), *Name, Value);
  }
  if (auto *T = C->tuneDecl())
    return buildTune(T);
  return nullptr;
}

Decl *ASTBuilder::buildTune(P::TuneDeclContext *C) {
  if (isBroken(C))
    return nullptr;
  std::optional<Identifier> Name = ident(C->name);
  std::optional<Identifier> Recipe = ident(C->recipe);
  llvm::SmallVector<TuneItem, 8> Items;
  if (!Name || !Recipe || !buildTuneBody(C->tuneBody(), Items))
    return nullptr;
  return Ctx.create<TuneDecl>(rangeOf(C), *Name, *Recipe,
                              Ctx.copyArray(llvm::ArrayRef<TuneItem>(Items)));
}

static BinaryOp binaryOpFor(size_t TokenType);

bool ASTBuilder::buildTuneBody(P::TuneBodyContext *C,
                               llvm::SmallVectorImpl<TuneItem> &Items) {
  if (!C || isBroken(C) || !C->LBRACE() || !C->RBRACE())
    return false;
  for (antlr4::tree::ParseTree *Child : C->children) {
    if (auto *T = dynamic_cast<antlr4::tree::TerminalNode *>(Child)) {
      if (T->getSymbol()->getType() == P::SEMI)
        warnExtraSemicolon(T);
      continue;
    }
    auto *I = dynamic_cast<P::TuneItemContext *>(Child);
    if (!I || isBroken(I))
      return false;
    TuneItem Item;
    Item.Range = rangeOf(I);
    llvm::SmallVector<TuneItem, 8> Inner;
    if (auto *B = dynamic_cast<P::TuneBandContext *>(I)) {
      std::optional<Identifier> Band = ident(B->band);
      if (!Band || !buildTuneBody(B->tuneBody(), Inner))
        return false;
      Item.K = TuneItem::Band;
      Item.Name = *Band;
    } else if (auto *A = dynamic_cast<P::TuneAtContext *>(I)) {
      llvm::SmallVector<Expr *, 4> Concs;
      if (!buildRootExprs(A->expr(), Concs) || !buildTuneBody(A->tuneBody(), Inner))
        return false;
      Item.K = TuneItem::At;
      Item.Concs = Ctx.copyArray(llvm::ArrayRef<Expr *>(Concs));
    } else if (auto *O = dynamic_cast<P::TuneObjectiveContext *>(I)) {
      std::optional<Identifier> Metric = ident(O->metric);
      if (!Metric || !O->goal)
        return false;
      Item.K = TuneItem::Objective;
      Item.Name = *Metric;
      Item.Maximize = O->goal->getType() == P::MAXIMIZE;
    } else if (auto *K = dynamic_cast<P::TuneCandidatesContext *>(I)) {
      std::optional<Identifier> Knob = ident(K->knob);
      Expr *Value = Knob ? buildRootExpr(K->expr()) : nullptr;
      if (!Value)
        return false;
      Item.K = TuneItem::Candidates;
      Item.Name = *Knob;
      Item.Value = Value;
    } else if (auto *S = dynamic_cast<P::TuneConstraintContext *>(I)) {
      std::optional<Identifier> Metric = ident(S->metric);
      Expr *Value = Metric && S->op ? buildRootExpr(S->bound) : nullptr;
      if (!Value)
        return false;
      if (S->unit) {
        std::string Unit;
        for (P::IdentContext *Segment : S->unit->ident()) {
          std::optional<Identifier> Id = ident(Segment);
          if (!Id)
            return false;
          Unit += (Unit.empty() ? "" : "/") + Id->Name.str();
        }
        Item.Unit = Identifier{Ctx.copyString(Unit), rangeOf(S->unit)};
      }
      Item.K = TuneItem::Constraint;
      Item.Name = *Metric;
      Item.Op = binaryOpFor(S->op->getType());
      Item.Value = Value;
    } else {
      return false;
    }
    Item.Items = Ctx.copyArray(llvm::ArrayRef<TuneItem>(Inner));
    Items.push_back(Item);
  }
  return true;
}

void ASTBuilder::warnExtraSemicolon(antlr4::tree::TerminalNode *Semi) {
  // A ';' that ends nothing: after another ';', after '{', or first in file.
  antlr4::Token *T = Semi->getSymbol();
  auto *Parent = dynamic_cast<antlr4::ParserRuleContext *>(Semi->parent);
  antlr4::Token *Prev = nullptr;
  if (Parent)
    for (antlr4::tree::ParseTree *Child : Parent->children) {
      if (Child == Semi)
        break;
      if (auto *TN = dynamic_cast<antlr4::tree::TerminalNode *>(Child))
        Prev = TN->getSymbol();
      else if (auto *R = dynamic_cast<antlr4::ParserRuleContext *>(Child))
        Prev = R->getStop();
    }
  if (Prev && Prev->getType() != P::SEMI && Prev->getType() != P::LBRACE)
    return;
  Diags.report(rangeOf(T), DiagID::warn_extra_semicolon)
      << FixIt::remove(rangeOf(T));
}

std::optional<Block> ASTBuilder::buildBlock(P::BlockContext *C) {
  if (isBroken(C) || !C->LBRACE() || !C->RBRACE())
    return std::nullopt;
  llvm::SmallVector<Stmt *, 16> Stmts;
  for (antlr4::tree::ParseTree *Child : C->children) {
    if (auto *S = dynamic_cast<P::StatementContext *>(Child)) {
      if (Stmt *Built = buildStmt(S))
        Stmts.push_back(Built);
    } else if (auto *T = dynamic_cast<antlr4::tree::TerminalNode *>(Child)) {
      if (T->getSymbol()->getType() == P::SEMI)
        warnExtraSemicolon(T);
    }
  }
  return Block{rangeOf(C->LBRACE()->getSymbol()).Start,
               rangeOf(C->RBRACE()->getSymbol()).Start,
               Ctx.copyArray(llvm::ArrayRef<Stmt *>(Stmts))};
}

//===-- Statements --------------------------------------------------------===//

Stmt *ASTBuilder::buildStmt(P::StatementContext *C) {
  if (isBroken(C))
    return nullptr;
  if (auto *S = C->assignStmt())
    return buildAssign(S);
  if (auto *S = C->letDecl()) {
    std::optional<Identifier> Name = ident(S->name);
    Expr *Value = isBroken(S) ? nullptr : buildRootExpr(S->expr());
    if (!Name || !Value)
      return nullptr;
    return Ctx.create<LetStmt>(rangeOf(S), *Name, Value);
  }
  if (auto *S = C->blockStmt()) {
    std::optional<Identifier> Name = ident(S->name);
    std::optional<Block> Body = isBroken(S) ? std::nullopt : buildBlock(S->block());
    if (!Name || !Body)
      return nullptr;
    return Ctx.create<BlockStmt>(rangeOf(S), *Name, *Body);
  }
  if (auto *S = C->bandStmt()) {
    if (isBroken(S))
      return nullptr;
    std::optional<Identifier> Name = ident(S->name);
    Expr *Cond = buildRootExpr(S->cond);
    std::optional<Block> Body = buildBlock(S->block());
    if (!Name || !Cond || !Body)
      return nullptr;
    return Ctx.create<BandStmt>(rangeOf(S), *Name, Cond, *Body);
  }
  if (auto *S = C->atStmt()) {
    if (isBroken(S))
      return nullptr;
    llvm::SmallVector<Expr *, 4> Concs;
    if (!buildRootExprs(S->expr(), Concs))
      return nullptr;
    std::optional<Block> Body = buildBlock(S->block());
    if (!Body)
      return nullptr;
    return Ctx.create<AtConcStmt>(rangeOf(S), Ctx.copyArray(llvm::ArrayRef<Expr *>(Concs)),
                                  *Body);
  }
  if (auto *S = C->armStmt()) {
    if (isBroken(S))
      return nullptr;
    std::optional<Identifier> Name = ident(S->name);
    std::optional<Block> Body = buildBlock(S->block());
    if (!Name || !Body)
      return nullptr;
    return Ctx.create<ArmStmt>(rangeOf(S), *Name, *Body);
  }
  if (auto *S = C->fileStmt()) {
    if (isBroken(S))
      return nullptr;
    StringLiteral *Name = buildString(S->name);
    Expr *Value = Name ? buildRootExpr(S->expr()) : nullptr;
    if (!Value)
      return nullptr;
    return Ctx.create<FileStmt>(rangeOf(S), Name, Value);
  }
  if (auto *S = C->argsStmt()) {
    Expr *Value = isBroken(S) ? nullptr : buildRootExpr(S->expr());
    if (!Value)
      return nullptr;
    return Ctx.create<ArgsStmt>(rangeOf(S), Value);
  }
  if (auto *S = C->checkStmt()) {
    if (isBroken(S))
      return nullptr;
    Expr *Cond = buildRootExpr(S->cond);
    StringLiteral *Message = buildString(S->message);
    if (!Cond || !Message)
      return nullptr;
    return Ctx.create<CheckStmt>(rangeOf(S), Cond, Message);
  }
  if (auto *S = C->preflightStmt()) {
    if (isBroken(S))
      return nullptr;
    std::optional<Identifier> Action = ident(S->action);
    llvm::SmallVector<Argument, 4> Args;
    DepthReported = false;
    if (!Action || !buildArgs(S->argList(), 0, Args))
      return nullptr;
    return Ctx.create<PreflightStmt>(rangeOf(S), *Action,
                                     Ctx.copyArray(llvm::ArrayRef<Argument>(Args)));
  }
  if (auto *S = C->knobStmt())
    return buildKnob(S);
  if (auto *S = C->emitStmt()) {
    if (isBroken(S))
      return nullptr;
    Expr *Cond = buildRootExpr(S->cond);
    std::optional<Block> Body = buildBlock(S->block());
    if (!Cond || !Body)
      return nullptr;
    return Ctx.create<EmitStmt>(rangeOf(S), Cond, *Body);
  }
  if (auto *S = C->flagStmt()) {
    if (isBroken(S))
      return nullptr;
    StringLiteral *Flag = buildString(S->flag);
    Expr *Value = nullptr;
    if (S->expr() && !(Value = buildRootExpr(S->expr())))
      return nullptr;
    if (!Flag)
      return nullptr;
    return Ctx.create<FlagStmt>(rangeOf(S), Flag, listModeOf(S->listMode),
                                Value);
  }
  if (auto *S = C->switchStmt()) {
    if (isBroken(S))
      return nullptr;
    StringLiteral *Flag = buildString(S->flag);
    StringLiteral *Negative = nullptr;
    if (S->negative && !(Negative = buildString(S->negative)))
      return nullptr;
    Expr *Value = nullptr;
    if (S->expr() && !(Value = buildRootExpr(S->expr())))
      return nullptr;
    if (!Flag)
      return nullptr;
    return Ctx.create<SwitchStmt>(rangeOf(S), Flag, Negative, Value);
  }
  return nullptr;
}

Stmt *ASTBuilder::buildAssign(P::AssignStmtContext *C) {
  if (isBroken(C) || isBroken(C->path()))
    return nullptr;
  llvm::SmallVector<Identifier, 4> Path;
  for (P::IdentContext *Segment : C->path()->ident()) {
    std::optional<Identifier> Id = ident(Segment);
    if (!Id)
      return nullptr;
    Path.push_back(*Id);
  }
  Expr *Value = buildRootExpr(C->expr());
  if (Path.empty() || !Value)
    return nullptr;
  return Ctx.create<AssignStmt>(rangeOf(C), Ctx.copyArray(llvm::ArrayRef<Identifier>(Path)),
                                Value);
}

Stmt *ASTBuilder::buildKnob(P::KnobStmtContext *C) {
  if (isBroken(C))
    return nullptr;
  std::optional<Identifier> Name = ident(C->name);
  TypeRef *Type = buildType(C->typeRef(), 0);
  if (!Name || !Type)
    return nullptr;
  Expr *Default = nullptr, *Constraint = nullptr;
  if (C->defaultValue && !(Default = buildRootExpr(C->defaultValue)))
    return nullptr;
  if (C->constraint && !(Constraint = buildRootExpr(C->constraint)))
    return nullptr;
  llvm::SmallVector<RenderClause, 2> Renders;
  for (P::RenderContext *R : C->render()) {
    std::optional<RenderClause> Built = buildRender(R);
    if (!Built)
      return nullptr;
    Renders.push_back(*Built);
  }
  return Ctx.create<KnobStmt>(rangeOf(C), *Name, Type, Default, Constraint,
                              Ctx.copyArray(llvm::ArrayRef<RenderClause>(Renders)));
}

TypeRef *ASTBuilder::buildType(P::TypeRefContext *C, unsigned Depth) {
  if (isBroken(C) || !checkDepth(C, Depth))
    return nullptr;
  std::optional<Identifier> Name = ident(C->name);
  if (!Name)
    return nullptr;
  llvm::SmallVector<TypeRef *, 2> Args;
  for (P::TypeRefContext *A : C->typeRef()) {
    TypeRef *Built = buildType(A, Depth + 1);
    if (!Built)
      return nullptr;
    Args.push_back(Built);
  }
  auto *T = Ctx.create<TypeRef>();
  T->Name = *Name;
  T->Args = Ctx.copyArray(llvm::ArrayRef<TypeRef *>(Args));
  T->Optional = C->optional != nullptr;
  T->Range = rangeOf(C);
  return T;
}

ListMode ASTBuilder::listModeOf(antlr4::Token *T) {
  if (!T)
    return ListMode::None;
  return T->getType() == P::EACH ? ListMode::Each : ListMode::Spread;
}

std::optional<RenderClause> ASTBuilder::buildRender(P::RenderContext *C) {
  if (isBroken(C))
    return std::nullopt;
  RenderClause R;
  R.Range = rangeOf(C);
  if (C->FLAG())
    R.Kind = RenderKind::Flag;
  else if (C->SWITCH())
    R.Kind = RenderKind::Switch;
  else if (C->ARG())
    R.Kind = RenderKind::Arg;
  else if (C->ARGS())
    R.Kind = RenderKind::Args;
  else if (C->ENV())
    R.Kind = RenderKind::Env;
  else if (C->JSON())
    R.Kind = RenderKind::Json;
  else if (C->YAML())
    R.Kind = RenderKind::Yaml;
  else if (C->JSON_FILE())
    R.Kind = RenderKind::JsonFile;
  else
    return std::nullopt;
  if (C->flag && !(R.Target = buildString(C->flag)))
    return std::nullopt;
  if (C->key && !(R.Key = buildString(C->key)))
    return std::nullopt;
  if (C->negative && !(R.Negative = buildString(C->negative)))
    return std::nullopt;
  R.Mode = listModeOf(C->listMode);
  if (C->cond && !(R.Cond = buildRootExpr(C->cond)))
    return std::nullopt;
  return R;
}

bool ASTBuilder::buildArgs(P::ArgListContext *C, unsigned Depth,
                           llvm::SmallVectorImpl<Argument> &Args) {
  if (!C)
    return true; // `f()`
  if (isBroken(C))
    return false;
  for (P::ArgumentContext *A : C->argument()) {
    if (isBroken(A))
      return false;
    Argument Arg;
    if (A->name) {
      std::optional<Identifier> Name = ident(A->name);
      if (!Name)
        return false;
      Arg.Name = *Name;
    }
    Arg.Value = buildExpr(A->expr(), Depth + 1);
    if (!Arg.Value)
      return false;
    Arg.Range = rangeOf(A);
    Args.push_back(Arg);
  }
  return true;
}

//===-- Expressions -------------------------------------------------------===//

bool ASTBuilder::checkDepth(antlr4::ParserRuleContext *C, unsigned Depth) {
  if (Depth <= Limits.MaxExprDepth)
    return true;
  if (!DepthReported)
    Diags.report(rangeOf(C->getStart()), DiagID::err_expression_too_deep)
        << Limits.MaxExprDepth;
  DepthReported = true;
  return false;
}

bool ASTBuilder::buildRootExprs(const std::vector<P::ExprContext *> &Cs,
                                llvm::SmallVectorImpl<Expr *> &Out) {
  for (P::ExprContext *E : Cs) {
    Expr *Built = buildRootExpr(E);
    if (!Built)
      return false;
    Out.push_back(Built);
  }
  return true;
}

Expr *ASTBuilder::buildRootExpr(P::ExprContext *C) {
  DepthReported = false;
  return buildExpr(C, 0);
}

Expr *ASTBuilder::buildInterpolation(P::InterpolationContext *C) {
  if (isBroken(C))
    return nullptr;
  return buildRootExpr(C->expr());
}

Expr *ASTBuilder::buildStandaloneExpr(P::StandaloneExprContext *C) {
  if (isBroken(C))
    return nullptr;
  return buildRootExpr(C->expr());
}

/// Negation, `not` and primaries begin with their own token; every other
/// expression alternative begins with its left operand.
static bool isLeaf(arecipe_antlr::ARecipeParser::ExprContext *C) {
  using P = arecipe_antlr::ARecipeParser;
  return dynamic_cast<P::PrimaryExprContext *>(C) ||
         dynamic_cast<P::NegateExprContext *>(C) ||
         dynamic_cast<P::NotExprContext *>(C);
}

Expr *ASTBuilder::buildExpr(P::ExprContext *C, unsigned Depth) {
  if (isBroken(C))
    return nullptr;
  // Chains of left-recursive operators (`a + b + c`, `x.y.z`) nest to the
  // left without bound in the parse tree; walk them in a loop, not by
  // recursion, so a long chain cannot exhaust the stack.
  llvm::SmallVector<P::ExprContext *, 8> Spine;
  P::ExprContext *Leaf = C;
  while (!isLeaf(Leaf)) {
    Spine.push_back(Leaf);
    Leaf = Leaf->getRuleContext<P::ExprContext>(0);
    if (isBroken(Leaf))
      return nullptr;
  }
  unsigned LeafDepth = Depth + static_cast<unsigned>(Spine.size());
  if (!checkDepth(Leaf, LeafDepth))
    return nullptr;

  Expr *E = nullptr;
  if (auto *Primary = dynamic_cast<P::PrimaryExprContext *>(Leaf)) {
    E = buildPrimary(Primary->primary(), LeafDepth);
  } else {
    bool Negate = dynamic_cast<P::NegateExprContext *>(Leaf) != nullptr;
    Expr *Operand = buildExpr(Leaf->getRuleContext<P::ExprContext>(0), LeafDepth + 1);
    if (Operand)
      E = Ctx.create<UnaryExpr>(rangeOf(Leaf), Negate ? UnaryOp::Negate : UnaryOp::Not,
                                Operand);
  }
  for (size_t I = Spine.size(); E && I-- > 0;)
    E = applyPostfixOrBinary(Spine[I], E, Depth + static_cast<unsigned>(I));
  return E;
}

static BinaryOp binaryOpFor(size_t TokenType) {
  using P = arecipe_antlr::ARecipeParser;
  switch (TokenType) {
  case P::STAR: return BinaryOp::Mul;
  case P::SLASH: return BinaryOp::Div;
  case P::PERCENT: return BinaryOp::Rem;
  case P::PLUS: return BinaryOp::Add;
  case P::MINUS: return BinaryOp::Sub;
  case P::EQ: return BinaryOp::Eq;
  case P::NE: return BinaryOp::Ne;
  case P::LT: return BinaryOp::Lt;
  case P::LE: return BinaryOp::Le;
  case P::GT: return BinaryOp::Gt;
  case P::GE: return BinaryOp::Ge;
  case P::IN: return BinaryOp::In;
  case P::AND: return BinaryOp::And;
  default: return BinaryOp::Or;
  }
}

Expr *ASTBuilder::applyPostfixOrBinary(P::ExprContext *C, Expr *LHS,
                                       unsigned Depth) {
  if (isBroken(C))
    return nullptr;
  SMRange R = rangeOf(C);
  auto Operand = [&](size_t I) {
    return buildExpr(C->getRuleContext<P::ExprContext>(I), Depth + 1);
  };

  if (auto *M = dynamic_cast<P::MemberExprContext *>(C)) {
    std::optional<Identifier> Member = ident(M->member);
    return Member ? Ctx.create<MemberExpr>(R, LHS, *Member) : nullptr;
  }
  if (auto *Call = dynamic_cast<P::CallExprContext *>(C)) {
    llvm::SmallVector<Argument, 4> Args;
    if (!buildArgs(Call->argList(), Depth, Args))
      return nullptr;
    return Ctx.create<CallExpr>(R, LHS, Ctx.copyArray(llvm::ArrayRef<Argument>(Args)));
  }
  if (auto *Index = dynamic_cast<P::IndexExprContext *>(C)) {
    Expr *I = buildExpr(Index->index, Depth + 1);
    return I ? Ctx.create<IndexExpr>(R, LHS, I) : nullptr;
  }
  if (auto *Convert = dynamic_cast<P::ConvertExprContext *>(C)) {
    std::optional<Identifier> Unit = ident(Convert->unit);
    if (!Unit)
      return nullptr;
    RoundingMode Mode = RoundingMode::Exact;
    if (Convert->rounding)
      Mode = Convert->rounding->getType() == P::FLOOR  ? RoundingMode::Floor
             : Convert->rounding->getType() == P::CEIL ? RoundingMode::Ceil
                                                        : RoundingMode::Round;
    return Ctx.create<ConvertExpr>(R, LHS, *Unit, Mode);
  }
  if (dynamic_cast<P::RangeExprContext *>(C)) {
    Expr *Hi = Operand(1);
    return Hi ? Ctx.create<RangeExpr>(R, LHS, Hi, nullptr) : nullptr;
  }
  if (dynamic_cast<P::SteppedRangeExprContext *>(C)) {
    Expr *Hi = Operand(1);
    Expr *Step = Hi ? Operand(2) : nullptr;
    return Step ? Ctx.create<RangeExpr>(R, LHS, Hi, Step) : nullptr;
  }
  if (dynamic_cast<P::ConditionalExprContext *>(C)) {
    Expr *Cond = Operand(1);
    Expr *Else = Cond ? Operand(2) : nullptr;
    return Else ? Ctx.create<ConditionalExpr>(R, LHS, Cond, Else) : nullptr;
  }

  // A binary operator: the operator is the second child.
  auto *OpNode = dynamic_cast<antlr4::tree::TerminalNode *>(
      C->children.size() > 1 ? C->children[1] : nullptr);
  if (!OpNode)
    return nullptr;
  antlr4::Token *OpToken = OpNode->getSymbol();
  BinaryOp Op = binaryOpFor(OpToken->getType());
  if (isComparison(Op) &&
      dynamic_cast<P::ComparisonExprContext *>(C->getRuleContext<P::ExprContext>(0))) {
    Diags.report(rangeOf(OpToken), DiagID::err_chained_comparison);
    return nullptr;
  }
  Expr *RHS = Operand(1);
  return RHS ? Ctx.create<BinaryExpr>(R, Op, rangeOf(OpToken), LHS, RHS) : nullptr;
}

Expr *ASTBuilder::buildPrimary(P::PrimaryContext *C, unsigned Depth) {
  if (isBroken(C))
    return nullptr;
  SMRange R = rangeOf(C);
  if (dynamic_cast<P::IntLiteralContext *>(C))
    return buildInteger(C->getStart());
  if (dynamic_cast<P::FloatLiteralContext *>(C))
    return buildFloat(C->getStart());
  if (dynamic_cast<P::QuantityLiteralContext *>(C))
    return buildQuantity(C->getStart());
  if (dynamic_cast<P::BoolLiteralContext *>(C))
    return Ctx.create<BoolLiteral>(R, C->getStart()->getType() == P::TRUE);
  if (dynamic_cast<P::NoneLiteralContext *>(C))
    return Ctx.create<NoneLiteral>(R);
  if (dynamic_cast<P::ConcRefContext *>(C))
    return Ctx.create<ConcExpr>(R);
  if (auto *S = dynamic_cast<P::StringPrimaryContext *>(C))
    return buildString(S->stringLit());
  if (auto *N = dynamic_cast<P::NameRefContext *>(C)) {
    std::optional<Identifier> Name = ident(N->ident());
    return Name ? Ctx.create<NameExpr>(*Name) : nullptr;
  }
  if (auto *Paren = dynamic_cast<P::ParenExprContext *>(C))
    return buildExpr(Paren->expr(), Depth);
  if (auto *L = dynamic_cast<P::ListExprContext *>(C)) {
    llvm::SmallVector<Expr *, 8> Elements;
    for (P::ExprContext *E : L->expr()) {
      Expr *Built = buildExpr(E, Depth + 1);
      if (!Built)
        return nullptr;
      Elements.push_back(Built);
    }
    return Ctx.create<ListExpr>(R, Ctx.copyArray(llvm::ArrayRef<Expr *>(Elements)));
  }
  if (auto *L = dynamic_cast<P::ComprehensionExprContext *>(C)) {
    Expr *Element = buildExpr(L->element, Depth + 1);
    std::optional<Identifier> Var = Element ? ident(L->var) : std::nullopt;
    Expr *Source = Var ? buildExpr(L->source, Depth + 1) : nullptr;
    if (!Source)
      return nullptr;
    Expr *Cond = nullptr;
    if (L->cond && !(Cond = buildExpr(L->cond, Depth + 1)))
      return nullptr;
    return Ctx.create<ComprehensionExpr>(R, Element, *Var, Source, Cond);
  }
  if (auto *M = dynamic_cast<P::MapExprContext *>(C)) {
    llvm::SmallVector<MapEntry, 8> Entries;
    for (P::MapEntryContext *E : M->mapEntry()) {
      if (isBroken(E))
        return nullptr;
      Expr *Key = buildExpr(E->key, Depth + 1);
      Expr *Value = Key ? buildExpr(E->value, Depth + 1) : nullptr;
      if (!Value)
        return nullptr;
      Entries.push_back({Key, Value, rangeOf(E)});
    }
    return Ctx.create<MapExpr>(R, Ctx.copyArray(llvm::ArrayRef<MapEntry>(Entries)));
  }
  return nullptr;
}

//===-- Literals ----------------------------------------------------------===//

Expr *ASTBuilder::buildInteger(antlr4::Token *T) {
  StringRef Text = textOf(T);
  SMRange R = rangeOf(T);
  int64_t Value = 0;
  switch (checkIntegerLiteral(Text, Value)) {
  case LiteralProblem::None:
    return Ctx.create<IntegerLiteral>(R, Ctx.copyString(Text), Value);
  case LiteralProblem::IntegerTooLarge:
    Diags.report(R, DiagID::err_integer_too_large) << Text;
    return nullptr;
  default:
    Diags.report(R, DiagID::err_invalid_number) << Text;
    return nullptr;
  }
}

Expr *ASTBuilder::buildFloat(antlr4::Token *T) {
  StringRef Text = textOf(T);
  if (checkFloatLiteral(Text) != LiteralProblem::None) {
    Diags.report(rangeOf(T), DiagID::err_invalid_number) << Text;
    return nullptr;
  }
  return Ctx.create<FloatLiteral>(rangeOf(T), Ctx.copyString(Text));
}

Expr *ASTBuilder::buildQuantity(antlr4::Token *T) {
  StringRef Text = textOf(T);
  SMRange R = rangeOf(T);
  StringRef Number, Unit;
  arecipe::Unit U;
  switch (checkQuantityLiteral(Text, Number, Unit, U)) {
  case LiteralProblem::None:
    return Ctx.create<QuantityLiteral>(R, Ctx.copyString(Text),
                                       Ctx.copyString(Number), U);
  case LiteralProblem::QuantityExponent:
    Diags.report(R, DiagID::err_quantity_exponent) << Text;
    return nullptr;
  case LiteralProblem::UnknownUnit: {
    llvm::SMLoc UnitStart = llvm::SMLoc::getFromPointer(Unit.begin());
    Diags.report(SMRange(UnitStart, R.End), DiagID::err_unknown_unit) << Unit;
    return nullptr;
  }
  default:
    Diags.report(R, DiagID::err_invalid_number) << Text;
    return nullptr;
  }
}

StringLiteral *ASTBuilder::buildString(P::StringLitContext *C) {
  if (isBroken(C))
    return nullptr;
  antlr4::Token *T = C->getStart();
  StringRef Text = textOf(T);
  std::vector<StringPiece> Pieces;
  if (!decodeStringLiteral(Text, &Diags, Pieces))
    return nullptr;
  llvm::SmallVector<StringPart, 4> Parts;
  for (StringPiece &Piece : Pieces) {
    StringPart Part;
    Part.Range = Piece.Range;
    if (Piece.IsInterpolation) {
      Part.Interpolation = ParseInterpolation(Piece.Source);
      if (!Part.Interpolation)
        return nullptr;
    } else {
      Part.Text = Ctx.copyString(Piece.Text);
    }
    Parts.push_back(Part);
  }
  return Ctx.create<StringLiteral>(rangeOf(T), T->getType() == P::RAW_STRING,
                                   Ctx.copyArray(llvm::ArrayRef<StringPart>(Parts)));
}
