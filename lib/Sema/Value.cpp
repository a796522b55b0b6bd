//===- Value.cpp - Values and types of recipe expressions ----------------===//

#include "arecipe/Sema/Value.h"
#include "arecipe/Sema/Cell.h"

#include "nlohmann/json.hpp"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <variant>

using namespace arecipe;
using namespace arecipe::sema;

namespace {
uint64_t addSizes(uint64_t A, uint64_t B) {
  return A > UINT64_MAX - B ? UINT64_MAX : A + B;
}

/// A list: runs of values and integer ranges, each starting at its
/// element index.
struct ListData {
  struct Segment {
    uint64_t Start = 0;
    bool IsRange = false;
    std::vector<Value> Items; ///< When !IsRange.
    int64_t Lo = 0, Step = 0; ///< When IsRange.
    uint64_t Count = 0;       ///< Elements in the segment.
  };
  std::vector<Segment> Segments;
  uint64_t Length = 0;
};

struct MapData {
  std::string RecordName; ///< Records only.
  std::vector<std::pair<Value, Value>> Entries;
};

struct RangeData {
  int64_t Lo, Hi, Step;
};
} // namespace

struct Value::Payload {
  std::variant<std::string, Rational, Quantity, ListData, MapData, RangeData> D;
  uint64_t Size = 1; ///< Value::size() of what holds this payload.
};

template <typename T> static std::shared_ptr<Value::Payload> payload(T D) {
  auto P = std::make_shared<Value::Payload>();
  P->D = std::move(D);
  return P;
}

Value Value::integer(int64_t I) {
  Value V;
  V.Kind = ValueKind::Int;
  V.I = I;
  return V;
}
Value Value::number(Rational R) {
  Value V;
  V.Kind = ValueKind::Float;
  if (R.denominator() <= UINT32_MAX) {
    V.I = R.numerator();
    V.Small = uint32_t(R.denominator());
  } else {
    V.P = payload(R);
  }
  return V;
}
Value Value::boolean(bool B) {
  Value V;
  V.Kind = ValueKind::Bool;
  V.I = B;
  return V;
}
Value Value::string(std::string S) {
  Value V;
  V.Kind = ValueKind::String;
  auto P = payload(std::move(S));
  P->Size = std::get<std::string>(P->D).size();
  V.P = std::move(P);
  return V;
}
Value Value::quantity(Quantity Q) {
  if (Q.isDimensionless())
    return number(Q.baseValue());
  Value V;
  V.Kind = ValueKind::Quantity;
  V.P = payload(Q);
  return V;
}
Value Value::enumMember(const EnumInfo *E, llvm::StringRef Member) {
  Value V;
  V.Kind = ValueKind::Enum;
  V.Enum = E;
  // Members of a declared enum never change once it is declared, and the
  // value already depends on E (== reads its name).
  if (E) {
    auto It = std::find(E->Members.begin(), E->Members.end(), Member);
    if (It != E->Members.end() &&
        size_t(It - E->Members.begin()) < UINT32_MAX) {
      V.Small = uint32_t(It - E->Members.begin());
      return V;
    }
  }
  V.P = payload(Member.str());
  return V;
}
Value Value::list(std::vector<Value> Elems) {
  ListBuilder B;
  for (Value &E : Elems)
    B.add(std::move(E));
  return B.take();
}
static uint64_t entriesSize(const std::vector<std::pair<Value, Value>> &E) {
  uint64_t Size = 0;
  for (const auto &[K, V] : E)
    Size = addSizes(Size, addSizes(K.size(), V.size()));
  return Size;
}
Value Value::map(std::vector<std::pair<Value, Value>> Entries) {
  Value V;
  V.Kind = ValueKind::Map;
  uint64_t Size = entriesSize(Entries);
  auto P = payload(MapData{"", std::move(Entries)});
  P->Size = Size;
  V.P = std::move(P);
  return V;
}
Value Value::range(int64_t Lo, int64_t Hi, int64_t Step) {
  Value V;
  V.Kind = ValueKind::Range;
  V.P = payload(RangeData{Lo, Hi, Step});
  return V;
}
Value Value::entity(const EntityInfo *E) {
  Value V;
  V.Kind = ValueKind::Entity;
  V.Entity = E;
  return V;
}
Value Value::record(llvm::StringRef Name,
                    std::vector<std::pair<Value, Value>> Fields) {
  Value V;
  V.Kind = ValueKind::Record;
  uint64_t Size = entriesSize(Fields);
  auto P = payload(MapData{Name.str(), std::move(Fields)});
  P->Size = Size;
  V.P = std::move(P);
  return V;
}
Value Value::instance(const EntityInfo *Template,
                      std::vector<std::pair<Value, Value>> Args) {
  Value V = record(Template->Name, std::move(Args));
  V.Entity = Template;
  return V;
}
Value Value::server(int64_t Conc) {
  Value V;
  V.Kind = ValueKind::Server;
  V.I = Conc;
  return V;
}

