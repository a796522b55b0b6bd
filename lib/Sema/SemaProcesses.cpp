//===- SemaProcesses.cpp - Roles, replicas, processes, routers, services --===//
//
// A cell's layout, from the engine's own statement of what one replica uses
// (docs/language.md §4): the topology's roles and replica counts, each
// role's GPUs per replica (the engine's `gpus` formula, evaluated for the
// role), replicas placed on nodes (a replica smaller than a node shares it
// with the next replica of its role; a larger one owns whole nodes, one
// process per node), GPU lists, which processes are headless (the engine's
// `headless` formula), ports (`port + i` for the i-th process of a template
// on a node; two processes on one port of one node are an error), and the
// router and side services as processes of their own: placed (`on`),
// ordered (`start`), with their knobs resolved (defaults, the call's
// arguments, `router.NAME` assignments) and the engine processes they
// front in their render context. It also evaluates the engine's `report`
// block. Nothing here renders argv; SemaChecks.cpp renders each process.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

using namespace arecipe;
using namespace arecipe::sema;

/// The `report { ... }` members an engine may state (docs/language.md §5.1).
static const char *const ReportFields[] = {
    "tp",
    "pp",
    "ep",
    "dp_attention",
    "dcp_size",
    "spec_decoding",
    "kv_offloading",
    "kv_offload_backend",
    "kv_p2p_transfer",
};

// Roles and GPUs --------------------------------------------------------------

void SemaImpl::setRoles(CellState &CS) {
  Cell &C = *CS.C;
  const ResolvedValue *Topo = C.find("topology");
  if (Topo && Topo->V.kind() == ValueKind::Record &&
      Topo->V.getRecordName() == "disaggregated")
    C.Roles = {"prefill", "decode"};
  else
    C.Roles = {""};
}

int64_t SemaImpl::replicaGpus(CellState &CS, llvm::StringRef Role,
                              llvm::SMRange Use) {
  RecipeState &R = *CS.R;
  const EntityState *Engine = R.Engine;
  if (!Engine)
    return -1;
  if (!Engine->GpusExpr) {
    diag(Engine->Decl->getName().Range, DiagID::err_engine_no_gpus)
        << Engine->Name;
    return -1;
  }
  EvalCtx Ctx;
  Ctx.M = Engine->Owner;
  Ctx.Cell = &CS;
  Ctx.Recipe = &R;
  Ctx.What = "the engine's 'gpus'";
  Ctx.Role = Role.str();
  std::optional<int64_t> N = evalInt(Engine->GpusExpr, Ctx, "gpus");
  if (!N)
    return -1;
  if (*N < 1) {
    diag(Engine->GpusExpr->getRange(), DiagID::err_gpus_not_positive)
        << Engine->Name << *N << cellLabel(CS, Role);
    return -1;
  }
  return *N;
}

// Template instances (routers, services) --------------------------------------

std::optional<Value> SemaImpl::instantiateTemplate(const EntityInfo &TI,
                                                   const ast::CallExpr *E,
                                                   const EvalCtx &Ctx) {
  EntityState &Mut = stateOf(TI);
  const EntityState &T = Mut;
  evaluateEntityFields(Mut);
  std::vector<std::pair<Value, Value>> Fields;
  std::vector<std::string> Names;
  for (const KnobInfo &K : T.Knobs)
    Names.push_back(K.Name);
  bool Ok = true;
  for (const ast::Argument &A : E->getArgs()) {
    if (!A.isNamed()) {
      // A template's knobs have no order a call could rely on.
      diag(A.Range, DiagID::err_not_allowed_here)
          << "a positional argument"
          << ("a call of " + getSpelling(T.Decl->getEntityKind()).str() + " '" +
              T.Name + "'; name the knob: 'KNOB = value'");
      Ok = false;
      continue;
    }
    const KnobInfo *K = T.findKnob(A.Name.Name);
    if (!K) {
      auto B = diag(A.Name.Range, DiagID::err_unknown_knob);
      B << A.Name.Name
        << (getSpelling(T.Decl->getEntityKind()).str() + " '" + T.Name + "'");
      didYouMean(B, A.Name.Range, A.Name.Name, Names);
      Ok = false;
      continue;
    }
    bool Twice = false;
    for (const auto &[Key, _] : Fields)
      Twice |= Key.getString() == K->Name;
    if (Twice) {
      diag(A.Name.Range, DiagID::err_redefinition) << K->Name;
      Ok = false;
      continue;
    }
    EvalCtx Inner = Ctx;
    Inner.Expected = &K->Ty;
    std::optional<Value> V = eval(A.Value, Inner);
    if (!V) {
      Ok = false;
      continue;
    }
    std::optional<Value> C = conformTo(*V, K->Ty);
    if (!C) {
      diag(A.Value->getRange(), DiagID::err_type_mismatch)
          << (T.Name + "(" + K->Name + ")") << K->Ty.str() << V->describeType()
          << V->str();
      Ok = false;
      continue;
    }
    Fields.emplace_back(Value::string(K->Name), *C);
  }
  if (!Ok)
    return std::nullopt;
  return Value::instance(&T, std::move(Fields));
}

