//===- Value.h - Values and types of recipe expressions ---------*- C++ -*-===//
//
// The value model of docs/language.md §6: what an expression evaluates to in
// a cell (int, exact float, bool, string, quantity, enum member, list, map,
// range, a declaration, a constructor record such as `agentic(...)`, a
// `cell(N)` server reference, or none), and the declared types knobs and
// fields are checked against. Values are immutable and cheap to copy: 32
// bytes, and a copy shares the contents (strings, lists, maps) of the
// original; a list keeps a range written in it as the range. Nothing here
// evaluates syntax or reports diagnostics; it only renders, compares and
// converts.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SEMA_VALUE_H
#define ARECIPE_SEMA_VALUE_H

#include "arecipe/Basic/Quantity.h"
#include "arecipe/Basic/Rational.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/iterator_range.h"

#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace arecipe::sema {

struct EnumInfo;
struct EntityInfo;
struct Type;

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
  Rational getNumber() const;
  bool getBool() const { return I != 0; }
  const std::string &getString() const; ///< Also enum member.
  const Quantity &getQuantity() const;
  const EnumInfo *getEnum() const { return Enum; }
  /// Map entries in source order; record fields in argument order.
  const std::vector<std::pair<Value, Value>> &getEntries() const;
  int64_t getLo() const;
  int64_t getHi() const;
  int64_t getStep() const;
  /// The declaration of an Entity value, or of an instance Record (null
  /// for other records).
  const EntityInfo *getEntity() const { return Entity; }
  const std::string &getRecordName() const;
  int64_t getServerConc() const { return I; }

  /// A list's elements, in order. A range written in a list (`[2 ..
  /// graph_max]`) is kept as its bounds, never as one value per element,
  /// so element() computes it.
  size_t listSize() const;
  Value element(size_t Index) const;
  class ElementIterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Value;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Value;
    ElementIterator(const Value *List, size_t Index)
        : List(List), Index(Index) {}
    Value operator*() const { return List->element(Index); }
    ElementIterator &operator++() {
      ++Index;
      return *this;
    }
    bool operator==(const ElementIterator &O) const { return Index == O.Index; }
    bool operator!=(const ElementIterator &O) const { return Index != O.Index; }

  private:
    const Value *List;
    size_t Index;
  };
  llvm::iterator_range<ElementIterator> elements() const {
    return {ElementIterator(this, 0), ElementIterator(this, listSize())};
  }
  /// How many of a list's elements are held one by one (not in a range).
  size_t listStoredElements() const;
  /// Walks a list in order: Run for each run of values held one by one,
  /// Range for each range of integers (first, step, count) -- for a caller
  /// that renders millions of elements without making a Value of each.
  void
  forEachRun(llvm::function_ref<void(llvm::ArrayRef<Value>)> Run,
             llvm::function_ref<void(int64_t Lo, int64_t Step, uint64_t Count)>
                 Range) const;
  /// The list as one range of integers (lo, step, count) when that is all
  /// it holds.
  std::optional<std::tuple<int64_t, int64_t, uint64_t>> asIntRange() const;

  /// A record field or map entry by string key, or null.
  const Value *lookup(llvm::StringRef Key) const;

  /// How large the value is for the language's limits (docs/language.md
  /// §9): a string counts its bytes, a list or map the sizes of its
  /// elements (keys and values), nested ones included; any other value 1.
  /// Saturates at UINT64_MAX.
  uint64_t size() const;

  /// The type as users read it: "int", "size", "list", "enum 'mode'".
  std::string describeType() const;
  /// For messages and --explain: `8`, `0.86`, `128.5GB`, `"fp8"`, `FULL`,
  /// `[2, 3, 4]`, `{1: 1.85}`, `agentic(duration = 1h)`, `none`.
  std::string str() const;

  friend bool operator==(const Value &L, const Value &R);
  friend bool operator!=(const Value &L, const Value &R) { return !(L == R); }

  struct Payload;
  friend class ListBuilder;
  friend std::optional<Value> conformTo(const Value &V, const Type &T);
  /// Whether O is this very value (a copy of it), not just an equal one.
  bool isSameAs(const Value &O) const {
    return Kind == O.Kind && Small == O.Small && I == O.I && P == O.P;
  }
  /// Whether nothing an expression can do, and nothing written from the
  /// value, tells O apart from this value. Stricter than ==: `1` and `1.0`
  /// are equal but of two kinds, `1 GiB` and `1024 MiB` print differently;
  /// a list, map or range only as the very same value.
  bool isIndistinguishableFrom(const Value &O) const;

