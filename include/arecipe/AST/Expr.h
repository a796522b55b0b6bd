//===- Expr.h - Expressions of the arecipe language ------------*- C++ -*-===//
//
// The expression nodes of docs/language.md §6: literals (numbers keep their
// exact source text; quantities their number and unit as written), names,
// `conc`, strings with decoded escapes and parsed `${...}` interpolations,
// lists, list comprehensions, maps, operators, ranges, conditionals, calls with
// named arguments, indexing, members and `as UNIT` conversions. Nothing here
// evaluates, types or resolves; parentheses leave no node (the range of the
// inner expression is the parenthesised text's).
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_AST_EXPR_H
#define ARECIPE_AST_EXPR_H

#include "arecipe/AST/Node.h"
#include "arecipe/Basic/Unit.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>

namespace arecipe::ast {

class Expr : public Node {
public:
  static bool classof(const Node *N) {
    return N->getKind() >= NodeKind::FirstExpr &&
           N->getKind() <= NodeKind::LastExpr;
  }

protected:
  using Node::Node;
};

/// `42`, `1_000_000`, `0x1F`: the value and the text as written.
class IntegerLiteral : public Expr {
public:
  IntegerLiteral(llvm::SMRange R, llvm::StringRef Text, int64_t Value)
      : Expr(NodeKind::IntegerLiteral, R), Text(Text), Value(Value) {}
  llvm::StringRef getText() const { return Text; }
  int64_t getValue() const { return Value; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::IntegerLiteral;
  }

private:
  llvm::StringRef Text;
  int64_t Value;
};

/// `0.343`, `2.5e-3`: kept as text so Sema computes with the exact decimal
/// (Rational::parseDecimal), never a binary double.
class FloatLiteral : public Expr {
public:
  FloatLiteral(llvm::SMRange R, llvm::StringRef Text)
      : Expr(NodeKind::FloatLiteral, R), Text(Text) {}
  llvm::StringRef getText() const { return Text; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::FloatLiteral;
  }

private:
  llvm::StringRef Text;
};

/// `128GB`, `0.5GiB`, `60s`: the text, the number as written (underscores
/// included) and the unit; Quantity::parseLiteral(getText()) gives the
/// exact value.
class QuantityLiteral : public Expr {
public:
  QuantityLiteral(llvm::SMRange R, llvm::StringRef Text,
                  llvm::StringRef NumberText, Unit U)
      : Expr(NodeKind::QuantityLiteral, R), Text(Text),
        NumberText(NumberText), TheUnit(U) {}
  llvm::StringRef getText() const { return Text; }
  llvm::StringRef getNumberText() const { return NumberText; }
  Unit getUnit() const { return TheUnit; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::QuantityLiteral;
  }

private:
  llvm::StringRef Text;
  llvm::StringRef NumberText;
  Unit TheUnit;
};

class BoolLiteral : public Expr {
public:
  BoolLiteral(llvm::SMRange R, bool Value)
      : Expr(NodeKind::BoolLiteral, R), Value(Value) {}
  bool getValue() const { return Value; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::BoolLiteral;
  }

private:
  bool Value;
};

class NoneLiteral : public Expr {
public:
  explicit NoneLiteral(llvm::SMRange R) : Expr(NodeKind::NoneLiteral, R) {}
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::NoneLiteral;
  }
};

/// `conc`: the concurrency of the cell being evaluated.
class ConcExpr : public Expr {
public:
  explicit ConcExpr(llvm::SMRange R) : Expr(NodeKind::ConcExpr, R) {}
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::ConcExpr;
  }
};

/// One piece of a string literal: decoded text, or an interpolated
/// expression (`${expr}`) whose range covers `${...}`.
struct StringPart {
  llvm::StringRef Text; ///< Decoded; meaningful when Interpolation is null.
  Expr *Interpolation = nullptr;
  llvm::SMRange Range;
};