std::optional<Value> SemaImpl::resolveInstanceKnob(InstanceState &I,
                                                   llvm::StringRef Name,
                                                   llvm::SMRange Use) {
  ProcessInfo &P = *I.P;
  if (const ResolvedValue *RV = P.findKnob(Name))
    return RV->V;
  if (I.Failed.count(Name.str()))
    return std::nullopt;
  const KnobInfo *K = stateOf(*P.Template).findKnob(Name);
  if (!K)
    return std::nullopt;
  if (std::find(I.Stack.begin(), I.Stack.end(), Name) != I.Stack.end()) {
    std::string Text;
    for (const std::string &S : I.Stack)
      Text += S + " -> ";
    diag(K->Stmt->getName().Range, DiagID::err_dependency_cycle)
        << (" in cell " + cellLabel(*I.CS)) << Text + Name.str();
    I.Failed.insert(Name.str());
    return std::nullopt;
  }
  ResolvedValue RV;
  auto It = I.Chosen.find(Name.str());
  if (It == I.Chosen.end()) {
    if (!K->Ty.Optional && K->Ty.K != Type::Any) {
      report(Use, DiagID::err_no_value)
          << (P.Template->Name + "." + Name.str()) << cellLabel(*I.CS);
      I.Failed.insert(Name.str());
      return std::nullopt;
    }
    P.Knobs[Name.str()] = RV;
    return RV.V;
  }
  const InstanceState::Choice &Ch = It->second;
  RV.L = Ch.L;
  RV.From = Ch.From;
  std::optional<Value> V;
  if (Ch.Literal) {
    V = Ch.Literal;
  } else {
    I.Stack.push_back(Name.str());
    EvalCtx Ctx;
    Ctx.M = Ch.M;
    Ctx.Cell = I.CS;
    Ctx.Recipe = I.CS->R;
    Ctx.What = "a knob of a router or service";
    Ctx.Expected = &K->Ty;
    Ctx.Process = &P;
    Ctx.Instance = &I;
    Ctx.Deps = &RV.Deps;
    V = eval(Ch.E, Ctx);
    I.Stack.pop_back();
  }
  if (!V) {
    I.Failed.insert(Name.str());
    return std::nullopt;
  }
  std::optional<Value> C = conformTo(*V, K->Ty);
  if (!C) {
    diag(Ch.E ? Ch.E->getRange() : Ch.Range, DiagID::err_type_mismatch)
        << Name << K->Ty.str() << V->describeType() << V->str();
    I.Failed.insert(Name.str());
    return std::nullopt;
  }
  RV.V = *C;
  P.Knobs[Name.str()] = RV;
  return RV.V;
}

