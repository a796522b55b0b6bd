//===- Placeholders.cpp - Run-time values in a plan's words ---------------===//

#include "arecipe/Runtime/Placeholders.h"

#include <fmt/format.h>

#include <cctype>
#include <climits>
#include <functional>
#include <unistd.h>

namespace arecipe::runtime {

namespace {

struct Placeholder {
  size_t Begin = 0, End = 0; ///< [Begin, End) in the text, braces included
  std::string_view Kind, Name;
};

bool isKindChar(char C) { return (C >= 'a' && C <= 'z') || C == '_'; }
bool isNameChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '.' || C == '_' || C == '-';
}

/// Calls Visit for each placeholder of Text, in order.
void forEachPlaceholder(std::string_view Text,
                        const std::function<void(const Placeholder &)> &Visit) {
  for (size_t At = Text.find('{'); At != std::string_view::npos; At = Text.find('{', At + 1)) {
    size_t K = At + 1;
    while (K < Text.size() && isKindChar(Text[K]))
      ++K;
    if (K == At + 1 || K >= Text.size() || Text[K] != ':')
      continue;
    size_t N = K + 1;
    while (N < Text.size() && isNameChar(Text[N]))
      ++N;
    if (N == K + 1 || N >= Text.size() || Text[N] != '}')
      continue;
    Visit({At, N + 1, Text.substr(At + 1, K - At - 1), Text.substr(K + 1, N - K - 1)});
    At = N;
  }
}

/// K of a node placeholder; -1 when the name is not a small decimal.
int nodeIndex(std::string_view Name) {
  if (Name.empty() || Name.size() > 6)
    return -1;
  int K = 0;
  for (char C : Name) {
    if (C < '0' || C > '9')
      return -1;
    K = K * 10 + (C - '0');
  }
  return K;
}

} // namespace

std::string substitutePlaceholders(std::string_view Text, const PlaceholderValues &V) {
  std::string Out;
  size_t Pos = 0;
  forEachPlaceholder(Text, [&](const Placeholder &P) {
    const std::string *Value = nullptr;
    std::string Fallback;
    int K = nodeIndex(P.Name);
    if (P.Kind == "node_addr" && K >= 0) {
      if (size_t(K) < V.NodeAddrs.size())
        Value = &V.NodeAddrs[size_t(K)];
      else if (K == 0 && V.NodeAddrs.empty())
        Value = &(Fallback = "127.0.0.1"); // a single-node run: node 0 is this machine
    } else if (P.Kind == "node_host" && K >= 0) {
      if (size_t(K) < V.NodeHosts.size())
        Value = &V.NodeHosts[size_t(K)];
      else if (K == 0 && V.NodeHosts.empty())
        Value = &V.DefaultHost;
    } else if (P.Kind == "dir" && P.Name == "logs" && !V.LogDir.empty()) {
      Value = &V.LogDir;
    } else if (P.Kind == "file" || P.Kind == "capture") {
      const auto &Map = P.Kind == "file" ? V.Files : V.Captures;
      if (auto It = Map.find(std::string(P.Name)); It != Map.end())
        Value = &It->second;
    }
    if (!Value)
      return; // left as written, with the text around it
    Out.append(Text.substr(Pos, P.Begin - Pos));
    Out += *Value;
    Pos = P.End;
  });
  Out.append(Text.substr(Pos));
  return Out;
}

std::string checkPlaceholders(std::string_view Text, const PlaceholderScope &Scope) {
  std::string Problem;
  forEachPlaceholder(Text, [&](const Placeholder &P) {
    if (!Problem.empty())
      return;
    std::string Written(Text.substr(P.Begin, P.End - P.Begin));
    std::string Name(P.Name);
    if (P.Kind == "node_addr" || P.Kind == "node_host") {
      int K = nodeIndex(P.Name);
      if (K < 0)
        Problem = fmt::format("placeholder '{}' must name a node by its index", Written);
      else if (K >= Scope.Nodes)
        Problem = fmt::format("placeholder '{}' names node {}, but the cell has {} node{}", Written,
                              K, Scope.Nodes, Scope.Nodes == 1 ? "" : "s");
    } else if (P.Kind == "file") {
      if (!Scope.Files || !Scope.Files->count(Name))
        Problem = fmt::format("placeholder '{}' names no file of this cell", Written);
    } else if (P.Kind == "capture") {
      if (!Scope.Captures || !Scope.Captures->count(Name))
        Problem = fmt::format("placeholder '{}' names {}", Written,
                              Scope.CaptureContext.empty() ? "no capture step of this cell"
                                                           : Scope.CaptureContext);
    } else if (P.Kind == "dir") {
      if (P.Name != "logs")
        Problem = fmt::format(
            "placeholder '{}' names no directory of the cell (expected "
            "'{{dir:logs}}')",
            Written);
    } else {
      Problem = fmt::format(
          "unknown placeholder '{}' (expected node_addr, node_host, file, "
          "capture or dir)",
          Written);
    }
  });
  return Problem;
}

