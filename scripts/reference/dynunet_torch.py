#!/usr/bin/env python3
"""CytoDL's DynUNet (docs/models.md; MONAI DynUNet, three levels, residual blocks) in plain
PyTorch, the reference stagebench's DynUNet training is checked and timed against. Parameter names
are MONAI DynUNet's state-dict names, the ones stagebench's models/dynunet/params.cpp uses; no
MONAI import is needed. The network, as models/dynunet/network.cpp computes it:

  ResBlock(in, out, s):  y = LReLU(IN1(conv1 3^3/s(x)));  y = IN2(conv2 3^3(y));
                         r = IN3(conv3 1^3/s(x));         out = LReLU(y + r)
  input_block (1 -> F1, s 1), downsamples.0 (F1 -> F2, s 2), bottleneck (F2 -> F3, s 2)
  UpBlock(in, out):      u = ConvTranspose3d k2 s2 (no bias)(x);  c = cat[u, skip]
                         out = LReLU(IN2(conv2 3^3(LReLU(IN1(conv1 3^3(c))))))
  upsamples.0 (F3 -> F2, skip downsamples.0), upsamples.1 (F2 -> F1, skip input_block)
  output_block: conv 1^3 F1 -> 1 with bias
  IN: InstanceNorm3d(affine=True, eps 1e-5), LReLU: LeakyReLU(0.01), convolutions without bias,
  padding 1 for 3^3 (stride 1 or 2), 0 for 1^3 and the transposed 2^3.
  loss = soft Dice on sigmoid (per (n, c) over the voxels, 1 - (2 sum p t + smooth) /
  (sum p + sum t + smooth), mean over (n, c)) + BCEWithLogits (mean); AdamW(lr, weight_decay).

  check --dir DIR [--device cpu|cuda] [--float64] [--json OUT.json] [--write-trace T.safetensors]
        DIR holds `stagebench export-steps dynunet --size S --backend B --steps N --out DIR`:
        init.safetensors, batches.safetensors, grads_step0.safetensors, trace.safetensors. Trains
        N steps from init on the same batches and compares each step's loss (Dice and BCE too),
        the final parameters and step 0's gradients (before any AdamW step), tensor by tensor:
        cosine and relative L2, the worst tensor named. The arbiter is PyTorch on the CPU, in fp32
        or with --float64 in float64 (PyTorch fp32 on the CPU then reported beside it); --device
        cuda adds PyTorch on CUDA (TF32 off) beside it. The JSON names the arbiter (arbiter,
        verdict_from); pass and failures are its comparison's, the others report
        within_tolerances and decide nothing. Exit 0 when the arbiter's comparison is within
        TOLERANCES (below, with their reasons), else 1.
  ladder [--size full] [--budget-s 60] [--stages a,b] [--json OUT.json]
        PyTorch's own ladder on CUDA, synthetic volumes resident on the GPU, one object per
        stage: training step (forward, loss, backward, AdamW, loss.item()) and inference (no_grad
        forward) median ms by CUDA events, FPS (volumes/s), peak allocated memory. Cumulative:
          fp32-eager       fp32, TF32 off
          tf32             + TF32 convolutions and matmuls
          bf16-autocast    + torch.autocast(bfloat16) (no scaler: bf16 has fp32's range)
          channels-last    + torch.channels_last_3d model and volumes
          compile          + torch.compile of forward and loss (a failure is recorded, not fatal)
          fused-adamw      + AdamW(fused=True)
  peer --size S --peer-json OUT [--device cuda|cpu] [--runs 20]
        `stagebench peer`: the ladder's stages and PyTorch's stronger variants (RECIPES: compile
        over fp16, CUDA graphs by mode="reduce-overhead" and by capturing the whole step or
        forward, max-autotune), training steps in "variants" and the inference forward under
        "inference", each checked against fp32 eager, as peer_timing.py's JSON.
  selftest
        tiny on the CPU, no files needed: the parameter names and shapes against params.cpp's
        list, the loss against a float64 formula, a fixture trained a few steps, written in
        stagebench's trace format (step-0 gradients too) and checked against itself, fp32 against
        the float64 arbiter within TOLERANCES, the judge failing gradients 1% off or missing, and
        channels-last against NCDHW.

Without the `safetensors` package the files are read and written by the small reader below.
"""
import argparse
import datetime
import gc
import itertools
import json
import os
import struct
import sys
import tempfile
import time

import numpy as np

from cuda_timing import paced_steps_ms

SIZES = {  # models/dynunet/config.cpp
    "tiny": dict(filters=(8, 16, 32), patch=16, batch=1, lr=1e-2),
    "small": dict(filters=(16, 32, 64), patch=32, batch=2, lr=1e-3),
    "full": dict(filters=(16, 32, 64), patch=64, batch=8, lr=1e-3),
}
DEFAULTS = dict(eps=1e-5, smooth=1e-5, weight_decay=0.01, slope=0.01)
STAGES = ("fp32-eager", "tf32", "bf16-autocast", "channels-last", "compile", "fused-adamw")
# How each variant is made (make_trainer, make_infer): the ladder's cumulative stages, then the
# peer's further variants. amp: autocast dtype (fp16 with GradScaler); cl: channels_last_3d model
# and volumes; mode: torch.compile's mode (over forward and loss in training); fused: AdamW
# fused=True; graph: the whole training step, or the forward, captured in one CUDA graph.
# tf32 and fp32 variants beside the half ones: where rounding fails the check (InstanceNorm's
# backward amplifies it), they are the strongest correct ones.
_BEST = dict(tf32=True, amp="bf16", cl=True, fused=True)
_TF32 = dict(tf32=True, cl=True, fused=True)
_FP32 = dict(cl=True, fused=True)
RECIPES = {
    "fp32-eager": {},
    "tf32": dict(tf32=True),
    "bf16-autocast": dict(tf32=True, amp="bf16"),
    "channels-last": dict(tf32=True, amp="bf16", cl=True),
    "compile": dict(tf32=True, amp="bf16", cl=True, mode="default"),
    "fused-adamw": dict(_BEST, mode="default"),
    "cuda-graph": dict(_BEST, graph=True),
    "cuda-graph-tf32": dict(_TF32, graph=True),
    "cuda-graph-fp32": dict(_FP32, graph=True),
    "compile-tf32": dict(_TF32, mode="default"),
    "compile-cudagraphs": dict(_BEST, mode="reduce-overhead"),
    "compile-tf32-cudagraphs": dict(_TF32, mode="reduce-overhead"),
    "compile-fp16": dict(_BEST, amp="fp16", mode="default"),
    "compile-fp32": dict(_FP32, mode="default"),
    "compile-max-autotune": dict(_BEST, mode="max-autotune"),
}
# The order the peer runs them in, so that a deadline cuts the weakest, not the strongest: the
# verdict compares our best stage with PyTorch's best variant of the same call. In menu order
# (RECIPES' order) the 220 s deadline of results/h200/gpu27b-2026-11-28 was spent on the eager
# and tf32/fp32 graph variants (19-94 ms a step) before compile-cudagraphs, PyTorch's fastest in
# results/h200/dyn27-2026-11-28 (13.95 ms), and compile-fp16 had never run for training. First
# the compiled bf16 and fp16 variants (13.9-14.1 ms in those rounds), then fp32-eager and the
# eager stages the ladder's stages pair with (models/dynunet/ladder.cpp), then the rest, slowest
# last; max-autotune last of all: it has never finished within its 80 s budget on this model.
PEER_ORDER = ("compile-cudagraphs", "fused-adamw", "compile", "compile-fp16", "fp32-eager",
              "bf16-autocast", "channels-last", "cuda-graph", "tf32", "compile-tf32-cudagraphs",
              "compile-tf32", "cuda-graph-tf32", "compile-fp32", "cuda-graph-fp32",
              "compile-max-autotune")
