#!/usr/bin/env python3
"""pharmagen DeepFM (docs/ladders.md) in PyTorch, the reference stagebench's training is checked
and timed against. Parameter names are this module's state-dict names, the ones stagebench's
models/deepfm/params.h uses.

  check --dir DIR [--device cuda|cpu] [--write-trace T.safetensors] [--json OUT.json]
        DIR holds stagebench's `stagebench export-steps deepfm --size S --steps N --no-dropout --out DIR`:
        init.safetensors, batches.safetensors, trace.safetensors. Trains N steps from init on the
        same batches (dropout off, fp32, TF32 off, math attention), prints JSON with both loss
        curves and the final parameters' agreement. Exit 0 when the largest relative loss
        difference is <= 1e-4 and the overall parameter cosine >= 0.99999, else 1.
  ladder [--size full] [--budget-s 60] [--stages a,b] [--json OUT.json]
        PyTorch's own training ladder on CUDA, synthetic batches, one object per stage: median ms
        per step (CUDA events), samples/s, peak allocated memory. The stages are cumulative:
          fp32-eager          TF32 off, each batch tensor a blocking .to(device) from pageable memory
          pinned-nonblocking  + pinned host batches, one dict comprehension with non_blocking=True
          tf32                + TF32 matmuls/convolutions
          amp-fp16            + torch.autocast(float16) and GradScaler
          amp-bf16            + torch.autocast(bfloat16), no scaler (instead of amp-fp16)
          compile             torch.compile(forward and loss), fp32 with TF32, pinned transfers
        A step is: transfer, forward, loss, backward, AdamW step and the loss.item() a loop logs.
  peer --size S --peer-json OUT [--device cuda|cpu] [--runs 20]
        `stagebench peer`: the ladder's stages and PyTorch's stronger variants (RECIPES: compile
        over bf16/fp16 autocast, CUDA graphs by mode="reduce-overhead" and by capturing the whole
        step, max-autotune), each checked against fp32 eager, as peer_timing.py's JSON.
  selftest [--dir DIR]
        numpy only: safetensors reader/writer round trip; with --dir, a numpy forward of step 0 on
        stagebench's files against trace.safetensors' loss[0]. With torch installed it also writes
        a tiny fixture, trains it, checks it, and compares the numpy loss with PyTorch's.

Without the `safetensors` package the files are read and written by the small reader below.
"""
import argparse
import datetime
import itertools
import json
import math
import os
import struct
import sys
import tempfile
import time

import numpy as np

from cuda_timing import paced_steps_ms

FIELDS = ("drug", "genalle", "gene", "allele")
PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))
TASKS = ("outcome", "direction", "type")
CLASSES = (6, 4, 12)
PRIORITY = (0.3, 0.2, 0.5)
SMOOTHING = 0.1
SIZES = {  # embed, hidden, layers, batch, lr, vocabularies (the unknown class added below)
    "tiny": dict(embed=32, hidden=64, layers=2, batch=32, lr=3e-3, vocab=(100, 50, 20, 30)),
    "small": dict(embed=256, hidden=512, layers=2, batch=256, lr=7.6e-5, vocab=(839, 2309, 846, 460)),
    "full": dict(embed=768, hidden=1024, layers=2, batch=64, lr=7.6e-5, vocab=(839, 2309, 846, 460)),
}
STAGES = ("fp32-eager", "pinned-nonblocking", "tf32", "amp-fp16", "amp-bf16", "compile")
# How each variant's step is made (make_trainer): the ladder's stages, then the peer's further
# variants. pinned: pinned host batches copied with non_blocking (else pageable, one blocking
# .to() per tensor); amp: autocast dtype (fp16 with GradScaler); mode: torch.compile's mode over
# forward and loss; graph: the whole step (forward, loss, backward, AdamW) captured in one CUDA
# graph, the batch copied into its static inputs before each replay. The peer's variants come
# likeliest-fastest first (a deadline cuts the last): this step is launch-bound.
RECIPES = {
    "fp32-eager": {},
    "pinned-nonblocking": dict(pinned=True),
    "tf32": dict(pinned=True, tf32=True),
    "amp-fp16": dict(pinned=True, tf32=True, amp="fp16"),
    "amp-bf16": dict(pinned=True, tf32=True, amp="bf16"),
    "compile": dict(pinned=True, tf32=True, mode="default"),
    "cuda-graph": dict(pinned=True, tf32=True, graph=True),
    "cuda-graph-bf16": dict(pinned=True, tf32=True, amp="bf16", graph=True),
    "cuda-graph-fp32": dict(pinned=True, graph=True),
    "compile-cudagraphs": dict(pinned=True, tf32=True, mode="reduce-overhead"),
    "compile-cuda-graph": dict(pinned=True, tf32=True, mode="default", graph=True),
    "compile-bf16": dict(pinned=True, tf32=True, amp="bf16", mode="default"),
    "compile-fp16": dict(pinned=True, tf32=True, amp="fp16", mode="default"),
    "compile-max-autotune": dict(pinned=True, tf32=True, mode="max-autotune"),
}


