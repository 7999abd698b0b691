#!/usr/bin/env python3
"""Geneformer (post-LN BERT, docs/models.md) in PyTorch, as the reference stagebench's port
is checked and timed against. Parameter names are Hugging Face BertModel's.

  --weights W.safetensors --ids IDS.npy --check OURS.safetensors
        runs Hugging Face transformers' BertModel when it is installed (else the plain PyTorch
        model below) on stagebench's exported weights and ids, and compares every hidden state
        and the cell embedding with `stagebench infer geneformer`'s output. Any BERT checkpoint
        (a file or a folder with model.safetensors, `bert.` names): its configuration comes from
        the shapes and config.json beside it, or --heads/--eps, as stagebench reads it.
  --time --batch 32 --tokens 2048
        samples/s of PyTorch fp32 eager (materialized attention, TF32 off) and of fp16 with fused
        attention (scaled_dot_product_attention: flash / memory-efficient kernels), CUDA events.
  --peer-json OUT --size full [--device cuda|cpu] [--runs 20]
        `stagebench peer`: fp32 eager, TF32, TF32 with SDPA, fp16/bf16 with SDPA, torch.compile
        of those (CUDA graphs and max-autotune too) at stagebench's size, computing the layers the
        cell embedding needs, as JSON (peer_timing.py).
"""
import argparse
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file

from cuda_timing import each_call_ms, median
from synthetic_cells import DEFAULT_SEED, synthetic_length

FULL = dict(layers=6, hidden=256, heads=4, inter=512, vocab=25426, positions=2048)
TINY = dict(layers=2, hidden=64, heads=4, inter=128, vocab=1024, positions=256)


def random_params(c, seed):
    g = torch.Generator().manual_seed(seed)
    p = {}
    d = c["hidden"]

    def lin(name, o, i):
        b = 1 / i**0.5
        p[name + ".weight"] = (torch.rand(o, i, generator=g) * 2 - 1) * b
        p[name + ".bias"] = (torch.rand(o, generator=g) * 2 - 1) * b

    def ln(name):
        p[name + ".weight"] = 1 + 0.1 * (torch.rand(d, generator=g) * 2 - 1)
        p[name + ".bias"] = 0.05 * torch.randn(d, generator=g)

    p["embeddings.word_embeddings.weight"] = torch.randn(c["vocab"], d, generator=g)
    p["embeddings.position_embeddings.weight"] = torch.randn(c["positions"], d, generator=g)
    p["embeddings.token_type_embeddings.weight"] = torch.randn(2, d, generator=g)
    ln("embeddings.LayerNorm")
    for l in range(c["layers"]):
        pre = f"encoder.layer.{l}."
        for n in ("query", "key", "value"):
            lin(pre + "attention.self." + n, d, d)
        lin(pre + "attention.output.dense", d, d)
        ln(pre + "attention.output.LayerNorm")
        lin(pre + "intermediate.dense", c["inter"], d)
        lin(pre + "output.dense", d, c["inter"])
        ln(pre + "output.LayerNorm")
    return p


