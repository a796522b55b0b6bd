//===- Builtins.h - The built-in functions, constructors, actions -*- C++
//-*-===//
//
// Private to lib/Sema. Every name the language predefines, as data: the
// built-in enums, one BuiltinFunction per function of docs/language.md
// §6.7 (name, arity, signature, one-line doc and the handler that computes
// it), the scenario/topology/router constructors and the pre-flight actions
// with their named, typed, defaulted parameters (§3.7). evalCall() and
// evalPreflight() only look things up here; `arecipec --list-builtins`
// prints the functions and constructors, and a test compares that listing
// with the table of docs/language.md, so the two cannot drift.
//
// The tables are built once and never change; nothing in them points into
// a compilation, so every compilation of a process shares them (an earlier
// per-compilation copy existed only because the enums were per-compilation,
// F15).
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_SEMA_BUILTINS_H
#define ARECIPE_LIB_SEMA_BUILTINS_H

#include "arecipe/Sema/Cell.h"

#include "llvm/ADT/StringRef.h"

#include <climits>
#include <optional>
#include <string>
#include <vector>

namespace arecipe {
namespace ast {
class CallExpr;
} // namespace ast

namespace sema {

class SemaImpl;
struct EvalCtx;

/// One parameter of a constructor or pre-flight action.
struct Param {
  const char *Name;
  Type Ty;
  bool Required = false;
  std::optional<Value> Default = std::nullopt;
  bool Variadic = false; ///< Collects every positional argument as a list.
};

/// A constructor or a pre-flight action: called with named (or positional)
/// arguments bound to Params.
struct Signature {
  const char *Name;
  std::vector<Param> Params;
  const char *Result = ""; ///< What a constructor makes: "scenario", ...
  const char *Doc = "";
};

/// A built-in function call with its arguments evaluated.
struct BuiltinCall {
  SemaImpl &S;
  llvm::StringRef Name;
  const ast::CallExpr *E;
  std::vector<Value> Args;
  const EvalCtx &Ctx;

  /// Reports that argument N is not what the function takes.
  std::optional<Value> mismatch(size_t N, llvm::StringRef Want);
};

struct BuiltinFunction {
  static constexpr unsigned Variadic = UINT_MAX;
  const char *Name;
  /// Checked once the arguments are evaluated ("'floor' takes 1
  /// argument(s), got 2"); MaxArgs may be Variadic.
  unsigned MinArgs, MaxArgs;
  const char *Signature; ///< As docs/language.md writes it.
  const char *Doc;       ///< One line, as docs/language.md writes it.
  std::optional<Value> (*Handler)(BuiltinCall &Call);
  /// False for `cell`, which is an error wherever it is called as a
  /// function: the handler runs before any argument is evaluated.
  bool EvaluatesArguments = true;
  /// Non-empty: the arguments bind to these parameters by position or by
  /// name, defaults fill the rest (`json(m, spaced = true)`), and the
  /// handler sees one value per parameter, in this order.
  std::vector<Param> Params = {};
};

struct BuiltinTables {
  BuiltinTables();
  BuiltinTables(const BuiltinTables &) = delete;
  BuiltinTables &operator=(const BuiltinTables &) = delete;

  /// precision, mode, router_policy, on_mismatch, node_scope, cache_scope,
  /// client_endpoint.
  /// Never resized after construction: the tables below point into it.
  std::vector<EnumInfo> Enums;
  std::vector<BuiltinFunction> Functions;
  std::vector<Signature> Constructors;
  std::vector<Signature> PreflightActions;

  const EnumInfo *enumNamed(llvm::StringRef Name) const;
  const BuiltinFunction *function(llvm::StringRef Name) const;
  const Signature *constructor(llvm::StringRef Name) const;
  const Signature *preflightAction(llvm::StringRef Name) const;
};

/// The process's one set of tables.
const BuiltinTables &builtins();

/// "(isl: int, osl: int, ratio: float = 0.8, ...) -> scenario".
std::string describeSignature(const Signature &Sig);

} // namespace sema
} // namespace arecipe

#endif // ARECIPE_LIB_SEMA_BUILTINS_H