def heads_for(embed):
    return next(h for h in (8, 4, 2, 1) if embed % h == 0)


# --- safetensors (the package when installed, else by hand) -------------------------------------

_NP = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
       "I8": "i1", "U8": "u1", "BOOL": "?"}
_ST = {np.dtype(v).str: k for k, v in _NP.items()}


def st_read_raw(path):
    """(tensors as numpy arrays, metadata dict) by hand; BF16 is widened to float32."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", None) or {}
    data, out = memoryview(raw)[8 + n:], {}
    for name, d in header.items():
        a, b = d["data_offsets"]
        if d["dtype"] == "BF16":
            u = np.frombuffer(data[a:b], dtype="<u2").astype(np.uint32) << 16
            arr = u.view(np.float32)
        elif d["dtype"] in _NP:
            arr = np.frombuffer(data[a:b], dtype=_NP[d["dtype"]])
        else:
            raise ValueError(f"{path}: tensor '{name}' has unsupported dtype {d['dtype']}")
        out[name] = arr.reshape(d["shape"]).copy()
    return out, meta


def st_write_raw(path, tensors, metadata=None):
    header, blobs, off = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name, arr in tensors.items():
        arr = np.ascontiguousarray(arr)
        dt = _ST.get(arr.dtype.str)
        if dt is None:
            raise ValueError(f"tensor '{name}': dtype {arr.dtype} cannot be written")
        b = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": dt, "shape": list(arr.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for b in blobs:
            f.write(b)


def st_read(path):
    try:
        from safetensors import safe_open
        with safe_open(path, framework="numpy") as f:
            return {k: f.get_tensor(k) for k in f.keys()}, dict(f.metadata() or {})
    except ImportError:
        pass
    except Exception:  # e.g. BF16, which numpy cannot hold: the reader below widens it
        pass
    return st_read_raw(path)


def st_write(path, tensors, metadata=None):
    tensors = {k: np.ascontiguousarray(v) for k, v in tensors.items()}
    try:
        from safetensors.numpy import save_file
    except ImportError:
        return st_write_raw(path, tensors, metadata)
    save_file(tensors, path, metadata={str(k): str(v) for k, v in (metadata or {}).items()})


# --- configuration from stagebench's files -------------------------------------------------------

def config_from(init, meta):
    """The model's configuration: metadata first, shapes where metadata is missing."""
    e = init["drug_emb.weight"].shape[1]
    hid = init["encoder.linear1.weight"].shape[0]
    layers = len([k for k in init if k.startswith("deep.") and k.endswith(".weight")])
    g = lambda k, d, t: t(meta[k]) if k in meta and meta[k] != "" else d
    c = dict(embed=g("embed", e, int), hidden=g("hidden", hid, int), layers=g("layers", layers, int),
             heads=g("heads", heads_for(e), int), dropout=g("dropout", 0.1, float),
             eps=g("eps", 1e-5, float), lr=g("lr", 7.6e-5, float),
             weight_decay=g("weight_decay", 1e-6, float), batch=g("batch", 0, int),
             steps=g("steps", 0, int), smoothing=g("smoothing", SMOOTHING, float),
             priorities=tuple(float(x) for x in meta["priorities"].split(",")) if "priorities" in meta
             else PRIORITY)
    c["cardinality"] = tuple(int(init[f"{f}_emb.weight"].shape[0]) for f in FIELDS)
    # A user's checkpoint may give each deep layer its own width ("hidden" is the feed-forward's).
    c["deep_widths"] = [int(init[f"deep.{l}.weight"].shape[0]) for l in range(layers)]
    if (c["embed"], c["hidden"], c["layers"]) != (e, hid, layers):
        sys.exit(f"init.safetensors: metadata says embed/hidden/layers {c['embed']}/{c['hidden']}/"
                 f"{c['layers']}, the tensors' shapes say {e}/{hid}/{layers}")
    return c


def batch_count(batches):
    n = 0
    while f"fields.{n}" in batches:
        n += 1
    return n


# --- the model (PyTorch) --------------------------------------------------------------------------