void SemaImpl::instantiate(RecipeState &R, CellState &CS, ProcessInfo &P,
                           const Value &Call, Level CallLevel,
                           llvm::SMRange CallRange,
                           llvm::StringRef AssignPrefix) {
  const EntityState &T = stateOf(*P.Template);
  InstanceState I;
  I.P = &P;
  I.CS = &CS;
  std::string Label =
      getSpelling(T.Decl->getEntityKind()).str() + " '" + T.Name + "'";
  // `router.NAME` assignments that apply to this cell, by knob; an unknown
  // knob is reported once per assignment.
  std::map<std::string, std::vector<AssignmentState *>> Sets;
  if (!AssignPrefix.empty())
    for (AssignmentState *A : R.RouterAssignments) {
      if (!applies(*A, *CS.C))
        continue;
      llvm::StringRef Knob =
          llvm::StringRef(A->Name).drop_front(AssignPrefix.size() + 1);
      if (!T.findKnob(Knob)) {
        if (R.ReportedOnce.insert({A, 0}).second) {
          std::vector<std::string> Names;
          for (const KnobInfo &K : T.Knobs)
            Names.push_back(K.Name);
          auto B = diag(A->NameRange, DiagID::err_unknown_knob);
          B << Knob << Label;
          didYouMean(B, A->NameRange, Knob, Names);
        }
        continue;
      }
      Sets[Knob.str()].push_back(A);
    }
  for (const KnobInfo &K : T.Knobs) {
    std::optional<InstanceState::Choice> Best;
    if (const ast::Expr *D = K.Stmt->getDefault()) {
      InstanceState::Choice C;
      C.E = D;
      C.M = K.M;
      C.Range = K.Stmt->getRange();
      Best = C;
    }
    if (const Value *Arg =
            Call.kind() == ValueKind::Record ? Call.lookup(K.Name) : nullptr) {
      InstanceState::Choice C;
      C.Literal = *Arg;
      C.L = CallLevel;
      C.Range = CallRange;
      Best = C;
    }
    for (AssignmentState *A : Sets[K.Name]) {
      if (Best && Best->L == A->L) {
        // The call's argument or another `router.NAME` at the same level;
        // reported once for the pair.
        if (!R.ReportedPairs.insert({A, Best->From}).second)
          continue;
        auto B = diag(A->NameRange, DiagID::err_duplicate_assignment);
        B << A->Name << CS.C->label();
        if (Best->Range.isValid())
          B.note(Best->Range.Start, DiagID::note_also_set_here)
              << (Best->From ? Best->From->describeSite()
                             : "the call of " + T.Name)
              << Best->Range;
        continue;
      }
      if (Best && Best->L > A->L) {
        if (Best->From && !A->ShadowedBy)
          A->ShadowedBy = Best->From;
        continue;
      }
      if (Best && Best->From && !Best->From->ShadowedBy)
        const_cast<AssignmentState *>(Best->From)->ShadowedBy = A;
      InstanceState::Choice C;
      C.E = A->ValueExpr;
      C.M = A->M;
      C.L = A->L;
      C.From = A;
      C.Range = A->Range;
      Best = C;
    }
    if (Best) {
      if (Best->From)
        const_cast<AssignmentState *>(Best->From)->EffectiveIn.push_back(CS.C->Conc);
      I.Chosen[K.Name] = *Best;
    }
  }
  for (const KnobInfo &K : T.Knobs)
    resolveInstanceKnob(I, K.Name, K.Stmt->getName().Range);
}

// The render context ----------------------------------------------------------

static std::string nodeAddr(int64_t Node) {
  return "{node_addr:" + std::to_string(Node) + "}";
}

std::optional<Value> SemaImpl::lookupProcessName(const EvalCtx &Ctx,
                                                 llvm::StringRef Name,
                                                 llvm::SMRange Use) {
  if (Ctx.Instance && stateOf(*Ctx.Instance->P->Template).findKnob(Name))
    return resolveInstanceKnob(*Ctx.Instance, Name, Use);
  const ProcessInfo *P = Ctx.Process;
  if (!P)
    return std::nullopt;
  if (Name == "role")
    return Value::string(P->Role);
  if (Name == "rank")
    return Value::integer(P->Rank);
  if (Name == "replica")
    return Value::integer(P->Replica);
  if (Name == "node")
    return Value::integer(P->K == ProcessInfo::Engine ? P->Node : P->NodeRank);
  if (Name == "nodes")
    return Value::integer(P->Nodes);
  if (Name == "node_rank")
    return Value::integer(P->NodeRank);
  if (Name == "index") {
    // The process's place among the cell's engine processes (placement
    // order), e.g. for ports a launcher numbers across a whole cell.
    int64_t I = 0;
    for (const ProcessInfo &E : Ctx.Cell->C->Processes) {
      if (&E == P)
        return Value::integer(I);
      if (E.K == ProcessInfo::Engine)
        ++I;
    }
    return Value::integer(P->Replica);
  }
  if (Name == "gpus_here")
    return Value::integer(P->Gpus);
  if (Name == "leader_addr")
    return Value::string(nodeAddr(P->LeaderNode));
  if (Name == "headless" && P->K == ProcessInfo::Engine)
    return Value::boolean(P->Headless);
  if (P->K != ProcessInfo::Engine)
    if (const ResolvedValue *RV = P->findKnob(Name))
      return RV->V;
  bool Urls =
      Name == "prefill_urls" || Name == "decode_urls" || Name == "backend_urls";
  if (!Urls && Name != "backends")
    return std::nullopt;
  // The engine processes that serve HTTP, in placement order.
  std::vector<Value> Out;
  for (const ProcessInfo &E : Ctx.Cell->C->Processes) {
    if (E.K != ProcessInfo::Engine || E.Headless || !E.Port)
      continue;
    std::string Role = E.Role == "worker" ? "server" : E.Role;
    std::string Url =
        "http://" + nodeAddr(E.NodeRank) + ":" + std::to_string(*E.Port);
    if (Name == "backends") {
      Out.push_back(Value::map(
          {{Value::string("role"), Value::string(Role)},
           {Value::string("replica"), Value::integer(E.Replica)},
           {Value::string("node"), Value::integer(E.NodeRank)},
           {Value::string("addr"), Value::string(nodeAddr(E.NodeRank))},
           {Value::string("port"), Value::integer(*E.Port)},
           {Value::string("url"), Value::string(Url)}}));
      continue;
    }
    // The URLs are the replicas' leaders.
    if (E.Node != 0)
      continue;
    if ((Name == "prefill_urls" && Role == "prefill") ||
        (Name == "decode_urls" && Role == "decode") || Name == "backend_urls")
      Out.push_back(Value::string(Url));
  }
  return Value::list(std::move(Out));
}