private:
  ValueKind Kind = ValueKind::None;
  /// Without a payload: a Float's denominator (its numerator is I), an
  /// Enum's member as an index into getEnum()->Members. Fills what was
  /// padding: these two kinds are made in every cell, and a payload for
  /// each was a malloc and a free.
  uint32_t Small = 0;
  // Small values are held inline; everything else (strings, quantities,
  // lists, maps, ranges, and the exact numbers and enum members that do
  // not fit the above) in a shared, immutable payload, so copying a
  // value -- into every cell, into a rendering -- never copies its
  // contents.
  union {
    int64_t I = 0; ///< Int, Bool (0 or 1), Server.
    const EnumInfo *Enum;
    const EntityInfo *Entity;
  };
  std::shared_ptr<const Payload> P;
};

/// Builds a list from single values and integer ranges; a range stays its
/// three numbers however many elements it has.
class ListBuilder {
public:
  ListBuilder();
  ~ListBuilder();
  void add(Value V);
  /// Appends Lo, Lo + Step, ... up to Hi (inclusive); the range must not be
  /// empty (docs/language.md §6.5).
  void addRange(int64_t Lo, int64_t Hi, int64_t Step);
  /// Appends the Count elements Lo, Lo + Step, ...
  void addSteps(int64_t Lo, int64_t Step, uint64_t Count);
  /// Elements so far.
  uint64_t size() const;
  Value take();

private:
  std::shared_ptr<Value::Payload> P;
};

/// Numeric values compare by number (8 == 8.0), others by kind and content.
bool operator==(const Value &L, const Value &R);

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
    Scalar, ///< string, int, float or bool (env.* and labels.*).
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
/// digit, bools `true`/`false`, lists and maps as compact JSON with map
/// keys in insertion order, enums by member name, quantities in base units.
/// Returns nullopt when V has no rendering (a non-terminating float, a
/// fractional number of bytes, a declaration); Why then says why.
std::optional<std::string> renderValue(const Value &V,
                                       std::string *Why = nullptr);

/// V (a map or list) as JSON, keys in insertion order: compact, or with
/// Python's json.dumps separators (`", "`, `": "`) when Spaced. Indent > 0
/// is json.dumps(indent = Indent): one member per line, `,` at line ends,
/// `": "` after keys (Spaced makes no difference then).
std::optional<std::string> renderJSON(const Value &V, bool Spaced,
                                      std::string *Why = nullptr,
                                      unsigned Indent = 0);

/// How renderYAML lays a document out: spaces per nesting level, and
/// whether a list of scalars is written inline (`[1, 2, 3]`) instead of one
/// `- item` line per element. A launcher that writes its config with a
/// heredoc fixes both, and a file compared byte for byte has to follow it.
struct YamlStyle {
  unsigned Indent = 2;
  bool FlowLists = false;
};

/// V as block YAML (keys in insertion order, a string quoted only where a
/// YAML reader would take it for something else), ending in a newline.
std::optional<std::string> renderYAML(const Value &V,
                                      std::string *Why = nullptr,
                                      YamlStyle Style = YamlStyle());

/// V as a JSON text (for --emit cells): numbers as JSON numbers, exact
/// floats as decimals (or "p/q" strings when non-terminating), quantities as
/// strings in their written unit ("128.5GB"), enums and declarations as
/// strings, lists and maps as arrays and objects (keys in insertion order).
std::string toJSON(const Value &V);

} // namespace arecipe::sema

#endif // ARECIPE_SEMA_VALUE_H
