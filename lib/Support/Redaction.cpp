//===- Redaction.cpp - Keep secrets out of everything the tools write -----===//

#include "arecipe/Support/Redaction.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <set>
#include <shared_mutex>

extern char **environ;

namespace arecipe::support {

namespace {

bool isNameChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '-' || C == '.';
}

bool isBlank(char C) { return C == ' ' || C == '\t'; }

bool isSpace(char C) { return std::isspace(static_cast<unsigned char>(C)) != 0; }

bool endsWith(std::string_view S, std::string_view Suffix) {
  return S.size() >= Suffix.size() && S.substr(S.size() - Suffix.size()) == Suffix;
}

bool equalsIgnoreCase(std::string_view A, std::string_view B) {
  return A.size() == B.size() && std::equal(A.begin(), A.end(), B.begin(), [](char X, char Y) {
           return std::tolower(static_cast<unsigned char>(X)) ==
                  std::tolower(static_cast<unsigned char>(Y));
         });
}

/// The values registered with addSecretValue.
struct SecretRegistry {
  std::shared_mutex Mutex;
  std::set<std::string> Values;
};

SecretRegistry &registry() {
  static SecretRegistry R;
  return R;
}

/// [Begin, End) of the input to replace.
struct Span {
  size_t Begin, End;
};

/// Where the bare value that starts at Pos ends.
size_t bareValueEnd(std::string_view T, size_t Pos) {
  size_t End = Pos;
  while (End < T.size() && !isSpace(T[End]) &&
         std::string_view(",;&)}]\"'<>|").find(T[End]) == std::string_view::npos)
    ++End;
  return End;
}

/// The credential word after an authentication scheme (`Bearer X`), or an
/// empty span.
Span afterScheme(std::string_view T, size_t WordBegin, size_t WordEnd) {
  std::string_view Word = T.substr(WordBegin, WordEnd - WordBegin);
  if (!equalsIgnoreCase(Word, "bearer") && !equalsIgnoreCase(Word, "basic") &&
      !equalsIgnoreCase(Word, "token") && !equalsIgnoreCase(Word, "digest"))
    return {0, 0};
  size_t V = WordEnd;
  while (V < T.size() && isBlank(T[V]))
    ++V;
  if (V == WordEnd)
    return {0, 0};
  return {V, bareValueEnd(T, V)};
}

/// The value after the secret name that ends at NameEnd, or an empty span.
Span valueAfterName(std::string_view T, size_t NameBegin, size_t NameEnd) {
  size_t J = NameEnd;
  if (J < T.size() && (T[J] == '"' || T[J] == '\''))
    ++J; // the closing quote of a JSON or Python key
  size_t AfterName = J;
  while (J < T.size() && isBlank(T[J]))
    ++J;
  bool Separated = J < T.size() && (T[J] == '=' || T[J] == ':');
  if (Separated) {
    ++J;
  } else {
    // `--token X`: an option and its value, as a command line shows them;
    // not a quoted option name in prose ("flag '--token' (value ...)").
    bool Option = T[NameBegin] == '-' && AfterName == NameEnd;
    if (!Option || J == AfterName)
      return {0, 0};
  }
  while (J < T.size() && isBlank(T[J]))
    ++J;
  if (J >= T.size())
    return {0, 0};
  if (T[J] == '"' || T[J] == '\'') {
    char Quote = T[J];
    size_t K = J + 1;
    while (K < T.size() && T[K] != Quote && T[K] != '\n')
      K += T[K] == '\\' && K + 1 < T.size() ? 2 : 1;
    return {J + 1, std::min(K, T.size())};
  }
  Span V{J, bareValueEnd(T, J)};
  if (Span S = afterScheme(T, V.Begin, V.End); S.End > S.Begin)
    return S;
  return V;
}

/// Words shaped like the tokens of well-known services.
size_t tokenShapeEnd(std::string_view T, size_t I) {
  static constexpr std::string_view Prefixes[] = {"hf_",  "sk-",  "ghp_",        "gho_",  "ghu_",
                                                  "ghs_", "ghr_", "github_pat_", "xoxb-", "xoxp-"};
  for (std::string_view P : Prefixes) {
    if (T.substr(I, P.size()) != P)
      continue;
    size_t End = I + P.size();
    while (End < T.size() &&
           (std::isalnum(static_cast<unsigned char>(T[End])) || T[End] == '_' || T[End] == '-'))
      ++End;
    if (End - I - P.size() >= 16)
      return End;
  }
  return I;
}

/// Every span of T that holds a secret, in no particular order.
std::vector<Span> findSecrets(std::string_view T, bool WithRegisteredValues) {
  std::vector<Span> Out;
  auto Add = [&](Span S) {
    if (S.End > S.Begin)
      Out.push_back(S);
  };
  for (size_t I = 0; I < T.size();) {
    bool Start = I == 0 || !isNameChar(T[I - 1]);
    if (!Start || !isNameChar(T[I])) {
      ++I;
      continue;
    }
    size_t End = I;
    while (End < T.size() && isNameChar(T[End]))
      ++End;
    if (size_t Shape = tokenShapeEnd(T, I); Shape > I)
      Add({I, Shape});
    if (isSecretName(T.substr(I, End - I)))
      Add(valueAfterName(T, I, End));
    else if (equalsIgnoreCase(T.substr(I, End - I), "bearer"))
      Add(afterScheme(T, I, End));
    I = End;
  }
  // The password of scheme://user:password@host.
  for (size_t At = T.find("://"); At != std::string_view::npos; At = T.find("://", At + 3)) {
    size_t A = At + 3, E = A;
    while (E < T.size() && !isSpace(T[E]) &&
           std::string_view("/?#\"'<>").find(T[E]) == std::string_view::npos)
      ++E;
    size_t Amp = T.substr(A, E - A).rfind('@');
    if (Amp == std::string_view::npos)
      continue;
    size_t Colon = T.substr(A, Amp).find(':');
    if (Colon != std::string_view::npos)
      Add({A + Colon + 1, A + Amp});
  }
  if (WithRegisteredValues) {
    SecretRegistry &R = registry();
    std::shared_lock Lock(R.Mutex);
    for (const std::string &V : R.Values)
      for (size_t At = T.find(V); At != std::string_view::npos; At = T.find(V, At + 1))
        Add({At, At + V.size()});
  }
  return Out;
}

/// Normalised name: the last dotted component, no leading or trailing
/// dashes, upper case, '-' and a lower-to-upper case change read as '_'.
std::string normalisedName(std::string_view Name) {
  while (!Name.empty() && (Name.back() == '.' || Name.back() == '-'))
    Name.remove_suffix(1);
  if (size_t Dot = Name.rfind('.'); Dot != std::string_view::npos)
    Name = Name.substr(Dot + 1);
  while (!Name.empty() && Name.front() == '-')
    Name.remove_prefix(1);
  std::string Upper;
  for (size_t I = 0; I < Name.size(); ++I) {
    unsigned char C = static_cast<unsigned char>(Name[I]);
    if (I > 0 && std::isupper(C) && std::islower(static_cast<unsigned char>(Name[I - 1])))
      Upper += '_';
    Upper += C == '-' ? '_' : char(std::toupper(C));
  }
  return Upper;
}

template <typename JsonT> bool walkJson(JsonT &V, bool Collect);

template <typename JsonT> bool redactOrCollectString(JsonT &V, bool Collect) {
  const std::string &S = V.template get_ref<const std::string &>();
  if (Collect) {
    for (const Span &Sp : findSecrets(S, false))
      addSecretValue(std::string_view(S).substr(Sp.Begin, Sp.End - Sp.Begin));
    return false;
  }
  std::string R = redact(S);
  if (R == S)
    return false;
  V = std::move(R);
  return true;
}

template <typename JsonT> bool walkJson(JsonT &V, bool Collect) {
  bool Changed = false;
  if (V.is_object()) {
    bool KeysChange = false;
    for (auto It = V.begin(); It != V.end(); ++It) {
      JsonT &Item = It.value();
      if (isSecretName(It.key()) && (Item.is_string() || Item.is_number())) {
        if (Collect) {
          if (Item.is_string())
            addSecretValue(Item.template get_ref<const std::string &>());
        } else if (!(Item.is_string() &&
                     Item.template get_ref<const std::string &>() == RedactedMarker)) {
          Item = std::string(RedactedMarker);
          Changed = true;
        }
      } else {
        Changed |= walkJson(Item, Collect);
      }
      KeysChange |= !Collect && redact(It.key()) != It.key();
    }
    if (KeysChange) {
      JsonT Renamed = JsonT::object();
      for (auto It = V.begin(); It != V.end(); ++It)
        Renamed[redact(It.key())] = std::move(It.value());
      V = std::move(Renamed);
      Changed = true;
    }
  } else if (V.is_array()) {
    bool AllStrings = !V.empty();
    for (const JsonT &E : V)
      AllStrings &= E.is_string();
    if (AllStrings) {
      std::vector<std::string> Words = V.template get<std::vector<std::string>>();
      if (Collect) {
        addSecretValuesOf({}, Words);
      } else if (std::vector<std::string> R = redactArgv(Words); R != Words) {
        V = R;
        Changed = true;
      }
    } else {
      for (JsonT &E : V)
        Changed |= walkJson(E, Collect);
    }
  } else if (V.is_string()) {
    Changed = redactOrCollectString(V, Collect);
  }
  return Changed;
}

} // namespace

