//===- HttpResponse.cpp - Incremental HTTP/1.1 response parser ------------===//

#include "arecipe/Client/HttpResponse.h"

#include <algorithm>

using namespace arecipe::client;

HttpResponseParser::Handler::~Handler() = default;

namespace {
bool equalsNoCase(std::string_view A, std::string_view B) {
  if (A.size() != B.size())
    return false;
  for (size_t I = 0; I < A.size(); ++I)
    if (std::tolower(static_cast<unsigned char>(A[I])) !=
        std::tolower(static_cast<unsigned char>(B[I])))
      return false;
  return true;
}

std::string_view trim(std::string_view S) {
  while (!S.empty() && (S.front() == ' ' || S.front() == '\t'))
    S.remove_prefix(1);
  while (!S.empty() && (S.back() == ' ' || S.back() == '\t' || S.back() == '\r'))
    S.remove_suffix(1);
  return S;
}

// Whether a comma-separated header value lists Token (case-insensitively).
bool listsToken(std::string_view Value, std::string_view Token) {
  while (!Value.empty()) {
    size_t Comma = Value.find(',');
    if (equalsNoCase(trim(Value.substr(0, Comma)), Token))
      return true;
    if (Comma == std::string_view::npos)
      break;
    Value.remove_prefix(Comma + 1);
  }
  return false;
}

// The last transfer coding of a Transfer-Encoding value.
std::string_view lastCoding(std::string_view Value) {
  size_t Comma = Value.rfind(',');
  return trim(Comma == std::string_view::npos ? Value : Value.substr(Comma + 1));
}

// Offset just past the first empty line (LF LF or LF CR LF) at or after From,
// or npos.
size_t findHeadEnd(std::string_view S, size_t From) {
  for (size_t I = S.find('\n', From); I != std::string_view::npos; I = S.find('\n', I + 1)) {
    if (I + 1 < S.size() && S[I + 1] == '\n')
      return I + 2;
    if (I + 2 < S.size() && S[I + 1] == '\r' && S[I + 2] == '\n')
      return I + 3;
  }
  return std::string_view::npos;
}
} // namespace

void HttpResponseParser::reset() {
  St = State::Head;
  Head = HttpResponseHead();
  Carry.clear();
  Error.clear();
  Left = 0;
  TrailerBytes = 0;
  Started = false;
  DataCr = false;
}

size_t HttpResponseParser::fail(std::string Why) {
  St = State::Error;
  Error = std::move(Why);
  Carry.clear();
  return 0;
}

