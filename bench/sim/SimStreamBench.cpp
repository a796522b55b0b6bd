//===- SimStreamBench.cpp - Streams and tokens/s one arecipe-sim sustains -===//
//
// Closed-loop load generator over libevent's HTTP client: N connections,
// each streaming /v1/completions back to back. Counts streamed tokens (the
// "tok<i>" words), the streams in flight, and the CPU time the simulator
// process used (from /proc/PID/stat), so the figure reported is what one
// simulator core sustained, not what the client could send.
//
//===----------------------------------------------------------------------===//
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include <fmt/format.h>

namespace {

struct Bench;

struct Stream {
  Bench *B = nullptr;
  evhttp_connection *Conn = nullptr;
  bool InFlight = false;
};

struct Bench {
  event_base *Base = nullptr;
  std::string Body;
  std::string Host = "127.0.0.1";
  int Port = 0;
  uint64_t Tokens = 0, Completed = 0, Failed = 0;
  int InFlight = 0, MinInFlight = 1 << 30;
  bool Measuring = false, Stopping = false;
  std::vector<Stream> Streams;
  void send(Stream &S);
};

size_t countTokens(const char *Data, size_t Len) {
  size_t N = 0;
  for (size_t I = 0; I + 3 <= Len; ++I)
    if (Data[I] == 't' && Data[I + 1] == 'o' && Data[I + 2] == 'k')
      ++N;
  return N;
}

void onChunk(evhttp_request *Req, void *Arg) {
  auto *S = static_cast<Stream *>(Arg);
  evbuffer *In = evhttp_request_get_input_buffer(Req);
  size_t Len = evbuffer_get_length(In);
  const char *Data = reinterpret_cast<const char *>(evbuffer_pullup(In, -1));
  if (S->B->Measuring)
    S->B->Tokens += countTokens(Data, Len);
  evbuffer_drain(In, Len);
}

void onDone(evhttp_request *Req, void *Arg) {
  auto *S = static_cast<Stream *>(Arg);
  Bench &B = *S->B;
  S->InFlight = false;
  --B.InFlight;
  if (!Req || evhttp_request_get_response_code(Req) != 200)
    ++B.Failed;
  else if (B.Measuring)
    ++B.Completed;
  if (!B.Stopping)
    B.send(*S);
}

void Bench::send(Stream &S) {
  evhttp_request *Req = evhttp_request_new(onDone, &S);
  evhttp_request_set_chunked_cb(Req, onChunk);
  evkeyvalq *H = evhttp_request_get_output_headers(Req);
  evhttp_add_header(H, "Host", "127.0.0.1");
  evhttp_add_header(H, "Content-Type", "application/json");
  evbuffer_add(evhttp_request_get_output_buffer(Req), Body.data(), Body.size());
  if (evhttp_make_request(S.Conn, Req, EVHTTP_REQ_POST, "/v1/completions") == 0) {
    S.InFlight = true;
    ++InFlight;
  }
}

double selfCpuSeconds() {
  rusage U;
  getrusage(RUSAGE_SELF, &U);
  return U.ru_utime.tv_sec + U.ru_stime.tv_sec +
         (U.ru_utime.tv_usec + U.ru_stime.tv_usec) / 1e6;
}

double cpuSeconds(int Pid) {
  std::ifstream In(fmt::format("/proc/{}/stat", Pid));
  std::string Line;
  std::getline(In, Line);
  // Fields after the command name (which may contain spaces) start at ')'.
  std::istringstream Fields(Line.substr(Line.rfind(')') + 2));
  std::string F;
  std::vector<std::string> V;
  while (Fields >> F)
    V.push_back(F);
  if (V.size() < 13)
    return 0;
  return (std::stod(V[11]) + std::stod(V[12])) / sysconf(_SC_CLK_TCK);
}

} // namespace

int main(int argc, char **argv) {
  int Port = 0, Streams = 1024, SimPid = 0;
  double Warmup = 3, Duration = 10;
  int MaxTokens = 200, PromptWords = 100;
  for (int I = 1; I + 1 < argc; I += 2) {
    std::string A = argv[I];
    double V = std::atof(argv[I + 1]);
    if (A == "--port") Port = int(V);
    else if (A == "--streams") Streams = int(V);
    else if (A == "--sim-pid") SimPid = int(V);
    else if (A == "--warmup") Warmup = V;
    else if (A == "--duration") Duration = V;
    else if (A == "--max-tokens") MaxTokens = int(V);
    else if (A == "--prompt-words") PromptWords = int(V);
    else {
      fmt::print(stderr, "usage: sim-stream-bench --port P [--streams N] [--sim-pid PID] "
                         "[--warmup S] [--duration S] [--max-tokens N] [--prompt-words N]\n");
      return 2;
    }
  }
  Bench B;
  B.Base = event_base_new();
  B.Port = Port;
  std::string Prompt;
  for (int I = 0; I < PromptWords; ++I)
    Prompt += fmt::format("w{} ", I);
  B.Body = fmt::format(R"({{"prompt":"{}","max_tokens":{},"stream":true,"ignore_eos":true}})",
                       Prompt, MaxTokens);
  B.Streams.resize(Streams);
  for (Stream &S : B.Streams) {
    S.B = &B;
    S.Conn = evhttp_connection_base_new(B.Base, nullptr, "127.0.0.1", Port);
    evhttp_connection_set_timeout(S.Conn, 600);
    B.send(S);
  }
  auto Run = [&](double Seconds) {
    timeval Tv{long(Seconds), long((Seconds - long(Seconds)) * 1e6)};
    event_base_loopexit(B.Base, &Tv);
    event_base_dispatch(B.Base);
  };
  Run(Warmup);
  B.Measuring = true;
  double Cpu0 = SimPid ? cpuSeconds(SimPid) : 0;
  double Self0 = selfCpuSeconds();
  auto T0 = std::chrono::steady_clock::now();
  // Sample the streams in flight ten times over the window.
  for (int I = 0; I < 10; ++I) {
    Run(Duration / 10);
    B.MinInFlight = std::min(B.MinInFlight, B.InFlight);
  }
  double Wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  double Cpu = SimPid ? cpuSeconds(SimPid) - Cpu0 : 0;
  double Self = selfCpuSeconds() - Self0;
  B.Measuring = false;
  B.Stopping = true;
  fmt::print("streams {} (min in flight at samples {}), window {:.1f} s: {} streamed tokens = "
             "{:.0f} tokens/s, {} requests completed ({:.1f}/s), {} failed; simulator CPU "
             "{:.2f} s = {:.0f}% of one core; load generator CPU {:.0f}% of one core\n",
             Streams, B.MinInFlight, Wall, B.Tokens, B.Tokens / Wall, B.Completed,
             B.Completed / Wall, B.Failed, Cpu, 100 * Cpu / Wall, 100 * Self / Wall);
  for (Stream &S : B.Streams)
    evhttp_connection_free(S.Conn);
  event_base_free(B.Base);
  return B.Failed ? 1 : 0;
}
