"""The reference scripts' peer mode (`stagebench peer`, docs/method.md): PyTorch's own variants
of a model, timed on the shapes of a stagebench size and checked against PyTorch fp32 eager, as
JSON for the result's reference block.

Timing. Each script lists its variants and how to build one; this module runs them alike: warm-up
calls first (compilation, CUDA-graph recording and allocator growth happen there), then `runs`
calls, each bracketed by a device synchronize and timed with time.perf_counter; the median is the
figure. Peak memory is torch.cuda.max_memory_allocated over the whole variant: build, warm-up,
check and timed calls (null on the CPU). On the CPU with OpenMP binding (OMP_PROC_BIND), build,
check and warm-up run in unbound_compile's window, so that torch.compile's C++ builds use every
core, and the timed calls run bound.

Failures and budgets. A variant that raises (torch.compile without a compiler, out of memory, an
op without a kernel for the dtype, a capture that is not allowed) is recorded with its reason and
the next one runs. A variant's build, warm-up and check, where compilation happens, get
--variant-budget-s seconds (--autotune-budget-s for the *max-autotune variants): past that it is
interrupted (SIGALRM) and recorded with that reason, so that a max-autotune compile cannot hang
the peer. --deadline-s bounds the whole script:
variants not started in time are recorded as not run. A variant that needs CUDA (TF32, fp16,
CUDA graphs) is recorded on --device cpu as skipped, its reason in "error": harness/peer.cpp
accepts a variant with either median_s or error.

Equal work. Each script computes what stagebench's stage computes from the same shapes (batch,
length, tokens, padding, layers, output); the top-level "work" records them so that a reader can
refuse a peer whose shapes differ from the run's.

Correctness. Each variant's output is compared with PyTorch fp32 eager (TF32 off) on the same
weights and input:
- inference: the output of the variant's last warm-up call, i.e. the compiled or replayed path
  that the timed calls run, flattened in the order stagebench writes it;
- a training step: one step from the initial parameters on a fixed batch with dropout off
  (compiled and captured graphs draw other dropout masks than eager, so with dropout on no two
  variants would compute the same step; a model with dropout is checked on a dropout-free twin
  built the same way). Compared are the step's gradients and its loss, not the parameters after
  it: AdamW's first step moves every parameter by about +-lr whatever its gradient's size, so
  the updated parameters hardly tell a wrong gradient from a right one. With a GradScaler the
  step is retried from the initial parameters while the scaler skips it for overflow, as its
  first steps at scale 65536 do (check_retries counts them).
In float64: cosine, rel_l2 = ||y - ref|| / ||ref||, max_abs, and for a training step
loss_rel_diff = |loss - ref| / |ref|. "correct" is true when the output is finite, the cosine
reaches the floor and rel_l2 (and loss_rel_diff) stay within the bound of the variant's precision:

    precision    cosine >=   rel_l2 <=   loss_rel_diff <=
    fp32         0.99999     0.00447     1e-4
    tf32         0.9999      0.0141      5e-3
    fp16, bf16   0.999       0.0447      3e-2

These are the floors and bounds harness/correctness.cpp holds stagebench's own stages to, so both
sides clear the same bar: the rel_l2 bound is sqrt(2 (1 - floor)), what the cosine floor allows
two outputs of equal norm (docs/method.md, Correctness), and the loss bound is the training
stages' loss-curve bound. (The 2026-11-27 peer results were checked against the tighter rel_l2
bounds 1e-4, 5e-3 and 3e-2; their JSON records the bounds used.) "best" is the fastest variant
that is correct (null when none is).

JSON (keys beyond those harness/peer.cpp reads are additions; it ignores them):
  {"torch", "device", "model", "size", "timing", "variants": [variant...],
   "peer_schema": 2, "best", "work": {...}, "check": {"against", "output", "tolerances"},
   "threads", "budget": {"variant_s", "autotune_s", "deadline_s"},
   "inference": {"timing", "work", "check", "variants", "best"}   (a training model's forward)}
  variant: {"name", "median_s", "samples", "peak_bytes", "throughput", "unit", "error",
            "precision", "skipped", "warmup_s", "cosine", "rel_l2", "max_abs", "loss_rel_diff",
            "correct", "check_error", "check_retries"}
"""
import contextlib
import gc
import json
import math
import os
import signal
import statistics
import sys
import time
import traceback