/// `"…"` or `r"…"`. Parts alternate as written; a string without
/// interpolations has at most one text part.
class StringLiteral : public Expr {
public:
  StringLiteral(llvm::SMRange R, bool Raw, llvm::ArrayRef<StringPart> Parts)
      : Expr(NodeKind::StringLiteral, R), Raw(Raw), Parts(Parts) {}
  bool isRaw() const { return Raw; }
  llvm::ArrayRef<StringPart> getParts() const { return Parts; }
  bool isInterpolated() const {
    for (const StringPart &P : Parts)
      if (P.Interpolation)
        return true;
    return false;
  }
  /// The decoded value of a string without interpolations.
  llvm::StringRef getPlainValue() const {
    return Parts.empty() || Parts[0].Interpolation ? llvm::StringRef()
                                                   : Parts[0].Text;
  }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::StringLiteral;
  }

private:
  bool Raw;
  llvm::ArrayRef<StringPart> Parts;
};

/// A bare name: a knob, a `let`, a declaration, an enum member, a function.
class NameExpr : public Expr {
public:
  explicit NameExpr(Identifier Name)
      : Expr(NodeKind::NameExpr, Name.Range), Name(Name) {}
  const Identifier &getName() const { return Name; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::NameExpr;
  }

private:
  Identifier Name;
};

/// `[1, 2, 4]`, `[2 .. graph_max]` (one RangeExpr element, spliced).
class ListExpr : public Expr {
public:
  ListExpr(llvm::SMRange R, llvm::ArrayRef<Expr *> Elements)
      : Expr(NodeKind::ListExpr, R), Elements(Elements) {}
  llvm::ArrayRef<Expr *> getElements() const { return Elements; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::ListExpr;
  }

private:
  llvm::ArrayRef<Expr *> Elements;
};

/// `[e for x in L]`, `[e for x in L if c]`: a list comprehension over a list
/// or a range; `x` is bound in `e` and `c` only.
class ComprehensionExpr : public Expr {
public:
  ComprehensionExpr(llvm::SMRange R, Expr *Element, Identifier Var,
                    Expr *Source, Expr *Cond)
      : Expr(NodeKind::ComprehensionExpr, R), Element(Element), Var(Var),
        Source(Source), Cond(Cond) {}
  Expr *getElement() const { return Element; }
  const Identifier &getVar() const { return Var; }
  Expr *getSource() const { return Source; }
  Expr *getCondition() const { return Cond; } ///< Null without `if`.
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::ComprehensionExpr;
  }

private:
  Expr *Element;
  Identifier Var;
  Expr *Source;
  Expr *Cond;
};

struct MapEntry {
  Expr *Key;
  Expr *Value;
  llvm::SMRange Range;
};

/// `{"kv_role": "offload"}`, `{1: 1.85}`, in source order.
class MapExpr : public Expr {
public:
  MapExpr(llvm::SMRange R, llvm::ArrayRef<MapEntry> Entries)
      : Expr(NodeKind::MapExpr, R), Entries(Entries) {}
  llvm::ArrayRef<MapEntry> getEntries() const { return Entries; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::MapExpr;
  }

private:
  llvm::ArrayRef<MapEntry> Entries;
};

enum class UnaryOp : uint8_t { Negate, Not };
llvm::StringRef getSpelling(UnaryOp Op);

class UnaryExpr : public Expr {
public:
  UnaryExpr(llvm::SMRange R, UnaryOp Op, Expr *Operand)
      : Expr(NodeKind::UnaryExpr, R), Op(Op), Operand(Operand) {}
  UnaryOp getOp() const { return Op; }
  Expr *getOperand() const { return Operand; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::UnaryExpr;
  }

private:
  UnaryOp Op;
  Expr *Operand;
};

enum class BinaryOp : uint8_t {
  Mul, Div, Rem, Add, Sub,
  Eq, Ne, Lt, Le, Gt, Ge, In,
  And, Or,
};
llvm::StringRef getSpelling(BinaryOp Op);
inline bool isComparison(BinaryOp Op) {
  return Op >= BinaryOp::Eq && Op <= BinaryOp::In;
}