// Placement -------------------------------------------------------------------

namespace {
/// One role of a topology: how many replicas, how many GPUs each.
struct RoleLayout {
  std::string Role;      ///< server | prefill | decode
  std::string ValueRole; ///< "" | prefill | decode
  int64_t Replicas = 1;
  int64_t Gpus = 0;
};
} // namespace

static int64_t intField(const Value &Record, llvm::StringRef Name,
                        int64_t Default) {
  const Value *V = Record.lookup(Name);
  return V && V->kind() == ValueKind::Int ? V->getInt() : Default;
}

/// The range to blame for a layout error: the assignment that set the
/// topology, else the recipe's name.
static llvm::SMRange topologyRange(const Cell &C, llvm::SMRange Fallback) {
  const ResolvedValue *T = C.find("topology");
  if (T && T->From && stateOf(*T->From).ValueExpr)
    return stateOf(*T->From).ValueExpr->getRange();
  return Fallback;
}

void SemaImpl::layoutCell(RecipeState &R, CellState &CS) {
  Cell &C = *CS.C;
  if (C.ServerRoot) {
    // The server of cell N verbatim: its processes, GPUs and report.
    const Cell &Root = *R.Cells[{CS.key().first, *C.ServerRoot}].C;
    C.Processes = Root.Processes;
    C.Gpus = Root.Gpus;
    C.Nodes = Root.Nodes;
    C.GpusByRole = Root.GpusByRole;
    C.Report = Root.Report;
    return;
  }
  const ResolvedValue *Topo = C.find("topology");
  const EntityState *Engine = R.Engine;
  if (!Topo || Topo->V.kind() != ValueKind::Record || !R.Out->Hardware ||
      !Engine)
    return;
  std::optional<Value> PerNodeV =
      entityField(*R.Out->Hardware, "gpus_per_node", R.Out->NameRange);
  if (!PerNodeV || PerNodeV->kind() != ValueKind::Int ||
      PerNodeV->getInt() <= 0)
    return;
  int64_t PerNode = PerNodeV->getInt();
  const Value &T = Topo->V;
  llvm::SMRange TopoRange = topologyRange(C, R.Out->NameRange);
  bool Disagg = T.getRecordName() == "disaggregated";

  std::vector<RoleLayout> Roles;
  if (Disagg) {
    Roles.push_back({"prefill", "prefill", intField(T, "prefill", 1), 0});
    Roles.push_back({"decode", "decode", intField(T, "decode", 1), 0});
  } else {
    Roles.push_back({"server", "", intField(T, "replicas", 1), 0});
  }
  for (RoleLayout &L : Roles) {
    if (L.Replicas < 1) {
      diag(TopoRange, DiagID::err_count_not_positive)
          << (Disagg ? L.Role : std::string("replicas")) << L.Replicas;
      return;
    }
    L.Gpus = replicaGpus(CS, L.ValueRole, R.Out->NameRange);
    if (L.Gpus <= 0)
      return;
    if (L.Gpus > PerNode && L.Gpus % PerNode != 0) {
      diag(TopoRange, DiagID::err_replica_uneven)
          << L.Gpus << cellLabel(CS, L.ValueRole) << R.Out->Hardware->Name
          << PerNode;
      return;
    }
  }

  // Engine processes: roles in order, each starting on a fresh node;
  // replicas smaller than a node pack into it while GPUs remain.
  int64_t Node = 0;
  for (const RoleLayout &L : Roles) {
    int64_t Used = 0; // GPUs taken on node `Node` by this role.
    int64_t Total = L.Replicas * L.Gpus;
    C.Gpus += Total;
    C.GpusByRole.emplace_back(L.Role, Total);
    for (int64_t I = 0; I < L.Replicas; ++I) {
      int64_t Nodes = std::max<int64_t>(1, L.Gpus / PerNode);
      if (L.Gpus >= PerNode && Used > 0) {
        ++Node;
        Used = 0;
      }
      if (L.Gpus < PerNode && Used + L.Gpus > PerNode) {
        ++Node;
        Used = 0;
      }
      int64_t Leader = Node;
      for (int64_t K = 0; K < Nodes; ++K) {
        ProcessInfo P;
        P.K = ProcessInfo::Engine;
        P.Template = Engine;
        P.ValueRole = L.ValueRole;
        P.Replica = I;
        P.Node = K;
        P.Nodes = Nodes;
        P.NodeRank = Leader + K;
        P.LeaderNode = Leader;
        P.FirstGpu = L.Gpus >= PerNode ? 0 : Used;
        P.Gpus = std::min(L.Gpus, PerNode);
        // Names as disaggregated launchers name their workers: `ROLE-I`
        // for a replica on one node, `ROLE-I-nodeK` for each node of one
        // that spans several (its first node included).
        std::string Worker = std::to_string(I);
        if (Nodes > 1)
          Worker += "-node" + std::to_string(K);
        if (Disagg) {
          P.Role = L.Role;
          P.Name = L.Role + "-" + Worker;
          P.Rank = I;
        } else if (L.Replicas == 1) {
          // v1's names and ranks: `server`, then `rank1`, ... workers.
          P.Role = K ? "worker" : "server";
          P.Name = K ? "rank" + std::to_string(K) : "server";
          P.Rank = K;
        } else {
          P.Role = K ? "worker" : "server";
          P.Name = "server-" + Worker;
          P.Rank = I;
        }
        C.Processes.push_back(std::move(P));
      }
      if (L.Gpus >= PerNode) {
        Node += Nodes;
      } else {
        Used += L.Gpus;
      }
    }
    if (Used > 0) {
      ++Node;
      Used = 0;
    }
  }
  C.Nodes = Node;

  // v1's `aggregated(nodes = K)` states the layout: it must agree.
  if (!Disagg)
    if (const Value *K = T.lookup("nodes"); K && K->kind() == ValueKind::Int) {
      const RoleLayout &L = Roles.front();
      if (K->getInt() < C.Nodes) {
        const ResolvedValue *TP = C.find("tp");
        llvm::SMRange Where = TopoRange;
        if (TP && TP->From && stateOf(*TP->From).ValueExpr &&
            TP->From->L != Level::Default)
          Where = stateOf(*TP->From).ValueExpr->getRange();
        diag(Where, DiagID::err_layout_too_large)
            << C.label() << L.Gpus << R.Out->Hardware->Name << PerNode
            << K->getInt();
      } else if (K->getInt() > C.Nodes) {
        diag(TopoRange, DiagID::err_layout_nodes_mismatch)
            << K->getInt() << C.label() << C.Nodes;
      }
    }

  // Which processes are headless (the engine's formula, default `node >
  // 0`), and ports: the i-th HTTP process of the engine on a node gets
  // `port + i`.
  std::map<int64_t, int64_t> OnNode;
  for (ProcessInfo &P : C.Processes) {
    EvalCtx Ctx =
        processCtx(R, CS, P, Engine->Owner, "the engine's 'headless'");
    if (Engine->HeadlessExpr) {
      std::optional<bool> H =
          evalBool(Engine->HeadlessExpr, Ctx, "the engine's 'headless'");
      P.Headless = H && *H;
    } else {
      P.Headless = P.Node > 0;
    }
    P.Ready = P.Headless ? Readiness::Running : Readiness::Http;
    if (P.Headless)
      continue;
    const ResolvedValue *Port = C.find("port", P.ValueRole);
    if (Port && Port->V.kind() == ValueKind::Int)
      P.Port = Port->V.getInt() + OnNode[P.NodeRank]++;
  }

  // The router: required in front of prefill and decode, and in front of
  // several aggregated replicas (the client sends to one address).
  const Value *Router = T.lookup("router");
  bool HasRouter = Router && !Router->isNone();
  if (!HasRouter) {
    if (Disagg)
      diag(TopoRange, DiagID::err_disagg_needs_router);
    else if (Roles.front().Replicas > 1)
      diag(TopoRange, DiagID::err_replicas_need_router)
          << Roles.front().Replicas;
    for (AssignmentState *A : R.RouterAssignments)
      if (applies(*A, C) && R.ReportedOnce.insert({A, 0}).second) {
        diag(A->NameRange, DiagID::err_router_knob_without_router)
            << llvm::StringRef(A->Name).drop_front(7) << C.label();
      }
  }
  placeServices(R, CS);
  checkPorts(R, CS);
}