Rational Value::getNumber() const {
  if (Kind == ValueKind::Int)
    return Rational(I);
  return P ? std::get<Rational>(P->D) : Rational::fromParts(I, Small);
}
const std::string &Value::getString() const {
  if (Kind == ValueKind::Enum && !P)
    return Enum->Members[Small];
  return std::get<std::string>(P->D);
}
const Quantity &Value::getQuantity() const { return std::get<Quantity>(P->D); }
const std::vector<std::pair<Value, Value>> &Value::getEntries() const {
  return std::get<MapData>(P->D).Entries;
}
const std::string &Value::getRecordName() const {
  return std::get<MapData>(P->D).RecordName;
}
int64_t Value::getLo() const { return std::get<RangeData>(P->D).Lo; }
int64_t Value::getHi() const { return std::get<RangeData>(P->D).Hi; }
int64_t Value::getStep() const { return std::get<RangeData>(P->D).Step; }

uint64_t Value::size() const {
  switch (Kind) {
  case ValueKind::String:
  case ValueKind::List:
  case ValueKind::Map:
  case ValueKind::Record:
    return P->Size;
  default:
    return 1;
  }
}

size_t Value::listSize() const { return std::get<ListData>(P->D).Length; }

Value Value::element(size_t Index) const {
  const ListData &L = std::get<ListData>(P->D);
  auto It = std::upper_bound(
      L.Segments.begin(), L.Segments.end(), Index,
      [](size_t I, const ListData::Segment &S) { return I < S.Start; });
  const ListData::Segment &S = *std::prev(It);
  uint64_t Offset = Index - S.Start;
  if (S.IsRange)
    return integer(S.Lo + S.Step * static_cast<int64_t>(Offset));
  return S.Items[Offset];
}

size_t Value::listStoredElements() const {
  size_t N = 0;
  for (const ListData::Segment &S : std::get<ListData>(P->D).Segments)
    N += S.Items.size();
  return N;
}

void Value::forEachRun(
    llvm::function_ref<void(llvm::ArrayRef<Value>)> Run,
    llvm::function_ref<void(int64_t, int64_t, uint64_t)> Range) const {
  for (const ListData::Segment &S : std::get<ListData>(P->D).Segments) {
    if (S.IsRange)
      Range(S.Lo, S.Step, S.Count);
    else
      Run(S.Items);
  }
}

/// Appends Count integers from Lo by Step as JSON, comma-separated; First
/// says whether nothing precedes them in the array.
static void appendRange(std::string &Out, int64_t Lo, int64_t Step,
                        uint64_t Count, bool &First) {
  for (uint64_t N = 0; N < Count; ++N) {
    if (!First)
      Out += ',';
    First = false;
    Out += std::to_string(Lo + Step * static_cast<int64_t>(N));
  }
}

std::optional<std::tuple<int64_t, int64_t, uint64_t>>
Value::asIntRange() const {
  if (Kind != ValueKind::List)
    return std::nullopt;
  const ListData &L = std::get<ListData>(P->D);
  if (L.Segments.size() != 1 || !L.Segments[0].IsRange)
    return std::nullopt;
  const ListData::Segment &S = L.Segments[0];
  return std::make_tuple(S.Lo, S.Step, S.Count);
}

ListBuilder::ListBuilder() : P(payload(ListData{})) { P->Size = 0; }
ListBuilder::~ListBuilder() = default;

void ListBuilder::add(Value V) {
  ListData &L = std::get<ListData>(P->D);
  if (L.Segments.empty() || L.Segments.back().IsRange) {
    L.Segments.emplace_back();
    L.Segments.back().Start = L.Length;
  }
  ListData::Segment &S = L.Segments.back();
  P->Size = addSizes(P->Size, V.size());
  S.Items.push_back(std::move(V));
  ++S.Count;
  ++L.Length;
}