def build(torch_mod, c, dropout):
    torch = torch_mod
    nn = torch.nn

    class DeepFM(nn.Module):
        def __init__(self):
            super().__init__()
            e, hd = c["embed"], c["hidden"]
            for f, n in zip(FIELDS, c["cardinality"]):
                setattr(self, f + "_emb", nn.Embedding(n, e))
            self.encoder = nn.TransformerEncoderLayer(
                d_model=e, nhead=c["heads"], dim_feedforward=hd, dropout=dropout, activation="relu",
                batch_first=True, norm_first=False, layer_norm_eps=c["eps"])
            widths = c.get("deep_widths") or [hd] * c["layers"]
            self.deep = nn.ModuleList(nn.Linear(4 * e if l == 0 else widths[l - 1], widths[l])
                                      for l in range(c["layers"]))
            self.drop = nn.Dropout(dropout)
            for t, k in zip(TASKS, CLASSES):
                setattr(self, t + "_head", nn.Linear(widths[-1] + len(PAIRS), k))
            self.log_vars = nn.Parameter(torch.zeros(len(TASKS)))
            self.register_buffer("pi", torch.tensor([p for p, _ in PAIRS]), persistent=False)
            self.register_buffer("pj", torch.tensor([q for _, q in PAIRS]), persistent=False)

        def forward(self, fields):
            s = torch.stack([getattr(self, f + "_emb")(fields[:, i]) for i, f in enumerate(FIELDS)], 1)
            z = self.encoder(s).flatten(1)
            for lin in self.deep:
                z = self.drop(torch.nn.functional.gelu(lin(z)))
            fm = (s[:, self.pi] * s[:, self.pj]).sum(-1)  # the six <S_i, S_j>, [B, 6]
            h = torch.cat([z, fm.to(z.dtype)], -1)
            return self.outcome_head(h), self.direction_head(h), self.type_head(h)

    return DeepFM()


def losses(torch, model, logits, b, type_weights, prio, smoothing):
    F = torch.nn.functional
    task = torch.stack([
        F.binary_cross_entropy_with_logits(logits[0].float(), b["outcome"]),
        F.cross_entropy(logits[1].float(), b["direction"], label_smoothing=smoothing),
        F.cross_entropy(logits[2].float(), b["type"], weight=type_weights, label_smoothing=smoothing),
    ])
    s = model.log_vars
    return (torch.exp(-s) * prio * task + s).sum(), task


def to_torch_batch(torch, batches, k):
    return {"fields": torch.from_numpy(batches[f"fields.{k}"].astype(np.int64)),
            "outcome": torch.from_numpy(batches[f"outcome.{k}"].astype(np.float32)),
            "direction": torch.from_numpy(batches[f"direction.{k}"].astype(np.int64).reshape(-1)),
            "type": torch.from_numpy(batches[f"type.{k}"].astype(np.int64).reshape(-1))}


def train_reference(torch, c, init, batches, steps, device):
    """Steps of AdamW from init on the given batches, dropout off, fp32: (losses, task losses,
    final parameters as numpy)."""
    model = build(torch, c, dropout=0.0).to(device)
    state = {k: torch.from_numpy(np.asarray(v, np.float32)) for k, v in init.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if missing or unexpected:
        sys.exit(f"init.safetensors does not match the model: missing {sorted(missing)}, "
                 f"unexpected {sorted(unexpected)}")
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=c["lr"], betas=(0.9, 0.999), eps=1e-8,
                            weight_decay=c["weight_decay"])
    tw = torch.from_numpy(batches["type_weights"].astype(np.float32).reshape(-1)).to(device)
    prio = torch.tensor(c["priorities"], device=device)
    loss_curve, task_curve = [], []
    for k in range(steps):
        b = {n: v.to(device) for n, v in to_torch_batch(torch, batches, k).items()}
        opt.zero_grad(set_to_none=True)
        total, task = losses(torch, model, model(b["fields"]), b, tw, prio, c["smoothing"])
        total.backward()
        opt.step()
        loss_curve.append(total.item())
        task_curve.append(task.detach().cpu().double().tolist())
    final = {k: v.detach().float().cpu().numpy() for k, v in model.state_dict().items()}
    return loss_curve, task_curve, final


def set_tf32(torch, on):
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on


# --- check ---------------------------------------------------------------------------------------

def agreement(ours, ref):
    a, b = np.asarray(ours, np.float64).ravel(), np.asarray(ref, np.float64).ravel()
    den = np.linalg.norm(a) * np.linalg.norm(b)
    cos = float(a @ b / den) if den > 0 else (1.0 if not a.any() and not b.any() else 0.0)
    return cos, float(np.abs(a - b).max()) if a.size else 0.0


