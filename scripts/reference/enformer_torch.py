#!/usr/bin/env python3
"""Enformer in PyTorch, written from enformer-pytorch's layer definitions (docs/models.md),
as the reference stagebench's port is checked and timed against.

  --weights W.safetensors --input X.npy --output Y.safetensors   one forward, every head written
  --check OURS.safetensors                                        compare with stagebench's infer
  --time --size full                                              fp32 eager latency (TF32 off)
  --make-weights W --dim 120 --depth 2 --heads 5 --dk 32 --filters 60,72,84,96,108,120
                   --human 40 --mouse 24                          seeded weights of any shape

With --weights the configuration comes from the file's shapes (and enformer-pytorch's config.json
beside it), the length from the input and the crop from --target, config.json's target_length,
or the rule stagebench uses (docs/models.md, "Your own checkpoints"), so any checkpoint the port
runs is checked on the same configuration. enformer-pytorch's "_trunk.N." aliases and "enformer."
/ "model." prefixes are read as stagebench reads them.
Parameter names are enformer-pytorch's, so the same file loads in both implementations.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

from cuda_timing import each_call_ms, median

SIZES = {
    "tiny": dict(dim=96, depth=2, heads=2, dk=16, div=16, bp=4096, target=16, human=64, mouse=32),
    "small": dict(dim=384, depth=4, heads=4, dk=64, div=64, bp=32768, target=128, human=5313, mouse=1643),
    "full": dict(dim=1536, depth=11, heads=8, dk=64, div=128, bp=196608, target=896, human=5313, mouse=1643),
}


def filters(c):
    if "filters" in c:
        return c["filters"]
    half = c["dim"] // 2
    base = math.exp(math.log(c["dim"] / half) / 5)
    return [half] + [int(round(half * base**i / c["div"]) * c["div"]) for i in range(6)]


def gelu(x):
    return torch.sigmoid(1.702 * x) * x


def positional_features(n, r, device):
    d = torch.arange(-n + 1, n, device=device).float()
    k = r // 6
    a = d.abs()[:, None]
    half_life = 2 ** torch.linspace(3.0, math.log2(n), k, device=device)
    exp = torch.exp(-math.log(2.0) / half_life[None] * a)
    widths = 2 ** torch.arange(1, k + 1, device=device).float() - 1
    mask = (widths[None] > a).float()
    stddev, mean = n / (2 * k), torch.linspace(n / k, n, k, device=device)[None]
    conc, rate = (mean / stddev) ** 2, mean / stddev**2
    logp = torch.xlogy(conc - 1.0, a) - rate * a - (torch.lgamma(conc) - conc * torch.log(rate))
    gamma = torch.exp(logp) + 1e-8
    gamma = gamma / gamma.amax(dim=-1, keepdim=True)
    e = torch.cat([exp, mask, gamma], dim=-1)
    return torch.cat([e, torch.sign(d)[:, None] * e], dim=-1)


def relative_shift(x):
    pad = torch.zeros_like(x[..., :1])
    x = torch.cat((pad, x), dim=-1)
    _, h, t1, t2 = x.shape
    x = x.reshape(-1, h, t2, t1)[:, :, 1:, :].reshape(-1, h, t1, t2 - 1)
    return x[..., : (t2 + 1) // 2]


class Enformer:
    def __init__(self, c, p):
        self.c, self.p = c, p

    def bn(self, x, pre):  # x: (B, C, L)
        p = self.p
        return F.batch_norm(x, p[pre + ".running_mean"], p[pre + ".running_var"],
                            p[pre + ".weight"], p[pre + ".bias"], False, 0.0, 1e-5)

    def conv_block(self, x, bn, conv, k):
        return F.conv1d(gelu(self.bn(x, bn)), self.p[conv + ".weight"], self.p[conv + ".bias"], padding=k // 2)

    def pool(self, x, pre):
        b, ch, n = x.shape
        x = x.reshape(b, ch, n // 2, 2)
        logits = F.conv2d(x, self.p[pre + ".to_attn_logits.weight"])
        return (x * logits.softmax(dim=-1)).sum(dim=-1)

    def attention(self, x, pre):
        p, c = self.p, self.c
        b, n, _ = x.shape
        h, dk = c["heads"], c["dk"]
        q = F.linear(x, p[pre + ".to_q.weight"]).reshape(b, n, h, -1).transpose(1, 2) * dk**-0.5
        k = F.linear(x, p[pre + ".to_k.weight"]).reshape(b, n, h, -1).transpose(1, 2)
        v = F.linear(x, p[pre + ".to_v.weight"]).reshape(b, n, h, -1).transpose(1, 2)
        content = torch.einsum("bhid,bhjd->bhij", q + p[pre + ".rel_content_bias"], k)
        pos = positional_features(n, c["dim"] // h, x.device)
        rel_k = F.linear(pos, p[pre + ".to_rel_k.weight"]).reshape(-1, h, dk).transpose(0, 1)
        rel = relative_shift(torch.einsum("bhid,hjd->bhij", q + p[pre + ".rel_pos_bias"], rel_k))
        attn = (content + rel).softmax(dim=-1)
        out = torch.einsum("bhij,bhjd->bhid", attn, v).transpose(1, 2).reshape(b, n, -1)
        return F.linear(out, p[pre + ".to_out.weight"], p[pre + ".to_out.bias"])

    def forward(self, one_hot):  # (B, L, 4)
        p, c = self.p, self.c
        x = one_hot.transpose(1, 2)
        x = F.conv1d(x, p["stem.0.weight"], p["stem.0.bias"], padding=7)
        x = x + self.conv_block(x, "stem.1.fn.0", "stem.1.fn.2", 1)
        x = self.pool(x, "stem.2")
        for i in range(len(filters(c)) - 1):
            t = f"conv_tower.{i}"
            x = self.conv_block(x, t + ".0.0", t + ".0.2", 5)
            x = x + self.conv_block(x, t + ".1.fn.0", t + ".1.fn.2", 1)
            x = self.pool(x, t + ".2")
        x = x.transpose(1, 2)
        for l in range(c["depth"]):
            t = f"transformer.{l}"
            x = x + self.attention(F.layer_norm(x, (c["dim"],), p[t + ".0.fn.0.weight"], p[t + ".0.fn.0.bias"]), t + ".0.fn.1")
            y = F.layer_norm(x, (c["dim"],), p[t + ".1.fn.0.weight"], p[t + ".1.fn.0.bias"])
            y = F.linear(F.relu(F.linear(y, p[t + ".1.fn.1.weight"], p[t + ".1.fn.1.bias"])), p[t + ".1.fn.4.weight"], p[t + ".1.fn.4.bias"])
            x = x + y
        trim = (x.shape[1] - c["target"]) // 2
        x = x[:, trim: trim + c["target"]]
        emb = gelu(self.conv_block(x.transpose(1, 2), "final_pointwise.1.0", "final_pointwise.1.2", 1)).transpose(1, 2)
        human = F.softplus(F.linear(emb, p["_heads.human.0.weight"], p["_heads.human.0.bias"]))
        mouse = F.softplus(F.linear(emb, p["_heads.mouse.0.weight"], p["_heads.mouse.0.bias"]))
        return {"embeddings": emb, "human": human, "mouse": mouse}


def random_params(c, seed):
    """Reference-scale random parameters under the reference names: BatchNorm statistics drawn
    near trained ranges so that no layer is an identity (for timing, and for checks of shapes no
    named size has)."""
    g = torch.Generator().manual_seed(seed)
    f, p = filters(c), {}
    def u(name, shape, fan_in):
        p[name] = (torch.rand(shape, generator=g) * 2 - 1) / math.sqrt(fan_in)
    def bn(pre, ch):
        r = lambda: torch.rand(ch, generator=g) * 2 - 1
        p[pre + ".weight"], p[pre + ".bias"] = 1 + 0.2 * r(), 0.1 * torch.randn(ch, generator=g)
        p[pre + ".running_mean"] = 0.1 * torch.randn(ch, generator=g)
        p[pre + ".running_var"] = 1 + 0.5 * r()
    def conv(pre, o, i, k):
        u(pre + ".weight", (o, i, k), i * k); u(pre + ".bias", (o,), i * k)
    conv("stem.0", f[0], 4, 15); bn("stem.1.fn.0", f[0]); conv("stem.1.fn.2", f[0], f[0], 1)
    p["stem.2.to_attn_logits.weight"] = 2 * torch.eye(f[0])[:, :, None, None]
    for i in range(len(f) - 1):
        t = f"conv_tower.{i}"
        bn(t + ".0.0", f[i]); conv(t + ".0.2", f[i + 1], f[i], 5)
        bn(t + ".1.fn.0", f[i + 1]); conv(t + ".1.fn.2", f[i + 1], f[i + 1], 1)
        p[t + ".2.to_attn_logits.weight"] = 2 * torch.eye(f[i + 1])[:, :, None, None]
    d, hk = c["dim"], c["heads"] * c["dk"]
    for l in range(c["depth"]):
        t, a = f"transformer.{l}", f"transformer.{l}.0.fn.1"
        for ln in (".0.fn.0", ".1.fn.0"):
            p[t + ln + ".weight"], p[t + ln + ".bias"] = torch.ones(d), torch.zeros(d)
        u(a + ".to_q.weight", (hk, d), d); u(a + ".to_k.weight", (hk, d), d); u(a + ".to_v.weight", (d, d), d)
        u(a + ".to_out.weight", (d, d), d); u(a + ".to_out.bias", (d,), d)
        u(a + ".to_rel_k.weight", (hk, d // c["heads"]), d // c["heads"])
        p[a + ".rel_content_bias"] = torch.randn((1, c["heads"], 1, c["dk"]), generator=g)
        p[a + ".rel_pos_bias"] = torch.randn((1, c["heads"], 1, c["dk"]), generator=g)
        u(t + ".1.fn.1.weight", (2 * d, d), d); u(t + ".1.fn.1.bias", (2 * d,), d)
        u(t + ".1.fn.4.weight", (d, 2 * d), 2 * d); u(t + ".1.fn.4.bias", (d,), 2 * d)
    bn("final_pointwise.1.0", d); conv("final_pointwise.1.2", 2 * d, d, 1)
    u("_heads.human.0.weight", (c["human"], 2 * d), 2 * d); u("_heads.human.0.bias", (c["human"],), 2 * d)
    u("_heads.mouse.0.weight", (c["mouse"], 2 * d), 2 * d); u("_heads.mouse.0.bias", (c["mouse"],), 2 * d)
    return p


ALIASES = {"_trunk.1.": "stem.", "_trunk.2.": "conv_tower.", "_trunk.4.": "transformer.",
           "_trunk.6.": "final_pointwise."}


def own_names(params):
    """Stored names -> this script's: prefixes dropped, the trunk's aliases mapped back."""
    out = {}
    for k, v in params.items():
        for pre in ("enformer.", "model."):
            if k.startswith(pre):
                k = k[len(pre):]
        for a, name in ALIASES.items():
            if k.startswith(a):
                k = name + k[len(a):]
        out.setdefault(k, v)
    return out


def target_rule(bp, tokens):
    for c in SIZES.values():
        if c["bp"] == bp:
            return c["target"]
    return tokens - 2 * (tokens * 320 // 1536)


def config_from_weights(p, path, bp, target):
    """The configuration the shapes say, as stagebench's models/enformer/checkpoint.cpp reads it."""
    f = [p["stem.0.weight"].shape[0]]
    while f"conv_tower.{len(f) - 1}.0.2.weight" in p:
        f.append(p[f"conv_tower.{len(f) - 1}.0.2.weight"].shape[0])
    depth = 0
    while f"transformer.{depth}.0.fn.1.to_q.weight" in p:
        depth += 1
    dim = p["final_pointwise.1.0.weight"].shape[0]
    rel = p["transformer.0.0.fn.1.to_rel_k.weight"].shape
    heads = dim // rel[1]
    c = dict(dim=dim, depth=depth, heads=heads, dk=rel[0] // heads, filters=f, bp=bp,
             human=p["_heads.human.0.weight"].shape[0], mouse=p["_heads.mouse.0.weight"].shape[0])
    tokens = bp // 2 ** len(f)
    cfg = os.path.join(os.path.dirname(path), "config.json")
    tl = json.load(open(cfg)).get("target_length") if os.path.exists(cfg) else None
    c["target"] = target or (tokens if tl == -1 else tl) or target_rule(bp, tokens)
    return c