/// The nodes a router or service runs on, from its template's `on`.
static std::optional<std::vector<int64_t>>
placementNodes(const Value &On, const Cell &C, std::string &MissingRole) {
  if (On.kind() == ValueKind::Enum && On.getString() == "first_node")
    return std::vector<int64_t>{0};
  if (On.kind() != ValueKind::Record)
    return std::nullopt;
  const Value *RoleV = On.lookup("role");
  std::string Role = RoleV ? RoleV->getString() : "";
  std::vector<int64_t> Out;
  for (const ProcessInfo &P : C.Processes) {
    if (P.K != ProcessInfo::Engine)
      continue;
    std::string PR = P.Role == "worker" ? "server" : P.Role;
    if (PR != Role)
      continue;
    const std::string &Kind = On.getRecordName();
    if (Kind == "role_leader") {
      if (Out.empty())
        Out.push_back(P.LeaderNode);
    } else if (Kind == "every_node") {
      if (std::find(Out.begin(), Out.end(), P.NodeRank) == Out.end())
        Out.push_back(P.NodeRank);
    } else if (Kind == "every_server") {
      // A node whose engine process serves HTTP (not a headless worker of
      // a multi-node TP group): a per-node proxy in front of that server.
      if (!P.Headless &&
          std::find(Out.begin(), Out.end(), P.NodeRank) == Out.end())
        Out.push_back(P.NodeRank);
    } else if (Kind == "replica_leaders") {
      if (P.Node == 0)
        Out.push_back(P.NodeRank);
    }
  }
  if (Out.empty())
    MissingRole = Role;
  return Out;
}

