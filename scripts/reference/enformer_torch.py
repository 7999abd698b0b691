#!/usr/bin/env python3
"""Enformer in PyTorch, written from enformer-pytorch's layer definitions (docs/models.md),
as the reference stagebench's port is checked and timed against.

  --weights W.safetensors --input X.npy --output Y.safetensors   one forward, every head written
  --check OURS.safetensors                                        compare with stagebench's infer
  --time --size full                                              fp32 eager latency (TF32 off)

Parameter names are enformer-pytorch's, so the same file loads in both implementations.
"""
import argparse
import math
import sys

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

SIZES = {
    "tiny": dict(dim=96, depth=2, heads=2, dk=16, div=16, bp=4096, target=16, human=64, mouse=32),
    "small": dict(dim=384, depth=4, heads=4, dk=64, div=64, bp=32768, target=128, human=5313, mouse=1643),
    "full": dict(dim=1536, depth=11, heads=8, dk=64, div=128, bp=196608, target=896, human=5313, mouse=1643),
}


def filters(c):
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
        for i in range(6):
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
    """Reference-scale random parameters under the reference names (for timing only)."""
    g = torch.Generator().manual_seed(seed)
    f, p = filters(c), {}
    def u(name, shape, fan_in):
        p[name] = (torch.rand(shape, generator=g) * 2 - 1) / math.sqrt(fan_in)
    def bn(pre, ch):
        p[pre + ".weight"], p[pre + ".bias"] = torch.ones(ch), torch.zeros(ch)
        p[pre + ".running_mean"], p[pre + ".running_var"] = torch.zeros(ch), torch.ones(ch)
    def conv(pre, o, i, k):
        u(pre + ".weight", (o, i, k), i * k); u(pre + ".bias", (o,), i * k)
    conv("stem.0", f[0], 4, 15); bn("stem.1.fn.0", f[0]); conv("stem.1.fn.2", f[0], f[0], 1)
    p["stem.2.to_attn_logits.weight"] = 2 * torch.eye(f[0])[:, :, None, None]
    for i in range(6):
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


def read_input(path, bp):
    x = np.load(path)
    if x.ndim in (1, 2) and x.shape[-1] != 4:  # base indices -> one-hot, others zero
        x = np.atleast_2d(x)
        oh = np.zeros(x.shape + (4,), np.float32)
        for b in range(4):
            oh[..., b] = x == b
        x = oh
    return torch.from_numpy(np.atleast_3d(x).astype(np.float32).reshape(-1, bp, 4))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="tiny", choices=SIZES)
    ap.add_argument("--weights"); ap.add_argument("--input"); ap.add_argument("--output")
    ap.add_argument("--check"); ap.add_argument("--time", action="store_true")
    ap.add_argument("--runs", type=int, default=20)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    c = SIZES[a.size]
    params = load_file(a.weights) if a.weights else random_params(c, 1)
    params = {k: v.float().to(dev) for k, v in params.items()}
    model = Enformer(c, params)
    with torch.no_grad():
        if a.time:
            x = F.one_hot(torch.randint(0, 4, (1, c["bp"]), device=dev), 4).float()
            for _ in range(3):
                model.forward(x)
            torch.cuda.synchronize()
            times = []
            for _ in range(a.runs):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record(); model.forward(x); e.record(); torch.cuda.synchronize()
                times.append(s.elapsed_time(e))
            times.sort()
            print(f"pytorch {torch.__version__} fp32 eager (TF32 off) enformer/{a.size} on "
                  f"{torch.cuda.get_device_name()}: median {times[len(times) // 2]:.1f} ms, "
                  f"min {times[0]:.1f} ms, max {times[-1]:.1f} ms over {a.runs} runs")
            return
        out = model.forward(read_input(a.input, c["bp"]).to(dev))
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


if __name__ == "__main__":
    main()