def compare(loss_torch, task_torch, final, trace, steps):
    ours_loss = np.asarray(trace["loss"], np.float64).ravel()
    if ours_loss.size < steps:
        sys.exit(f"trace.safetensors: loss has {ours_loss.size} steps, the run {steps}")
    rows, worst = [], 0.0
    for k in range(steps):
        a, b = float(ours_loss[k]), loss_torch[k]
        rel = abs(a - b) / max(abs(b), 1e-12)
        worst = max(worst, rel)
        row = {"step": k, "stagebench": a, "torch": b, "rel_diff": rel}
        if "task_loss" in trace:
            row["task_stagebench"] = [float(x) for x in np.asarray(trace["task_loss"]).reshape(-1, 3)[k]]
            row["task_torch"] = task_torch[k]
        rows.append(row)
    params, missing, cat_a, cat_b = {}, [], [], []
    for name, ref in final.items():
        if name not in trace:
            missing.append(name)
            continue
        o = np.asarray(trace[name], np.float64)
        if o.size != ref.size:
            sys.exit(f"trace.safetensors: {name} has {o.size} values, the model {ref.size}")
        cos, mx = agreement(o, ref)
        params[name] = {"cosine": cos, "max_abs": mx}
        cat_a.append(o.ravel())
        cat_b.append(np.asarray(ref, np.float64).ravel())
    overall_cos, overall_max = agreement(np.concatenate(cat_a), np.concatenate(cat_b)) if cat_a else (0.0, 0.0)
    return {"loss": rows, "max_rel_loss_diff": worst, "params": params, "missing_in_trace": missing,
            "overall_cosine": overall_cos, "overall_max_abs": overall_max}


def run_check(args):
    import torch
    dev = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    set_tf32(torch, False)
    if dev.startswith("cuda"):  # plain fp32 attention (the fused kernels may round differently)
        for fn in ("enable_flash_sdp", "enable_mem_efficient_sdp", "enable_cudnn_sdp"):
            if hasattr(torch.backends.cuda, fn):
                getattr(torch.backends.cuda, fn)(False)
    init, meta = st_read(os.path.join(args.dir, "init.safetensors"))
    batches, _ = st_read(os.path.join(args.dir, "batches.safetensors"))
    c = config_from(init, meta)
    steps = args.steps or c["steps"] or batch_count(batches)
    if batch_count(batches) < steps:
        sys.exit(f"batches.safetensors has {batch_count(batches)} batches, {steps} steps asked")
    loss_t, task_t, final = train_reference(torch, c, init, batches, steps, dev)
    if args.write_trace:
        st_write(args.write_trace, dict(loss=np.asarray(loss_t, np.float32),
                                        task_loss=np.asarray(task_t, np.float32), **final),
                 metadata={"source": "scripts/reference/deepfm_torch.py", "torch": torch.__version__})
    result = {"mode": "check", "dir": args.dir, "device": dev, "torch": torch.__version__,
              "steps": steps, "config": {k: v for k, v in c.items()}}
    trace_path = os.path.join(args.dir, "trace.safetensors")
    ok = True
    if os.path.exists(trace_path):
        trace, _ = st_read(trace_path)
        result.update(compare(loss_t, task_t, final, trace, steps))
        ok = (result["max_rel_loss_diff"] <= args.loss_tol and result["overall_cosine"] >= args.cos_tol
              and not result["missing_in_trace"])
        result["pass"] = ok
    else:
        result["loss"] = [{"step": k, "torch": v} for k, v in enumerate(loss_t)]
        result["pass"] = None
        result["note"] = "no trace.safetensors: PyTorch's curve only"
    emit(result, args.json)
    return 0 if ok else 1


# --- ladder --------------------------------------------------------------------------------------

def synthetic_batches(torch, c, count, seed, pinned):
    g = torch.Generator().manual_seed(seed)
    b, out = c["batch"], []
    for _ in range(count):
        fields = torch.stack([torch.randint(0, n, (b,), generator=g) for n in c["cardinality"]], 1)
        d = {"fields": fields,
             "outcome": (torch.rand(b, CLASSES[0], generator=g) < 0.3).float(),
             "direction": torch.randint(0, CLASSES[1], (b,), generator=g),
             "type": torch.randint(0, CLASSES[2], (b,), generator=g)}
        out.append({k: v.pin_memory() for k, v in d.items()} if pinned else d)
    return out