void ListBuilder::addRange(int64_t Lo, int64_t Hi, int64_t Step) {
  addSteps(Lo, Step, rangeSize(Lo, Hi, Step));
}

void ListBuilder::addSteps(int64_t Lo, int64_t Step, uint64_t Count) {
  if (!Count)
    return;
  ListData &L = std::get<ListData>(P->D);
  ListData::Segment S;
  S.Start = L.Length;
  S.IsRange = true;
  S.Lo = Lo;
  S.Step = Step;
  S.Count = Count;
  L.Length += Count;
  P->Size = addSizes(P->Size, Count);
  L.Segments.push_back(std::move(S));
}

uint64_t ListBuilder::size() const { return std::get<ListData>(P->D).Length; }

Value ListBuilder::take() {
  Value V;
  V.Kind = ValueKind::List;
  V.P = std::move(P);
  P = payload(ListData{});
  P->Size = 0;
  return V;
}

const Value *Value::lookup(llvm::StringRef Key) const {
  if (Kind != ValueKind::Map && Kind != ValueKind::Record)
    return nullptr;
  for (const auto &[K, V] : getEntries())
    if (K.Kind == ValueKind::String && K.getString() == Key)
      return &V;
  return nullptr;
}

uint64_t arecipe::sema::rangeSize(int64_t Lo, int64_t Hi, int64_t Step) {
  __int128 L = Lo, H = Hi, S = Step;
  if (S == 0 || (S > 0 && L > H) || (S < 0 && L < H))
    return 0;
  __int128 N = (H - L) / S + 1;
  return N > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)N;
}

bool arecipe::sema::rangeContains(int64_t Lo, int64_t Hi, int64_t Step,
                                  int64_t X) {
  __int128 L = Lo, H = Hi, S = Step, V = X;
  if (S > 0 && (V < L || V > H))
    return false;
  if (S < 0 && (V > L || V < H))
    return false;
  if (S == 0)
    return false;
  return (V - L) % S == 0;
}

static const char *entityKindName(const EntityInfo *E) {
  switch (E->K) {
  case EntityInfo::Recipe:
    return "recipe";
  case EntityInfo::Hardware:
    return "hardware";
  case EntityInfo::Engine:
    return "engine";
  case EntityInfo::Model:
    return "model";
  case EntityInfo::Router:
    return "router";
  case EntityInfo::Service:
    return "service";
  }
  return "declaration";
}

std::string Value::describeType() const {
  switch (Kind) {
  case ValueKind::None:
    return "none";
  case ValueKind::Int:
    return "int";
  case ValueKind::Float:
    return "float";
  case ValueKind::Bool:
    return "bool";
  case ValueKind::String:
    return "string";
  case ValueKind::Quantity: {
    Dimension D = getQuantity().dimension();
    if (D == Dimension::size())
      return "size";
    if (D == Dimension::time())
      return "duration";
    if (D == Dimension{1, -1})
      return "rate";
    return "quantity of " + describe(D);
  }
  case ValueKind::Enum:
    return "enum '" + Enum->Name + "'";
  case ValueKind::List:
    return "list";
  case ValueKind::Map:
    return "map";
  case ValueKind::Range:
    return "range";
  case ValueKind::Entity:
    return entityKindName(Entity);
  case ValueKind::Record:
    return "'" + getRecordName() + "(...)'";
  case ValueKind::Server:
    return "'cell(...)'";
  }
  return "value";
}

std::string Value::str() const {
  switch (Kind) {
  case ValueKind::None:
    return "none";
  case ValueKind::Int:
    return std::to_string(I);
  case ValueKind::Float: {
    Rational F = getNumber();
    std::string D = F.str();
    if (F.isInteger())
      D += ".0";
    return D;
  }
  case ValueKind::Bool:
    return getBool() ? "true" : "false";
  case ValueKind::String:
    return nlohmann::json(getString()).dump();
  case ValueKind::Quantity:
    return getQuantity().str();
  case ValueKind::Enum:
    return getString();
  case ValueKind::List: {
    std::string Out = "[";
    size_t N = 0;
    for (Value E : elements())
      Out += (N++ ? ", " : "") + E.str();
    return Out + "]";
  }
  case ValueKind::Map:
  case ValueKind::Record: {
    bool Record = Kind == ValueKind::Record;
    std::string Out = Record ? getRecordName() + "(" : "{";
    const auto &Entries = getEntries();
    for (size_t N = 0; N < Entries.size(); ++N) {
      const auto &[K, V] = Entries[N];
      Out += N ? ", " : "";
      Out += Record ? K.getString() + " = " : K.str() + ": ";
      Out += V.str();
    }
    return Out + (Record ? ")" : "}");
  }
  case ValueKind::Range: {
    int64_t Step = getStep();
    return std::to_string(getLo()) + ".." + std::to_string(getHi()) +
           (Step != 1 ? " step " + std::to_string(Step) : "");
  }
  case ValueKind::Entity:
    return Entity->Name;
  case ValueKind::Server:
    return "cell(" + std::to_string(I) + ")";
  }
  return "?";
}