def read_input(path):
    x = np.load(path)
    if x.ndim in (1, 2) and x.shape[-1] != 4:  # base indices -> one-hot, others zero
        x = np.atleast_2d(x)
        oh = np.zeros(x.shape + (4,), np.float32)
        for b in range(4):
            oh[..., b] = x == b
        x = oh
    x = np.atleast_3d(x).astype(np.float32)
    return torch.from_numpy(x.reshape(-1, x.shape[-2], 4))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="tiny", choices=SIZES)
    ap.add_argument("--weights"); ap.add_argument("--input"); ap.add_argument("--output")
    ap.add_argument("--check"); ap.add_argument("--time", action="store_true")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--target", type=int)
    ap.add_argument("--make-weights")
    for k in ("dim", "depth", "heads", "dk", "human", "mouse"):
        ap.add_argument("--" + k, type=int)
    ap.add_argument("--filters", help="comma-separated: the stem's, then each tower block's")
    a = ap.parse_args()
    if a.make_weights:
        c = dict(SIZES[a.size])
        for k in ("dim", "depth", "heads", "dk", "human", "mouse"):
            if getattr(a, k):
                c[k] = getattr(a, k)
        if a.filters:
            c["filters"] = [int(v) for v in a.filters.split(",")]
        save_file({k: v.contiguous() for k, v in random_params(c, 7).items()}, a.make_weights)
        print(f"wrote {a.make_weights}: {c}")
        return
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    c = SIZES[a.size]
    params = own_names(load_file(a.weights)) if a.weights else random_params(c, 1)
    params = {k: v.float().to(dev) for k, v in params.items()}
    x_in = None
    if a.input:
        x_in = read_input(a.input)
        if a.weights:
            c = config_from_weights(params, a.weights, x_in.shape[1], a.target)
            print(f"configuration from the weights: {c}")
    model = Enformer(c, params)
    with torch.no_grad():
        if a.time:
            x = F.one_hot(torch.randint(0, 4, (1, c["bp"]), device=dev), 4).float()
            times = each_call_ms(torch, lambda: model.forward(x), runs=a.runs)
            print(f"pytorch {torch.__version__} fp32 eager (TF32 off) enformer/{a.size} on "
                  f"{torch.cuda.get_device_name()}: median {median(times):.1f} ms, "
                  f"min {times[0]:.1f} ms, max {times[-1]:.1f} ms over {a.runs} runs")
            return
        model = Enformer(c, params)
        out = model.forward(x_in.to(dev))
        out = {k: v.float().cpu().contiguous() for k, v in out.items()}
        if a.output:
            save_file(out, a.output)
        if a.check:
            ours = load_file(a.check)
            worst = 1.0
            for k, v in out.items():
                o = ours[k].float().reshape(v.shape)
                cos = F.cosine_similarity(o.flatten().double(), v.flatten().double(), dim=0).item()
                rel = ((o - v).norm() / v.norm()).item()
                worst = min(worst, cos)
                print(f"{k}: cosine {cos:.8f}, rel_l2 {rel:.2e}, max_abs {(o - v).abs().max().item():.2e}")
            sys.exit(0 if worst >= 0.99999 else 1)