def make_trainer(torch, c, r, device, dropout, example):
    """The model, AdamW and one training step of recipe r (RECIPES) as a peer_timing.Trainer,
    from the same seeded initial parameters whatever the recipe. example: a host batch, the
    static inputs' first contents (a captured graph's warm-up must index real rows)."""
    import peer_timing as pt
    cuda = device == "cuda"
    set_tf32(torch, r.get("tf32", False))
    amp = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(r.get("amp"))
    mode, graph = r.get("mode"), r.get("graph", False)
    torch.manual_seed(0)
    model = build(torch, c, dropout=dropout).to(device).train()
    opt = torch.optim.AdamW(model.parameters(), lr=c["lr"], betas=(0.9, 0.999), eps=1e-8,
                            weight_decay=c["weight_decay"],
                            **({"capturable": True} if graph else {}))
    trainer = pt.Trainer(torch, model, opt, None)
    if r.get("amp") == "fp16":
        trainer.scaler = (torch.amp.GradScaler(device) if hasattr(torch, "amp") and
                          hasattr(torch.amp, "GradScaler") else torch.cuda.amp.GradScaler())
    scaler = trainer.scaler
    tw = (torch.rand(CLASSES[2], generator=torch.Generator().manual_seed(3)) + 0.5).to(device)
    prio = torch.tensor(PRIORITY, device=device)

    def forward_loss(b):
        return losses(torch, model, model(b["fields"]), b, tw, prio, SMOOTHING)[0]
    fl = pt.with_autocast(torch, forward_loss, device, amp, capture=graph)
    fl = pt.compiled(torch, fl, mode) if mode else fl

    def compute(b):
        pt.step_begin(torch, mode)
        opt.zero_grad(set_to_none=True)
        total = fl(b)
        pt.backward_step(total, opt, scaler)
        return total

    def transfer(hb):
        if not cuda:
            return hb
        if r.get("pinned"):
            return {k: v.to(device, non_blocking=True) for k, v in hb.items()}
        b = {}
        for k, v in hb.items():
            b[k] = v.to(device)
        return b

    if graph:
        static = {k: v.to(device).clone() for k, v in example.items()}
        replay = pt.cuda_graph(torch, lambda: compute(static))

        def step(hb):
            for k, v in hb.items():
                static[k].copy_(v, non_blocking=True)
            return replay().item()
    else:
        def step(hb):
            return compute(transfer(hb)).item()
    trainer.step = step
    return trainer


def ladder_stage(torch, c, sid, budget_s, fixed_steps, warmup):
    r = RECIPES[sid]
    pinned = r.get("pinned", False)
    host = synthetic_batches(torch, c, 16, 1, pinned)
    trainer = make_trainer(torch, c, r, "cuda", c["dropout"], host[0])
    step, scaler = trainer.step, trainer.scaler
    amp = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(r.get("amp"))

    paced = paced_steps_ms(torch, lambda i: step(host[i % len(host)]), budget_s, fixed_steps,
                           warmup, max_steps=2000)
    res = {"id": sid, **paced.summary(),
           "samples_per_s": c["batch"] / paced.summary()["median_ms"] * 1e3,
           "peak_memory_bytes": int(torch.cuda.max_memory_allocated()),
           "last_loss": paced.last, "tf32": torch.backends.cuda.matmul.allow_tf32,
           "transfer": "pinned, non_blocking" if pinned else "pageable, blocking per tensor",
           "autocast": str(amp).replace("torch.", "") if amp else None,
           "grad_scaler": scaler is not None, "compiled": "mode" in r}
    if scaler is not None:
        res["final_scale"] = float(scaler.get_scale())
    return res


def run_ladder(args):
    import torch
    if not torch.cuda.is_available():
        sys.exit("ladder: needs CUDA")
    s = SIZES[args.size]
    c = dict(embed=s["embed"], hidden=s["hidden"], layers=s["layers"], heads=heads_for(s["embed"]),
             batch=args.batch or s["batch"], lr=s["lr"], weight_decay=1e-6, dropout=0.1, eps=1e-5,
             cardinality=tuple(v + 1 for v in s["vocab"]))
    stages = args.stages.split(",") if args.stages else list(STAGES)
    for sid in stages:
        if sid not in STAGES:
            sys.exit(f"ladder: unknown stage '{sid}' (stages: {', '.join(STAGES)})")
    share = args.budget_s / len(stages)
    out = {"mode": "ladder", "model": "deepfm", "size": args.size, "batch": c["batch"],
           "config": c, "device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "budget_s": args.budget_s, "timing": "CUDA events per step, median; one step = transfer, "
           "forward, loss, backward, AdamW, loss.item()", "stages": []}
    t0 = time.perf_counter()
    for sid in stages:
        import gc
        gc.collect()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        try:
            r = ladder_stage(torch, c, sid, share, args.steps, args.warmup)
        except Exception as e:  # a compile failure (or any other) is reported, not fatal
            r = {"id": sid, "error": f"{type(e).__name__}: {str(e)[:2000]}", "median_ms": None,
                 "samples_per_s": None, "peak_memory_bytes": int(torch.cuda.max_memory_allocated()),
                 "steps": 0}
        out["stages"].append(r)
        print(f"{sid:20s} " + (f"{r['median_ms']:9.3f} ms/step {r['samples_per_s']:11.1f} samples/s "
              f"{r['peak_memory_bytes'] / 2**20:9.1f} MiB  ({r['steps']} steps)" if r.get("median_ms")
              else "failed: " + r["error"][:200]), file=sys.stderr)
    base = out["stages"][0].get("median_ms") if out["stages"] else None
    for r in out["stages"]:
        if base and r.get("median_ms"):
            r["speedup_vs_first"] = base / r["median_ms"]
    out["total_s"] = time.perf_counter() - t0
    set_tf32(torch, False)
    emit(out, args.json)
    return 0