static bool equalLists(const Value &L, const Value &R) {
  if (L.listSize() != R.listSize())
    return false;
  // Two ranges of as many integers: equal when they start alike and, past
  // one element, step alike.
  auto LR = L.asIntRange(), RR = R.asIntRange();
  if (LR && RR) {
    auto [LLo, LStep, Count] = *LR;
    auto [RLo, RStep, RCount] = *RR;
    (void)RCount;
    return Count == 0 || (LLo == RLo && (Count == 1 || LStep == RStep));
  }
  for (size_t N = 0, E = L.listSize(); N < E; ++N)
    if (L.element(N) != R.element(N))
      return false;
  return true;
}

bool arecipe::sema::operator==(const Value &L, const Value &R) {
  if (L.isNumeric() && R.isNumeric())
    return L.getNumber() == R.getNumber();
  if (L.Kind != R.Kind)
    return false;
  switch (L.Kind) {
  case ValueKind::None:
    return true;
  case ValueKind::Int:
  case ValueKind::Float:
    return L.getNumber() == R.getNumber();
  case ValueKind::Bool:
  case ValueKind::Server:
    return L.I == R.I;
  case ValueKind::String:
    return L.P == R.P || L.getString() == R.getString();
  case ValueKind::Quantity:
    return L.getQuantity() == R.getQuantity();
  case ValueKind::Enum:
    return L.getString() == R.getString() &&
           (L.Enum == R.Enum || L.Enum->Name == R.Enum->Name);
  case ValueKind::List:
    return L.P == R.P || equalLists(L, R);
  case ValueKind::Map:
  case ValueKind::Record:
    return L.P == R.P || (L.getRecordName() == R.getRecordName() &&
                          L.getEntries() == R.getEntries());
  case ValueKind::Range:
    return L.getLo() == R.getLo() && L.getHi() == R.getHi() &&
           L.getStep() == R.getStep();
  case ValueKind::Entity:
    return L.Entity == R.Entity;
  }
  return false;
}

std::string Type::str() const {
  std::string Out;
  switch (K) {
  case Any:
    Out = "any value";
    break;
  case Int:
    Out = "int";
    break;
  case Float:
    Out = "float";
    break;
  case Bool:
    Out = "bool";
    break;
  case String:
    Out = "string";
    break;
  case Size:
    Out = "size";
    break;
  case Duration:
    Out = "duration";
    break;
  case Rate:
    Out = "rate";
    break;
  case Enum:
    Out = EnumType ? EnumType->Name : "enum";
    break;
  case List:
    Out = "list<" + (Args.empty() ? std::string("any") : Args[0].str()) + ">";
    break;
  case Map:
    Out = Args.size() == 2 ? "map<" + Args[0].str() + ", " + Args[1].str() + ">"
                           : std::string("map");
    break;
  case Hardware:
    Out = "hardware";
    break;
  case Model:
    Out = "model";
    break;
  case Engine:
    Out = "engine";
    break;
  case Scenario:
    Out = "scenario ('fixed(...)' or 'agentic(...)')";
    break;
  case Topology:
    Out = "topology ('aggregated(...)' or 'disaggregated(...)')";
    break;
  case Router:
    Out = "router (a router declaration, e.g. 'atomesh(...)')";
    break;
  case Service:
    Out = "service (a service declaration, e.g. 'mooncake_master(...)')";
    break;
  case Server:
    Out = "'cell(N)'";
    break;
  case Scalar:
    Out = "string, int, float or bool";
    break;
  }
  return Optional ? Out + "?" : Out;
}