def peer_inputs(size, device, batch=0):
    """The peer's configuration, model (random fp32 weights) and one-hot input at a stagebench
    size (batch 0: 1), on `device`; scripts/reference/torch_kernels.py profiles the same."""
    c, batch = SIZES[size], batch or 1
    params = {k: v.float().to(device) for k, v in random_params(c, 1).items()}
    model = Enformer(c, params)
    g = torch.Generator().manual_seed(2)
    x = F.one_hot(torch.randint(0, 4, (batch, c["bp"]), generator=g), 4).float().to(device)
    return c, model, x


def peer_main():
    """`--peer-json OUT --size S --device D --runs N`: PyTorch's own inference variants at a
    stagebench size (`stagebench peer`, scripts/reference/peer_timing.py), on random weights:
    a no_grad forward of the size's one-hot sequence to the embeddings and both heads, the output
    stagebench checks and times."""
    import peer_timing as pt
    ap = argparse.ArgumentParser(description="enformer_torch.py peer mode")
    pt.add_arguments(ap, SIZES)
    a = ap.parse_args()
    pt.check_device(torch, a.device)
    c, model, x = peer_inputs(a.size, a.device, a.batch)
    batch = x.shape[0]

    def variant(tf32=False, dtype=None, mode=None):
        def make():
            pt.set_tf32(torch, tf32)
            fn = pt.with_autocast(torch, model.forward, a.device, dtype)
            fn = pt.compiled(torch, fn, mode) if mode else fn

            def call():
                pt.step_begin(torch, mode)
                with torch.no_grad():
                    return fn(x)
            return call
        return make

    pt.set_tf32(torch, False)
    with torch.no_grad():
        reference = pt.flatten(torch, model.forward(x))
    V, f16, bf16 = pt.Variant, torch.float16, torch.bfloat16
    tf32_why, graphs_why = "TF32 is a CUDA tensor-core mode", "CUDA graphs need CUDA"
    f16_why = "fp16 is timed on CUDA only (bf16 is the CPU's half type)"
    variants = [V("fp32-eager", variant(), "fp32"),
                V("tf32", variant(tf32=True), "tf32", tf32_why),
                V("bf16-autocast", variant(True, bf16), "bf16"),
                V("fp16-autocast", variant(True, f16), "fp16", f16_why),
                V("compile-tf32", variant(True, mode="default"), "tf32", tf32_why)]
    if a.device == "cpu":  # on CUDA the fp32 graph is compiled with TF32 (compile-tf32)
        variants.append(V("compile-fp32", variant(mode="default"), "fp32"))
    # likeliest-fastest first: a deadline cuts the last
    variants += [V("compile-fp16", variant(True, f16, "default"), "fp16", f16_why),
                 V("compile-fp16-cudagraphs", variant(True, f16, "reduce-overhead"), "fp16",
                   graphs_why),
                 V("compile-bf16", variant(True, bf16, "default"), "bf16"),
                 V("compile-fp16-max-autotune", variant(True, f16, "max-autotune"), "fp16",
                   "max-autotune is timed on CUDA only")]
    out_sizes = [c["target"] * 2 * c["dim"], c["target"] * c["human"], c["target"] * c["mouse"]]
    work = {"batch": batch, "length": c["bp"], "tokens": c["bp"] // 2 ** len(filters(c)),
            "layers": c["depth"], "target": c["target"], "output": "embeddings, human, mouse",
            "output_elements": batch * sum(out_sizes), "input": "one-hot, resident on the device"}
    timing = (f"one no_grad forward of {batch} x {c['bp']} bp to the embeddings and both heads, "
              f"time.perf_counter after a device synchronize, median of {a.runs} after "
              f"{a.warmup} warm-up; TF32 off in fp32-eager (and compile-fp32), on from tf32; "
              "autocast over the forward; compile-*: torch.compile(forward), cudagraphs: "
              "mode reduce-overhead, max-autotune: mode max-autotune")
    check = pt.check_block("PyTorch fp32 eager, TF32 off, same weights and input",
                           "embeddings, human and mouse heads, concatenated")
    pt.write(a.peer_json, torch, a.device, "enformer", a.size, timing,
             pt.run_variants(torch, a.device, variants, reference, batch, "sequences/s", a),
             work=work, check=check, args=a)


if __name__ == "__main__":
    peer_main() if "--peer-json" in sys.argv else main()