PEER_SCHEMA = 2
# precision: (cosine floor, loss bound); the rel_l2 bound follows from the floor (rel_l2_bound).
TOLERANCES = {"fp32": (0.99999, 1e-4), "tf32": (0.9999, 5e-3), "fp16": (0.999, 3e-2),
              "bf16": (0.999, 3e-2)}


def rel_l2_bound(floor):
    return math.sqrt(2 * (1 - floor))
_STARTED = time.monotonic()


def device_name(torch, device):
    if device == "cuda":
        return torch.cuda.get_device_name()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "cpu"


def check_device(torch, device):
    if device == "cuda" and not torch.cuda.is_available():
        sys.exit("peer: --device cuda, but torch.cuda.is_available() is False")


def set_tf32(torch, on):
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on


def synchronize(torch, device):
    if device == "cuda":
        torch.cuda.synchronize()


def measure(torch, device, fn, warmup, runs):
    """Median seconds of fn() over `runs` calls after `warmup` calls, and the count."""
    for _ in range(warmup):
        fn()
    synchronize(torch, device)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        synchronize(torch, device)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), len(times)


def reason(e):
    """One line of at most 300 characters: the report shows it as a note."""
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:300] if text else ''}".rstrip(": ")


# --- building variants ----------------------------------------------------------------------------

class Variant:
    """One entry of a menu. make() sets the variant's switches and returns its Run (or a bare
    callable: an inference variant's repetition, whose return value is its output). cuda_only,
    when set, says why the variant needs CUDA; on the CPU it is then recorded as skipped."""

    def __init__(self, name, make, precision, cuda_only=None):
        if precision not in TOLERANCES:
            raise ValueError(f"variant {name}: precision {precision} has no tolerance")
        self.name, self.make, self.precision, self.cuda_only = name, make, precision, cuda_only


class Run:
    """fn: one timed repetition. check: None for inference (the last warm-up call's output is
    compared), else a callable run before the warm-up that returns a training check's
    {"loss", "grads"} (Trainer.check)."""

    def __init__(self, fn, check=None):
        self.fn, self.check = fn, check


GRAPH_MODES = ("reduce-overhead", "max-autotune")


def compiled(torch, fn, mode):
    """torch.compile(fn) in a mode: "default", "reduce-overhead" (CUDA graphs) or "max-autotune"
    (autotuned kernels and CUDA graphs)."""
    return torch.compile(fn) if mode == "default" else torch.compile(fn, mode=mode)


def step_begin(torch, mode):
    """Before each call of a graph-recording compile: tells cudagraph trees that a new iteration
    starts, so the previous call's outputs may be overwritten (one call per step, not a chain)."""
    if mode in GRAPH_MODES:
        torch.compiler.cudagraph_mark_step_begin()


def autocast(torch, device, dtype, capture=False):
    """Autocast to dtype (None: off). Under CUDA-graph capture autocast's weight cache must be
    off: cached casts would be made once at capture and their memory freed behind the graph."""
    kw = {"cache_enabled": False} if capture else {}
    return torch.autocast(device, dtype=dtype or torch.bfloat16, enabled=dtype is not None, **kw)


def with_autocast(torch, fn, device, dtype, capture=False):
    """fn running under autocast to dtype (None: fn itself), as one function to compile, so that
    the traced graph carries the dtype. Autocast entered around a compiled call is not in the
    graph: in PyTorch 2.11 the compile caches then served a graph compiled under one half type
    to a variant of the other (results/h200/peer-2026-11-27, run 1)."""
    if dtype is None:
        return fn

    def run(*args):
        with autocast(torch, device, dtype, capture):
            return fn(*args)
    return run


