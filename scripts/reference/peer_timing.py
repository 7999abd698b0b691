"""The reference scripts' peer mode (`stagebench peer`, docs/method.md): PyTorch's own variants
of a model timed on the shapes of a stagebench size, written as JSON for the result's reference
block. Each script says which variants it has and how to build one; this module times them
alike: warm-up calls first (compilation and allocator growth happen there), then `runs` calls,
each bracketed by a device synchronize and timed with time.perf_counter; the median is the
figure. Peak memory is torch.cuda.max_memory_allocated over the variant (null on the CPU). A
variant that raises (torch.compile without a compiler, out of memory, an op without a kernel
for the dtype) is recorded with its reason and the next one runs.

JSON: {"torch", "device", "model", "size", "timing",
       "variants": [{"name", "median_s", "samples", "peak_bytes", "throughput", "unit", "error"}]}
"""
import gc
import json
import statistics
import sys
import time


def device_name(torch, device):
    if device == "cuda":
        return torch.cuda.get_device_name()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "cpu"


def check_device(torch, device):
    if device == "cuda" and not torch.cuda.is_available():
        sys.exit("peer: --device cuda, but torch.cuda.is_available() is False")


def set_tf32(torch, on):
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on


def synchronize(torch, device):
    if device == "cuda":
        torch.cuda.synchronize()


def measure(torch, device, fn, warmup, runs):
    """Median seconds of fn() over `runs` calls after `warmup` calls, and the count."""
    for _ in range(warmup):
        fn()
    synchronize(torch, device)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        synchronize(torch, device)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), len(times)


def reason(e):
    """One line of at most 300 characters: the report shows it as a note."""
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:300] if text else ''}".rstrip(": ")


def time_variants(torch, device, variants, items, unit, warmup, runs):
    """variants: (name, make) pairs; make() sets the variant's switches and returns the callable
    one timed repetition runs. TF32 is reset after each, whatever make() set."""
    out = []
    for name, make in variants:
        gc.collect()
        if device == "cuda":
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
        rec = {"name": name}
        try:
            median_s, n = measure(torch, device, make(), warmup, runs)
            rec.update(median_s=median_s, samples=n)
            if items:
                rec.update(throughput=items / median_s, unit=unit)
            if device == "cuda":
                rec["peak_bytes"] = int(torch.cuda.max_memory_allocated())
        except Exception as e:  # recorded, not fatal: the other variants still run
            rec["error"] = reason(e)
        finally:
            set_tf32(torch, False)
        out.append(rec)
        print(f"peer {name:16s} " + (f"{rec['median_s'] * 1e3:10.3f} ms ({rec['samples']} runs)"
              if "median_s" in rec else "failed: " + rec["error"]), file=sys.stderr)
    return out


def write(path, torch, device, model, size, timing, variants):
    doc = {"torch": torch.__version__, "device": device_name(torch, device), "model": model,
           "size": size, "timing": timing, "variants": variants}
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def add_arguments(ap, sizes, default_warmup=3):
    """The options every script's peer mode takes (harness/peer.cpp passes them)."""
    ap.add_argument("--size", default="full", choices=sizes)
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    ap.add_argument("--runs", type=int, default=20, help="timed repetitions per variant")
    ap.add_argument("--warmup", type=int, default=default_warmup)
    ap.add_argument("--batch", type=int, default=0, help="default: the size's batch")
    ap.add_argument("--peer-json", required=True, help="write the variants' JSON here")