std::optional<Value> arecipe::sema::conformTo(const Value &V, const Type &T) {
  if (V.isNone())
    return T.Optional || T.K == Type::Any ? std::optional<Value>(V)
                                          : std::nullopt;
  auto IsEntity = [&](EntityInfo::Kind K) {
    return V.kind() == ValueKind::Entity && V.getEntity()->K == K;
  };
  auto IsDim = [&](Dimension D) {
    return V.kind() == ValueKind::Quantity && V.getQuantity().dimension() == D;
  };
  auto IsRecord = [&](std::initializer_list<const char *> Names) {
    if (V.kind() != ValueKind::Record)
      return false;
    for (const char *N : Names)
      if (V.getRecordName() == N)
        return true;
    return false;
  };
  switch (T.K) {
  case Type::Any:
    return V;
  case Type::Int:
    if (V.kind() == ValueKind::Int)
      return V;
    return std::nullopt;
  case Type::Float:
    if (V.kind() == ValueKind::Float)
      return V;
    if (V.kind() == ValueKind::Int)
      return Value::number(Rational(V.getInt()));
    return std::nullopt;
  case Type::Bool:
    return V.kind() == ValueKind::Bool ? std::optional<Value>(V) : std::nullopt;
  case Type::String:
    return V.kind() == ValueKind::String ? std::optional<Value>(V)
                                         : std::nullopt;
  case Type::Size:
    return IsDim(Dimension::size()) ? std::optional<Value>(V) : std::nullopt;
  case Type::Duration:
    return IsDim(Dimension::time()) ? std::optional<Value>(V) : std::nullopt;
  case Type::Rate:
    return IsDim(Dimension{1, -1}) ? std::optional<Value>(V) : std::nullopt;
  case Type::Enum:
    if (V.kind() == ValueKind::Enum &&
        (!T.EnumType || V.getEnum() == T.EnumType ||
         V.getEnum()->Name == T.EnumType->Name))
      return V;
    return std::nullopt;
  case Type::List: {
    if (V.kind() != ValueKind::List)
      return std::nullopt;
    if (T.Args.empty())
      return V;
    // A conforming list is returned as it is; one whose elements convert
    // (ints where floats are expected) is rebuilt.
    const Type &Elem = T.Args[0];
    bool Changed = false;
    ListBuilder Out;
    for (const ListData::Segment &S : std::get<ListData>(V.P->D).Segments) {
      if (S.IsRange) {
        std::optional<Value> First = conformTo(Value::integer(S.Lo), Elem);
        if (!First)
          return std::nullopt;
        if (First->kind() == ValueKind::Int) {
          Out.addSteps(S.Lo, S.Step, S.Count);
          continue;
        }
        Changed = true;
        for (uint64_t N = 0; N < S.Count; ++N)
          Out.add(*conformTo(
              Value::integer(S.Lo + S.Step * static_cast<int64_t>(N)), Elem));
        continue;
      }
      for (const Value &E : S.Items) {
        std::optional<Value> C = conformTo(E, Elem);
        if (!C)
          return std::nullopt;
        Changed |= !C->isSameAs(E);
        Out.add(std::move(*C));
      }
    }
    return Changed ? Out.take() : V;
  }
  case Type::Map: {
    if (V.kind() != ValueKind::Map)
      return std::nullopt;
    if (T.Args.size() != 2)
      return V;
    std::vector<std::pair<Value, Value>> Out;
    bool Changed = false;
    for (const auto &[K, E] : V.getEntries()) {
      std::optional<Value> CK = conformTo(K, T.Args[0]);
      std::optional<Value> CV = conformTo(E, T.Args[1]);
      if (!CK || !CV)
        return std::nullopt;
      Changed |= !CK->isSameAs(K) || !CV->isSameAs(E);
      Out.emplace_back(*CK, *CV);
    }
    return Changed ? Value::map(std::move(Out)) : V;
  }
  case Type::Hardware:
    return IsEntity(EntityInfo::Hardware) ? std::optional<Value>(V)
                                          : std::nullopt;
  case Type::Model:
    return IsEntity(EntityInfo::Model) ? std::optional<Value>(V) : std::nullopt;
  case Type::Engine:
    return IsEntity(EntityInfo::Engine) ? std::optional<Value>(V)
                                        : std::nullopt;
  case Type::Scenario:
    return IsRecord({"fixed", "agentic"}) ? std::optional<Value>(V)
                                          : std::nullopt;
  case Type::Topology:
    return IsRecord({"aggregated", "disaggregated"}) ? std::optional<Value>(V)
                                                     : std::nullopt;
  case Type::Router:
  case Type::Service: {
    // A router or service declaration, bare or called with its knobs.
    EntityInfo::Kind Want =
        T.K == Type::Router ? EntityInfo::Router : EntityInfo::Service;
    bool Ok =
        (V.kind() == ValueKind::Entity || V.kind() == ValueKind::Record) &&
        V.getEntity() && V.getEntity()->K == Want;
    return Ok ? std::optional<Value>(V) : std::nullopt;
  }
  case Type::Server:
    return V.kind() == ValueKind::Server ? std::optional<Value>(V)
                                         : std::nullopt;
  case Type::Scalar:
    if (V.kind() == ValueKind::String || V.kind() == ValueKind::Int ||
        V.kind() == ValueKind::Float || V.kind() == ValueKind::Bool)
      return V;
    return std::nullopt;
  }
  return std::nullopt;
}

