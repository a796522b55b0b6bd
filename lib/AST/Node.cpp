//===- Node.cpp - Names and spellings of syntax tree pieces --------------===//

#include "arecipe/AST/Decl.h"

#include "llvm/Support/ErrorHandling.h"

using namespace arecipe::ast;

llvm::StringRef arecipe::ast::getKindName(NodeKind K) {
  switch (K) {
#define KIND(Name)                                                             \
  case NodeKind::Name:                                                         \
    return #Name;
    KIND(File)
    KIND(ImportDecl)
    KIND(EntityDecl)
    KIND(EnumDecl)
    KIND(LetDecl)
    KIND(TuneDecl)
    KIND(AssignStmt)
    KIND(LetStmt)
    KIND(BlockStmt)
    KIND(BandStmt)
    KIND(AtConcStmt)
    KIND(ArmStmt)
    KIND(CheckStmt)
    KIND(PreflightStmt)
    KIND(KnobStmt)
    KIND(EmitStmt)
    KIND(FlagStmt)
    KIND(SwitchStmt)
    KIND(ArgsStmt)
    KIND(FileStmt)
    KIND(IntegerLiteral)
    KIND(FloatLiteral)
    KIND(QuantityLiteral)
    KIND(BoolLiteral)
    KIND(NoneLiteral)
    KIND(ConcExpr)
    KIND(StringLiteral)
    KIND(NameExpr)
    KIND(ListExpr)
    KIND(ComprehensionExpr)
    KIND(MapExpr)
    KIND(UnaryExpr)
    KIND(BinaryExpr)
    KIND(RangeExpr)
    KIND(ConditionalExpr)
    KIND(CallExpr)
    KIND(IndexExpr)
    KIND(MemberExpr)
    KIND(ConvertExpr)
#undef KIND
  }
  llvm_unreachable("unknown node kind");
}

llvm::StringRef arecipe::ast::getSpelling(UnaryOp Op) {
  switch (Op) {
  case UnaryOp::Negate:
    return "-";
  case UnaryOp::Not:
    return "not";
  }
  llvm_unreachable("unknown unary operator");
}

llvm::StringRef arecipe::ast::getSpelling(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Rem:
    return "%";
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Eq:
    return "==";
  case BinaryOp::Ne:
    return "!=";
  case BinaryOp::Lt:
    return "<";
  case BinaryOp::Le:
    return "<=";
  case BinaryOp::Gt:
    return ">";
  case BinaryOp::Ge:
    return ">=";
  case BinaryOp::In:
    return "in";
  case BinaryOp::And:
    return "and";
  case BinaryOp::Or:
    return "or";
  }
  llvm_unreachable("unknown binary operator");
}

llvm::StringRef arecipe::ast::getSpelling(RoundingMode M) {
  switch (M) {
  case RoundingMode::Exact:
    return "exact";
  case RoundingMode::Floor:
    return "floor";
  case RoundingMode::Ceil:
    return "ceil";
  case RoundingMode::Round:
    return "round";
  }
  llvm_unreachable("unknown rounding mode");
}

llvm::StringRef arecipe::ast::getSpelling(RenderKind K) {
  switch (K) {
  case RenderKind::Flag:
    return "flag";
  case RenderKind::Switch:
    return "switch";
  case RenderKind::Arg:
    return "arg";
  case RenderKind::Args:
    return "args";
  case RenderKind::Env:
    return "env";
  case RenderKind::Json:
    return "json";
  case RenderKind::Yaml:
    return "yaml";
  case RenderKind::JsonFile:
    return "json_file";
  }
  llvm_unreachable("unknown render kind");
}

llvm::StringRef arecipe::ast::getSpelling(ListMode M) {
  switch (M) {
  case ListMode::None:
    return "none";
  case ListMode::Each:
    return "each";
  case ListMode::Spread:
    return "spread";
  }
  llvm_unreachable("unknown list mode");
}

llvm::StringRef arecipe::ast::getSpelling(EntityKind K) {
  switch (K) {
  case EntityKind::Recipe:
    return "recipe";
  case EntityKind::Hardware:
    return "hardware";
  case EntityKind::Engine:
    return "engine";
  case EntityKind::Model:
    return "model";
  case EntityKind::Router:
    return "router";
  case EntityKind::Service:
    return "service";
  }
  llvm_unreachable("unknown entity kind");
}