namespace {

bool endsWithPort(std::string_view Name) {
  if (Name.size() < 4)
    return false;
  std::string Tail(Name.substr(Name.size() - 4));
  for (char &C : Tail)
    C = char(std::tolower(static_cast<unsigned char>(C)));
  return Tail == "port";
}

bool isPortOption(std::string_view Key) { return Key == "-p" || endsWithPort(Key); }

/// The node a `HOST:` before Text[Colon] names: K of a node placeholder
/// ending right there, or -1.
int nodeBefore(std::string_view Text, size_t Colon) {
  if (Colon == 0 || Text[Colon - 1] != '}')
    return -1;
  int Node = -1;
  forEachPlaceholder(Text.substr(0, Colon), [&](const Placeholder &P) {
    if (P.End == Colon && (P.Kind == "node_addr" || P.Kind == "node_host"))
      Node = nodeIndex(P.Name);
  });
  return Node;
}

/// A `KEY=`, `KEY: ` or `"KEY": ` whose KEY ends in `port` ends at Text[End].
bool portKeyBefore(std::string_view Text, size_t End) {
  size_t J = End;
  while (J > 0 && Text[J - 1] == ' ')
    --J;
  if (J == 0 || (Text[J - 1] != '=' && Text[J - 1] != ':'))
    return false;
  --J;
  while (J > 0 && Text[J - 1] == ' ')
    --J;
  if (J > 0 && (Text[J - 1] == '"' || Text[J - 1] == '\''))
    --J;
  return endsWithPort(Text.substr(0, J));
}

} // namespace

std::string remapPorts(std::string_view Text, const PortRemap &Ports, int OwnRank,
                       std::string_view Key) {
  if (Ports.empty())
    return std::string(Text);
  std::string Out;
  size_t Pos = 0;
  for (size_t B = 0; B < Text.size();) {
    if (!std::isdigit(static_cast<unsigned char>(Text[B])) ||
        (B > 0 && std::isalnum(static_cast<unsigned char>(Text[B - 1])))) {
      ++B;
      continue;
    }
    size_t E = B;
    while (E < Text.size() && std::isdigit(static_cast<unsigned char>(Text[E])))
      ++E;
    bool Bounded = E == Text.size() || !std::isalnum(static_cast<unsigned char>(Text[E]));
    int Rank = -1;
    if (Bounded && E - B <= 5) {
      if (B == 0 && E == Text.size() && isPortOption(Key))
        Rank = OwnRank;
      else if (B > 0 && Text[B - 1] == ':' && nodeBefore(Text, B - 1) >= 0)
        Rank = nodeBefore(Text, B - 1);
      else if (portKeyBefore(Text, B) ||
               // HOST:P, not a JSON member's value ("k":P)
               (B > 1 && Text[B - 1] == ':' && Text[B - 2] != '"' && Text[B - 2] != '\''))
        Rank = OwnRank;
    }
    if (Rank >= 0) {
      auto It = Ports.find({Rank, std::stoi(std::string(Text.substr(B, E - B)))});
      if (It != Ports.end()) {
        Out.append(Text.substr(Pos, B - Pos));
        Out += std::to_string(It->second);
        Pos = E;
      }
    }
    B = E;
  }
  Out.append(Text.substr(Pos));
  return Out;
}

bool usesCapture(std::string_view Text) {
  bool Found = false;
  forEachPlaceholder(Text, [&](const Placeholder &P) { Found |= P.Kind == "capture"; });
  return Found;
}

bool usesLogDir(std::string_view Text) {
  bool Found = false;
  forEachPlaceholder(Text, [&](const Placeholder &P) {
    Found |= P.Kind == "dir" && P.Name == "logs";
  });
  return Found;
}

std::string localHostName() {
  char Buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(Buf, sizeof Buf - 1) != 0 || !Buf[0])
    return "localhost";
  return Buf;
}

} // namespace arecipe::runtime