bool isSecretName(std::string_view Name) {
  std::string N = normalisedName(Name);
  for (std::string_view Whole :
       {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "APIKEY", "AUTHORIZATION"})
    if (N == Whole)
      return true;
  // A quantity per token (`experts_per_token`, `kv_bytes_per_token`) is a
  // model figure, not a credential.
  if (endsWith(N, "_PER_TOKEN"))
    return false;
  for (std::string_view Suffix :
       {"_TOKEN", "_KEY", "_SECRET", "_PASSWORD", "_PASSWD", "_PASSPHRASE", "_APIKEY"})
    if (endsWith(N, Suffix))
      return true;
  return false;
}

void addSecretValue(std::string_view Value) {
  if (Value.size() < MinSecretValueLength || Value == RedactedMarker)
    return;
  SecretRegistry &R = registry();
  std::unique_lock Lock(R.Mutex);
  R.Values.emplace(Value);
}

void addSecretValuesFromEnvironment() {
  for (char **E = environ; E && *E; ++E) {
    std::string_view KV = *E;
    size_t Eq = KV.find('=');
    if (Eq != std::string_view::npos && isSecretName(KV.substr(0, Eq)))
      addSecretValue(KV.substr(Eq + 1));
  }
}

void addSecretValuesOf(const std::map<std::string, std::string> &Env,
                       const std::vector<std::string> &Argv) {
  for (const auto &[Name, Value] : Env) {
    if (isSecretName(Name))
      addSecretValue(Value);
    for (const Span &S : findSecrets(Value, false))
      addSecretValue(std::string_view(Value).substr(S.Begin, S.End - S.Begin));
  }
  std::vector<std::string> Redacted = redactArgv(Argv);
  for (size_t I = 0; I < Argv.size(); ++I) {
    if (Redacted[I] == RedactedMarker)
      addSecretValue(Argv[I]);
    for (const Span &S : findSecrets(Argv[I], false))
      addSecretValue(std::string_view(Argv[I]).substr(S.Begin, S.End - S.Begin));
  }
}

