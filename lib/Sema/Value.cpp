//===- Value.cpp - Values and types of recipe expressions ----------------===//

#include "arecipe/Sema/Value.h"
#include "arecipe/Sema/Cell.h"

#include "nlohmann/json.hpp"

#include <algorithm>

using namespace arecipe;
using namespace arecipe::sema;

Value Value::integer(int64_t I) {
  Value V;
  V.Kind = ValueKind::Int;
  V.I = I;
  return V;
}
Value Value::number(Rational R) {
  Value V;
  V.Kind = ValueKind::Float;
  V.F = R;
  return V;
}
Value Value::boolean(bool B) {
  Value V;
  V.Kind = ValueKind::Bool;
  V.B = B;
  return V;
}
Value Value::string(std::string S) {
  Value V;
  V.Kind = ValueKind::String;
  V.S = std::move(S);
  return V;
}
Value Value::quantity(Quantity Q) {
  if (Q.isDimensionless())
    return number(Q.baseValue());
  Value V;
  V.Kind = ValueKind::Quantity;
  V.Q = Q;
  return V;
}
Value Value::enumMember(const EnumInfo *E, llvm::StringRef Member) {
  Value V;
  V.Kind = ValueKind::Enum;
  V.Enum = E;
  V.S = Member.str();
  return V;
}
Value Value::list(std::vector<Value> Elems) {
  Value V;
  V.Kind = ValueKind::List;
  V.Elems = std::make_shared<const std::vector<Value>>(std::move(Elems));
  return V;
}
Value Value::map(std::vector<std::pair<Value, Value>> Entries) {
  Value V;
  V.Kind = ValueKind::Map;
  V.Entries = std::make_shared<const std::vector<std::pair<Value, Value>>>(
      std::move(Entries));
  return V;
}
Value Value::range(int64_t Lo, int64_t Hi, int64_t Step) {
  Value V;
  V.Kind = ValueKind::Range;
  V.Lo = Lo;
  V.Hi = Hi;
  V.Step = Step;
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
  Value V = map(std::move(Fields));
  V.Kind = ValueKind::Record;
  V.S = Name.str();
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

const Value *Value::lookup(llvm::StringRef Key) const {
  if (Kind != ValueKind::Map && Kind != ValueKind::Record)
    return nullptr;
  for (const auto &[K, V] : *Entries)
    if (K.Kind == ValueKind::String && K.S == Key)
      return &V;
  return nullptr;
}

std::vector<int64_t> arecipe::sema::expandRange(int64_t Lo, int64_t Hi,
                                                int64_t Step) {
  std::vector<int64_t> Out;
  if (Step > 0)
    for (int64_t X = Lo; X <= Hi; X += Step) {
      Out.push_back(X);
      if (X > INT64_MAX - Step)
        break;
    }
  else if (Step < 0)
    for (int64_t X = Lo; X >= Hi; X += Step) {
      Out.push_back(X);
      if (X < INT64_MIN - Step)
        break;
    }
  return Out;
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
    Dimension D = Q.dimension();
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
    return "'" + S + "(...)'";
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
    std::string D = F.str();
    if (F.isInteger())
      D += ".0";
    return D;
  }
  case ValueKind::Bool:
    return B ? "true" : "false";
  case ValueKind::String:
    return nlohmann::json(S).dump();
  case ValueKind::Quantity:
    return Q.str();
  case ValueKind::Enum:
    return S;
  case ValueKind::List: {
    std::string Out = "[";
    for (size_t N = 0; N < Elems->size(); ++N)
      Out += (N ? ", " : "") + (*Elems)[N].str();
    return Out + "]";
  }
  case ValueKind::Map:
  case ValueKind::Record: {
    std::string Out = Kind == ValueKind::Record ? S + "(" : "{";
    for (size_t N = 0; N < Entries->size(); ++N) {
      const auto &[K, V] = (*Entries)[N];
      Out += N ? ", " : "";
      Out += Kind == ValueKind::Record ? K.S + " = " : K.str() + ": ";
      Out += V.str();
    }
    return Out + (Kind == ValueKind::Record ? ")" : "}");
  }
  case ValueKind::Range:
    return std::to_string(Lo) + ".." + std::to_string(Hi) +
           (Step != 1 ? " step " + std::to_string(Step) : "");
  case ValueKind::Entity:
    return Entity->Name;
  case ValueKind::Server:
    return "cell(" + std::to_string(I) + ")";
  }
  return "?";
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
    return L.B == R.B;
  case ValueKind::String:
    return L.S == R.S;
  case ValueKind::Quantity:
    return L.Q == R.Q;
  case ValueKind::Enum:
    return L.S == R.S && (L.Enum == R.Enum || L.Enum->Name == R.Enum->Name);
  case ValueKind::List:
    return *L.Elems == *R.Elems;
  case ValueKind::Map:
  case ValueKind::Record:
    return L.S == R.S && *L.Entries == *R.Entries;
  case ValueKind::Range:
    return L.Lo == R.Lo && L.Hi == R.Hi && L.Step == R.Step;
  case ValueKind::Entity:
    return L.Entity == R.Entity;
  case ValueKind::Server:
    return L.I == R.I;
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
    Out = "string, int or bool";
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
    std::vector<Value> Out;
    for (const Value &E : V.getElements()) {
      std::optional<Value> C = conformTo(E, T.Args[0]);
      if (!C)
        return std::nullopt;
      Out.push_back(*C);
    }
    return Value::list(std::move(Out));
  }
  case Type::Map: {
    if (V.kind() != ValueKind::Map)
      return std::nullopt;
    if (T.Args.size() != 2)
      return V;
    std::vector<std::pair<Value, Value>> Out;
    for (const auto &[K, E] : V.getEntries()) {
      std::optional<Value> CK = conformTo(K, T.Args[0]);
      std::optional<Value> CV = conformTo(E, T.Args[1]);
      if (!CK || !CV)
        return std::nullopt;
      Out.emplace_back(*CK, *CV);
    }
    return Value::map(std::move(Out));
  }
  case Type::Hardware:
    return IsEntity(EntityInfo::Hardware) ? std::optional<Value>(V)
                                          : std::nullopt;
  case Type::Model:
    return IsEntity(EntityInfo::Model) ? std::optional<Value>(V)
                                       : std::nullopt;
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
        V.kind() == ValueKind::Bool)
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
    for (const Value &E : V.getElements()) {
      std::optional<json> J = toJsonValue(E, Why);
      if (!J)
        return std::nullopt;
      A.push_back(std::move(*J));
    }
    return A;
  }
  case ValueKind::Map:
  case ValueKind::Record: {
    std::vector<std::pair<std::string, json>> Members;
    for (const auto &[K, E] : V.getEntries()) {
      std::optional<std::string> KS = renderValue(K, Why);
      std::optional<json> J = toJsonValue(E, Why);
      if (!KS || !J)
        return std::nullopt;
      Members.emplace_back(*KS, std::move(*J));
    }
    std::sort(Members.begin(), Members.end(),
              [](const auto &A, const auto &B) { return A.first < B.first; });
    json O = json::object();
    for (auto &[K, J] : Members)
      O[K] = std::move(J);
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
    for (size_t N = 0; N < V.getElements().size(); ++N)
      Out += (N ? "," : "") + toJSON(V.getElements()[N]);
    return Out + "]";
  }
  case ValueKind::Map: {
    std::vector<std::pair<std::string, std::string>> Members;
    for (const auto &[K, E] : V.getEntries()) {
      std::optional<std::string> KS = renderValue(K);
      Members.emplace_back(KS ? *KS : K.str(), toJSON(E));
    }
    std::sort(Members.begin(), Members.end());
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