# The ladder's stages' counterparts (models/dynunet/ladder.cpp's claim.pytorch): each is run
# before any variant that pairs with no stage.
PAIRED = ("fp32-eager", "bf16-autocast", "channels-last", "compile", "fused-adamw",
          "compile-cudagraphs")
# The part of --deadline-s the training menu may use before the inference menu starts: training
# steps are what the ladder's verdict compares, and each of its compiles builds forward and
# backward graphs (the inference menu's, the forward alone, took 99 s for 13 variants).
TRAIN_SHARE = 0.6


def peer_order(device):
    """PEER_ORDER on CUDA. On the CPU the eager variants come first: each takes seconds there,
    while torch.compile builds forward and backward in C++ for a minute or more, and a deadline
    spent on compiles would cut the eager rows the ladder's stages pair with; then the others in
    PEER_ORDER's order (those that need CUDA are recorded as skipped at once)."""
    if device == "cuda":
        return PEER_ORDER
    eager = tuple(n for n in PEER_ORDER
                  if not RECIPES[n].get("mode") and not RECIPES[n].get("graph"))
    return eager + tuple(n for n in PEER_ORDER if n not in eager)


def peer_order_problems(ladder_cpp=None):
    """What is wrong with PEER_ORDER (selftest): it must hold each recipe once; ahead of the last
    stage counterpart only counterparts and compiled half-precision variants; max-autotune last.
    PAIRED is checked against the claim.pytorch names of models/dynunet/ladder.cpp when that file
    is beside this checkout."""
    bad = []
    if sorted(PEER_ORDER) != sorted(RECIPES):
        bad.append(f"PEER_ORDER {sorted(PEER_ORDER)} is not RECIPES' {sorted(RECIPES)}")
    last = max(PEER_ORDER.index(n) for n in PAIRED if n in PEER_ORDER)
    for n in PEER_ORDER[:last]:
        r = RECIPES.get(n, {})
        if n not in PAIRED and not (r.get("mode") and r.get("amp")):
            bad.append(f"{n} runs before the stage counterpart {PEER_ORDER[last]}")
    if PEER_ORDER[-1] != "compile-max-autotune":
        bad.append("compile-max-autotune is not last")
    cpu = peer_order("cpu")
    if sorted(cpu) != sorted(PEER_ORDER):
        bad.append(f"the CPU's order {cpu} is not PEER_ORDER's variants")
    first_compiled = min(i for i, n in enumerate(cpu) if RECIPES[n].get("mode"))
    if any(n in cpu[first_compiled:] for n in PAIRED if not RECIPES[n].get("mode")):
        bad.append(f"on the CPU an eager stage counterpart runs after a compile: {cpu}")
    path = ladder_cpp or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                      "models", "dynunet", "ladder.cpp")
    if os.path.exists(path):
        import re
        with open(path) as f:
            named = set(re.findall(r'claim\.pytorch = \{"([^"]+)"\}', f.read()))
        if named != set(PAIRED):
            bad.append(f"PAIRED {sorted(PAIRED)} differs from ladder.cpp's {sorted(named)}")
    return bad


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

def param_specs(filters):
    """(name, shape) in models/dynunet/params.cpp's order."""
    f1, f2, f3 = filters
    s = []

    def conv(n, o, i, k):
        s.append((n + ".conv.weight", (o, i, k, k, k)))

    def norm(n, ch):
        s.extend([(n + ".weight", (ch,)), (n + ".bias", (ch,))])

    def res(p, i, o):
        conv(p + ".conv1", o, i, 3)
        conv(p + ".conv2", o, o, 3)
        conv(p + ".conv3", o, i, 1)
        for k in (1, 2, 3):
            norm(f"{p}.norm{k}", o)

    def up(p, i, o):
        s.append((p + ".transp_conv.conv.weight", (i, o, 2, 2, 2)))
        conv(p + ".conv_block.conv1", o, 2 * o, 3)
        conv(p + ".conv_block.conv2", o, o, 3)
        norm(p + ".conv_block.norm1", o)
        norm(p + ".conv_block.norm2", o)

    res("input_block", 1, f1)
    res("downsamples.0", f1, f2)
    res("bottleneck", f2, f3)
    up("upsamples.0", f3, f2)
    up("upsamples.1", f2, f1)
    conv("output_block.conv", 1, f1, 1)
    s.append(("output_block.conv.conv.bias", (1,)))
    return s


def config_from(init, meta):
    """The model's configuration: metadata first, shapes where metadata is missing."""
    w = init["input_block.conv1.conv.weight"].shape[0]
    shape_filters = (int(w), int(init["downsamples.0.conv1.conv.weight"].shape[0]),
                     int(init["bottleneck.conv1.conv.weight"].shape[0]))
    g = lambda k, d, t: t(meta[k]) if k in meta and meta[k] != "" else d
    c = dict(size=g("size", "", str),
             filters=tuple(int(x) for x in meta["filters"].split(",")) if meta.get("filters")
             else shape_filters,
             patch=g("patch", 0, int), batch=g("batch", 0, int), eps=g("eps", DEFAULTS["eps"], float),
             smooth=g("smooth", DEFAULTS["smooth"], float), lr=g("lr", 1e-3, float),
             weight_decay=g("weight_decay", DEFAULTS["weight_decay"], float),
             steps=g("steps", 0, int), stage=g("stage", "", str))
    if c["filters"] != shape_filters:
        sys.exit(f"init.safetensors: metadata says filters {c['filters']}, the tensors' shapes "
                 f"say {shape_filters}")
    # std::to_string keeps six decimals: take the size's exact value where it rounds to the same
    s = SIZES.get(c["size"])
    if s and abs(float(f"{s['lr']:.6f}") - c["lr"]) < 5e-7:
        c["lr"] = s["lr"]
    for k in ("eps", "smooth", "weight_decay"):
        if abs(float(f"{DEFAULTS[k]:.6f}") - c[k]) < 5e-7:
            c[k] = DEFAULTS[k]
    return c


def batch_count(batches):
    n = 0
    while f"image.{n}" in batches and f"mask.{n}" in batches:
        n += 1
    return n


# --- the model (PyTorch) --------------------------------------------------------------------------

