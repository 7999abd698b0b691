import json, sys, glob, os, re, statistics
d = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(d, "*.json"))):
    name = os.path.basename(f)[:-5]
    try: doc = json.load(open(f))
    except Exception as e: print(name, "unreadable", e); continue
    st = {s["id"]: s for r in doc["runs"] for s in r["stages"]}
    e, o = st.get("eager"), st.get("onnx-graph")
    if not e or not o: print(name, "missing"); continue
    em, om = e["time"]["median_ms"], o["time"]["median_ms"]
    rows[name] = (em, om, om / em)
    print(f"{name:14s} eager {em:8.2f} ms  onnx-graph {om:8.2f} ms  onnx/eager {om/em:.3f}  threads {doc.get('threads', '')}")
for m in ("b", "on", "off"):
    r = [v[2] for k, v in rows.items() if re.fullmatch(f"pack-{m}-\\d+", k)]
    if r: print(f"mode {m}: onnx/eager per process {', '.join(f'{x:.3f}' for x in r)}; median {statistics.median(r):.3f}")