def cuda_graph(torch, body, warmup=3):
    """body() (no arguments, static inputs) captured into one CUDA graph after warm-up calls on a
    side stream, as torch.cuda.graphs' whole-network recipe does; returns a callable that replays
    it and returns body's static output."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            body()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    # thread_local: only this thread's calls can spoil the capture (not, say, a compile worker's)
    with torch.cuda.graph(graph, capture_error_mode="thread_local"):
        out = body()

    def replay():
        graph.replay()
        return out
    replay.graph = graph  # kept alive with the callable
    return replay


class Trainer:
    """A training variant's model, optimizer and step(batch) -> loss (a float); scaler: its
    GradScaler, if any. The initial parameters are kept at construction, so that check() can run
    one step from them after a graph's capture has trained on: the parameters are copied back in
    place and the optimizer's state zeroed in place (a captured graph or a compiled step holds
    on to these very tensors)."""

    def __init__(self, torch, model, opt, step):
        self.torch, self.model, self.opt, self.step = torch, model, opt, step
        self.scaler = None
        self._init = [p.detach().clone() for p in model.parameters()]

    def restore(self):
        with self.torch.no_grad():
            for p, p0 in zip(self.model.parameters(), self._init):
                p.copy_(p0)
            for state in self.opt.state.values():
                for v in state.values():
                    if self.torch.is_tensor(v):
                        v.zero_()

    def check(self, batch):
        # A GradScaler's first steps overflow and are skipped while it lowers its scale (65536 at
        # the start): the step is taken again from the initial parameters, as training would.
        for retries in range(25 if self.scaler is not None else 1):
            self.restore()
            loss = float(self.step(batch))
            grads = flatten(self.torch, [p.grad if p.grad is not None else
                                         self.torch.zeros_like(p) for p in self.model.parameters()])
            if self.scaler is None or bool(self.torch.isfinite(grads).all()):
                break
        return {"loss": loss, "grads": grads, "retries": retries}


# --- checking -------------------------------------------------------------------------------------

def flatten(torch, out):
    """A model's output (a tensor, or a dict / list of them, in order) as one float64 CPU vector."""
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (list, tuple)):
        return torch.cat([flatten(torch, o) for o in out])
    return out.detach().reshape(-1).double().cpu()


def _finite(x):
    return x if math.isfinite(x) else None


def agreement(torch, y, ref):
    """cosine, rel_l2 and max_abs of y against ref (float64 vectors), or check_error."""
    if y.numel() != ref.numel():
        return {"check_error": f"output has {y.numel()} values, the reference {ref.numel()}"}
    if not bool(torch.isfinite(y).all()):
        return {"check_error": "output has NaN or Inf"}
    ny, nr = y.norm().item(), ref.norm().item()
    cos = (y @ ref).item() / (ny * nr) if ny > 0 and nr > 0 else (1.0 if ny == nr else 0.0)
    rel = (y - ref).norm().item() / nr if nr > 0 else (0.0 if ny == 0 else math.inf)
    return {"cosine": _finite(cos), "rel_l2": _finite(rel), "max_abs": (y - ref).abs().max().item()}


def judge(torch, got, ref, precision):
    """The check's record: agreement of got with ref (a flat output, or a training check's
    {"loss", "grads"}) and "correct" by the precision's floor and bound."""
    floor, loss_bound = TOLERANCES[precision]
    bound = rel_l2_bound(floor)
    if isinstance(ref, dict):
        rec = agreement(torch, got["grads"], ref["grads"])
        if "check_error" in rec:
            rec["check_error"] = "gradients: " + rec["check_error"]
        loss_rel = abs(got["loss"] - ref["loss"]) / max(abs(ref["loss"]), 1e-30)
        rec["loss_rel_diff"] = _finite(loss_rel)
        if not math.isfinite(loss_rel) and "check_error" not in rec:
            rec["check_error"] = "loss is NaN or Inf"
    else:
        rec = agreement(torch, got, ref)
    rec["correct"] = ("check_error" not in rec and rec["cosine"] is not None and
                      rec["rel_l2"] is not None and rec["cosine"] >= floor and
                      rec["rel_l2"] <= bound and (rec.get("loss_rel_diff") or 0.0) <= loss_bound)
    return rec


def check_block(against, output):
    return {"against": against, "output": output,
            "tolerances": {p: {"cosine": f, "rel_l2": rel_l2_bound(f), "loss_rel_diff": b}
                           for p, (f, b) in TOLERANCES.items()}}


# --- running a menu -------------------------------------------------------------------------------

class BudgetExceeded(BaseException):
    """Raised by the alarm. A BaseException, so that library code which catches Exception (an
    autotuner skipping a failed candidate, say) does not swallow it."""


