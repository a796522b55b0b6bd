//===- ASTBuilder.h - ANTLR parse tree to arecipe AST ----------*- C++ -*-===//
//
// Walks the parse tree ANTLR built and allocates the project's AST in an
// ASTContext: ranges become byte ranges, literals are checked and decoded
// (integer range, units, escapes, `${...}`), and chained comparisons and
// over-deep expressions are reported. Parts of the tree where the parser
// recovered from an error are dropped (the statement containing them is
// left out), since the error has been reported already. Private to
// lib/Parse; nothing it returns refers to ANTLR objects.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_PARSE_ASTBUILDER_H
#define ARECIPE_LIB_PARSE_ASTBUILDER_H

#include "SourceText.h"

#include "ARecipeParser.h"
#include "arecipe/AST/ASTContext.h"
#include "arecipe/AST/Decl.h"
#include "arecipe/Parse/Parser.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace arecipe {
class DiagnosticEngine;
namespace parse {

class ASTBuilder {
public:
  using ParserTypes = arecipe_antlr::ARecipeParser;
  /// Parses the source of one `${...}` (a slice of the same buffer).
  using InterpolationParser = llvm::function_ref<ast::Expr *(llvm::StringRef)>;

  ASTBuilder(const SourceText &Src, DiagnosticEngine &Diags,
             ast::ASTContext &Ctx, const ParseLimits &Limits,
             InterpolationParser ParseInterpolation)
      : Src(Src), Diags(Diags), Ctx(Ctx), Limits(Limits),
        ParseInterpolation(ParseInterpolation) {}

  ast::File *buildFile(ParserTypes::FileContext *C, llvm::StringRef Name,
                       llvm::SMRange Range);
  ast::Expr *buildInterpolation(ParserTypes::InterpolationContext *C);
  ast::Expr *buildStandaloneExpr(ParserTypes::StandaloneExprContext *C);

private:
  using P = ParserTypes;

  llvm::SMRange rangeOf(antlr4::ParserRuleContext *C) const;
  llvm::SMRange rangeOf(antlr4::Token *T) const;
  llvm::StringRef textOf(antlr4::Token *T) const;
  std::optional<ast::Identifier> ident(P::IdentContext *C);

  ast::Decl *buildDecl(P::DeclarationContext *C);
  ast::ImportDecl *buildImport(P::ImportDeclContext *C);
  std::optional<ast::Block> buildBlock(P::BlockContext *C);
  ast::Decl *buildTune(P::TuneDeclContext *C);
  bool buildTuneBody(P::TuneBodyContext *C,
                     llvm::SmallVectorImpl<ast::TuneItem> &Items);
  void warnExtraSemicolon(antlr4::tree::TerminalNode *Semi);

  ast::Stmt *buildStmt(P::StatementContext *C);
  ast::Stmt *buildAssign(P::AssignStmtContext *C);
  ast::Stmt *buildKnob(P::KnobStmtContext *C);
  ast::TypeRef *buildType(P::TypeRefContext *C, unsigned Depth);
  std::optional<ast::RenderClause> buildRender(P::RenderContext *C);
  static ast::ListMode listModeOf(antlr4::Token *T);
  bool buildArgs(P::ArgListContext *C, unsigned Depth,
                 llvm::SmallVectorImpl<ast::Argument> &Args);

  /// The root of an expression tree: resets the depth check.
  ast::Expr *buildRootExpr(P::ExprContext *C);
  /// buildRootExpr of each; false when one fails.
  bool buildRootExprs(const std::vector<P::ExprContext *> &Cs,
                      llvm::SmallVectorImpl<ast::Expr *> &Out);
  ast::Expr *buildExpr(P::ExprContext *C, unsigned Depth);
  ast::Expr *applyPostfixOrBinary(P::ExprContext *C, ast::Expr *LHS,
                                  unsigned Depth);
  ast::Expr *buildPrimary(P::PrimaryContext *C, unsigned Depth);
  ast::StringLiteral *buildString(P::StringLitContext *C);
  ast::Expr *buildInteger(antlr4::Token *T);
  ast::Expr *buildFloat(antlr4::Token *T);
  ast::Expr *buildQuantity(antlr4::Token *T);
  bool checkDepth(antlr4::ParserRuleContext *C, unsigned Depth);

  const SourceText &Src;
  DiagnosticEngine &Diags;
  ast::ASTContext &Ctx;
  const ParseLimits &Limits;
  InterpolationParser ParseInterpolation;
  bool DepthReported = false;
};

} // namespace parse
} // namespace arecipe

#endif // ARECIPE_LIB_PARSE_ASTBUILDER_H
