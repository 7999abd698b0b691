# dfm35: per run and stage, the wall median, commands a step (launches in the device sample),
# the device ms median, the loss curve's largest relative difference and the parameters' cosine
# against the baseline, and the kernels the three changes touch (launches, us a step).
import glob, json, os, sys

KERNELS = ("pack_f16_pair", "wgmma_f16_128", "wgmma_f16_128_x2", "wgmma_f16_256", "dropout",
           "activation", "activation_backward", "activation_dropout",
           "dropout_activation_backward", "affine_channels", "gemm_batched_small")
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