bool HttpResponseParser::parseHead(std::string_view Text) {
  size_t Eol = Text.find('\n');
  std::string_view Status = trim(Text.substr(0, Eol));
  // "HTTP/1.x SSS[ reason]"
  if (Status.size() < 12 || Status.substr(0, 7) != "HTTP/1." || Status[8] != ' ' ||
      !std::isdigit(static_cast<unsigned char>(Status[7])) ||
      (Status.size() > 12 && Status[12] != ' ')) {
    fail("malformed status line");
    return false;
  }
  int Code = 0;
  for (size_t I = 9; I < 12; ++I) {
    if (!std::isdigit(static_cast<unsigned char>(Status[I]))) {
      fail("malformed status line");
      return false;
    }
    Code = Code * 10 + (Status[I] - '0');
  }
  HttpResponseHead H;
  H.Status = Code;
  H.MinorVersion = Status[7] - '0';
  bool Close = false, KeepAliveToken = false, HasTe = false;
  std::string_view Te;
  Text.remove_prefix(Eol == std::string_view::npos ? Text.size() : Eol + 1);
  while (!Text.empty()) {
    Eol = Text.find('\n');
    std::string_view Line = Text.substr(0, Eol);
    Text.remove_prefix(Eol == std::string_view::npos ? Text.size() : Eol + 1);
    if (!Line.empty() && Line.back() == '\r')
      Line.remove_suffix(1);
    if (Line.empty())
      break;
    size_t Colon = Line.find(':');
    if (Colon == std::string_view::npos || Colon == 0) {
      fail("malformed header line");
      return false;
    }
    std::string_view Name = Line.substr(0, Colon), Value = trim(Line.substr(Colon + 1));
    if (equalsNoCase(Name, "content-length")) {
      int64_t N = 0;
      if (Value.empty() || Value.size() > 18 ||
          !std::all_of(Value.begin(), Value.end(), [](char C) { return C >= '0' && C <= '9'; })) {
        fail("malformed Content-Length");
        return false;
      }
      for (char C : Value)
        N = N * 10 + (C - '0');
      if (H.ContentLength >= 0 && H.ContentLength != N) {
        fail("conflicting Content-Length headers");
        return false;
      }
      H.ContentLength = N;
    } else if (equalsNoCase(Name, "transfer-encoding")) {
      HasTe = true;
      Te = Value;
    } else if (equalsNoCase(Name, "connection")) {
      Close |= listsToken(Value, "close");
      KeepAliveToken |= listsToken(Value, "keep-alive");
    }
  }
  H.KeepAlive = H.MinorVersion >= 1 ? !Close : KeepAliveToken && !Close;
  if (HasTe) {
    // RFC 9112 6.3: Transfer-Encoding overrides Content-Length; a body whose
    // last coding is not chunked runs to the end of the connection.
    H.ContentLength = -1;
    H.Chunked = equalsNoCase(lastCoding(Te), "chunked");
    if (!H.Chunked)
      H.KeepAlive = false;
  } else if (H.ContentLength < 0 && H.Status != 204 && H.Status != 304) {
    H.KeepAlive = false; // delimited by the close
  }
  Head = H;
  return true;
}

void HttpResponseParser::startBody() {
  if (Head.Status == 204 || Head.Status == 304) {
    St = State::Done;
  } else if (Head.Chunked) {
    St = State::SizeLine;
  } else if (Head.ContentLength >= 0) {
    Left = Head.ContentLength;
    St = Left ? State::UntilLength : State::Done;
  } else {
    St = State::UntilClose;
  }
}

size_t HttpResponseParser::takeLine(std::string_view Bytes, std::string_view &Line, bool &Complete,
                                    size_t Cap, const char *What) {
  size_t Lf = Bytes.find('\n');
  size_t Take = Lf == std::string_view::npos ? Bytes.size() : Lf + 1;
  if (Carry.size() + Take > Cap + 2) {
    fail(std::string(What) + " longer than " + std::to_string(Cap) + " bytes");
    return 0;
  }
  Complete = Lf != std::string_view::npos;
  if (Carry.empty() && Complete) {
    Line = Bytes.substr(0, Lf);
  } else {
    Carry.append(Bytes.data(), Take);
    if (!Complete)
      return Take;
    Line = std::string_view(Carry).substr(0, Carry.size() - 1);
  }
  if (!Line.empty() && Line.back() == '\r')
    Line.remove_suffix(1);
  return Take;
}