@contextlib.contextmanager
def time_limit(seconds):
    """Interrupts the block after `seconds`, and every 5 s after that in case one interruption
    lands where it is swallowed."""
    if not seconds or seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum, frame):
        raise BudgetExceeded()
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds, 5.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# The variables by which libgomp binds threads to cores (OMP_PLACES without OMP_PROC_BIND binds
# too). A process started from a bound thread inherits that thread's single core.
_BIND_VARIABLES = ("OMP_PROC_BIND", "OMP_PLACES")


@contextlib.contextmanager
def unbound_compile(device):
    """On the CPU with OpenMP binding on: the block runs with the main thread allowed on every
    core the process's threads hold, and the processes it starts see no binding variables; after
    it, the main thread's own core and the variables come back for the timed calls.
    Why: libgomp binds the main thread to the first core as it loads, and torch.compile's C++
    builds (inductor's compile workers and the compiler they run) inherit that one core: on the
    16-core host, PyTorch's compile-fp32 of Enformer overran a 70 s budget
    (results/h200-host/srv28-2026-11-28)."""
    if (device != "cpu" or not hasattr(os, "sched_setaffinity") or
            not any(os.environ.get(k) for k in _BIND_VARIABLES)):
        yield
        return
    bound = os.sched_getaffinity(0)
    held = set(bound)
    try:
        for task in os.listdir("/proc/self/task"):
            held |= os.sched_getaffinity(int(task))
    except OSError:  # a thread that ended meanwhile: the others' cores are enough
        pass
    if held == bound:  # no worker threads yet: the kernel keeps what the cpuset allows
        held = set(range(os.cpu_count() or 1))
    saved = {k: os.environ.pop(k) for k in _BIND_VARIABLES if k in os.environ}
    os.sched_setaffinity(0, held)
    try:
        yield
    finally:
        os.sched_setaffinity(0, bound)
        os.environ.update(saved)


def _release(torch, device):
    gc.collect()
    if hasattr(torch, "_dynamo"):
        torch._dynamo.reset()  # compiled code and graph pools of the variant before
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def _show(rec):
    if "median_s" in rec:
        ok = {True: "correct", False: "INCORRECT", None: "unchecked"}[rec.get("correct")]
        detail = (f"rel_l2 {rec['rel_l2']:.2e}" if rec.get("rel_l2") is not None
                  else rec.get("check_error", ""))
        line = f"{rec['median_s'] * 1e3:10.3f} ms ({rec['samples']} runs) {ok} {detail}"
    else:
        line = rec["error"] if rec.get("skipped") else "failed: " + rec["error"]
    if rec.get("warmup_s") is not None:  # build, compile, check and warm-up: a compile's cost
        line += f"; ready after {rec['warmup_s']:.1f} s"
    print(f"peer {rec['name']:28s} {line}", file=sys.stderr, flush=True)


