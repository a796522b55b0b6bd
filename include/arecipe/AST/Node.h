//===- Node.h - The root of arecipe's syntax tree ---------------*- C++ -*-===//
//
// Every syntax tree node derives from Node: it carries its NodeKind (for
// LLVM-style isa/cast/dyn_cast) and the half-open byte range of the source
// it was parsed from. Nodes live in an ASTContext arena, are immutable once
// built and are trivially destructible (their strings and child arrays are
// arena memory too). The tree is faithful to the text: it records what was
// written and resolves nothing; names, types and units are Sema's job.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_AST_NODE_H
#define ARECIPE_AST_NODE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>

namespace arecipe::ast {

enum class NodeKind : uint8_t {
  File,

  // Declarations (file level).
  ImportDecl,
  EntityDecl,
  EnumDecl,
  LetDecl,
  TuneDecl,
  FirstDecl = ImportDecl,
  LastDecl = TuneDecl,

  // Statements (inside bodies).
  AssignStmt,
  LetStmt,
  BlockStmt,
  BandStmt,
  AtConcStmt,
  ArmStmt,
  CheckStmt,
  PreflightStmt,
  KnobStmt,
  EmitStmt,
  FlagStmt,
  SwitchStmt,
  ArgsStmt,
  FileStmt,
  FirstStmt = AssignStmt,
  LastStmt = FileStmt,

  // Expressions.
  IntegerLiteral,
  FloatLiteral,
  QuantityLiteral,
  BoolLiteral,
  NoneLiteral,
  ConcExpr,
  StringLiteral,
  NameExpr,
  ListExpr,
  ComprehensionExpr,
  MapExpr,
  UnaryExpr,
  BinaryExpr,
  RangeExpr,
  ConditionalExpr,
  CallExpr,
  IndexExpr,
  MemberExpr,
  ConvertExpr,
  FirstExpr = IntegerLiteral,
  LastExpr = ConvertExpr,
};

/// The node's kind as spelled in `--emit ast` output ("BandStmt").
llvm::StringRef getKindName(NodeKind K);

class Node {
public:
  NodeKind getKind() const { return Kind; }
  /// Half-open: [Start, End) over the bytes of the source buffer.
  llvm::SMRange getRange() const { return Range; }
  llvm::SMLoc getLoc() const { return Range.Start; }

protected:
  Node(NodeKind Kind, llvm::SMRange Range) : Kind(Kind), Range(Range) {}

private:
  NodeKind Kind;
  llvm::SMRange Range;
};

/// A name as written, with its own range (declaration names, path segments,
/// members, argument names, units after `as`).
struct Identifier {
  llvm::StringRef Name;
  llvm::SMRange Range;

  bool empty() const { return Name.empty(); }
};

} // namespace arecipe::ast

#endif // ARECIPE_AST_NODE_H