def run_peer(args):
    """`stagebench peer`: the ladder's stages and the stronger variants of RECIPES at a
    stagebench size (peer_timing.py's JSON), one training step each, on CUDA or the CPU."""
    import torch
    import peer_timing as pt
    dev = args.device
    pt.check_device(torch, dev)
    s = SIZES[args.size]
    c = dict(embed=s["embed"], hidden=s["hidden"], layers=s["layers"], heads=heads_for(s["embed"]),
             batch=args.batch or s["batch"], lr=s["lr"], weight_decay=1e-6, dropout=0.1, eps=1e-5,
             cardinality=tuple(v + 1 for v in s["vocab"]))
    host = {p: synthetic_batches(torch, c, 16, 1, p) for p in ((False, True) if dev == "cuda"
                                                                else (False,))}

    def variant(name):
        r = RECIPES[name]
        batches = host[r.get("pinned", False) and dev == "cuda"]

        def make():
            tr = make_trainer(torch, c, r, dev, c["dropout"], batches[0])
            count = itertools.count()

            def check():
                # dropout off: compiled and captured steps draw other masks than eager's
                twin = make_trainer(torch, c, r, dev, 0.0, batches[0])
                return twin.check(batches[0])
            return pt.Run(lambda: tr.step(batches[next(count) % len(batches)]), check)
        return make

    def precision(r):
        return r.get("amp") or ("tf32" if r.get("tf32") and dev == "cuda" else "fp32")

    why = {"pinned": "pinned host memory and non-blocking copies need CUDA",
           "tf32": "TF32 is a CUDA tensor-core mode",
           "fp16": "fp16 with GradScaler is timed on CUDA only (bf16 is the CPU's half type)",
           "graph": "CUDA graphs need CUDA", "max-autotune": "max-autotune is timed on CUDA only"}

    def cuda_only(name, r):
        if r.get("graph") or r.get("mode") == "reduce-overhead":
            return why["graph"]
        if r.get("mode") == "max-autotune":
            return why["max-autotune"]
        if r.get("amp") == "fp16":
            return why["fp16"]
        return {"pinned-nonblocking": why["pinned"], "tf32": why["tf32"]}.get(name)

    variants = [pt.Variant(n, variant(n), precision(r), cuda_only(n, r)) for n, r in RECIPES.items()]
    pt.set_tf32(torch, False)
    ref = make_trainer(torch, c, RECIPES["fp32-eager"], dev, 0.0, host[False][0])
    reference = ref.check(host[False][0])
    del ref
    work = {"batch": c["batch"], "length": len(FIELDS), "layers": c["layers"],
            "output": "one training step: loss and gradients", "embed": c["embed"],
            "hidden": c["hidden"], "heads": c["heads"], "dropout": c["dropout"],
            "step": "host batch to device, forward, loss, backward, AdamW, loss.item()",
            "data": "16 synthetic host batches made ahead and cycled (no assembly in the step)"}
    timing = (f"one training step (transfer, forward, loss, backward, AdamW, loss.item()) of "
              f"{c['batch']} synthetic samples, dropout {c['dropout']}, time.perf_counter after a "
              f"device synchronize, median of {args.runs} after {args.warmup} warm-up; "
              "variants as deepfm_torch.py's RECIPES: compile-* torch.compile forward and loss, "
              "cudagraphs mode reduce-overhead, cuda-graph* the whole step captured in one CUDA "
              "graph (AdamW capturable), max-autotune mode max-autotune")
    check = pt.check_block("PyTorch fp32 eager, TF32 off, same initial parameters and batch; "
                           "one step, dropout off in both", "the step's gradients (cosine, "
                           "rel_l2) and loss (loss_rel_diff)")
    pt.write(args.peer_json, torch, dev, "deepfm", args.size, timing,
             pt.run_variants(torch, dev, variants, reference, c["batch"], "samples/s", args),
             work=work, check=check, args=args)
    set_tf32(torch, False)
    return 0


# --- numpy reference of the forward and loss (the self-test) -------------------------------------