def run_variants(torch, device, variants, reference, items, unit, args, share=1.0):
    """Every variant of the menu, each built, warmed up and checked under the variant budget,
    then timed; its records in menu order. reference: fp32 eager's flat output, or a training
    check's {"loss", "grads"}. share: the part of --deadline-s (from the start) this menu may
    use up to, so that a first menu leaves time to a second. TF32 is reset after each variant,
    whatever make() set."""
    out = []
    deadline = _STARTED + share * args.deadline_s if args.deadline_s else math.inf
    wanted = set(args.variants.split(",")) if args.variants else None
    for v in variants:
        if wanted is not None and v.name not in wanted:
            continue
        rec = {"name": v.name, "precision": v.precision}
        out.append(rec)
        if device != "cuda" and v.cuda_only:
            rec.update(skipped=True, error="skipped on the CPU: " + v.cuda_only, correct=None)
            _show(rec)
            continue
        left = deadline - time.monotonic()
        if left < 1:
            rec.update(error=f"not run: the peer's --deadline-s {args.deadline_s:g} was spent",
                       correct=None)
            _show(rec)
            continue
        limit = args.autotune_budget_s if "max-autotune" in v.name else args.variant_budget_s
        budget = min(limit or math.inf, left)
        _release(torch, device)
        run = None
        try:
            t0 = time.perf_counter()
            with time_limit(budget if math.isfinite(budget) else 0), unbound_compile(device):
                run = v.make()
                run = run if isinstance(run, Run) else Run(run)
                # a training check first: from the initial parameters, before the warm-up, so
                # that the timed graphs are the last recorded and replay undisturbed
                got = run.check() if run.check else None
                last = None
                for _ in range(max(args.warmup, 1)):
                    last = run.fn()
                if got is None:
                    got = flatten(torch, last)
                last = None
                synchronize(torch, device)
            rec["warmup_s"] = time.perf_counter() - t0
            rec.update(judge(torch, got, reference, v.precision))
            if isinstance(got, dict) and got.get("retries"):
                rec["check_retries"] = got["retries"]  # steps GradScaler skipped first
            median_s, n = measure(torch, device, run.fn, 0, args.runs)
            rec.update(median_s=median_s, samples=n)
            if items:
                rec.update(throughput=items / median_s, unit=unit)
            if device == "cuda":
                rec["peak_bytes"] = int(torch.cuda.max_memory_allocated())
        except BudgetExceeded:
            rec["error"] = (f"exceeded the variant budget of {budget:.0f} s (build, compile, "
                            "warm-up and check): not timed")
            rec["warmup_s"] = time.perf_counter() - t0
        except Exception as e:  # recorded, not fatal: the other variants still run
            rec["error"] = reason(e)
            traceback.print_exc()  # the log keeps what the one-line reason leaves out
        finally:
            set_tf32(torch, False)
            run = None
        if "error" in rec:
            for k in ("cosine", "rel_l2", "max_abs", "loss_rel_diff", "check_error"):
                rec.pop(k, None)
            rec["correct"] = None
        _show(rec)
    _release(torch, device)
    return out


def best(variants):
    """The fastest variant that is correct, or None."""
    ok = [v for v in variants if v.get("correct") and v.get("median_s") is not None]
    return min(ok, key=lambda v: v["median_s"])["name"] if ok else None


def write(path, torch, device, model, size, timing, variants, work=None, check=None, args=None,
          inference=None):
    """The peer JSON. inference: a training model's forward menu, {"timing", "work", "check",
    "variants"}; its "best" is added here."""
    doc = {"torch": torch.__version__, "device": device_name(torch, device), "model": model,
           "size": size, "timing": timing, "variants": variants, "peer_schema": PEER_SCHEMA,
           "best": best(variants), "work": work or {}, "check": check or {},
           "threads": torch.get_num_threads()}
    if args is not None:
        doc["budget"] = {"variant_s": args.variant_budget_s or None,
                         "autotune_s": args.autotune_budget_s or None,
                         "deadline_s": args.deadline_s or None}
    if inference is not None:
        doc["inference"] = dict(inference, best=best(inference["variants"]))
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(f"peer best: {doc['best']}" + (f"; inference best: {doc['inference']['best']}"
                                         if inference is not None else ""), file=sys.stderr)


def add_arguments(ap, sizes, default_warmup=3):
    """The options every script's peer mode takes (harness/peer.cpp passes the first five)."""
    ap.add_argument("--size", default="full", choices=sizes)
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    ap.add_argument("--runs", type=int, default=20, help="timed repetitions per variant")
    ap.add_argument("--peer-json", required=True, help="write the variants' JSON here")
    ap.add_argument("--warmup", type=int, default=default_warmup)
    ap.add_argument("--batch", type=int, default=0, help="default: the size's batch")
    ap.add_argument("--variant-budget-s", type=float, default=300.0,
                    help="seconds for one variant's build, compile, warm-up and check (0: none)")
    ap.add_argument("--autotune-budget-s", type=float, default=300.0,
                    help="the same for the max-autotune variants (0: none)")
    ap.add_argument("--deadline-s", type=float, default=0.0,
                    help="seconds for the whole peer, from start; later variants are not run")
    ap.add_argument("--variants", help="comma-separated names: run only these")


def backward_step(total, opt, scaler):
    """A training step's backward and update, through the GradScaler when there is one (the
    fp16 recipes); the ladders and the peers of the training scripts share it."""
    if scaler is not None:
        scaler.scale(total).backward()
        scaler.step(opt)
        scaler.update()
    else:
        total.backward()
        opt.step()
