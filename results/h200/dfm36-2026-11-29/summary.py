# dfm36: per run and stage, the wall median, commands a step (launches in the device sample),
# the device ms median, the loss curve's largest relative difference and the parameters' cosine
# against the baseline, and the kernels the changes touch (launches, us a step). Usage:
# python3 summary.py DIR > DIR/summary.txt
import glob, json, os, sys

KERNELS = ("pack_f16_pair", "pack_f16_linear_grads", "sum_axis1_split", "wgmma_f16_128",
           "wgmma_f16_128_x2", "layernorm_backward_stats", "layernorm_backward_partials",
           "layernorm_backward_columns", "layernorm_backward_dx", "layernorm_backward_chunk",
           "layernorm_backward_dx_columns", "gemm_batched_small", "sum_squares_partial",
           "partials_final")
for f in sorted(glob.glob(os.path.join(sys.argv[1], "deepfm-full-*.json")) +
                glob.glob(os.path.join(sys.argv[1], "timeline-*.json"))):
    for s in json.load(open(f))["runs"][0]["stages"]:
        o = s.get("opencl") or {}
        ks = {k["name"]: (int(k["launches"]), round(k["total_ns"] / 1e3, 1))
              for k in o.get("kernels", [])}
        c, t = s.get("correctness") or {}, s.get("time") or {}
        print(os.path.basename(f), s["id"], s["status"], "wall", round(t.get("median_ms") or 0, 3),
              "samples", t.get("samples"), "cmds", sum(v[0] for v in ks.values()),
              "device", o.get("device_ms", {}).get("median"), "loss", c.get("loss_max_rel"),
              "cos", c.get("cosine"), {n: ks[n] for n in KERNELS if n in ks})