static std::optional<std::string> renderFloat(const Rational &R,
                                              std::string *Why) {
  NumericResult<std::string> D = R.toDecimalString();
  if (!D) {
    if (Why)
      *Why = R.str() + " has no finite decimal form";
    return std::nullopt;
  }
  std::string S = *D;
  if (S.find('.') == std::string::npos)
    S += ".0";
  return S;
}

static std::optional<nlohmann::ordered_json> toJsonValue(const Value &V,
                                                         std::string *Why);

std::optional<std::string> arecipe::sema::renderValue(const Value &V,
                                                      std::string *Why) {
  switch (V.kind()) {
  case ValueKind::Int:
    return std::to_string(V.getInt());
  case ValueKind::Float:
    return renderFloat(V.getNumber(), Why);
  case ValueKind::Bool:
    return std::string(V.getBool() ? "true" : "false");
  case ValueKind::String:
  case ValueKind::Enum:
    return V.getString();
  case ValueKind::Quantity: {
    const Rational &B = V.getQuantity().baseValue();
    if (!B.isInteger()) {
      if (Why)
        *Why = V.str() + " is not a whole number of " +
               getBaseUnits(V.getQuantity().dimension());
      return std::nullopt;
    }
    return std::to_string(B.numerator());
  }
  case ValueKind::List:
    // A range of integers is its numbers: no JSON tree of a million nodes.
    if (auto Range = V.asIntRange()) {
      std::string Out = "[";
      bool First = true;
      appendRange(Out, std::get<0>(*Range), std::get<1>(*Range),
                  std::get<2>(*Range), First);
      return Out + "]";
    }
    [[fallthrough]];
  case ValueKind::Map: {
    std::optional<nlohmann::ordered_json> J = toJsonValue(V, Why);
    if (!J)
      return std::nullopt;
    return J->dump();
  }
  case ValueKind::Entity:
    return V.getEntity()->Name;
  default:
    if (Why)
      *Why = V.describeType() + " cannot be rendered as text";
    return std::nullopt;
  }
}

static std::optional<nlohmann::ordered_json> toJsonValue(const Value &V,
                                                         std::string *Why) {
  using json = nlohmann::ordered_json;
  switch (V.kind()) {
  case ValueKind::None:
    return json(nullptr);
  case ValueKind::Int:
    return json(V.getInt());
  case ValueKind::Bool:
    return json(V.getBool());
  case ValueKind::List: {
    json A = json::array();
    for (Value E : V.elements()) {
      std::optional<json> J = toJsonValue(E, Why);
      if (!J)
        return std::nullopt;
      A.push_back(std::move(*J));
    }
    return A;
  }
  case ValueKind::Map:
  case ValueKind::Record: {
    // Members in insertion order: a JSON flag reads like the launcher it
    // replaces.
    json O = json::object();
    for (const auto &[K, E] : V.getEntries()) {
      std::optional<std::string> KS = renderValue(K, Why);
      std::optional<json> J = toJsonValue(E, Why);
      if (!KS || !J)
        return std::nullopt;
      O[*KS] = std::move(*J);
    }
    return O;
  }
  case ValueKind::Float: {
    std::optional<std::string> S = renderFloat(V.getNumber(), Why);
    if (!S)
      return std::nullopt;
    return json::parse(*S);
  }
  default: {
    std::optional<std::string> S = renderValue(V, Why);
    if (!S)
      return std::nullopt;
    return json(*S);
  }
  }
}

