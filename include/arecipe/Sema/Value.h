//===- Value.h - Values and types of recipe expressions ---------*- C++ -*-===//
//
// The value model of docs/language.md §6: what an expression evaluates to in
// a cell (int, exact float, bool, string, quantity, enum member, list, map,
// range, a declaration, a constructor record such as `agentic(...)`, a
// `cell(N)` server reference, or none), and the declared types knobs and
// fields are checked against. Values are immutable and cheap to copy (lists
// and maps share their elements). Nothing here evaluates syntax or reports
// diagnostics; it only renders, compares and converts.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SEMA_VALUE_H
#define ARECIPE_SEMA_VALUE_H

#include "arecipe/Basic/Quantity.h"
#include "arecipe/Basic/Rational.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace arecipe::sema {

struct EnumInfo;
struct EntityInfo;

enum class ValueKind : uint8_t {
  None,
  Int,
  Float,
  Bool,
  String,
  Quantity,
  Enum,
  List,
  Map,
  Range,
  Entity, ///< A hardware, model or engine declaration.
  Record, ///< A constructor result: `agentic(duration = 1h)`.
  Server, ///< `cell(N)`.
};

class Value {
public:
  Value() = default;
  static Value none() { return Value(); }
  static Value integer(int64_t I);
  static Value number(Rational R);
  static Value boolean(bool B);
  static Value string(std::string S);
  static Value quantity(Quantity Q);
  static Value enumMember(const EnumInfo *E, llvm::StringRef Member);
  static Value list(std::vector<Value> Elems);
  static Value map(std::vector<std::pair<Value, Value>> Entries);
  static Value range(int64_t Lo, int64_t Hi, int64_t Step);
  static Value entity(const EntityInfo *E);
  static Value record(llvm::StringRef Name,
                      std::vector<std::pair<Value, Value>> Fields);
  /// A router or service declaration called with knob values
  /// (`atomesh(policy = dp_sticky)`): a Record named after the declaration
  /// whose getEntity() is the declaration.
  static Value instance(const EntityInfo *Template,
                        std::vector<std::pair<Value, Value>> Args);
  static Value server(int64_t Conc);

  ValueKind kind() const { return Kind; }
  bool isNone() const { return Kind == ValueKind::None; }
  bool isNumeric() const {
    return Kind == ValueKind::Int || Kind == ValueKind::Float;
  }

  int64_t getInt() const { return I; }
  /// Int or Float as an exact rational.
  Rational getNumber() const { return Kind == ValueKind::Int ? Rational(I) : F; }
  bool getBool() const { return B; }
  const std::string &getString() const { return S; } ///< Also enum member.
  const Quantity &getQuantity() const { return Q; }
  const EnumInfo *getEnum() const { return Enum; }
  const std::vector<Value> &getElements() const { return *Elems; }
  /// Map entries in source order; record fields in argument order.
  const std::vector<std::pair<Value, Value>> &getEntries() const {
    return *Entries;
  }
  int64_t getLo() const { return Lo; }
  int64_t getHi() const { return Hi; }
  int64_t getStep() const { return Step; }
  /// The declaration of an Entity value, or of an instance Record (null
  /// for other records).
  const EntityInfo *getEntity() const { return Entity; }
  const std::string &getRecordName() const { return S; }
  int64_t getServerConc() const { return I; }

  /// A record field or map entry by string key, or null.
  const Value *lookup(llvm::StringRef Key) const;

  /// The type as users read it: "int", "size", "list", "enum 'mode'".
  std::string describeType() const;
  /// For messages and --explain: `8`, `0.86`, `128.5GB`, `"fp8"`, `FULL`,
  /// `[2, 3, 4]`, `{1: 1.85}`, `agentic(duration = 1h)`, `none`.
  std::string str() const;

  friend bool operator==(const Value &L, const Value &R);
  friend bool operator!=(const Value &L, const Value &R) { return !(L == R); }

private:
  ValueKind Kind = ValueKind::None;
  int64_t I = 0;
  bool B = false;
  Rational F;
  Quantity Q;
  std::string S;
  const EnumInfo *Enum = nullptr;
  const EntityInfo *Entity = nullptr;
  std::shared_ptr<const std::vector<Value>> Elems;
  std::shared_ptr<const std::vector<std::pair<Value, Value>>> Entries;
  int64_t Lo = 0, Hi = 0, Step = 1;
};

/// Numeric values compare by number (8 == 8.0), others by kind and content.
bool operator==(const Value &L, const Value &R);

/// The elements of a range, ascending or descending by its step.
std::vector<int64_t> expandRange(int64_t Lo, int64_t Hi, int64_t Step);
/// How many elements the range has, without materialising it (saturates at
/// UINT64_MAX).
uint64_t rangeSize(int64_t Lo, int64_t Hi, int64_t Step);
/// Whether X is an element of the range, without materialising it.
bool rangeContains(int64_t Lo, int64_t Hi, int64_t Step, int64_t X);

/// A declared type: `int`, `size?`, `list<int>`, `map<string, int>`, an enum.
struct Type {
  enum Kind : uint8_t {
    Any,
    Int,
    Float,
    Bool,
    String,
    Size,
    Duration,
    Rate,
    Enum,
    List,
    Map,
    Hardware,
    Model,
    Engine,
    Scenario,
    Topology,
    Router,
    Service,
    Server,
    Scalar, ///< string, int or bool (env.* and labels.*).
  };
  Kind K = Any;
  bool Optional = false;
  const EnumInfo *EnumType = nullptr;
  std::vector<Type> Args;

  static Type of(Kind K, bool Optional = false) {
    Type T;
    T.K = K;
    T.Optional = Optional;
    return T;
  }
  static Type listOf(Type Elem) {
    Type T = of(List);
    T.Args.push_back(std::move(Elem));
    return T;
  }
  static Type enumOf(const EnumInfo *E, bool Optional = false) {
    Type T = of(Enum, Optional);
    T.EnumType = E;
    return T;
  }

  /// "int", "size?", "list<int>", "cudagraph_mode".
  std::string str() const;
};

/// Whether V conforms to T; on success returns V converted where the
/// language allows (an int where a float is expected becomes a float).
std::optional<Value> conformTo(const Value &V, const Type &T);

/// Renders V for argv, environment and interpolated strings (§6.6): ints
/// in decimal, floats as their exact decimal with at least one fractional
/// digit, bools `true`/`false`, lists and maps as compact JSON with sorted
/// map keys, enums by member name, quantities in base units. Returns
/// nullopt when V has no rendering (a non-terminating float, a fractional
/// number of bytes, a declaration); Why then says why.
std::optional<std::string> renderValue(const Value &V, std::string *Why = nullptr);

/// V as a JSON text (for --emit cells): numbers as JSON numbers, exact
/// floats as decimals (or "p/q" strings when non-terminating), quantities as
/// strings in their written unit ("128.5GB"), enums and declarations as
/// strings, lists and maps as arrays and objects (keys sorted).
std::string toJSON(const Value &V);

} // namespace arecipe::sema

#endif // ARECIPE_SEMA_VALUE_H
