//===- StopRequest.cpp - Ctrl-C and SIGTERM for a running sweep -----------===//

#include "arecipe/Runtime/StopRequest.h"

#include "arecipe/Client/Workload.h"

#include <atomic>
#include <csignal>
#include <thread>

namespace arecipe::runtime {

namespace {

std::atomic<int> Signal{0};

void onStopSignal(int Sig) {
  Signal.store(Sig);
  // Async-signal-safe: wakes the client's event loop if a measurement runs.
  client::interruptRunningWorkloads();
}

} // namespace

void installStopHandlers() {
  struct sigaction Act {};
  Act.sa_handler = onStopSignal;
  sigemptyset(&Act.sa_mask);
  sigaction(SIGINT, &Act, nullptr);
  sigaction(SIGTERM, &Act, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

bool stopRequested() { return Signal.load() != 0; }

int stopSignal() { return Signal.load(); }

bool sleepUnlessStopped(std::chrono::milliseconds D) {
  auto Deadline = std::chrono::steady_clock::now() + D;
  while (!stopRequested()) {
    auto Now = std::chrono::steady_clock::now();
    if (Now >= Deadline)
      return true;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        Deadline - Now, std::chrono::milliseconds(50)));
  }
  return false;
}

} // namespace arecipe::runtime