/// Python's json.dumps layout: `", "` between elements, `": "` after keys.
static void writeSpaced(const nlohmann::ordered_json &J, std::string &Out) {
  if (J.is_object()) {
    Out += '{';
    bool First = true;
    for (const auto &[K, E] : J.items()) {
      Out += First ? "" : ", ";
      First = false;
      Out += nlohmann::json(K).dump() + ": ";
      writeSpaced(E, Out);
    }
    Out += '}';
    return;
  }
  if (J.is_array()) {
    Out += '[';
    for (size_t N = 0; N < J.size(); ++N) {
      Out += N ? ", " : "";
      writeSpaced(J[N], Out);
    }
    Out += ']';
    return;
  }
  Out += J.dump();
}

std::optional<std::string> arecipe::sema::renderJSON(const Value &V,
                                                     bool Spaced,
                                                     std::string *Why,
                                                     unsigned Indent) {
  std::optional<nlohmann::ordered_json> J = toJsonValue(V, Why);
  if (!J)
    return std::nullopt;
  // nlohmann's pretty form is Python's indented one: `": "` after keys,
  // `,` at line ends, `{}` and `[]` for empty containers.
  if (Indent > 0)
    return J->dump(static_cast<int>(Indent));
  if (!Spaced)
    return J->dump();
  std::string Out;
  writeSpaced(*J, Out);
  return Out;
}

/// Whether S can be written as a plain YAML scalar and still read back as
/// the same string under YAML 1.1 and 1.2: a name-like word that no YAML
/// reader takes for a bool, a null or a number.
static bool isPlainYamlString(llvm::StringRef S) {
  if (S.empty() || !(llvm::isAlpha(S[0]) || S[0] == '_' || S[0] == '/'))
    return false;
  for (char C : S)
    if (!(llvm::isAlnum(C) || C == '_' || C == '.' || C == '/' || C == '-'))
      return false;
  static const char *Special[] = {"true", "false", "yes",  "no",  "on", "off",
                                  "y",    "n",     "null", "nan", "inf"};
  std::string Lower = S.lower();
  for (const char *W : Special)
    if (Lower == W)
      return false;
  return true;
}

static std::optional<std::string> yamlScalar(const Value &V, std::string *Why) {
  switch (V.kind()) {
  case ValueKind::None:
    return std::string("null");
  case ValueKind::String:
  case ValueKind::Enum:
    return isPlainYamlString(V.getString())
               ? V.getString()
               : nlohmann::json(V.getString()).dump();
  default:
    return renderValue(V, Why);
  }
}

static bool isContainer(const Value &V) {
  return V.kind() == ValueKind::Map || V.kind() == ValueKind::List;
}

static bool isEmptyContainer(const Value &V) {
  return (V.kind() == ValueKind::Map && V.getEntries().empty()) ||
         (V.kind() == ValueKind::List && V.listSize() == 0);
}

/// Whether a list is written inline under Style: every element a scalar.
static bool isFlowList(const Value &V, const YamlStyle &Style) {
  if (!Style.FlowLists || V.kind() != ValueKind::List)
    return false;
  for (Value E : V.elements())
    if (isContainer(E))
      return false;
  return true;
}

/// A list of scalars inline: `[1, 2, 3]`.
static std::optional<std::string> flowList(const Value &V, std::string *Why) {
  std::string Flow = "[";
  for (Value X : V.elements()) {
    std::optional<std::string> S = yamlScalar(X, Why);
    if (!S)
      return std::nullopt;
    Flow += (Flow.size() > 1 ? ", " : "") + *S;
  }
  return Flow + "]";
}

/// Block YAML, Style.Indent spaces per level: `key: value`, nested maps below
/// their key, lists as `- item` (or inline, see YamlStyle).
static bool writeYaml(const Value &V, unsigned Indent, const YamlStyle &Style,
                      std::string &Out, std::string *Why) {
  std::string Pad(Indent, ' ');
  auto Inline = [&](const Value &E) -> std::optional<std::string> {
    if (isEmptyContainer(E))
      return std::string(E.kind() == ValueKind::Map ? "{}" : "[]");
    if (isFlowList(E, Style))
      return flowList(E, Why);
    return yamlScalar(E, Why);
  };
  auto Block = [&](const Value &E) {
    return isContainer(E) && !isEmptyContainer(E) && !isFlowList(E, Style);
  };
  if (V.kind() == ValueKind::Map) {
    for (const auto &[K, E] : V.getEntries()) {
      std::optional<std::string> Key = yamlScalar(K, Why);
      if (!Key)
        return false;
      if (Block(E)) {
        Out += Pad + *Key + ":\n";
        if (!writeYaml(E, Indent + Style.Indent, Style, Out, Why))
          return false;
        continue;
      }
      std::optional<std::string> S = Inline(E);
      if (!S)
        return false;
      Out += Pad + *Key + ": " + *S + "\n";
    }
    return true;
  }
  for (Value E : V.elements()) {
    if (Block(E)) {
      // The item's first line starts with "- ", the rest align under it.
      std::string Item;
      if (!writeYaml(E, Indent + Style.Indent, Style, Item, Why))
        return false;
      Item.replace(0, Indent + Style.Indent,
                   Pad + "- " + std::string(Style.Indent - 2, ' '));
      Out += Item;
      continue;
    }
    std::optional<std::string> S = Inline(E);
    if (!S)
      return false;
    Out += Pad + "- " + *S + "\n";
  }
  return true;
}

