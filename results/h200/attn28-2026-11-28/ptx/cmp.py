# cmp.py BEFORE.ptx AFTER.ptx (ptx/compare.sh): per kernel, identical PTX or the opcodes whose counts differ
import re, sys, collections
def kernels(p):
    t = open(p).read()
    out = {}
    for m in re.finditer(r"\.entry (\w+)\((.*?)\n\}\n", t, re.S):
        out[m.group(1)] = m.group(2)
    return out
def ops(body):
    c = collections.Counter()
    for line in body.split("\n"):
        line = line.strip()
        if not line or line.startswith(("//", ".", "$", "{", "}", ")")) or line.endswith(":"): continue
        w = line.split()
        if w[0].startswith("@"): w = w[1:]
        c[w[0].rstrip(";")] += 1
    return c
def regs(body):
    return re.findall(r"\.reg [^;]+;", body)
a, b = kernels(sys.argv[1]), kernels(sys.argv[2])
for k in a:
    if k not in b: print(k, "missing"); continue
    if a[k] == b[k]: print(f"{k}: identical PTX"); continue
    ca, cb = ops(a[k]), ops(b[k])
    diff = {o: (ca[o], cb[o]) for o in set(ca) | set(cb) if ca[o] != cb[o]}
    print(f"{k}: differs; {sum(ca.values())} -> {sum(cb.values())} instructions")
    for o, (x, y) in sorted(diff.items()): print(f"    {o}: {x} -> {y}")