class BinaryExpr : public Expr {
public:
  BinaryExpr(llvm::SMRange R, BinaryOp Op, llvm::SMRange OpRange, Expr *LHS,
             Expr *RHS)
      : Expr(NodeKind::BinaryExpr, R), Op(Op), OpRange(OpRange), LHS(LHS),
        RHS(RHS) {}
  BinaryOp getOp() const { return Op; }
  /// Where the operator token is, for diagnostics on the operation itself.
  llvm::SMRange getOpRange() const { return OpRange; }
  Expr *getLHS() const { return LHS; }
  Expr *getRHS() const { return RHS; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::BinaryExpr;
  }

private:
  BinaryOp Op;
  llvm::SMRange OpRange;
  Expr *LHS;
  Expr *RHS;
};

/// `lo .. hi` or `lo .. hi step s`: inclusive.
class RangeExpr : public Expr {
public:
  RangeExpr(llvm::SMRange R, Expr *Lo, Expr *Hi, Expr *Step)
      : Expr(NodeKind::RangeExpr, R), Lo(Lo), Hi(Hi), Step(Step) {}
  Expr *getLo() const { return Lo; }
  Expr *getHi() const { return Hi; }
  Expr *getStep() const { return Step; } ///< Null without `step`.
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::RangeExpr;
  }

private:
  Expr *Lo;
  Expr *Hi;
  Expr *Step;
};

/// `Then if Cond else Else`.
class ConditionalExpr : public Expr {
public:
  ConditionalExpr(llvm::SMRange R, Expr *Then, Expr *Cond, Expr *Else)
      : Expr(NodeKind::ConditionalExpr, R), Then(Then), Cond(Cond),
        Else(Else) {}
  Expr *getThen() const { return Then; }
  Expr *getCond() const { return Cond; }
  Expr *getElse() const { return Else; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::ConditionalExpr;
  }

private:
  Expr *Then;
  Expr *Cond;
  Expr *Else;
};

/// A call or preflight argument: positional when Name is empty.
struct Argument {
  Identifier Name;
  Expr *Value;
  llvm::SMRange Range;

  bool isNamed() const { return !Name.empty(); }
};

class CallExpr : public Expr {
public:
  CallExpr(llvm::SMRange R, Expr *Callee, llvm::ArrayRef<Argument> Args)
      : Expr(NodeKind::CallExpr, R), Callee(Callee), Args(Args) {}
  Expr *getCallee() const { return Callee; }
  llvm::ArrayRef<Argument> getArgs() const { return Args; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::CallExpr;
  }

private:
  Expr *Callee;
  llvm::ArrayRef<Argument> Args;
};

class IndexExpr : public Expr {
public:
  IndexExpr(llvm::SMRange R, Expr *Base, Expr *Index)
      : Expr(NodeKind::IndexExpr, R), Base(Base), Index(Index) {}
  Expr *getBase() const { return Base; }
  Expr *getIndex() const { return Index; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::IndexExpr;
  }

private:
  Expr *Base;
  Expr *Index;
};

class MemberExpr : public Expr {
public:
  MemberExpr(llvm::SMRange R, Expr *Base, Identifier Member)
      : Expr(NodeKind::MemberExpr, R), Base(Base), Member(Member) {}
  Expr *getBase() const { return Base; }
  const Identifier &getMember() const { return Member; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::MemberExpr;
  }

private:
  Expr *Base;
  Identifier Member;
};

enum class RoundingMode : uint8_t { Exact, Floor, Ceil, Round };
llvm::StringRef getSpelling(RoundingMode M);

/// `q as GB`, `q as GB floor`. The unit is as written; Sema checks it (an
/// unknown unit name is a Sema error, like any unknown name).
class ConvertExpr : public Expr {
public:
  ConvertExpr(llvm::SMRange R, Expr *Operand, Identifier UnitName,
              RoundingMode Mode)
      : Expr(NodeKind::ConvertExpr, R), Operand(Operand), UnitName(UnitName),
        Mode(Mode) {}
  Expr *getOperand() const { return Operand; }
  const Identifier &getUnitName() const { return UnitName; }
  RoundingMode getRounding() const { return Mode; }
  static bool classof(const Node *N) {
    return N->getKind() == NodeKind::ConvertExpr;
  }

private:
  Expr *Operand;
  Identifier UnitName;
  RoundingMode Mode;
};

} // namespace arecipe::ast

#endif // ARECIPE_AST_EXPR_H