void SemaImpl::placeServices(RecipeState &R, CellState &CS) {
  Cell &C = *CS.C;
  const ResolvedValue *Topo = C.find("topology");
  // The router, then each `services.NAME` of the cell, in name order.
  struct Wanted {
    std::string Instance;
    ProcessInfo::Kind K;
    Value Call;
    Level L;
    llvm::SMRange Where;
  };
  std::vector<Wanted> All;
  if (const Value *Router = Topo->V.lookup("router");
      Router && !Router->isNone())
    All.push_back({"router", ProcessInfo::Router, *Router, Topo->L,
                   topologyRange(C, R.Out->NameRange)});
  for (const auto &[Name, RV] : C.Values)
    if (llvm::StringRef(Name).startswith("services.") && !RV.V.isNone())
      All.push_back({Name.substr(9), ProcessInfo::Service, RV.V, RV.L,
                     RV.From && stateOf(*RV.From).ValueExpr
                         ? stateOf(*RV.From).ValueExpr->getRange()
                         : R.Out->NameRange});

  std::vector<ProcessInfo> Before, After;
  for (const Wanted &W : All) {
    const EntityInfo *T = W.Call.getEntity();
    if (!T)
      continue;
    EntityInfo::Kind Want =
        W.K == ProcessInfo::Router ? EntityInfo::Router : EntityInfo::Service;
    if (T->K != Want) {
      // Sema types keep a service out of `router` and a router out of
      // `services.*`; a declaration of another kind cannot get here.
      continue;
    }
    evaluateEntityFields(stateOf(*T));
    auto Field = [&](llvm::StringRef N) -> const Value * {
      auto It = T->Fields.find(N.str());
      return It == T->Fields.end() ? nullptr : &It->second;
    };
    const char *KindName = W.K == ProcessInfo::Router ? "router" : "service";
    std::vector<int64_t> Nodes{0};
    bool PerNode = false;
    if (const Value *On = Field("on")) {
      PerNode = On->kind() == ValueKind::Record &&
                (On->getRecordName() == "every_node" ||
                 On->getRecordName() == "every_server");
      std::string Missing;
      std::optional<std::vector<int64_t>> N = placementNodes(*On, C, Missing);
      if (!N) {
        diag(stateOf(*T).FieldLocs.at("on"), DiagID::err_type_mismatch)
            << "on"
            << "first_node, role_leader(ROLE), every_node(ROLE), "
               "every_server(ROLE) or replica_leaders(ROLE)"
            << On->describeType() << On->str();
        continue;
      }
      if (!Missing.empty()) {
        diag(W.Where, DiagID::err_placement_role_missing)
            << KindName << T->Name << Missing << C.label();
        continue;
      }
      Nodes = *N;
    }
    bool BeforeEngines = W.K == ProcessInfo::Service;
    if (const Value *Start = Field("start"))
      BeforeEngines = Start->kind() == ValueKind::Enum &&
                      Start->getString() == "before_engines";
    bool HasEndpoints = T->Fields.count("endpoints.health") != 0;
    Readiness Ready = HasEndpoints ? Readiness::Http : Readiness::Running;
    Rational AliveFor;
    if (const Value *RV = Field("ready")) {
      if (RV->kind() == ValueKind::Enum && RV->getString() == "http") {
        Ready = Readiness::Http;
      } else if (RV->kind() == ValueKind::Enum && RV->getString() == "tcp") {
        Ready = Readiness::Tcp;
      } else if (RV->kind() == ValueKind::Record &&
                 RV->getRecordName() == "alive") {
        Ready = Readiness::Alive;
        AliveFor = *RV->lookup("after")->getQuantity().in(Unit::Second);
      }
    }
    bool Inherits = false;
    if (const Value *IE = Field("inherits_env"))
      Inherits = IE->kind() == ValueKind::Bool && IE->getBool();
    bool NodeEnv = false;
    if (const Value *NE = Field("node_env"))
      NodeEnv = NE->kind() == ValueKind::Bool && NE->getBool();
    // `framework` is a router's own: its name in InferenceX's master entry.
    if (W.K != ProcessInfo::Router && Field("framework")) {
      diag(stateOf(*T).FieldLocs.at("framework"), DiagID::err_router_only_field)
          << "framework" << T->Name << "";
      continue;
    }
    // `process_name`: the program's name as its launchers call its process
    // (Dynamo's `frontend`, llm-d's `epp`); names stay unique in a cell
    // (checkPorts says which two processes share one).
    std::string Instance = W.Instance;
    if (const Value *PN = Field("process_name");
        PN && PN->kind() == ValueKind::String) {
      if (!isValidFileName(PN->getString())) {
        diag(stateOf(*T).FieldLocs.at("process_name"),
             DiagID::err_process_name_bad)
            << KindName << T->Name << PN->getString();
        continue;
      }
      Instance = PN->getString();
    }
    for (size_t I = 0; I < Nodes.size(); ++I) {
      ProcessInfo P;
      P.K = W.K;
      P.Template = T;
      P.Instance = W.Instance;
      P.Role = KindName;
      // A process per node is named by its node, as multi-node engine
      // processes are (`pd-sidecar-node2`).
      P.Name = PerNode             ? Instance + "-node" + std::to_string(Nodes[I])
               : Nodes.size() == 1 ? Instance
                                   : Instance + std::to_string(I);
      P.Replica = I;
      P.Rank = I;
      P.NodeRank = Nodes[I];
      P.LeaderNode = Nodes[I];
      P.Nodes = C.Nodes;
      P.BeforeEngines = BeforeEngines;
      P.InheritsEnv = Inherits;
      P.NodeEnv = NodeEnv;
      P.Ready = Ready;
      P.AliveFor = AliveFor;
      // Its knobs may read the engine processes it fronts, which are
      // placed by now.
      instantiate(R, CS, P, W.Call, W.L, W.Where,
                  W.K == ProcessInfo::Router ? "router" : "");
      (BeforeEngines ? Before : After).push_back(std::move(P));
    }
  }
  // Ports of routers and services: `port + i` for the i-th of a template
  // on a node.
  std::map<std::pair<const EntityInfo *, int64_t>, int64_t> OnNode;
  for (std::vector<ProcessInfo> *List : {&Before, &After})
    for (ProcessInfo &P : *List)
      if (const ResolvedValue *Port = P.findKnob("port");
          Port && Port->V.kind() == ValueKind::Int)
        P.Port = Port->V.getInt() + OnNode[{P.Template, P.NodeRank}]++;
  // Start order and readiness: a service started before the engines is
  // waited for by each of them; a router or later service waits for every
  // engine process that serves HTTP.
  std::vector<std::string> Engines, Early;
  for (const ProcessInfo &P : C.Processes)
    if (P.K == ProcessInfo::Engine && !P.Headless)
      Engines.push_back(P.Name);
  for (const ProcessInfo &P : Before)
    Early.push_back(P.Name);
  for (ProcessInfo &P : C.Processes)
    P.After = Early;
  for (ProcessInfo &P : After)
    P.After = Engines;
  std::vector<ProcessInfo> Ordered = std::move(Before);
  for (ProcessInfo &P : C.Processes)
    Ordered.push_back(std::move(P));
  for (ProcessInfo &P : After)
    Ordered.push_back(std::move(P));
  C.Processes = std::move(Ordered);
}

