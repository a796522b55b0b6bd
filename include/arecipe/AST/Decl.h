//===- Decl.h - Files and their top-level declarations ---------*- C++ -*-===//
//
// A parsed file: its imports and its declarations (recipe, hardware, engine,
// model, router, service, enum, file-level let) in source order. Imports are
// recorded as written; finding and loading the imported files is the driver's
// and Sema's job, not the parser's.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_AST_DECL_H
#define ARECIPE_AST_DECL_H

#include "arecipe/AST/Stmt.h"

namespace arecipe::ast {

class Decl : public Node {
public:
  static bool classof(const Node *N) {
    return N->getKind() >= NodeKind::FirstDecl &&
           N->getKind() <= NodeKind::LastDecl;
  }

protected:
  using Node::Node;
};

/// `import "std/engines/atom"`, `import "std/hardware/mi355x" as hw`.
class ImportDecl : public Decl {
public:
  ImportDecl(llvm::SMRange R, StringLiteral *Target, Identifier Alias)
      : Decl(NodeKind::ImportDecl, R), Target(Target), Alias(Alias) {}
  StringLiteral *getTarget() const { return Target; }
  const Identifier &getAlias() const { return Alias; } ///< Empty if none.
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::ImportDecl;
  }

private:
  StringLiteral *Target;
  Identifier Alias;
};

enum class EntityKind : uint8_t {
  Recipe,
  Hardware,
  Engine,
  Model,
  Router,
  Service
};
llvm::StringRef getSpelling(EntityKind K);

/// `recipe NAME { ... }` and its siblings `hardware`, `engine`, `model`,
/// `router` and `service`, which share one shape: a name, an optional
/// `extends PARENT` and a body of statements.
class EntityDecl : public Decl {
public:
  EntityDecl(llvm::SMRange R, EntityKind Kind, Identifier Name,
             llvm::ArrayRef<Identifier> Extends, Block Body)
      : Decl(NodeKind::EntityDecl, R), Kind(Kind), Name(Name), Extends(Extends),
        Body(Body) {}
  EntityKind getEntityKind() const { return Kind; }
  const Identifier &getName() const { return Name; }
  /// The parent of `extends` as written: `vllm` or `alias.vllm`; empty
  /// without `extends`.
  llvm::ArrayRef<Identifier> getExtends() const { return Extends; }
  bool hasExtends() const { return !Extends.empty(); }
  const Block &getBody() const { return Body; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::EntityDecl;
  }

private:
  EntityKind Kind;
  Identifier Name;
  llvm::ArrayRef<Identifier> Extends;
  Block Body;
};

/// `enum cudagraph_mode { NONE, PIECEWISE, FULL }`.
class EnumDecl : public Decl {
public:
  EnumDecl(llvm::SMRange R, Identifier Name,
           llvm::ArrayRef<Identifier> Members)
      : Decl(NodeKind::EnumDecl, R), Name(Name), Members(Members) {}
  const Identifier &getName() const { return Name; }
  llvm::ArrayRef<Identifier> getMembers() const { return Members; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::EnumDecl;
  }

private:
  Identifier Name;
  llvm::ArrayRef<Identifier> Members;
};

/// `let kimik3_dspark = {1: 1.85, ...}` at file level: a constant.
class LetDecl : public Decl {
public:
  LetDecl(llvm::SMRange R, Identifier Name, Expr *Value)
      : Decl(NodeKind::LetDecl, R), Name(Name), Value(Value) {}
  const Identifier &getName() const { return Name; }
  Expr *getValue() const { return Value; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::LetDecl;
  }

private:
  Identifier Name;
  Expr *Value;
};

/// One item of a `tune` block (docs/tuning.md): a scope (`band NAME { ... }`,
/// `at conc 8, 12 { ... }`) holding items, the objective (`maximize M`),
/// a candidate set (`dcp in [1, 8]`) or an SLA constraint (`p90_ttft <= 2s`).
struct TuneItem {
  enum Kind : uint8_t { Band, At, Objective, Candidates, Constraint };
  Kind K = Candidates;
  llvm::SMRange Range;
  /// The band, the metric of the objective or constraint, or the knob.
  Identifier Name;
  bool Maximize = true;    ///< Objective.
  BinaryOp Op = BinaryOp::Eq; ///< Constraint: the comparison.
  Expr *Value = nullptr;   ///< Candidates: the set; Constraint: the bound.
  Identifier Unit;         ///< Constraint: `tok/s/user` after the bound.
  llvm::ArrayRef<Expr *> Concs;      ///< At: the concurrencies as written.
  llvm::ArrayRef<TuneItem> Items;    ///< Band and At: what they hold.
};

/// `tune NAME for RECIPE { ... }`: the search space of arecipe-tune over the
/// recipe named RECIPE (of this file or of one it imports). Compiling a file
/// checks its tune blocks (lib/Sema/SemaTune.cpp) and lowers nothing from
/// them: only arecipe-tune reads them.
class TuneDecl : public Decl {
public:
  TuneDecl(llvm::SMRange R, Identifier Name, Identifier Recipe,
           llvm::ArrayRef<TuneItem> Items)
      : Decl(NodeKind::TuneDecl, R), Name(Name), Recipe(Recipe), Items(Items) {}
  const Identifier &getName() const { return Name; }
  const Identifier &getRecipe() const { return Recipe; }
  llvm::ArrayRef<TuneItem> getItems() const { return Items; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::TuneDecl;
  }

private:
  Identifier Name;
  Identifier Recipe;
  llvm::ArrayRef<TuneItem> Items;
};

/// One source file. Its name is the SourceMgr buffer's identifier.
class File : public Node {
public:
  File(llvm::SMRange R, llvm::StringRef Name,
       llvm::ArrayRef<ImportDecl *> Imports, llvm::ArrayRef<Decl *> Decls)
      : Node(NodeKind::File, R), Name(Name), Imports(Imports), Decls(Decls) {}
  llvm::StringRef getName() const { return Name; }
  llvm::ArrayRef<ImportDecl *> getImports() const { return Imports; }
  /// Declarations other than imports, in source order.
  llvm::ArrayRef<Decl *> getDecls() const { return Decls; }
  static bool classof(const Node *N) { return N->getKind() == NodeKind::File; }

private:
  llvm::StringRef Name;
  llvm::ArrayRef<ImportDecl *> Imports;
  llvm::ArrayRef<Decl *> Decls;
};

} // namespace arecipe::ast

#endif // ARECIPE_AST_DECL_H