def np_forward_loss(P, c, b, type_weights):
    """Total and task losses of one batch in float64, as the PyTorch model computes them."""
    P = {k: np.asarray(v, np.float64) for k, v in P.items()}
    e, nh = c["embed"], c["heads"]
    dh = e // nh
    f = np.asarray(b["fields"]).astype(np.int64)
    B = f.shape[0]
    S = np.stack([P[n + "_emb.weight"][f[:, i]] for i, n in enumerate(FIELDS)], 1)  # [B, 4, E]

    def ln(x, pre):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + c["eps"]) * P[pre + ".weight"] + P[pre + ".bias"]

    lin = lambda x, pre: x @ P[pre + ".weight"].T + P[pre + ".bias"]
    qkv = S @ P["encoder.self_attn.in_proj_weight"].T + P["encoder.self_attn.in_proj_bias"]
    q, k, v = (qkv[..., i * e:(i + 1) * e].reshape(B, 4, nh, dh).transpose(0, 2, 1, 3) for i in range(3))
    sc = q @ k.transpose(0, 1, 3, 2) / math.sqrt(dh)
    p = np.exp(sc - sc.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    ctx = (p @ v).transpose(0, 2, 1, 3).reshape(B, 4, e)
    x1 = ln(S + lin(ctx, "encoder.self_attn.out_proj"), "encoder.norm1")
    T = ln(x1 + lin(np.maximum(lin(x1, "encoder.linear1"), 0), "encoder.linear2"), "encoder.norm2")
    z = T.reshape(B, 4 * e)
    erf = np.vectorize(math.erf)
    for l in range(c["layers"]):
        u = lin(z, f"deep.{l}")
        z = 0.5 * u * (1 + erf(u / math.sqrt(2)))
    fm = np.stack([(S[:, i] * S[:, j]).sum(-1) for i, j in PAIRS], 1)
    h = np.concatenate([z, fm], 1)
    lo, ld, lt = (lin(h, t + "_head") for t in TASKS)
    y = np.asarray(b["outcome"], np.float64)
    bce = (np.maximum(lo, 0) - lo * y + np.log1p(np.exp(-np.abs(lo)))).mean()

    def ce(x, t, w, eps):
        t = np.asarray(t).astype(np.int64).ravel()
        lp = x - x.max(1, keepdims=True)
        lp = lp - np.log(np.exp(lp).sum(1, keepdims=True))
        w = np.ones(x.shape[1]) if w is None else np.asarray(w, np.float64).ravel()
        den = w[t].sum()
        nll = -(w[t] * lp[np.arange(len(t)), t]).sum() / den
        smooth = -(lp * w).sum() / den
        return (1 - eps) * nll + eps / x.shape[1] * smooth

    eps = c.get("smoothing", SMOOTHING)
    task = np.array([bce, ce(ld, b["direction"], None, eps), ce(lt, b["type"], type_weights, eps)])
    s = P["log_vars"]
    return float((np.exp(-s) * np.asarray(c.get("priorities", PRIORITY)) * task + s).sum()), task


def batch_k(batches, k):
    return {n: batches[f"{n}.{k}"] for n in ("fields", "outcome", "direction", "type")}


def write_fixture(torch, d, size, steps, seed):
    """init.safetensors and batches.safetensors in stagebench's trace format, PyTorch's init."""
    s = SIZES[size]
    c = dict(embed=s["embed"], hidden=s["hidden"], layers=s["layers"], heads=heads_for(s["embed"]),
             batch=s["batch"], lr=s["lr"], weight_decay=1e-6, dropout=0.1, eps=1e-5,
             cardinality=tuple(v + 1 for v in s["vocab"]))
    torch.manual_seed(seed)
    model = build(torch, c, dropout=0.0)
    with torch.no_grad():
        model.log_vars.uniform_(-0.2, 0.2)  # not zero, so the uncertainty weights are exercised
    init = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    meta = dict(embed=c["embed"], hidden=c["hidden"], layers=c["layers"], heads=c["heads"],
                dropout=c["dropout"], eps=c["eps"], lr=c["lr"], weight_decay=c["weight_decay"],
                batch=c["batch"], steps=steps, smoothing=SMOOTHING, priorities="0.3,0.2,0.5")
    st_write(os.path.join(d, "init.safetensors"), init, meta)
    bat = {}
    for k, hb in enumerate(synthetic_batches(torch, c, steps, seed + 1, False)):
        for n, v in hb.items():
            bat[f"{n}.{k}"] = v.numpy().astype(np.float32)
    bat["type_weights"] = (np.random.default_rng(seed).random(CLASSES[2]) + 0.5).astype(np.float32)
    st_write(os.path.join(d, "batches.safetensors"), bat)


def run_selftest(args):
    res = {"mode": "selftest"}
    with tempfile.TemporaryDirectory() as d:  # the reader and writer, both ways
        t = {"a": np.arange(12, dtype=np.float32).reshape(3, 4), "b": np.array([1, -2], np.int64),
             "c": np.array([0.5, -1.25], np.float16)}
        for wr in (st_write_raw, st_write):
            for rd in (st_read_raw, st_read):
                p = os.path.join(d, "t.safetensors")
                wr(p, t, {"x": 1})
                back, meta = rd(p)
                assert meta.get("x") == "1", meta
                for k in t:
                    assert back[k].dtype == t[k].dtype and np.array_equal(back[k], t[k]), k
        bf = np.array([0x3F80, 0xC040], "<u2").tobytes()  # bf16 1.0, -3.0 by hand
        h = json.dumps({"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}}).encode()
        with open(os.path.join(d, "bf.safetensors"), "wb") as f:
            f.write(struct.pack("<Q", len(h)) + h + bf)
        assert st_read_raw(os.path.join(d, "bf.safetensors"))[0]["w"].tolist() == [1.0, -3.0]
        res["safetensors_roundtrip"] = "ok"
    ok = True
    if args.dir:  # stagebench's step-0 loss against the numpy forward, no torch needed
        init, meta = st_read(os.path.join(args.dir, "init.safetensors"))
        batches, _ = st_read(os.path.join(args.dir, "batches.safetensors"))
        c = config_from(init, meta)
        total, task = np_forward_loss(init, c, batch_k(batches, 0), batches["type_weights"])
        res["numpy_step0"] = {"loss": total, "task_loss": task.tolist()}
        tp = os.path.join(args.dir, "trace.safetensors")
        if os.path.exists(tp):
            ours = float(np.asarray(st_read(tp)[0]["loss"]).ravel()[0])
            rel = abs(ours - total) / max(abs(total), 1e-12)
            res["numpy_step0"].update(stagebench=ours, rel_diff=rel)
            ok &= rel <= args.loss_tol
    try:
        import torch
    except ImportError:
        res["torch"] = "not installed: the PyTorch part of the self-test skipped"
    else:
        with tempfile.TemporaryDirectory() as d:
            steps = 4
            write_fixture(torch, d, "tiny", steps, 7)
            init, meta = st_read(os.path.join(d, "init.safetensors"))
            batches, _ = st_read(os.path.join(d, "batches.safetensors"))
            c = config_from(init, meta)
            set_tf32(torch, False)
            lt, tt, final = train_reference(torch, c, init, batches, steps, "cpu")
            st_write(os.path.join(d, "trace.safetensors"),
                     dict(loss=np.asarray(lt, np.float32), task_loss=np.asarray(tt, np.float32), **final))
            npl, _ = np_forward_loss(init, c, batch_k(batches, 0), batches["type_weights"])
            cmp = compare(lt, tt, final, st_read(os.path.join(d, "trace.safetensors"))[0], steps)
            rel = abs(npl - lt[0]) / abs(npl)
            res["torch_fixture"] = {"torch": torch.__version__, "losses": lt, "numpy_step0": npl,
                                    "numpy_vs_torch_rel": rel,
                                    "trace_roundtrip_cosine": cmp["overall_cosine"],
                                    "learned": lt[-1] < lt[0]}
            ok &= rel <= 1e-5 and cmp["overall_cosine"] > 0.9999999 and cmp["max_rel_loss_diff"] < 1e-6
    res["pass"] = bool(ok)
    emit(res, args.json)
    return 0 if ok else 1


def emit(obj, path):
    text = json.dumps(obj, indent=2, default=lambda o: list(o) if isinstance(o, tuple) else str(o))
    print(text)
    if path:
        with open(path, "w") as f:
            f.write(text + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    ck = sub.add_parser("check", help="train on stagebench's trace files and compare")
    ck.add_argument("--dir", required=True, help="stagebench export-steps deepfm --out DIR")
    ck.add_argument("--device", help="cuda or cpu (default: cuda when available)")
    ck.add_argument("--steps", type=int, default=0, help="default: the files' steps")
    ck.add_argument("--write-trace", help="write PyTorch's trace in stagebench's format here")
    ck.add_argument("--loss-tol", type=float, default=1e-4)
    ck.add_argument("--cos-tol", type=float, default=0.99999)
    ck.add_argument("--json", help="also write the JSON here")
    ld = sub.add_parser("ladder", help="time PyTorch's training stages on CUDA")
    ld.add_argument("--size", default="full", choices=SIZES)
    ld.add_argument("--batch", type=int, default=0, help="default: the size's batch")
    ld.add_argument("--stages", help="comma-separated subset of " + ",".join(STAGES))
    ld.add_argument("--budget-s", type=float, default=60.0, help="timed seconds over all stages "
                    "(warm-up and compilation come on top)")
    ld.add_argument("--steps", type=int, default=0, help="fixed timed steps per stage")
    ld.add_argument("--warmup", type=int, default=10)
    ld.add_argument("--json", help="also write the JSON here")
    pe = sub.add_parser("peer", help="`stagebench peer`: the ladder's stages as peer JSON")
    import peer_timing
    peer_timing.add_arguments(pe, SIZES, default_warmup=10)
    st = sub.add_parser("selftest", help="numpy-only checks (PyTorch's too when installed)")
    st.add_argument("--dir", help="stagebench export-steps directory: step-0 loss against numpy")
    st.add_argument("--loss-tol", type=float, default=1e-4)
    st.add_argument("--json")
    a = ap.parse_args()
    sys.exit({"check": run_check, "ladder": run_ladder, "peer": run_peer,
              "selftest": run_selftest}[a.mode](a))


if __name__ == "__main__":
    main()
