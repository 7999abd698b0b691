"""Per-product table of one bf16 forward of Enformer full from a stagebench timeline.

Usage: python3 shapes.py TRACE.json[.gz] [CEILING_TFLOPS]
The products' shapes are not in the trace: they follow from the model's call order
(models/enformer/model.cpp, batch 1, 196,608 bp, filters 768 768 896 1024 1152 1280 1536), which
this walks in step with the trace's f16 products (wgmma_f16_*), checking the count."""
import gzip
import json
import sys

F = [768, 768, 896, 1024, 1152, 1280, 1536]
DIM, HK, DEPTH, TARGET = 1536, 512, 11, 896


def products():
    L = 196608
    yield "stem k16", L, F[0], 64
    yield "stem.pw", L, F[0], F[0]
    yield "stem.logits", L, F[0], F[0]
    L //= 2
    for i in range(6):
        yield f"tower{i}.conv k5", L, F[i + 1], 5 * F[i]
        yield f"tower{i}.pw", L, F[i + 1], F[i + 1]
        yield f"tower{i}.logits", L, F[i + 1], F[i + 1]
        L //= 2
    for _ in range(DEPTH):
        yield "layer.q", L, HK, DIM
        yield "layer.k", L, HK, DIM
        yield "layer.v", L, DIM, DIM
        yield "layer.out", L, DIM, DIM
        yield "layer.ff1", L, 2 * DIM, DIM
        yield "layer.ff2", L, DIM, 2 * DIM
    yield "final", TARGET, 2 * DIM, DIM
    yield "head.human", TARGET, 5313, 2 * DIM
    yield "head.mouse", TARGET, 1643, 2 * DIM


def main():
    path = sys.argv[1]
    ceiling = float(sys.argv[2]) if len(sys.argv) > 2 else 563.9
    d = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    ks = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "device"
          and e["args"].get("stage") == "bf16" and e["name"].startswith("wgmma_f16")]
    want = list(products())
    if len(ks) != len(want):
        sys.exit(f"{len(ks)} wgmma calls in the trace, {len(want)} products in the model's order")
    rows = {}
    for (name, m, n, k), e in zip(want, ks):
        key = name if not name.startswith("layer.") else name
        r = rows.setdefault(key, [m, n, k, e["name"].replace("wgmma_f16_", "bn"), 0, 0.0])
        r[4] += 1
        r[5] += e["dur"]
    print(f"# {path}: f16 products of one bf16 forward; TFLOP/s against {ceiling} (8192^3)")
    print("product\tM\tN\tK\tvariant\tcalls\tus\tTFLOP/s\tof ceiling")
    total = 0.0
    for name, (m, n, k, var, calls, us) in rows.items():
        tf = 2.0 * m * n * k * calls / (us * 1e-6) / 1e12
        total += us
        print(f"{name}\t{m}\t{n}\t{k}\t{var}\t{calls}\t{us:.1f}\t{tf:.0f}\t{tf / ceiling:.2f}")
    print(f"sum\t\t\t\t\t{len(ks)}\t{total:.1f}")


main()