std::optional<std::string>
arecipe::sema::renderYAML(const Value &V, std::string *Why, YamlStyle Style) {
  std::string Out;
  if (!isContainer(V) || isEmptyContainer(V)) {
    std::optional<std::string> S = yamlScalar(V, Why);
    if (isEmptyContainer(V))
      S = std::string(V.kind() == ValueKind::Map ? "{}" : "[]");
    if (!S)
      return std::nullopt;
    return *S + "\n";
  }
  if (isFlowList(V, Style)) {
    std::optional<std::string> S = flowList(V, Why);
    return S ? std::optional<std::string>(*S + "\n") : std::nullopt;
  }
  if (!writeYaml(V, 0, Style, Out, Why))
    return std::nullopt;
  return Out;
}

std::string arecipe::sema::toJSON(const Value &V) {
  switch (V.kind()) {
  case ValueKind::Float: {
    NumericResult<std::string> D = V.getNumber().toDecimalString();
    if (!D)
      return nlohmann::json(V.getNumber().str()).dump();
    std::string S = *D;
    if (S.find('.') == std::string::npos)
      S += ".0";
    return S;
  }
  case ValueKind::Quantity:
  case ValueKind::Range:
  case ValueKind::Server:
    return nlohmann::json(V.str()).dump();
  case ValueKind::Record:
    return nlohmann::json(V.str()).dump();
  case ValueKind::List: {
    std::string Out = "[";
    bool First = true;
    V.forEachRun(
        [&](llvm::ArrayRef<Value> Items) {
          for (const Value &E : Items) {
            Out += First ? "" : ",";
            First = false;
            Out += toJSON(E);
          }
        },
        [&](int64_t Lo, int64_t Step, uint64_t Count) {
          appendRange(Out, Lo, Step, Count, First);
        });
    return Out + "]";
  }
  case ValueKind::Map: {
    std::vector<std::pair<std::string, std::string>> Members;
    for (const auto &[K, E] : V.getEntries()) {
      std::optional<std::string> KS = renderValue(K);
      Members.emplace_back(KS ? *KS : K.str(), toJSON(E));
    }
    std::string Out = "{";
    for (size_t N = 0; N < Members.size(); ++N)
      Out += (N ? "," : "") + nlohmann::json(Members[N].first).dump() + ":" +
             Members[N].second;
    return Out + "}";
  }
  default: {
    std::optional<std::string> S = renderValue(V);
    if (V.kind() == ValueKind::Int || V.kind() == ValueKind::Bool)
      return *S;
    if (V.isNone())
      return "null";
    return nlohmann::json(S ? *S : V.str()).dump();
  }
  }
}

bool Value::isIndistinguishableFrom(const Value &B) const {
  const Value &A = *this;
  if (A.isSameAs(B))
    return true;
  if (A.kind() != B.kind())
    return false;
  switch (A.kind()) {
  case ValueKind::Float:
    // Rationals are kept reduced: equal means the same two integers.
    return A.getNumber() == B.getNumber();
  case ValueKind::Quantity: {
    const Quantity &QA = A.getQuantity(), &QB = B.getQuantity();
    return QA == QB && QA.preferredUnit() == QB.preferredUnit();
  }
  case ValueKind::None:
    return true;
  case ValueKind::Bool:
    return A.getBool() == B.getBool();
  case ValueKind::Int:
    return A.getInt() == B.getInt();
  case ValueKind::String:
    return A.getString() == B.getString();
  case ValueKind::Enum:
    return A.getEnum() == B.getEnum() && A.getString() == B.getString();
  case ValueKind::Entity:
    return A.getEntity() == B.getEntity();
  default:
    return false;
  }
}
