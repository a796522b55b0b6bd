//===- Scheduler.cpp - Continuous batching over simulated time ------------===//
#include "arecipe/Sim/Scheduler.h"

#include <algorithm>
#include <cmath>

namespace arecipe::sim {

double acceptanceProbabilityFor(int DraftTokens, double AcceptanceLength) {
  if (DraftTokens <= 0 || AcceptanceLength <= 1)
    return 0;
  if (AcceptanceLength >= DraftTokens + 1)
    return 1;
  auto Mean = [&](double A) {
    double Sum = 0, Term = 1;
    for (int I = 0; I <= DraftTokens; ++I, Term *= A)
      Sum += Term;
    return Sum;
  };
  double Lo = 0, Hi = 1;
  for (int Iter = 0; Iter < 60; ++Iter) {
    double Mid = (Lo + Hi) / 2;
    (Mean(Mid) < AcceptanceLength ? Lo : Hi) = Mid;
  }
  return (Lo + Hi) / 2;
}

Scheduler::Scheduler(const Roofline &Model, long CpuTierTokens, uint64_t Seed)
    : Model(Model), Config(this->Model.config()),
      Capacity(Model.kvCapacityTokens()),
      GpuTier(Config.PrefixCaching ? Capacity / PrefixBlockTokens : 0),
      CpuTier(Config.PrefixCaching ? CpuTierTokens / PrefixBlockTokens : 0),
      Rng(Seed) {
  int N = Config.NumSpeculativeTokens;
  double AL = Config.AcceptanceLength
                  ? *Config.AcceptanceLength
                  : this->Model.model().goldenAcceptance(N);
  AcceptProb = acceptanceProbabilityFor(N, AL);
}

void Scheduler::add(ScheduledRequest Request) {
  Sequence Seq;
  Seq.PrefillTarget = Request.PromptTokens;
  Seq.Req = std::move(Request);
  Waiting.push_back(std::move(Seq));
}

void Scheduler::cancel(uint64_t Id) {
  auto Match = [Id](const Sequence &S) { return S.Req.Id == Id; };
  auto W = std::find_if(Waiting.begin(), Waiting.end(), Match);
  if (W != Waiting.end()) {
    Waiting.erase(W);
    return;
  }
  auto R = std::find_if(Running.begin(), Running.end(), Match);
  if (R != Running.end()) {
    HeldTokens -= R->held();
    Running.erase(R);
  }
}

void Scheduler::lookupPrefix(Sequence &Seq) {
  const auto &Hashes = Seq.Req.BlockHashes;
  size_t GpuBlocks = GpuTier.matchPrefix(Hashes);
  size_t CpuBlocks = CpuTier.matchPrefix(Hashes, GpuBlocks);
  // The engine always recomputes the last prompt token to get logits.
  long Limit = std::max(0L, Seq.Req.PromptTokens - 1);
  long GpuHit = std::min<long>(GpuBlocks * PrefixBlockTokens, Limit);
  long CpuHit =
      std::min<long>((GpuBlocks + CpuBlocks) * PrefixBlockTokens, Limit) -
      GpuHit;
  Seq.CachedTokens = GpuHit + CpuHit;
  Seq.Prefilled = Seq.CachedTokens;
  Seq.CpuPending = CpuHit;
  Stats.PrefixQueriedTokens += Seq.Req.PromptTokens;
  Stats.PrefixHitTokens += Seq.CachedTokens;
  Stats.CpuHitTokens += CpuHit;
}

void Scheduler::admit() {
  while (!Waiting.empty() &&
         static_cast<long>(Running.size()) < Model.maxRunningSequences()) {
    Sequence &Next = Waiting.front();
    // A request that can never fit is admitted alone so that it makes
    // progress instead of blocking the queue forever.
    if (HeldTokens + Next.held() > Capacity && !Running.empty())
      break;
    Sequence Seq = std::move(Next);
    Waiting.pop_front();
    if (!Seq.Started && Seq.Req.RemotePrefill) {
      // The KV is already here, as after a full prefix hit: the engine
      // recomputes the last token for its logits (and reports the rest as
      // cached, as vLLM does for KV it received).
      Seq.CachedTokens = Seq.Prefilled = std::max(0L, Seq.Req.PromptTokens - 1);
      Stats.RemotePrefillTokens += Seq.CachedTokens;
    } else if (!Seq.Started && Config.PrefixCaching) {
      lookupPrefix(Seq);
    } else if (!Config.PrefixCaching) {
      Stats.PrefixQueriedTokens += Seq.Req.PromptTokens;
    }
    HeldTokens += Seq.held();
    Running.push_back(std::move(Seq));
  }
}

int Scheduler::sampleDecodeTokens() {
  int N = Config.NumSpeculativeTokens;
  int Tokens = 1;
  std::uniform_real_distribution<double> U(0, 1);
  while (Tokens <= N && U(Rng) < AcceptProb)
    ++Tokens;
  return Tokens;
}

void Scheduler::finishPrefill(Sequence &Seq) {
  for (uint64_t Hash : Seq.Req.BlockHashes) {
    GpuTier.insert(Hash);
    // LMCache-style offload writes every computed block through to DRAM.
    CpuTier.insert(Hash);
  }
}

void Scheduler::preemptUntilFits() {
  // Recompute-style preemption of the newest sequence, as vLLM does.
  while (HeldTokens > Capacity && Running.size() > 1) {
    Sequence Seq = std::move(Running.back());
    Running.pop_back();
    HeldTokens -= Seq.held();
    Seq.PrefillTarget = Seq.Req.PromptTokens + Seq.Generated;
    Seq.Prefilled = 0;
    Seq.CpuPending = 0;
    ++Stats.Preemptions;
    Waiting.push_front(std::move(Seq));
  }
}

StepResult Scheduler::step() {
  StepResult Result;
  admit();
  if (Running.empty())
    return Result;
  // With PP stages the engine keeps up to PP micro-batches in flight, each
  // with its own max-num-batched-tokens budget; a sequence is in at most one
  // of them. Each sequence goes to the micro-batch with the most budget left,
  // which balances the stages.
  const int RowsPerDecode = Config.rowsPerDecode();
  std::vector<StepShape> Micro(Config.PipelineParallel);
  std::vector<long> Budget(Micro.size(), Model.batchedTokenBudget());
  auto Roomiest = [&Budget] {
    return static_cast<size_t>(std::max_element(Budget.begin(), Budget.end()) -
                               Budget.begin());
  };
  std::vector<size_t> Decoding;
  std::vector<std::pair<size_t, long>> Chunks;
  for (size_t I = 0; I < Running.size(); ++I) {
    Sequence &Seq = Running[I];
    size_t B = Roomiest();
    if (Seq.Prefilled < Seq.PrefillTarget || Budget[B] < RowsPerDecode)
      continue;
    Budget[B] -= RowsPerDecode;
    Decoding.push_back(I);
    long Context = Seq.held();
    StepShape &Shape = Micro[B];
    Shape.Rows += RowsPerDecode;
    Shape.DecodeSequences += 1;
    Shape.KvTokensRead += Context;
    Shape.AttentionPairs += double(RowsPerDecode) * Context;
  }
  for (size_t I = 0; I < Running.size(); ++I) {
    Sequence &Seq = Running[I];
    long Remaining = Seq.PrefillTarget - Seq.Prefilled;
    size_t B = Roomiest();
    if (Budget[B] <= 0)
      break;
    if (Remaining <= 0)
      continue;
    long Chunk = std::min(Remaining, Budget[B]);
    Budget[B] -= Chunk;
    Chunks.emplace_back(I, Chunk);
    StepShape &Shape = Micro[B];
    Shape.Rows += Chunk;
    Shape.KvTokensRead += Seq.Prefilled;
    Shape.AttentionPairs += double(Chunk) * (Seq.Prefilled + Chunk / 2.0);
    Shape.CpuLoadedTokens += Seq.CpuPending;
    Seq.CpuPending = 0;
    Result.PrefillTokens += Chunk;
  }
  Result.Seconds = Model.stepSeconds(Micro);
  for (const StepShape &Shape : Micro) {
    Result.Shape.Rows += Shape.Rows;
    Result.Shape.DecodeSequences += Shape.DecodeSequences;
    Result.Shape.KvTokensRead += Shape.KvTokensRead;
    Result.Shape.AttentionPairs += Shape.AttentionPairs;
    Result.Shape.CpuLoadedTokens += Shape.CpuLoadedTokens;
  }
  ++Stats.Steps;

  for (size_t I : Decoding) {
    Sequence &Seq = Running[I];
    int Tokens = sampleDecodeTokens();
    Stats.DraftTokens += Config.NumSpeculativeTokens;
    Stats.AcceptedTokens += Tokens - 1;
    Tokens = static_cast<int>(
        std::min<long>(Tokens, Seq.Req.MaxTokens - Seq.Generated));
    Seq.Generated += Tokens;
    HeldTokens += Tokens;
    Result.Progress.push_back({Seq.Req.Id, Tokens, Seq.CachedTokens, false});
  }
  for (auto [I, Chunk] : Chunks) {
    Sequence &Seq = Running[I];
    Seq.Prefilled += Chunk;
    Stats.PromptTokens += Chunk;
    if (Seq.Prefilled < Seq.PrefillTarget)
      continue;
    finishPrefill(Seq);
    int Tokens = 0;
    // The step that completes a prefill samples the first token; a
    // recomputed (preempted) sequence just resumes decoding.
    if (!Seq.Started) {
      Seq.Started = true;
      Tokens = 1;
      Seq.Generated += 1;
      HeldTokens += 1;
    }
    Result.Progress.push_back({Seq.Req.Id, Tokens, Seq.CachedTokens, false});
  }
  for (RequestProgress &P : Result.Progress)
    Stats.GenerationTokens += P.NewTokens;

  // Retire finished sequences and mark them in this step's progress.
  std::vector<uint64_t> Done;
  for (const Sequence &Seq : Running)
    if (Seq.Started && Seq.Generated >= Seq.Req.MaxTokens)
      Done.push_back(Seq.Req.Id);
  for (uint64_t Id : Done) {
    for (RequestProgress &P : Result.Progress)
      if (P.Id == Id)
        P.Finished = true;
    cancel(Id);
    ++Stats.FinishedRequests;
  }
  preemptUntilFits();
  GpuTier.setCapacity(Config.PrefixCaching
                          ? (Capacity - HeldTokens) / PrefixBlockTokens
                          : 0);
  return Result;
}

} // namespace arecipe::sim