std::string redact(std::string_view Text) {
  std::vector<Span> Secrets = findSecrets(Text, true);
  if (Secrets.empty())
    return std::string(Text);
  std::vector<char> Mask(Text.size(), 0);
  for (const Span &S : Secrets)
    std::fill(Mask.begin() + S.Begin, Mask.begin() + S.End, 1);
  // What is already redacted stays as it is: redacting twice changes
  // nothing, and a secret inside the marker text is not "found" there.
  for (size_t At = Text.find(RedactedMarker); At != std::string_view::npos;
       At = Text.find(RedactedMarker, At + 1))
    std::fill(Mask.begin() + At, Mask.begin() + At + RedactedMarker.size(), 0);
  std::string Out;
  Out.reserve(Text.size());
  for (size_t I = 0; I < Text.size();) {
    if (!Mask[I]) {
      Out += Text[I++];
      continue;
    }
    Out += RedactedMarker;
    while (I < Text.size() && Mask[I])
      ++I;
  }
  return Out;
}

std::vector<std::string> redactArgv(const std::vector<std::string> &Argv) {
  std::vector<std::string> Out;
  Out.reserve(Argv.size());
  bool NextIsSecret = false;
  for (const std::string &Word : Argv) {
    if (NextIsSecret) {
      Out.emplace_back(RedactedMarker);
      NextIsSecret = false;
      continue;
    }
    Out.push_back(redact(Word));
    NextIsSecret = Word.size() > 1 && Word[0] == '-' && Word.find('=') == std::string::npos &&
                   isSecretName(Word);
  }
  return Out;
}

void addSecretValuesIn(const nlohmann::json &V) {
  // Collecting only reads the tree; the walk is shared with redactJson so
  // both see the same secrets.
  walkJson(const_cast<nlohmann::json &>(V), true);
}

bool redactJson(nlohmann::json &V) { return walkJson(V, false); }

bool redactJson(nlohmann::ordered_json &V) { return walkJson(V, false); }

} // namespace arecipe::support
