//===- Stmt.h - Statements of recipe, engine and other bodies --*- C++ -*-===//
//
// The statements of docs/language.md §3: assignments to dotted paths, `let`,
// named blocks (`client { ... }`, role blocks `prefill { ... }`), bands,
// `at conc` overrides, arms, checks, pre-flight actions, knob declarations
// with their render clauses, `emit` blocks and the `flag`/`switch`/`args`
// items inside them, and `file "NAME" = expr`. The parser accepts every
// statement in every body; which statement may appear where (knobs only in
// process templates, `server` only in `at conc`) is Sema's decision.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_AST_STMT_H
#define ARECIPE_AST_STMT_H

#include "arecipe/AST/Expr.h"

namespace arecipe::ast {

class Stmt : public Node {
public:
  static bool classof(const Node *N) {
    return N->getKind() >= NodeKind::FirstStmt &&
           N->getKind() <= NodeKind::LastStmt;
  }

protected:
  using Node::Node;
};

/// `{ statement* }`; the braces' locations serve notes ("to match this").
struct Block {
  llvm::SMLoc LBrace;
  llvm::SMLoc RBrace;
  llvm::ArrayRef<Stmt *> Stmts;
};

/// `max_num_seqs = 2 * conc`, `env.AITER_LOG_LEVEL = "WARNING"`.
class AssignStmt : public Stmt {
public:
  AssignStmt(llvm::SMRange R, llvm::ArrayRef<Identifier> Path, Expr *Value)
      : Stmt(NodeKind::AssignStmt, R), Path(Path), Value(Value) {}
  /// At least one segment.
  llvm::ArrayRef<Identifier> getPath() const { return Path; }
  Expr *getValue() const { return Value; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::AssignStmt;
  }

private:
  llvm::ArrayRef<Identifier> Path;
  Expr *Value;
};

/// `let window = 2 * conc` inside a body: a late-bound derived value.
class LetStmt : public Stmt {
public:
  LetStmt(llvm::SMRange R, Identifier Name, Expr *Value)
      : Stmt(NodeKind::LetStmt, R), Name(Name), Value(Value) {}
  const Identifier &getName() const { return Name; }
  Expr *getValue() const { return Value; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::LetStmt;
  }

private:
  Identifier Name;
  Expr *Value;
};

/// `client { warmup = 2 * conc }`: shorthand for `client.warmup = ...`.
class BlockStmt : public Stmt {
public:
  BlockStmt(llvm::SMRange R, Identifier Name, Block Body)
      : Stmt(NodeKind::BlockStmt, R), Name(Name), Body(Body) {}
  const Identifier &getName() const { return Name; }
  const Block &getBody() const { return Body; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::BlockStmt;
  }

private:
  Identifier Name;
  Block Body;
};

/// `band mid when conc in 8..16 { ... }`.
class BandStmt : public Stmt {
public:
  BandStmt(llvm::SMRange R, Identifier Name, Expr *Cond, Block Body)
      : Stmt(NodeKind::BandStmt, R), Name(Name), Cond(Cond), Body(Body) {}
  const Identifier &getName() const { return Name; }
  Expr *getCondition() const { return Cond; }
  const Block &getBody() const { return Body; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::BandStmt;
  }

private:
  Identifier Name;
  Expr *Cond;
  Block Body;
};

/// `at conc 8, 12 { ... }`, `at conc 32..64 { ... }`: the items are the
/// expressions as written (integers and ranges, checked by Sema).
class AtConcStmt : public Stmt {
public:
  AtConcStmt(llvm::SMRange R, llvm::ArrayRef<Expr *> Concs, Block Body)
      : Stmt(NodeKind::AtConcStmt, R), Concs(Concs), Body(Body) {}
  llvm::ArrayRef<Expr *> getConcs() const { return Concs; }
  const Block &getBody() const { return Body; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::AtConcStmt;
  }

private:
  llvm::ArrayRef<Expr *> Concs;
  Block Body;
};

/// `arm tp4 { tp = 4; concurrency = [5, 10] }`: one search-space arm of a
/// recipe, sharing everything the recipe body says (docs/language.md).
class ArmStmt : public Stmt {
public:
  ArmStmt(llvm::SMRange R, Identifier Name, Block Body)
      : Stmt(NodeKind::ArmStmt, R), Name(Name), Body(Body) {}
  const Identifier &getName() const { return Name; }
  const Block &getBody() const { return Body; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::ArmStmt;
  }

private:
  Identifier Name;
  Block Body;
};

/// `check tp % dcp == 0 : "dcp must divide tp"`.
class CheckStmt : public Stmt {
public:
  CheckStmt(llvm::SMRange R, Expr *Cond, StringLiteral *Message)
      : Stmt(NodeKind::CheckStmt, R), Cond(Cond), Message(Message) {}
  Expr *getCondition() const { return Cond; }
  StringLiteral *getMessage() const { return Message; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::CheckStmt;
  }

private:
  Expr *Cond;
  StringLiteral *Message;
};

/// `preflight stage_model(draft_model, attempts = 5, delay = 60s)`.
class PreflightStmt : public Stmt {
public:
  PreflightStmt(llvm::SMRange R, Identifier Action,
                llvm::ArrayRef<Argument> Args)
      : Stmt(NodeKind::PreflightStmt, R), Action(Action), Args(Args) {}
  const Identifier &getAction() const { return Action; }
  llvm::ArrayRef<Argument> getArgs() const { return Args; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::PreflightStmt;
  }

private:
  Identifier Action;
  llvm::ArrayRef<Argument> Args;
};

/// A knob's type as written: `int`, `size?`, `list<int>`, `map<string,int>`.
struct TypeRef {
  Identifier Name;
  llvm::ArrayRef<TypeRef *> Args;
  bool Optional = false; ///< Written with a trailing `?`.
  llvm::SMRange Range;
};

enum class RenderKind : uint8_t {
  Flag,
  Switch,
  Arg,
  Args,
  Env,
  Json,
  Yaml,
  JsonFile
};
llvm::StringRef getSpelling(RenderKind K);

/// How a `flag` renders a list value: as one word (None), `each` element
/// after its own copy of the flag, or `spread` as words after one flag.
enum class ListMode : uint8_t { None, Each, Spread };
llvm::StringRef getSpelling(ListMode M);

/// `-> flag "--max-num-seqs" if draft > 0`, `-> json "--x" "key"`,
/// `-> switch "--x" else "--no-x"`, `-> yaml "ser.yaml" "kv.dtype"`.
struct RenderClause {
  RenderKind Kind;
  /// The flag, variable or file name; null for `arg` and `args`.
  StringLiteral *Target = nullptr;
  /// The member ("a.b"), for `json`, `yaml` and `json_file` only.
  StringLiteral *Key = nullptr;
  /// The negative flag of `switch "--x" else "--no-x"`, if any.
  StringLiteral *Negative = nullptr;
  ListMode Mode = ListMode::None; ///< `flag "--x" each|spread`.
  Expr *Cond = nullptr;           ///< The `if` condition, if any.
  llvm::SMRange Range;
};

/// `knob dcp : int = 1 where tp % dcp == 0 -> flag "--dcp"` (engines).
class KnobStmt : public Stmt {
public:
  KnobStmt(llvm::SMRange R, Identifier Name, TypeRef *Type, Expr *Default,
           Expr *Constraint, llvm::ArrayRef<RenderClause> Renders)
      : Stmt(NodeKind::KnobStmt, R), Name(Name), Type(Type), Default(Default),
        Constraint(Constraint), Renders(Renders) {}
  const Identifier &getName() const { return Name; }
  TypeRef *getType() const { return Type; }
  Expr *getDefault() const { return Default; }       ///< May be null.
  Expr *getConstraint() const { return Constraint; } ///< May be null.
  llvm::ArrayRef<RenderClause> getRenders() const { return Renders; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::KnobStmt;
  }

private:
  Identifier Name;
  TypeRef *Type;
  Expr *Default;
  Expr *Constraint;
  llvm::ArrayRef<RenderClause> Renders;
};

/// `emit when lmcache != none { ... }` (engines).
class EmitStmt : public Stmt {
public:
  EmitStmt(llvm::SMRange R, Expr *Cond, Block Body)
      : Stmt(NodeKind::EmitStmt, R), Cond(Cond), Body(Body) {}
  Expr *getCondition() const { return Cond; }
  const Block &getBody() const { return Body; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::EmitStmt;
  }

private:
  Expr *Cond;
  Block Body;
};

/// `flag "--method" = "dspark"` (or without a value), `flag "--x=" = v`,
/// `flag "--cuda-graph-bs" spread = sizes` inside `emit`.
class FlagStmt : public Stmt {
public:
  FlagStmt(llvm::SMRange R, StringLiteral *Flag, ListMode Mode, Expr *Value)
      : Stmt(NodeKind::FlagStmt, R), Flag(Flag), Mode(Mode), Value(Value) {}
  StringLiteral *getFlag() const { return Flag; }
  ListMode getListMode() const { return Mode; }
  Expr *getValue() const { return Value; } ///< May be null.
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::FlagStmt;
  }

private:
  StringLiteral *Flag;
  ListMode Mode;
  Expr *Value;
};