size_t HttpResponseParser::feed(std::string_view Bytes, Handler &H) {
  size_t Pos = 0;
  if (!Bytes.empty() && St != State::Done && St != State::Error)
    Started = true;
  while (Pos < Bytes.size()) {
    std::string_view Rest = Bytes.substr(Pos);
    switch (St) {
    case State::Done:
    case State::Error:
      return Pos;

    case State::Head: {
      std::string_view Text;
      size_t Used;
      if (Carry.empty()) {
        size_t End = findHeadEnd(Rest, 0);
        if (End == std::string_view::npos) {
          // The head may end at most MaxHeadBytes + 4 (its blank line) in;
          // this many bytes without an end cannot.
          if (Rest.size() >= MaxHeadBytes + 4)
            return fail("response head longer than " + std::to_string(MaxHeadBytes) + " bytes");
          Carry.assign(Rest);
          return Bytes.size();
        }
        Text = Rest.substr(0, End);
        Used = End;
      } else {
        size_t Old = Carry.size();
        Carry.append(Rest.substr(0, std::min(Rest.size(), MaxHeadBytes + 4)));
        size_t End = findHeadEnd(Carry, Old >= 3 ? Old - 3 : 0);
        if (End == std::string_view::npos) {
          if (Carry.size() >= MaxHeadBytes + 4)
            return fail("response head longer than " + std::to_string(MaxHeadBytes) + " bytes");
          // Everything appended belongs to the head (Rest was not longer
          // than the cap, or the cap failed above).
          return Bytes.size();
        }
        Carry.resize(End);
        Text = Carry;
        Used = End - Old;
      }
      if (Text.size() > MaxHeadBytes + 4)
        return fail("response head longer than " + std::to_string(MaxHeadBytes) + " bytes");
      bool Ok = parseHead(Text);
      Carry.clear();
      if (!Ok)
        return Pos;
      Pos += Used;
      if (Head.Status == 101)
        return fail("unexpected 101 Switching Protocols");
      if (Head.Status >= 100 && Head.Status < 200) {
        Head = HttpResponseHead(); // an interim response: the real head follows
        break;
      }
      H.onHead(Head);
      startBody();
      break;
    }

    case State::DataEnd: {
      // Exactly CRLF (or a bare LF) after the chunk's data.
      char C = Rest.front();
      if (C == '\r' && !DataCr) {
        DataCr = true;
      } else if (C == '\n') {
        DataCr = false;
        St = State::SizeLine;
      } else {
        return fail("chunk data not followed by CRLF");
      }
      ++Pos;
      break;
    }

    case State::SizeLine:
    case State::Trailer: {
      std::string_view Line;
      bool Complete = false;
      size_t Cap = St == State::Trailer ? MaxHeadBytes : 4096;
      size_t Used = takeLine(Rest, Line, Complete, Cap,
                             St == State::Trailer ? "trailer line" : "chunk-size line");
      if (St == State::Error)
        return Pos;
      Pos += Used;
      if (!Complete)
        return Pos;
      if (St == State::SizeLine) {
        int64_t N = 0;
        size_t I = 0, Digits = 0;
        for (; I < Line.size(); ++I, ++Digits) {
          char C = Line[I];
          int D = C >= '0' && C <= '9'   ? C - '0'
                  : C >= 'a' && C <= 'f' ? C - 'a' + 10
                  : C >= 'A' && C <= 'F' ? C - 'A' + 10
                                         : -1;
          if (D < 0)
            break;
          if (Digits >= 15) {
            Carry.clear();
            return fail("chunk size too large");
          }
          N = N * 16 + D;
        }
        std::string_view Ext = trim(Line.substr(I));
        Carry.clear();
        if (Digits == 0 || (!Ext.empty() && Ext.front() != ';'))
          return fail("malformed chunk-size line");
        if (N == 0) {
          St = State::Trailer;
        } else {
          Left = N;
          St = State::Data;
        }
      } else {
        bool Empty = Line.empty();
        TrailerBytes += Line.size();
        Carry.clear();
        if (TrailerBytes > MaxHeadBytes)
          return fail("trailers longer than " + std::to_string(MaxHeadBytes) + " bytes");
        if (Empty)
          St = State::Done;
      }
      break;
    }

    case State::Data:
    case State::UntilLength: {
      size_t N = size_t(std::min<int64_t>(Left, int64_t(Rest.size())));
      Left -= int64_t(N);
      Pos += N;
      if (Left == 0)
        St = St == State::Data ? State::DataEnd : State::Done;
      if (!H.onBody(Rest.substr(0, N)))
        return Pos;
      break;
    }

    case State::UntilClose:
      Pos = Bytes.size();
      if (!H.onBody(Rest))
        return Pos;
      break;
    }
  }
  return Pos;
}

void HttpResponseParser::eof(Handler &) {
  if (St == State::UntilClose) {
    St = State::Done;
    return;
  }
  if (St == State::Done || St == State::Error)
    return;
  fail(Started ? "connection closed before the response ended"
               : "connection closed before any response");
}