def build(torch_mod, filters, eps=1e-5, slope=0.01):
    torch = torch_mod
    nn = torch.nn

    class Conv(nn.Module):  # MONAI's Convolution(conv_only=True): the layer under .conv
        def __init__(self, i, o, k, s, bias=False, transposed=False):
            super().__init__()
            if transposed:
                self.conv = nn.ConvTranspose3d(i, o, k, stride=s, padding=0, bias=bias)
            else:
                self.conv = nn.Conv3d(i, o, k, stride=s, padding=1 if k == 3 else 0, bias=bias)

        def forward(self, x):
            return self.conv(x)

    def inorm(ch):
        return nn.InstanceNorm3d(ch, eps=eps, affine=True, track_running_stats=False)

    class ResBlock(nn.Module):  # MONAI UnetResBlock (in != out: conv3 and norm3)
        def __init__(self, i, o, s):
            super().__init__()
            self.conv1, self.conv2, self.conv3 = Conv(i, o, 3, s), Conv(o, o, 3, 1), Conv(i, o, 1, s)
            self.norm1, self.norm2, self.norm3 = inorm(o), inorm(o), inorm(o)
            self.lrelu = nn.LeakyReLU(slope)

        def forward(self, x):
            y = self.lrelu(self.norm1(self.conv1(x)))
            y = self.norm2(self.conv2(y))
            return self.lrelu(y + self.norm3(self.conv3(x)))

    class BasicBlock(nn.Module):  # MONAI UnetBasicBlock
        def __init__(self, i, o):
            super().__init__()
            self.conv1, self.conv2 = Conv(i, o, 3, 1), Conv(o, o, 3, 1)
            self.norm1, self.norm2 = inorm(o), inorm(o)
            self.lrelu = nn.LeakyReLU(slope)

        def forward(self, x):
            return self.lrelu(self.norm2(self.conv2(self.lrelu(self.norm1(self.conv1(x))))))

    class UpBlock(nn.Module):  # MONAI UnetUpBlock
        def __init__(self, i, o):
            super().__init__()
            self.transp_conv = Conv(i, o, 2, 2, transposed=True)
            self.conv_block = BasicBlock(2 * o, o)

        def forward(self, x, skip):
            return self.conv_block(torch.cat([self.transp_conv(x), skip], 1))

    class OutBlock(nn.Module):  # MONAI UnetOutBlock
        def __init__(self, i, o):
            super().__init__()
            self.conv = Conv(i, o, 1, 1, bias=True)

        def forward(self, x):
            return self.conv(x)

    class DynUNet(nn.Module):
        def __init__(self):
            super().__init__()
            f1, f2, f3 = filters
            self.input_block = ResBlock(1, f1, 1)
            self.downsamples = nn.ModuleList([ResBlock(f1, f2, 2)])
            self.bottleneck = ResBlock(f2, f3, 2)
            self.upsamples = nn.ModuleList([UpBlock(f3, f2), UpBlock(f2, f1)])
            self.output_block = OutBlock(f1, 1)

        def forward(self, x):
            e0 = self.input_block(x)
            e1 = self.downsamples[0](e0)
            e2 = self.bottleneck(e1)
            d1 = self.upsamples[0](e2, e1)
            d0 = self.upsamples[1](d1, e0)
            return self.output_block(d0)

    return DynUNet()


def init_monai(torch, model):
    """MONAI DynUNet's initialize_weights: kaiming_normal_(a=0.01) convolutions, zero biases."""
    for m in model.modules():
        if isinstance(m, (torch.nn.Conv3d, torch.nn.ConvTranspose3d)):
            torch.nn.init.kaiming_normal_(m.weight, a=0.01)
            if m.bias is not None:
                torch.nn.init.zeros_(m.bias)


def losses(torch, logits, mask, smooth, dtype=None):
    """(total, dice, bce) as models/dynunet/network.cpp's forward: soft Dice on sigmoid per (n, c)
    over the voxels, mean over (n, c), plus BCE with logits, mean; in fp32 (dtype: float64 for
    the float64 arbiter)."""
    dtype = dtype or torch.float32
    z = logits.to(dtype).flatten(2)
    t = mask.to(dtype).flatten(2)
    p = torch.sigmoid(z)
    inter = (p * t).sum(-1)
    den = p.sum(-1) + t.sum(-1)
    dice = (1 - (2 * inter + smooth) / (den + smooth)).mean()
    bce = torch.nn.functional.binary_cross_entropy_with_logits(z, t)
    return dice + bce, dice, bce


def set_tf32(torch, on):
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on