/// `switch "--enable_prefix_caching"` inside `emit`; with a value
/// (`switch "--x" else "--no-x" = cond`) the flag renders as the value says.
class SwitchStmt : public Stmt {
public:
  SwitchStmt(llvm::SMRange R, StringLiteral *Flag, StringLiteral *Negative,
             Expr *Value)
      : Stmt(NodeKind::SwitchStmt, R), Flag(Flag), Negative(Negative),
        Value(Value) {}
  StringLiteral *getFlag() const { return Flag; }
  StringLiteral *getNegative() const { return Negative; } ///< May be null.
  Expr *getValue() const { return Value; }                ///< May be null.
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::SwitchStmt;
  }

private:
  StringLiteral *Flag;
  StringLiteral *Negative;
  Expr *Value;
};

/// `args extra_args` inside `emit`: a list of strings spliced into argv.
class ArgsStmt : public Stmt {
public:
  ArgsStmt(llvm::SMRange R, Expr *Value)
      : Stmt(NodeKind::ArgsStmt, R), Value(Value) {}
  Expr *getValue() const { return Value; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::ArgsStmt;
  }

private:
  Expr *Value;
};

/// `file "ser.yaml" = yaml({...})`: a generated file (a process template's,
/// or a cell's when written in a recipe, arm, band or `at conc` block).
class FileStmt : public Stmt {
public:
  FileStmt(llvm::SMRange R, StringLiteral *Name, Expr *Value)
      : Stmt(NodeKind::FileStmt, R), Name(Name), Value(Value) {}
  StringLiteral *getName() const { return Name; }
  Expr *getValue() const { return Value; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::FileStmt;
  }

private:
  StringLiteral *Name;
  Expr *Value;
};

} // namespace arecipe::ast

#endif // ARECIPE_AST_STMT_H