def bert(p, c, ids, mask, fused, layers=None, keep=True):
    """The hidden states after the embeddings and each of the first `layers` layers (default:
    all); keep=False holds only the last, as a graph that frees what is dead would.
    fused=True uses scaled_dot_product_attention."""
    d, h = c["hidden"], c["heads"]
    dh = d // h
    B, S = ids.shape
    x = (p["embeddings.word_embeddings.weight"][ids] + p["embeddings.position_embeddings.weight"][:S]
         + p["embeddings.token_type_embeddings.weight"][0])
    x = F.layer_norm(x, (d,), p["embeddings.LayerNorm.weight"], p["embeddings.LayerNorm.bias"], c.get("eps", 1e-12))
    bias = (1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
    states = [x]
    for l in range(c["layers"] if layers is None else layers):
        pre = f"encoder.layer.{l}."
        lin = lambda t, n: F.linear(t, p[pre + n + ".weight"], p[pre + n + ".bias"])
        heads = lambda t: t.view(B, S, h, dh).transpose(1, 2)
        q, k, v = (heads(lin(x, "attention.self." + n)) for n in ("query", "key", "value"))
        if fused:
            ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        else:
            s = q @ k.transpose(-1, -2) / dh**0.5 + bias
            ctx = s.softmax(-1) @ v
        ctx = ctx.transpose(1, 2).reshape(B, S, d)
        a = F.layer_norm(lin(ctx, "attention.output.dense") + x, (d,),
                         p[pre + "attention.output.LayerNorm.weight"],
                         p[pre + "attention.output.LayerNorm.bias"], c.get("eps", 1e-12))
        act = F.gelu if c.get("act") == "gelu" else F.relu  # HF "gelu" is the exact (erf) GELU
        x = F.layer_norm(lin(act(lin(a, "intermediate.dense")), "output.dense") + a, (d,),
                         p[pre + "output.LayerNorm.weight"], p[pre + "output.LayerNorm.bias"], c.get("eps", 1e-12))
        states.append(x)
        if not keep:
            del states[:-1]
    return states


def cell_embedding(state, mask):
    m = mask[..., None].to(state.dtype)
    return (state * m).sum(1) / m.sum(1)


def embedding_layer(c):
    """The layer whose output the cell embedding reads: the second-to-last (models/geneformer/
    config.h, Config::embedding_layer), so a graph that drops dead code runs only that many."""
    return c["layers"] - 1 if c["layers"] > 1 else c["layers"]


def cells(p, c, ids, mask, fused):
    """The cell embedding, computing only the layers it needs, as stagebench's graph stages do."""
    return cell_embedding(bert(p, c, ids, mask, fused, embedding_layer(c), keep=False)[-1], mask)


def hf_states(p, c, ids, mask):
    try:
        from transformers import BertConfig, BertModel
    except ImportError:
        return None
    cfg = BertConfig(vocab_size=c["vocab"], hidden_size=c["hidden"], num_hidden_layers=c["layers"],
                     num_attention_heads=c["heads"], intermediate_size=c["inter"], hidden_act=c.get("act", "relu"),
                     max_position_embeddings=c["positions"], layer_norm_eps=c.get("eps", 1e-12),
                     attn_implementation="eager")
    model = BertModel(cfg, add_pooling_layer=False).eval()
    missing, unexpected = model.load_state_dict(p, strict=False)
    if [m for m in missing if "position_ids" not in m] or unexpected:
        sys.exit(f"BertModel did not take the weights: missing {missing}, unexpected {unexpected}")
    with torch.no_grad():
        return list(model(ids, attention_mask=mask, output_hidden_states=True).hidden_states)


def compare(name, ours, ref):
    a, b = ours.double().flatten(), ref.double().flatten()
    cos = torch.dot(a, b) / (a.norm() * b.norm())
    rel = (a - b).norm() / b.norm()
    print(f"{name:18s} cosine {cos:.8f}  rel-L2 {rel:.2e}  max|diff| {(a - b).abs().max():.2e}")
    return rel.item()


def checkpoint_config(p, weights, heads=None, eps=None):
    """A user's own BERT, as `stagebench infer geneformer --weights` reads it (docs/models.md):
    dimensions from the shapes, heads and eps from --heads/--eps, else config.json beside the
    weights, else the named size's, else hidden/64 and 1e-12."""
    import json
    import os
    word = p["embeddings.word_embeddings.weight"].shape
    layers = {int(k.split(".")[2]) for k in p if k.startswith("encoder.layer.")}
    c = dict(layers=len(layers), hidden=word[1], vocab=word[0],
             inter=p["encoder.layer.0.intermediate.dense.weight"].shape[0],
             positions=p["embeddings.position_embeddings.weight"].shape[0])
    named = next((n for n in (FULL, TINY) if all(n[k] == c[k] for k in c)), None)
    c["heads"], c["eps"] = (named["heads"], 1e-12) if named else (c["hidden"] // 64, 1e-12)
    cfg = os.path.join(os.path.dirname(os.path.abspath(weights)), "config.json")
    if os.path.exists(cfg):
        j = json.load(open(cfg))
        c["heads"] = j.get("num_attention_heads", c["heads"])
        c["eps"] = j.get("layer_norm_eps", c["eps"])
        c["act"] = j.get("hidden_act", "relu")
    c["heads"] = heads or c["heads"]
    c["eps"] = eps or c["eps"]
    print("configuration:", c)
    return c


def check(args):
    path = args.weights
    if os.path.isdir(path):
        path = os.path.join(path, "model.safetensors")
    p = {(k[5:] if k.startswith("bert.") else k): v.float() for k, v in load_file(path).items()
         if not k.startswith("cls.")}
    c = checkpoint_config(p, path, args.heads, args.eps)
    ids = torch.from_numpy(np.load(args.ids).astype(np.int64))
    ids = ids[None] if ids.dim() == 1 else ids
    mask = (ids != 0).long()
    states = hf_states(p, c, ids, mask)
    source = "transformers BertModel (eager)"
    if states is None:
        source = "plain PyTorch BERT (transformers not installed)"
        with torch.no_grad():
            states = bert(p, c, ids, mask, fused=False)
    print("reference:", source)
    ours = load_file(args.check)
    worst = 0.0
    for i, s in enumerate(states):
        worst = max(worst, compare(f"hidden_states.{i}", ours[f"hidden_states.{i}"], s))
    emb = cell_embedding(states[embedding_layer(c)], mask)
    worst = max(worst, compare("cell_embedding", ours["cell_embedding"], emb))
    sys.exit(0 if worst < 1e-4 else 1)


def time_it(fn, runs):
    return median(each_call_ms(torch, fn, runs))


def timing(args):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    c = FULL
    dev = "cuda"
    p = {k: v.to(dev) for k, v in random_params(c, 1).items()}
    g = torch.Generator().manual_seed(DEFAULT_SEED)
    ids = torch.randint(2, c["vocab"], (args.batch, args.tokens), generator=g).to(dev)
    mask = torch.ones_like(ids)
    for b in range(1, args.batch):  # stagebench's synthetic cells' lengths (synthetic_cells.py)
        n = synthetic_length(args.tokens, DEFAULT_SEED, b)
        ids[b, n:] = 0
        mask[b, n:] = 0
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, batch {args.batch} x "
          f"{args.tokens} tokens, {c['layers']} layers, median of {args.runs} (CUDA events)")
    with torch.no_grad():
        ms = time_it(lambda: bert(p, c, ids, mask, fused=False), args.runs)
        print(f"fp32 eager (materialized attention, TF32 off): {ms:8.2f} ms/batch "
              f"{args.batch / ms * 1e3:9.1f} samples/s")
        ph = {k: v.half() for k, v in p.items()}
        ms = time_it(lambda: bert(ph, c, ids, mask, fused=True), args.runs)
        print(f"fp16, fused attention (SDPA):                  {ms:8.2f} ms/batch "
              f"{args.batch / ms * 1e3:9.1f} samples/s")
        mem = torch.cuda.max_memory_allocated() / 1e9
        print(f"peak allocated over both: {mem:.2f} GB")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weights"); ap.add_argument("--ids"); ap.add_argument("--check")
    ap.add_argument("--time", action="store_true")
    ap.add_argument("--batch", type=int, default=32); ap.add_argument("--tokens", type=int, default=2048)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--heads", type=int); ap.add_argument("--eps", type=float)
    a = ap.parse_args()
    if a.time:
        timing(a)
    elif a.weights and a.ids and a.check:
        check(a)
    else:
        ap.error("give --time, or --weights, --ids and --check")


def peer_inputs(size, device, batch=0):
    """The peer's configuration, fp32 weights, ids and mask at a stagebench size (batch 0: the
    size's), on `device`; scripts/reference/torch_kernels.py profiles the same."""
    # models/geneformer/config.cpp: tiny 2 x 128 tokens; small 4 x 512 and full 32 x 2048 (6L)
    c, b0, tokens = {"tiny": (TINY, 2, 128), "small": (FULL, 4, 512),
                     "full": (FULL, 32, 2048)}[size]
    batch = batch or b0
    p32 = {k: v.to(device) for k, v in random_params(c, 1).items()}
    g = torch.Generator().manual_seed(DEFAULT_SEED)
    ids = torch.randint(2, c["vocab"], (batch, tokens), generator=g)
    mask = torch.ones_like(ids)
    for b in range(1, batch):  # stagebench's synthetic cells' lengths (synthetic_cells.py)
        n = synthetic_length(tokens, DEFAULT_SEED, b)
        ids[b, n:] = 0
        mask[b, n:] = 0
    return c, p32, ids.to(device), mask.to(device)


def peer_main():
    """`--peer-json OUT --size S --device D --runs N`: PyTorch's own inference variants at a
    stagebench size (`stagebench peer`, scripts/reference/peer_timing.py), on random weights:
    the cell embedding of the size's padded cells, from the layers it needs (cells())."""
    import peer_timing as pt
    ap = argparse.ArgumentParser(description="geneformer_torch.py peer mode")
    pt.add_arguments(ap, ("tiny", "small", "full"))
    a = ap.parse_args()
    pt.check_device(torch, a.device)
    c, p32, ids, mask = peer_inputs(a.size, a.device, a.batch)
    batch, tokens = ids.shape

    def variant(tf32=False, dtype=None, fused=False, mode=None):
        def make():
            pt.set_tf32(torch, tf32)
            p = {k: v.to(dtype) for k, v in p32.items()} if dtype else p32
            fn = pt.compiled(torch, cells, mode) if mode else cells

            def call():
                pt.step_begin(torch, mode)
                with torch.no_grad():
                    return fn(p, c, ids, mask, fused)
            return call
        return make

    pt.set_tf32(torch, False)
    with torch.no_grad():
        reference = pt.flatten(torch, cells(p32, c, ids, mask, False))
    V, f16, bf16 = pt.Variant, torch.float16, torch.bfloat16
    tf32_why, graphs_why = "TF32 is a CUDA tensor-core mode", "CUDA graphs need CUDA"
    f16_why = "fp16 is timed on CUDA only (bf16 is the CPU's half type)"
    variants = [V("fp32-eager", variant(), "fp32"),
                V("tf32", variant(tf32=True), "tf32", tf32_why),
                V("tf32-sdpa", variant(tf32=True, fused=True), "tf32", tf32_why),
                V("fp16-sdpa", variant(dtype=f16, fused=True), "fp16", f16_why),
                V("bf16-sdpa", variant(dtype=bf16, fused=True), "bf16"),
                V("compile-tf32", variant(tf32=True, mode="default"), "tf32", tf32_why)]
    if a.device == "cpu":  # on CUDA the fp32 graph is compiled with TF32 (compile-tf32)
        variants.append(V("compile-fp32-sdpa", variant(fused=True, mode="default"), "fp32"))
    variants += [V("compile-fp16-sdpa", variant(dtype=f16, fused=True, mode="default"), "fp16",
                   f16_why),
                 V("compile-bf16-sdpa", variant(dtype=bf16, fused=True, mode="default"), "bf16"),
                 V("compile-fp16-sdpa-cudagraphs",
                   variant(dtype=f16, fused=True, mode="reduce-overhead"), "fp16", graphs_why),
                 V("compile-fp16-sdpa-max-autotune",
                   variant(dtype=f16, fused=True, mode="max-autotune"), "fp16",
                   "max-autotune is timed on CUDA only")]
    gene_tokens = int(mask.sum())
    work = {"batch": batch, "length": tokens, "layers": embedding_layer(c),
            "model_layers": c["layers"], "output": "cell_embedding",
            "output_shape": [batch, c["hidden"]], "gene_tokens": gene_tokens,
            "padding_fraction": 1 - gene_tokens / (batch * tokens),
            "padding": "cell 0 full, the others stagebench's synthetic lengths in [tokens/2, "
                       "tokens], pad id 0 masked; attention over the padded length"}
    timing = (f"one no_grad forward of {batch} cells x {tokens} tokens (padded like stagebench's "
              f"synthetic cells) through the {embedding_layer(c)} of {c['layers']} layers the "
              "cell embedding needs (stagebench's graph stages drop the last as dead code), to "
              f"the cell embedding; time.perf_counter after a device synchronize, median of "
              f"{a.runs} after {a.warmup} warm-up; eager variants materialize the scores, sdpa "
              "ones use scaled_dot_product_attention; fp16/bf16: weights and activations in that "
              "type; compile-*: torch.compile of that forward, cudagraphs: mode reduce-overhead, "
              "max-autotune: mode max-autotune")
    check = pt.check_block("PyTorch fp32 eager (materialized attention), TF32 off, same weights "
                           "and cells", "cell_embedding")
    pt.write(a.peer_json, torch, a.device, "geneformer", a.size, timing,
             pt.run_variants(torch, a.device, variants, reference, batch, "cells/s", a),
             work=work, check=check, args=a)


if __name__ == "__main__":
    peer_main() if "--peer-json" in sys.argv else main()