def load_model(torch, c, init, device, dtype=None):
    model = build(torch, c["filters"], c["eps"]).to(device)
    state = {k: torch.from_numpy(np.asarray(v, np.float32)) for k, v in init.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if missing or unexpected:
        sys.exit(f"init.safetensors does not match the model: missing {sorted(missing)}, "
                 f"unexpected {sorted(unexpected)}")
    return model.to(dtype) if dtype is not None else model


def train_reference(torch, c, init, batches, steps, device, dtype=None):
    """Steps of AdamW from init on the given batches, in fp32 (dtype: float64 for the float64
    arbiter): (loss, dice and bce per step, final parameters as numpy, every parameter's gradient
    after step 0's backward, before its AdamW update, as numpy float64)."""
    dtype = dtype or torch.float32
    model = load_model(torch, c, init, device, dtype).train()
    opt = torch.optim.AdamW(model.parameters(), lr=c["lr"], betas=(0.9, 0.999), eps=1e-8,
                            weight_decay=c["weight_decay"])
    curve, grads0 = {"loss": [], "dice": [], "bce": []}, {}
    for k in range(steps):
        x, t = (torch.from_numpy(np.asarray(batches[f"{n}.{k}"], np.float32)).to(device, dtype)
                for n in ("image", "mask"))
        opt.zero_grad(set_to_none=True)
        total, dice, bce = losses(torch, model(x), t, c["smooth"], dtype)
        total.backward()
        if k == 0:
            grads0 = {n: p.grad.detach().double().cpu().numpy()
                      for n, p in model.named_parameters()}
        opt.step()
        for n, v in (("loss", total), ("dice", dice), ("bce", bce)):
            curve[n].append(v.item())
    final = {k: v.detach().float().cpu().numpy() for k, v in model.state_dict().items()}
    return curve, final, grads0


# --- check ---------------------------------------------------------------------------------------

# The check's thresholds (docs/method.md, "DynUNet against PyTorch"). The arbiter is PyTorch on the
# CPU, where no convolution algorithm is chosen for it (float64 with --float64: no rounding on the
# reference's side at all). On CUDA cuDNN chooses among algorithms that round differently, and
# AdamW turns those differences into +-lr steps; that comparison is reported beside the arbiter's
# and decides nothing.
TOLERANCES = {
    # Step 0's gradients: the same parameters and batch, no optimizer between, so fp32 rounding
    # alone. It grows like sqrt(K) x 6e-8 for sums of K terms: the worst tensor measured at tiny
    # is 1.3e-5 (input_block.conv3, a 1x1 projection of one channel straight into InstanceNorm,
    # which makes the loss blind to its scale: its gradient is small and rounding large against
    # it); small and full sum over 16x and 512x the voxels (sqrt: 4x, 23x). 1e-3 leaves room for
    # full and still fails a gradient 0.1% off; a wrong term or scale shows at 1e-2 and more. The
    # cosine floor is the one that relative L2 allows two gradients of equal norm,
    # 1 - (1e-3)^2 / 2 (docs/method.md, Correctness). The worst tensor decides.
    "grad_min_tensor_cosine": 0.9999995,
    "grad_max_tensor_rel_l2": 1e-3,
    # The trained steps: AdamW's first steps move each weight by about +-lr whatever the
    # gradient's size, so an element whose gradient is near zero may step either way on a
    # rounding difference; the loss within 1e-3, and the fp32 output floor of docs/method.md over
    # all final parameters together.
    "max_rel_loss_diff": 1e-3,
    "param_cosine": 0.99999,
}


def agreement(ours, ref):
    """(cosine, max_abs, rel_l2 = |ours - ref| / |ref|) in float64."""
    a, b = np.asarray(ours, np.float64).ravel(), np.asarray(ref, np.float64).ravel()
    den = np.linalg.norm(a) * np.linalg.norm(b)
    cos = float(a @ b / den) if den > 0 else (1.0 if not a.any() and not b.any() else 0.0)
    nb = np.linalg.norm(b)
    diff = float(np.linalg.norm(a - b))
    rel = diff / nb if nb > 0 else (0.0 if diff == 0 else float("inf"))
    return cos, float(np.abs(a - b).max()) if a.size else 0.0, rel


def compare_tensors(ours, ref, what):
    """Per-tensor and overall agreement of ours (the trace's tensors) with ref (PyTorch's)."""
    rows, missing, cat_a, cat_b = {}, [], [], []
    for name, r in ref.items():
        if name not in ours:
            missing.append(name)
            continue
        o = np.asarray(ours[name], np.float64)
        if o.size != np.asarray(r).size:
            sys.exit(f"{what}: {name} has {o.size} values, the model {np.asarray(r).size}")
        cos, mx, rel = agreement(o, r)
        rows[name] = {"cosine": cos, "max_abs": mx, "rel_l2": rel}
        cat_a.append(o.ravel())
        cat_b.append(np.asarray(r, np.float64).ravel())
    cos, mx, rel = agreement(np.concatenate(cat_a), np.concatenate(cat_b)) if cat_a else (0.0, 0.0,
                                                                                         float("inf"))
    low = min(rows, key=lambda n: rows[n]["cosine"]) if rows else None
    high = max(rows, key=lambda n: rows[n]["rel_l2"]) if rows else None
    return {"tensors": rows, "missing": missing, "overall_cosine": cos, "overall_max_abs": mx,
            "overall_rel_l2": rel, "min_tensor_cosine": rows[low]["cosine"] if low else None,
            "min_cosine_tensor": low, "max_tensor_rel_l2": rows[high]["rel_l2"] if high else None,
            "max_rel_l2_tensor": high}


def compare(curve, final, trace, steps, grads_ref=None, grads_ours=None):
    ours = {n: np.asarray(trace[n], np.float64).ravel() for n in ("loss", "dice", "bce") if n in trace}
    if "loss" not in ours or ours["loss"].size < steps:
        sys.exit(f"trace.safetensors: loss has {ours.get('loss', np.zeros(0)).size} steps, the run {steps}")
    rows, worst = [], 0.0
    for k in range(steps):
        a, b = float(ours["loss"][k]), curve["loss"][k]
        rel = abs(a - b) / max(abs(b), 1e-12)
        worst = max(worst, rel)
        row = {"step": k, "stagebench": a, "torch": b, "rel_diff": rel}
        for n in ("dice", "bce"):
            if n in ours and ours[n].size > k:
                row[f"{n}_stagebench"], row[f"{n}_torch"] = float(ours[n][k]), curve[n][k]
        rows.append(row)
    p = compare_tensors(trace, final, "trace.safetensors")
    out = {"loss": rows, "max_rel_loss_diff": worst, "params": p["tensors"],
           "missing_in_trace": p["missing"], "overall_cosine": p["overall_cosine"],
           "overall_max_abs": p["overall_max_abs"], "overall_rel_l2": p["overall_rel_l2"],
           "min_tensor_cosine": p["min_tensor_cosine"], "min_cosine_tensor": p["min_cosine_tensor"]}
    if grads_ref is not None:
        out["grads_step0"] = (compare_tensors(grads_ours, grads_ref, "grads_step0.safetensors")
                              if grads_ours is not None else None)
    return out


def judge(cmp, tol):
    """(pass, the reasons it fails) of one comparison against TOLERANCES."""
    why = []
    if cmp["max_rel_loss_diff"] > tol["max_rel_loss_diff"]:
        why.append(f"loss differs by {cmp['max_rel_loss_diff']:.3g} > {tol['max_rel_loss_diff']:g}")
    if cmp["overall_cosine"] < tol["param_cosine"]:
        why.append(f"parameter cosine {cmp['overall_cosine']:.9f} < {tol['param_cosine']}")
    if cmp["missing_in_trace"]:
        why.append(f"trace.safetensors lacks {', '.join(cmp['missing_in_trace'])}")
    g = cmp.get("grads_step0")
    if g is None:
        why.append("no grads_step0.safetensors (a trace from a stagebench without step-0 gradients)")
    else:
        if g["missing"]:
            why.append(f"grads_step0.safetensors lacks {', '.join(g['missing'])}")
        if g["min_tensor_cosine"] is None or g["min_tensor_cosine"] < tol["grad_min_tensor_cosine"]:
            why.append(f"step-0 gradient cosine {g['min_tensor_cosine']} ({g['min_cosine_tensor']}) "
                       f"< {tol['grad_min_tensor_cosine']}")
        if g["max_tensor_rel_l2"] is None or g["max_tensor_rel_l2"] > tol["grad_max_tensor_rel_l2"]:
            why.append(f"step-0 gradient relative L2 {g['max_tensor_rel_l2']} "
                       f"({g['max_rel_l2_tensor']}) > {tol['grad_max_tensor_rel_l2']}")
    return not why, why


def summary(cmp):
    """The figures a reader looks at first, of one comparison."""
    g = cmp.get("grads_step0") or {}
    return {"max_rel_loss_diff": cmp["max_rel_loss_diff"], "param_cosine": cmp["overall_cosine"],
            "param_rel_l2": cmp["overall_rel_l2"], "param_min_tensor_cosine": cmp["min_tensor_cosine"],
            "param_min_cosine_tensor": cmp["min_cosine_tensor"],
            "grad_cosine": g.get("overall_cosine"), "grad_rel_l2": g.get("overall_rel_l2"),
            "grad_min_tensor_cosine": g.get("min_tensor_cosine"),
            "grad_min_cosine_tensor": g.get("min_cosine_tensor"),
            "grad_max_tensor_rel_l2": g.get("max_tensor_rel_l2"),
            "grad_max_rel_l2_tensor": g.get("max_rel_l2_tensor")}


def run_check(args):
    """The arbiter (PyTorch on the CPU, fp32 or --float64) decides; PyTorch fp32 on the CPU (when
    the arbiter is float64) and on CUDA (--device cuda) are reported beside it."""
    import torch
    if args.device not in ("cpu", "cuda"):
        sys.exit(f"check: --device {args.device}: cpu or cuda")
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("check: --device cuda, but this torch has no CUDA device")
    set_tf32(torch, False)
    torch.backends.cudnn.benchmark = False
    init, meta = st_read(os.path.join(args.dir, "init.safetensors"))
    batches, _ = st_read(os.path.join(args.dir, "batches.safetensors"))
    c = config_from(init, meta)
    steps = args.steps or c["steps"] or batch_count(batches)
    if batch_count(batches) < steps:
        sys.exit(f"batches.safetensors has {batch_count(batches)} batches, {steps} steps asked")
    runs = [("cpu", "float64")] if args.float64 else []
    runs += [("cpu", "fp32")] + ([("cuda", "fp32")] if args.device == "cuda" else [])
    arbiter = "%s-%s" % runs[0]
    tol = dict(TOLERANCES, max_rel_loss_diff=args.loss_tol, param_cosine=args.cos_tol)
    result = {"mode": "check", "dir": args.dir, "torch": torch.__version__, "steps": steps,
              "config": c, "arbiter": {"name": arbiter, "device": "cpu",
                                       "precision": runs[0][1]},
              "verdict_from": arbiter,
              "beside": ["%s-%s" % r for r in runs[1:]],
              "note": "the verdict (pass) is the arbiter's, PyTorch on the CPU; the comparisons "
                      "beside it are reported and decide nothing",
              "tolerances": tol, "comparisons": {}}
    if args.device == "cuda":
        result["cuda_device"] = torch.cuda.get_device_name()
        result["cudnn"] = torch.backends.cudnn.version()
    trace_path = os.path.join(args.dir, "trace.safetensors")
    grads_path = os.path.join(args.dir, "grads_step0.safetensors")
    trace = st_read(trace_path)[0] if os.path.exists(trace_path) else None
    grads = st_read(grads_path)[0] if os.path.exists(grads_path) else None
    ok, trained = True, {}
    for dev, prec in runs:
        name = f"{dev}-{prec}"
        dtype = torch.float64 if prec == "float64" else torch.float32
        t0 = time.perf_counter()
        curve, final, grads_ref = train_reference(torch, c, init, batches, steps, dev, dtype)
        trained[name] = (curve, final, grads_ref)
        if args.write_trace and name == arbiter:
            st_write(args.write_trace,
                     dict(**{n: np.asarray(v, np.float32) for n, v in curve.items()}, **final),
                     metadata={"source": "scripts/reference/dynunet_torch.py", "torch": torch.__version__,
                               "precision": prec, "device": dev})
        if trace is None:
            result["comparisons"][name] = {
                "device": dev, "precision": prec,
                "loss": [{"step": k, "torch": v} for k, v in enumerate(curve["loss"])]}
            continue
        cmp = compare(curve, final, trace, steps, grads_ref, grads)
        passed, why = judge(cmp, tol)
        cmp = dict(device=dev, precision=prec, seconds=time.perf_counter() - t0,
                   within_tolerances=passed, failures=why, summary=summary(cmp), **cmp)
        result["comparisons"][name] = cmp
        if name == arbiter:
            ok = passed
    if trace is None:
        result["pass"] = None
        result["note"] = "no trace.safetensors: PyTorch's curves only"
        ok = True
    else:
        result["pass"] = ok
        result["failures"] = result["comparisons"][arbiter]["failures"]
        result["summary"] = {n: r["summary"] for n, r in result["comparisons"].items()}
    if "cpu-float64" in trained and "cpu-fp32" in trained:
        # the yardstick: how far PyTorch's own fp32 run lands from its float64 run on the same
        # files, rounding alone (AdamW's amplification included)
        curve, final, g = trained["cpu-fp32"]
        as_trace = dict(**{n: np.asarray(v, np.float64) for n, v in curve.items()}, **final)
        ref_curve, ref_final, ref_g = trained["cpu-float64"]
        result["torch_fp32_vs_float64"] = summary(compare(ref_curve, ref_final, as_trace, steps,
                                                          ref_g, g))
    emit(result, args.json)
    return 0 if ok else 1


# --- ladder --------------------------------------------------------------------------------------

def synthetic_volumes(torch, batch, patch, count, seed, device):
    """Balls brighter than their background under uniform noise, and their masks, as
    models/dynunet/volumes.h describes (not its bits): [batch, 1, P, P, P] each."""
    g = torch.Generator(device="cpu").manual_seed(seed)
    ax = torch.arange(patch, dtype=torch.float32)
    zz, yy, xx = torch.meshgrid(ax, ax, ax, indexing="ij")
    out = []
    for _ in range(count):
        img = torch.empty(batch, 1, patch, patch, patch)
        msk = torch.empty_like(img)
        for n in range(batch):
            r = patch * (0.15 + 0.2 * torch.rand((), generator=g))
            c = r + (patch - 2 * r) * torch.rand(3, generator=g)
            m = ((zz - c[0]) ** 2 + (yy - c[1]) ** 2 + (xx - c[2]) ** 2 <= r * r).float()
            msk[n, 0] = m
            img[n, 0] = 0.2 + 0.6 * m + 0.4 * (torch.rand(patch, patch, patch, generator=g) - 0.5)
        out.append((img.to(device), msk.to(device)))
    return out


def timed(torch, fn, batches, budget_s, fixed_steps, warmup):
    """Median/min/max ms of fn(batch) by CUDA events, after warm-up; the count from the pace."""
    paced = paced_steps_ms(torch, lambda i: fn(*batches[i % len(batches)]), budget_s, fixed_steps,
                           warmup, max_steps=1000)
    return paced.summary(), paced.last


def _prepare(torch, r, device):
    set_tf32(torch, r.get("tf32", False))
    torch.backends.cudnn.benchmark = device == "cuda"
    return {"fp16": torch.float16, "bf16": torch.bfloat16}.get(r.get("amp"))


def _model(torch, c, r, device):
    """The seeded model (MONAI's init), the same parameters whatever the recipe."""
    torch.manual_seed(0)
    model = build(torch, c["filters"], c["eps"])
    init_monai(torch, model)
    model = model.to(device)
    return model.to(memory_format=torch.channels_last_3d) if r.get("cl") else model


def layout(torch, r, v):
    return v.contiguous(memory_format=torch.channels_last_3d) if r.get("cl") else v


def make_trainer(torch, c, r, device, example):
    """One training step of recipe r (RECIPES) as a peer_timing.Trainer: step((x, t)) uploads the
    batch (a no-op where it is resident), then forward, loss, backward, AdamW and loss.item().
    example: a batch, the static inputs' first contents for a captured graph."""
    import peer_timing as pt
    amp = _prepare(torch, r, device)
    mode, graph = r.get("mode"), r.get("graph", False)
    model = _model(torch, c, r, device).train()
    extra = {k: True for k in ("fused", "graph") if r.get(k)}
    if extra.pop("graph", False):
        extra["capturable"] = True
    opt = torch.optim.AdamW(model.parameters(), lr=c["lr"], betas=(0.9, 0.999), eps=1e-8,
                            weight_decay=c["weight_decay"], **extra)
    trainer = pt.Trainer(torch, model, opt, None)
    if r.get("amp") == "fp16":
        trainer.scaler = torch.amp.GradScaler(device)
    scaler = trainer.scaler

    def forward_loss(x, t):
        return losses(torch, model(x), t, c["smooth"])[0]
    fl = pt.with_autocast(torch, forward_loss, device, amp, capture=graph)
    fl = pt.compiled(torch, fl, mode) if mode else fl

    def compute(x, t):
        pt.step_begin(torch, mode)
        opt.zero_grad(set_to_none=True)
        total = fl(x, t)
        pt.backward_step(total, opt, scaler)
        return total

    if graph:
        sx, st = (layout(torch, r, v.to(device)).clone() for v in example)
        replay = pt.cuda_graph(torch, lambda: compute(sx, st))

        def step(batch):
            sx.copy_(batch[0], non_blocking=True)
            st.copy_(batch[1], non_blocking=True)
            return replay().item()
    else:
        def step(batch):
            return compute(*(v.to(device, non_blocking=True) for v in batch)).item()
    trainer.step = step
    return trainer


def make_infer(torch, c, r, device, x):
    """The no_grad forward of recipe r on the resident batch x (laid out as r says): a callable
    returning the logits."""
    import peer_timing as pt
    amp = _prepare(torch, r, device)
    mode, graph = r.get("mode"), r.get("graph", False)
    model = _model(torch, c, r, device).eval()
    fwd = pt.with_autocast(torch, model, device, amp, capture=graph)
    fwd = pt.compiled(torch, fwd, mode) if mode else fwd
    x = layout(torch, r, x.to(device))

    def call():
        pt.step_begin(torch, mode)
        with torch.no_grad():
            return fwd(x)
    return pt.cuda_graph(torch, call) if graph else call


def ladder_stage(torch, c, sid, budget_s, fixed_steps, warmup):
    dev = "cuda"
    r = RECIPES[sid]
    vols = [tuple(layout(torch, r, v) for v in b)
            for b in synthetic_volumes(torch, c["batch"], c["patch"], 4, 1, dev)]
    trainer = make_trainer(torch, c, r, dev, vols[0])
    res = {"id": sid, "tf32": torch.backends.cudnn.allow_tf32,
           "autocast": {"bf16": "bfloat16", "fp16": "float16"}.get(r.get("amp")),
           "channels_last_3d": r.get("cl", False), "compiled": "mode" in r,
           "fused_adamw": r.get("fused", False)}
    torch.cuda.reset_peak_memory_stats()
    tr, last = timed(torch, lambda x, t: trainer.step((x, t)), vols, budget_s / 2, fixed_steps,
                     warmup)
    res["train"] = dict(tr, fps=c["batch"] / tr["median_ms"] * 1e3,
                        peak_memory_bytes=int(torch.cuda.max_memory_allocated()), last_loss=last)
    trainer = None
    gc.collect()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    try:
        infer = make_infer(torch, c, r, dev, vols[0][0])
        inf, _ = timed(torch, lambda x, t: infer(), vols, budget_s / 2, fixed_steps, warmup)
        res["inference"] = dict(inf, fps=c["batch"] / inf["median_ms"] * 1e3,
                                peak_memory_bytes=int(torch.cuda.max_memory_allocated()))
    except Exception as e:  # e.g. a compile failure of the no_grad graph only
        res["inference"] = {"error": f"{type(e).__name__}: {str(e)[:2000]}"}
    return res


def run_ladder(args):
    import torch
    if not torch.cuda.is_available():
        sys.exit("ladder: needs CUDA")
    s = SIZES[args.size]
    c = dict(filters=s["filters"], patch=s["patch"], batch=args.batch or s["batch"], lr=s["lr"],
             weight_decay=DEFAULTS["weight_decay"], eps=DEFAULTS["eps"], smooth=DEFAULTS["smooth"])
    stages = args.stages.split(",") if args.stages else list(STAGES)
    for sid in stages:
        if sid not in STAGES:
            sys.exit(f"ladder: unknown stage '{sid}' (stages: {', '.join(STAGES)})")
    share = args.budget_s / len(stages)
    out = {"mode": "ladder", "model": "dynunet", "size": args.size, "batch": c["batch"],
           "config": c, "device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "budget_s": args.budget_s, "timing": "CUDA events, median; training step = forward, "
           "loss, backward, AdamW, loss.item(); inference = no_grad forward; volumes resident on "
           "the GPU; FPS = volumes per second", "stages": []}
    t0 = time.perf_counter()
    for sid in stages:
        gc.collect()
        torch.cuda.empty_cache()
        try:
            r = ladder_stage(torch, c, sid, share, args.steps, args.warmup)
        except Exception as e:  # a compile failure (or any other) is reported, not fatal
            r = {"id": sid, "error": f"{type(e).__name__}: {str(e)[:2000]}"}
        out["stages"].append(r)
        if "error" in r:
            print(f"{sid:15s} failed: {r['error'][:300]}", file=sys.stderr)
        else:
            tr, inf = r["train"], r["inference"]
            print(f"{sid:15s} train {tr['median_ms']:8.2f} ms {tr['fps']:7.1f} FPS "
                  f"{tr['peak_memory_bytes'] / 2**30:6.2f} GiB | inference " +
                  (f"{inf['median_ms']:8.2f} ms {inf['fps']:7.1f} FPS "
                   f"{inf['peak_memory_bytes'] / 2**30:6.2f} GiB" if "median_ms" in inf
                   else "failed: " + inf["error"][:200]), file=sys.stderr)
    base = out["stages"][0] if out["stages"] and "train" in out["stages"][0] else None
    for r in out["stages"]:
        if base and "train" in r:
            r["train"]["speedup_vs_first"] = base["train"]["median_ms"] / r["train"]["median_ms"]
            if "median_ms" in r["inference"] and "median_ms" in base["inference"]:
                r["inference"]["speedup_vs_first"] = (base["inference"]["median_ms"] /
                                                      r["inference"]["median_ms"])
    out["total_s"] = time.perf_counter() - t0
    set_tf32(torch, False)
    emit(out, args.json)
    return 0


def run_peer(args):
    """`stagebench peer`: the ladder's stages and the stronger variants of RECIPES at a
    stagebench size (peer_timing.py's JSON): training steps in "variants", the inference forward
    under "inference", on CUDA or the CPU."""
    import torch
    import peer_timing as pt
    dev = args.device
    pt.check_device(torch, dev)
    s = SIZES[args.size]
    c = dict(filters=s["filters"], patch=s["patch"], batch=args.batch or s["batch"], lr=s["lr"],
             weight_decay=DEFAULTS["weight_decay"], eps=DEFAULTS["eps"], smooth=DEFAULTS["smooth"])
    vols = synthetic_volumes(torch, c["batch"], c["patch"], 4, 1, "cpu")
    # made ahead on the host, uploaded in each step as stagebench's step writes its batch
    host = {cl: [tuple(layout(torch, {"cl": cl}, v).pin_memory() if dev == "cuda" else
                       layout(torch, {"cl": cl}, v) for v in b) for b in vols]
            for cl in (False, True)}

    def train_variant(name):
        r = RECIPES[name]
        batches = host[r.get("cl", False)]

        def make():
            tr = make_trainer(torch, c, r, dev, batches[0])
            count = itertools.count()
            # no dropout in this model: the timed trainer itself takes the check step
            return pt.Run(lambda: tr.step(batches[next(count) % len(batches)]),
                          lambda: tr.check(batches[0]))
        return make

    def infer_variant(name):
        return lambda: make_infer(torch, c, RECIPES[name], dev, vols[0][0])

    def precision(r):
        return r.get("amp") or ("tf32" if r.get("tf32") and dev == "cuda" else "fp32")

    def cuda_only(name, r):
        if r.get("graph") or r.get("mode") == "reduce-overhead":
            return "CUDA graphs need CUDA"
        if r.get("mode") == "max-autotune":
            return "max-autotune is timed on CUDA only"
        if r.get("amp") == "fp16":
            return "fp16 is timed on CUDA only (bf16 is the CPU's half type)"
        return "TF32 is a CUDA tensor-core mode" if "tf32" in name else None

    def menu(skip, make):
        return [pt.Variant(n, make(n), precision(RECIPES[n]), cuda_only(n, RECIPES[n]))
                for n in peer_order(dev) if n not in skip]

    pt.set_tf32(torch, False)
    reference = make_trainer(torch, c, RECIPES["fp32-eager"], dev, host[False][0])
    reference = reference.check(host[False][0])
    pt.set_tf32(torch, False)
    ref_infer = pt.flatten(torch, make_infer(torch, c, RECIPES["fp32-eager"], dev, vols[0][0])())
    shape = [c["batch"], 1] + [c["patch"]] * 3
    work = {"batch": c["batch"], "length": c["patch"], "volume": [c["patch"]] * 3,
            "layers": len(c["filters"]), "filters": list(c["filters"]),
            "output": "one training step: loss and gradients",
            "step": "host batch to device (pinned, non_blocking), forward, loss, backward, "
                    "AdamW, loss.item()",
            "data": "4 synthetic host batches made ahead and cycled (no making in the step)"}
    timing = (f"one training step (upload, forward, Dice + BCE loss, backward, AdamW, "
              f"loss.item()) of {c['batch']} volumes of {c['patch']}^3, time.perf_counter after "
              f"a device synchronize, median of {args.runs} after {args.warmup} warm-up; "
              "variants as dynunet_torch.py's RECIPES (the ladder's cumulative stages, then "
              "cuda-graph*: the whole step captured, AdamW capturable; *-cudagraphs: mode "
              "reduce-overhead; compile-max-autotune: mode max-autotune; -tf32 / -fp32 without "
              "autocast, TF32 on / off), run in PEER_ORDER: the compiled half-precision "
              "variants first, then the eager stages the ladder pairs with, the slowest last "
              "(on the CPU the eager variants first, then the compiled ones), "
              f"training within {TRAIN_SHARE:.0%} of the deadline; a variant the deadline cut "
              "says so in its error")
    check = pt.check_block("PyTorch fp32 eager, TF32 off, same initial parameters and batch; "
                           "one step", "the step's gradients (cosine, rel_l2) and loss "
                           "(loss_rel_diff)")
    # training first, leaving the inference menu the rest of --deadline-s
    variants = pt.run_variants(torch, dev, menu((), train_variant), reference, c["batch"],
                               "volumes/s", args, share=TRAIN_SHARE)
    inference = {
        "timing": (f"one no_grad forward of {c['batch']} volumes of {c['patch']}^3 resident on "
                   f"the device, to the logits; median of {args.runs} after {args.warmup} "
                   "warm-up; the same recipes, cuda-graph: the forward captured"),
        "work": {"batch": c["batch"], "length": c["patch"], "volume": [c["patch"]] * 3,
                 "layers": len(c["filters"]), "output": "logits", "output_shape": shape},
        "check": pt.check_block("PyTorch fp32 eager, TF32 off, same weights and batch",
                                "logits"),
        "variants": pt.run_variants(torch, dev, menu(("fused-adamw",), infer_variant), ref_infer,
                                    c["batch"], "volumes/s", args)}
    pt.write(args.peer_json, torch, dev, "dynunet", args.size, timing, variants, work=work,
             check=check, args=args, inference=inference)
    set_tf32(torch, False)
    return 0


# --- self-test ------------------------------------------------------------------------------------

def write_fixture(torch, d, size, steps, seed):
    """init.safetensors and batches.safetensors in stagebench's trace format, MONAI's init."""
    s = SIZES[size]
    torch.manual_seed(seed)
    model = build(torch, s["filters"])
    init_monai(torch, model)
    with torch.no_grad():  # affine parameters off their defaults, so they are exercised
        for n, p in model.named_parameters():
            if ".norm" in n or n.endswith("bias"):
                p.add_(0.1 * torch.randn_like(p))
    init = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    meta = dict(model="dynunet", size=size, filters=",".join(map(str, s["filters"])),
                patch=s["patch"], batch=s["batch"], eps=f"{DEFAULTS['eps']:.6f}",
                smooth=f"{DEFAULTS['smooth']:.6f}", lr=f"{s['lr']:.6f}",
                weight_decay=f"{DEFAULTS['weight_decay']:.6f}", steps=steps, stage="baseline")
    st_write(os.path.join(d, "init.safetensors"), init, meta)
    bat = {}
    for k, (x, t) in enumerate(synthetic_volumes(torch, s["batch"], s["patch"], steps, seed + 1, "cpu")):
        bat[f"image.{k}"], bat[f"mask.{k}"] = x.numpy(), t.numpy()
    st_write(os.path.join(d, "batches.safetensors"), bat, meta)


def np_loss(logits, mask, smooth):
    z = np.asarray(logits, np.float64).reshape(logits.shape[0], logits.shape[1], -1)
    t = np.asarray(mask, np.float64).reshape(z.shape)
    p = 1 / (1 + np.exp(-z))
    dice = (1 - (2 * (p * t).sum(-1) + smooth) / (p.sum(-1) + t.sum(-1) + smooth)).mean()
    bce = (np.maximum(z, 0) - z * t + np.log1p(np.exp(-np.abs(z)))).mean()
    return dice + bce, dice, bce


def run_selftest(args):
    import torch
    res, ok = {"mode": "selftest", "torch": torch.__version__}, True
    with tempfile.TemporaryDirectory() as d:  # the reader and writer, both ways
        t = {"a": np.arange(12, dtype=np.float32).reshape(3, 4), "b": np.array([1, -2], np.int64)}
        for wr in (st_write_raw, st_write):
            for rd in (st_read_raw, st_read):
                p = os.path.join(d, "t.safetensors")
                wr(p, t, {"x": 1})
                back, meta = rd(p)
                assert meta.get("x") == "1", meta
                for k in t:
                    assert back[k].dtype == t[k].dtype and np.array_equal(back[k], t[k]), k
        res["safetensors_roundtrip"] = "ok"
    for size in ("tiny", "full"):  # names and shapes against params.cpp's list
        f = SIZES[size]["filters"]
        ours = [(k, tuple(v.shape)) for k, v in build(torch, f).state_dict().items()]
        if ours != param_specs(f):
            ok = False
            res[f"names_{size}"] = {"torch": ours, "params_cpp": param_specs(f)}
    res["names_match_params_cpp"] = ok
    res["parameters"] = {s: int(sum(np.prod(sh) for _, sh in param_specs(SIZES[s]["filters"])))
                         for s in SIZES}
    set_tf32(torch, False)
    with tempfile.TemporaryDirectory() as d:
        steps = 3
        write_fixture(torch, d, "tiny", steps, 7)
        init, meta = st_read(os.path.join(d, "init.safetensors"))
        batches, _ = st_read(os.path.join(d, "batches.safetensors"))
        c = config_from(init, meta)
        res["config"] = c
        model = load_model(torch, c, init, "cpu")
        x, tmask = (torch.from_numpy(batches[f"{n}.0"]) for n in ("image", "mask"))
        with torch.no_grad():
            logits = model(x)
            tot = losses(torch, logits, tmask, c["smooth"])[0].item()
            # channels-last must give the same logits
            cl = load_model(torch, c, init, "cpu").to(memory_format=torch.channels_last_3d)
            lcl = cl(x.contiguous(memory_format=torch.channels_last_3d))
        ref = np_loss(logits.numpy(), tmask.numpy(), c["smooth"])[0]
        rel = abs(tot - ref) / abs(ref)
        cl_diff = float((lcl - logits).abs().max())
        curve, final, grads0 = train_reference(torch, c, init, batches, steps, "cpu")
        st_write(os.path.join(d, "trace.safetensors"),
                 dict(**{n: np.asarray(v, np.float32) for n, v in curve.items()}, **final), meta)
        st_write(os.path.join(d, "grads_step0.safetensors"),
                 {n: np.asarray(v, np.float32) for n, v in grads0.items()}, meta)
        cmp = compare(curve, final, st_read(os.path.join(d, "trace.safetensors"))[0], steps,
                      grads0, st_read(os.path.join(d, "grads_step0.safetensors"))[0])
        # the float64 arbiter against fp32 on the same fixture: fp32 rounding alone, within the
        # check's tolerances (check --float64 holds stagebench to the same)
        c64, f64, g64 = train_reference(torch, c, init, batches, steps, "cpu", torch.float64)
        cmp64 = compare(c64, f64, dict(**{n: np.asarray(v, np.float32) for n, v in curve.items()},
                                       **final), steps, g64, grads0)
        pass64, why64 = judge(cmp64, TOLERANCES)
        # and the judge fails a gradient off by 1%, and a trace without gradients
        scaled = {n: 1.01 * v for n, v in grads0.items()}
        bad = compare(curve, final, st_read(os.path.join(d, "trace.safetensors"))[0], steps,
                      grads0, scaled)
        none = compare(curve, final, st_read(os.path.join(d, "trace.safetensors"))[0], steps,
                       grads0, None)
        res["fixture"] = {"losses": curve["loss"], "dice": curve["dice"], "bce": curve["bce"],
                          "loss_vs_float64_rel": rel, "channels_last_max_abs": cl_diff,
                          "logits_shape": list(logits.shape),
                          "trace_roundtrip_cosine": cmp["overall_cosine"],
                          "grads_roundtrip_max_rel_l2": cmp["grads_step0"]["max_tensor_rel_l2"],
                          "fp32_vs_float64": summary(cmp64), "fp32_vs_float64_pass": pass64,
                          "fp32_vs_float64_failures": why64,
                          "judge_fails_grads_1pct_off": not judge(bad, TOLERANCES)[0],
                          "judge_fails_no_grads": not judge(none, TOLERANCES)[0],
                          "changed_from_init": float(max(np.abs(final[k] - init[k]).max() for k in init))}
        ok &= (rel <= 1e-5 and cl_diff < 1e-4 and cmp["overall_cosine"] > 0.9999999
               and cmp["max_rel_loss_diff"] < 1e-6 and all(np.isfinite(curve["loss"]))
               and cmp["grads_step0"]["max_tensor_rel_l2"] < 1e-7 and pass64
               and not judge(bad, TOLERANCES)[0] and not judge(none, TOLERANCES)[0]
               and tuple(logits.shape) == (1, 1, 16, 16, 16))
    res["peer_order_problems"] = peer_order_problems()
    ok &= not res["peer_order_problems"]
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
    ck.add_argument("--dir", required=True, help="stagebench export-steps dynunet --out DIR")
    ck.add_argument("--device", default="cpu", help="cpu: the arbiter alone (PyTorch on the "
                    "CPU); cuda: the CUDA comparison too, reported beside the arbiter's verdict")
    ck.add_argument("--float64", action="store_true", help="the arbiter trains in float64 (PyTorch "
                    "fp32 on the CPU is then reported beside it)")
    ck.add_argument("--steps", type=int, default=0, help="default: the files' steps")
    ck.add_argument("--write-trace", help="write PyTorch's trace in stagebench's format here")
    ck.add_argument("--loss-tol", type=float, default=TOLERANCES["max_rel_loss_diff"])
    ck.add_argument("--cos-tol", type=float, default=TOLERANCES["param_cosine"],
                    help="the final parameters' overall cosine")
    ck.add_argument("--json", help="also write the JSON here")
    ld = sub.add_parser("ladder", help="time PyTorch's training and inference stages on CUDA")
    ld.add_argument("--size", default="full", choices=SIZES)
    ld.add_argument("--batch", type=int, default=0, help="default: the size's batch")
    ld.add_argument("--stages", help="comma-separated subset of " + ",".join(STAGES))
    ld.add_argument("--budget-s", type=float, default=60.0, help="timed seconds over all stages, "
                    "training and inference (warm-up and compilation come on top)")
    ld.add_argument("--steps", type=int, default=0, help="fixed timed steps per measurement")
    ld.add_argument("--warmup", type=int, default=5)
    ld.add_argument("--json", help="also write the JSON here")
    pe = sub.add_parser("peer", help="`stagebench peer`: the ladder's stages as peer JSON")
    import peer_timing
    peer_timing.add_arguments(pe, SIZES, default_warmup=5)
    st = sub.add_parser("selftest", help="tiny on the CPU, no files needed")
    st.add_argument("--json")
    a = ap.parse_args()
    sys.exit({"check": run_check, "ladder": run_ladder, "peer": run_peer,
              "selftest": run_selftest}[a.mode](a))


if __name__ == "__main__":
    main()