void SemaImpl::checkPorts(RecipeState &R, CellState &CS) {
  Cell &C = *CS.C;
  // Names are unique in a cell: two instances of a template with a
  // `process_name` would share theirs.
  auto Owner = [](const ProcessInfo &P) {
    return P.K == ProcessInfo::Service  ? "services." + P.Instance
           : P.K == ProcessInfo::Router ? std::string("router")
                                        : "the engine";
  };
  std::map<std::string, const ProcessInfo *> Named;
  for (const ProcessInfo &P : C.Processes) {
    auto [It, New] = Named.try_emplace(P.Name, &P);
    if (!New)
      diag(topologyRange(C, R.Out->NameRange), DiagID::err_process_name_clash)
          << Owner(*It->second) << Owner(P) << P.Name << C.label();
  }
  std::map<std::pair<int64_t, int64_t>, const ProcessInfo *> Taken;
  for (const ProcessInfo &P : C.Processes) {
    if (!P.Port)
      continue;
    auto [It, New] = Taken.try_emplace({P.NodeRank, *P.Port}, &P);
    if (New)
      continue;
    diag(topologyRange(C, R.Out->NameRange), DiagID::err_port_clash)
        << It->second->Name << P.Name << *P.Port << P.NodeRank << C.label();
  }
}

// The report block ------------------------------------------------------------

void SemaImpl::evaluateReport(RecipeState &R, CellState &CS) {
  const EntityState *Engine = R.Engine;
  if (!Engine || CS.C->ServerRoot)
    return;
  for (const std::string &Role : CS.C->Roles)
    for (const auto &[Name, E] : Engine->Report) {
      EvalCtx Ctx;
      Ctx.M = Engine->Owner;
      Ctx.Cell = &CS;
      Ctx.Recipe = &R;
      Ctx.What = "the engine's 'report'";
      Ctx.Role = Role;
      std::optional<Value> V = eval(E, Ctx);
      if (!V) {
        continue;
      }
      if (!V->isNone())
        CS.C->Report[Role.empty() ? Name : Role + "." + Name] = *V;
    }
}

// Engine formulas -------------------------------------------------------------

bool SemaImpl::collectTemplateFormula(EntityState &E, const ast::Stmt *S) {
  if (E.K != EntityInfo::Engine)
    return false;
  if (auto *A = llvm::dyn_cast<ast::AssignStmt>(S)) {
    if (A->getPath().size() != 1)
      return false;
    llvm::StringRef N = A->getPath()[0].Name;
    const ast::Expr **Slot = N == "gpus"       ? &E.GpusExpr
                             : N == "headless" ? &E.HeadlessExpr
                                               : nullptr;
    if (!Slot)
      return false;
    if (*Slot) {
      diag(A->getPath()[0].Range, DiagID::err_redefinition) << N;
      return true;
    }
    *Slot = A->getValue();
    return true;
  }
  auto *B = llvm::dyn_cast<ast::BlockStmt>(S);
  if (!B || B->getName().Name != "report")
    return false;
  std::vector<std::string> Names(std::begin(ReportFields),
                                 std::end(ReportFields));
  for (ast::Stmt *Item : B->getBody().Stmts) {
    auto *A = llvm::dyn_cast<ast::AssignStmt>(Item);
    if (!A || A->getPath().size() != 1) {
      diag(Item->getRange(), DiagID::err_not_allowed_here)
          << "this statement"
          << "a 'report' block";
      continue;
    }
    const ast::Identifier &Id = A->getPath()[0];
    if (std::find(Names.begin(), Names.end(), Id.Name) == Names.end()) {
      auto D = diag(Id.Range, DiagID::err_unknown_field);
      D << "'report'" << Id.Name;
      didYouMean(D, Id.Range, Id.Name, Names);
      continue;
    }
    bool Twice = false;
    for (const auto &[N, _] : E.Report)
      Twice |= N == Id.Name;
    if (Twice) {
      diag(Id.Range, DiagID::err_redefinition) << Id.Name;
      continue;
    }
    E.Report.emplace_back(Id.Name.str(), A->getValue());
  }
  return true;
}
