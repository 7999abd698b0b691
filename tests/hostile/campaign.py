#!/usr/bin/env python3
"""The hostile-input campaign of issue 29: generated bad inputs of every class, run through the
built binaries, each outcome classified.

    python3 tests/hostile/campaign.py [--build build] [--jobs 2] [--classes json,cli,...]
                                      [--summary FILE] [--log FILE.jsonl] [--keep DIR]

Python 3 standard library only. Every input is derived from fixtures the binary itself writes at
the start (a tiny GEMM run, a two-job sweep and its journal, Enformer's and Geneformer's exported
tiny weights), so a run needs only the build. Classes (docs/testing.md, "The hostile-input
campaign"):

  json     result files (truncated, duplicate keys, deep nesting, huge numbers, wrong types, NaN,
           FIFO, folder, binary, UTF-8 garbage, ...) fed to report, compare (and its thresholds,
           the gate), compare-ab and merge
  sweep    sweep files and journals (foreign journals, swapped keys, incomplete runs, -o equal to
           the sweep file, --shard, --slurm options, --status)
  model    weights (.safetensors), cells and inputs (.npy), tables (.tsv) and config.json: NaN/Inf,
           integer dtypes, layer gaps, huge dims, zero-length cells
  cli      every command's options with out-of-range, negative, empty, non-finite, overflowing
           and unknown values
  signals  SIGINT/SIGTERM at several moments of run and sweep: exit 130, -o absent or valid
  faults   STAGEBENCH_FAULT and STAGEBENCH_SLOW_OP, good and bad, on PoCL
  viewer   stagebench-viewer --screenshot (offscreen) on the json class's files and bad options

Outcomes: clean; crash (a signal, a sanitizer report, an escaped exception, exit >= 128 other
than a stop's 130); hang (the case's timeout); silent-0 (bad input, exit 0); wrong-code (bad
input must exit 2, a measured failure 1); unnamed (the right code, but the message does not name
the file or option or problem); lost (an older output was replaced or removed by a refused run).
Exit status: 0 when every case is clean, 1 otherwise, 2 for a bad command line of this script.
"""

import argparse
import concurrent.futures
import collections
import json
import os
import random
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Expectations of a case.
BAD = "bad"  # exit 2 and the message names `needle`; nothing under `keep` changes
FAILED = "failed"  # exit 1 (a measured failure), the output a valid document
OK = "ok"  # valid input (or a record skipped with a warning): exit 0, `needle` in the output
ANY = "any"  # any of 0, 1, 2, 3 (e.g. compare's verdicts): only no crash and no hang
VIEWER_BAD = "viewer-bad"  # the viewer's documented codes: 1 nothing loaded, 2 a bad option
STOP = "stop"  # exit 130 after a signal, -o absent or a valid document with named stages

CRASH_MARKS = ("AddressSanitizer", "runtime error:", "terminate called", "Segmentation fault",
               "LeakSanitizer", "UndefinedBehaviorSanitizer", "core dumped", "Assertion `")


class Case:
    def __init__(self, cls, name, argv, expect=BAD, needle=None, env=None, setup=None,
                 check=None, keep=(), timeout=60, viewer=False, runner=None):
        self.cls, self.name, self.argv, self.expect = cls, name, argv, expect
        self.needle, self.env, self.setup, self.check = needle, env or {}, setup, check
        self.keep, self.timeout, self.viewer, self.runner = keep, timeout, viewer, runner


class Fixtures:
    """The valid files every mutation starts from, written by the binary under test."""

    def __init__(self, sb, root):
        self.sb, self.dir = sb, os.path.join(root, "fixtures")
        os.makedirs(self.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def make(self):
        env = dict(os.environ, OMP_NUM_THREADS="1")

        def sb(*args):
            r = subprocess.run([self.sb, *args], cwd=self.dir, env=env, capture_output=True,
                               text=True, timeout=300)
            if r.returncode != 0:
                sys.exit("campaign: fixture step failed: stagebench %s\n%s%s" %
                         (" ".join(args), r.stdout[-2000:], r.stderr[-2000:]))

        sb("run", "gemm", "--size", "tiny", "--backend", "cpu", "--max-time", "0.5", "--warmup",
           "0", "--no-ceilings", "-q", "-o", "result.json")
        self.result = self.path("result.json")
        self.doc = json.load(open(self.result))
        # Compact, so that the mutations below find their keys as `"key":value`.
        self.result_text = json.dumps(self.doc, separators=(",", ":"))
        sb("run", "enformer", "--size", "tiny", "--backend", "cpu", "--stages", "original",
           "--max-time", "0.3", "--warmup", "0", "--no-ceilings", "-q", "-o", "enformer.json")
        self.enformer_result = self.path("enformer.json")
        with open(self.result, "w") as f:
            f.write(self.result_text)
        with open(self.path("sweep.json"), "w") as f:
            json.dump(sweep_doc(), f)
        sb("sweep", "sweep.json", "-q", "-o", "sweep-out.json")
        self.sweep = self.path("sweep.json")
        self.journal_lines = open(self.path("sweep-out.journal.jsonl")).read().splitlines()
        rng = random.Random(29)
        write_npy(self.path("enformer_idx.npy"), "<i8", (1, 4096),
                  struct.pack("<4096q", *[rng.randrange(4) for _ in range(4096)]))
        write_npy(self.path("gf_ids.npy"), "<i8", (2, 64),
                  struct.pack("<128q", *[rng.randrange(5, 1000) for _ in range(128)]))
        sb("infer", "enformer", "--size", "tiny", "--input", "enformer_idx.npy", "--output",
           "enf_out.safetensors", "--export-weights", "enformer.safetensors")
        sb("infer", "geneformer", "--size", "tiny", "--input", "gf_ids.npy", "--output",
           "gf_out.safetensors", "--export-weights", "geneformer.safetensors")
        self.enformer_w = read_safetensors(self.path("enformer.safetensors"))
        self.geneformer_w = read_safetensors(self.path("geneformer.safetensors"))
        with open(self.path("table.tsv"), "w") as f:
            f.write(TSV_HEADER + "".join(tsv_row(i) for i in range(40)))
        with open(self.path("thresholds.txt"), "w") as f:
            f.write("*/*/*/cosine: >= 0.99\n")
        self.png = b"\x89PNG\r\n\x1a\n-an-older-screenshot-"


def sweep_doc(**runner):
    r = {"max_time": 0.3, "min_samples": 2, "max_samples": 5, "warmup": 0}
    r.update(runner)
    return {"defaults": {"ceilings": False, "runner": r},
            "entries": [{"models": "gemm", "sizes": "tiny", "backends": "cpu", "seed": 1},
                        {"models": "gemm", "sizes": "tiny", "backends": "cpu", "seed": 2}]}


TSV_HEADER = ("effect_type\tdrug\tgenalle\tgene\tallele\tphenotype_outcome\teffect_direction\n")


def tsv_row(i, direction=None):
    d = direction or ("not associated" if i % 2 else "increased")
    return "side effect\tdrug %d\tCYP2D6 *%d\tgene A%d\trs%d A\tEfficacy; Other\t%s\n" % (
        i % 7, i % 3, i % 5, 1000 + i, d)


def write_npy(path, descr, shape, data, header=None, magic=b"\x93NUMPY\x01\x00"):
    h = header or "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr,
                                                                               repr(tuple(shape)))
    h += " " * (63 - (10 + len(h)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(magic + struct.pack("<H", len(h)) + h.encode() + data)


def read_safetensors(path):
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    header = json.loads(b[8:8 + n])
    return header, b[8 + n:]


def write_safetensors(path, header, data, raw_header=None):
    h = raw_header if raw_header is not None else json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


def tensors(header):
    return sorted(k for k in header if k != "__metadata__")


# --- the json class -------------------------------------------------------------------------


def json_mutations(fx):
    """(name, how to make the file in a folder, needle) of result files that are not valid."""
    text, doc = fx.result_text, fx.doc
    out = []

    def text_case(name, body, needle=None):
        data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
        if data == text.encode():
            raise AssertionError("the mutation %s changed nothing" % name)
        out.append((name, lambda d, n=name, b=data: write(d, n + ".json", b), needle))

    def doc_case(name, edit, needle=None):
        d = json.loads(text)
        edit(d)
        text_case(name, json.dumps(d, allow_nan=True), needle)

    for frac in (0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999):
        text_case("truncated-%g" % frac, text[:int(len(text) * frac)])
    text_case("whitespace", "  \n\t ")
    text_case("null", "null")
    text_case("array", "[]")
    text_case("string", '"stagebench/1"')
    text_case("empty-object", "{}")
    text_case("trailing-garbage", text + "}")
    text_case("two-documents", text + text)
    text_case("dup-top-key", text.replace('"schema":', '"schema":"stagebench/1","schema":', 1),
              "duplicate key")
    text_case("dup-run-key", text.replace('"complete":', '"complete":false,"complete":', 1),
              "duplicate key")
    text_case("dup-stage-status", text.replace('"status":', '"status":"failed","status":', 1),
              "duplicate key")
    for depth in (200, 100000):
        text_case("deep-array-%d" % depth,
                  text.replace('"context":{', '"context":{"x":' + "[" * depth + "]" * depth + ",",
                               1), "nested deeper")
    text_case("deep-object-5000",
              text.replace('"context":{', '"context":{"x":' + '{"a":' * 5000 + "1" + "}" * 5000 +
                           ",", 1), "nested deeper")
    samples = json.dumps(doc["runs"][0]["stages"][0]["samples_ms"], separators=(",", ":"))
    for name, lit in (("nan", "NaN"), ("infinity", "Infinity"), ("minus-infinity", "-Infinity"),
                      ("huge-1e999", "1e999"), ("neg-huge", "-1e999")):
        text_case("samples-" + name, text.replace(samples, "[" + lit + "," + samples[1:], 1))
    text_case("huge-integer-batch",
              text.replace('"params":{', '"params":{"batch":99999999999999999999999999,', 1))
    doc_case("schema-2", lambda d: d.update(schema="stagebench/2"), "stagebench/2")
    doc_case("no-schema", lambda d: d.pop("schema"), "schema")
    doc_case("runs-object", lambda d: d.update(runs={}), "runs")
    doc_case("runs-string", lambda d: d.update(runs="x"), "runs")
    doc_case("run-is-number", lambda d: d["runs"].__setitem__(0, 7), "runs[0]")
    doc_case("stages-number", lambda d: d["runs"][0].update(stages=3), "stages")
    doc_case("complete-string", lambda d: d["runs"][0].update(complete="yes"), "complete")
    doc_case("samples-string", lambda d: d["runs"][0]["stages"][0].update(samples_ms="1,2"),
             "samples_ms")
    doc_case("samples-negative", lambda d: d["runs"][0]["stages"][0].update(samples_ms=[-1, -2]),
             "samples_ms")
    doc_case("samples-nested", lambda d: d["runs"][0]["stages"][0].update(samples_ms=[[1]]),
             "samples_ms")
    doc_case("stage-id-number", lambda d: d["runs"][0]["stages"][0].update(id=5), "id")
    doc_case("status-unknown", lambda d: d["runs"][0]["stages"][0].update(status="great"),
             "status")
    doc_case("model-missing", lambda d: d["runs"][0].pop("model"), "model")
    doc_case("model-null", lambda d: d["runs"][0].update(model=None), "model")
    doc_case("context-array", lambda d: d.update(context=[]), "context")
    text_case("binary", bytes(random.Random(1).randrange(256) for _ in range(4096)))
    text_case("nul-inside", text[:100] + "\x00" + text[100:])
    text_case("utf8-invalid-in-string",
              text.encode().replace(b'"model":"gemm"', b'"model":"gemm\xff\xfe"', 1))
    text_case("utf8-overlong",
              text.encode().replace(b'"model":"gemm"', b'"model":"\xc0\xafgemm"', 1))
    text_case("lone-surrogate-escape", text.replace('"model":"gemm"', '"model":"\\ud800"', 1))
    text_case("bom", b"\xef\xbb\xbf" + text.encode())
    text_case("utf16", text.encode("utf-16"))
    out.append(("fifo", lambda d: make_fifo(d, "fifo.json"), "named pipe"))
    out.append(("folder", lambda d: make_dir(d, "folder.json"), "folder.json"))
    out.append(("missing", lambda d: os.path.join(d, "missing.json"), "missing.json"))
    out.append(("dev-zero", lambda d: "/dev/zero", "/dev/zero"))
    out.append(("dev-null", lambda d: "/dev/null", "/dev/null"))
    out.append(("unreadable", lambda d: make_unreadable(d, "locked.json", text), "locked.json"))
    return out


def write(d, name, data):
    p = os.path.join(d, name)
    with open(p, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return p


def make_fifo(d, name):
    p = os.path.join(d, name)
    os.mkfifo(p)
    return p


def make_dir(d, name):
    p = os.path.join(d, name)
    os.mkdir(p)
    return p


def make_unreadable(d, name, text):
    p = write(d, name, text)
    os.chmod(p, 0)
    return p


# Mutations judged valid input, each with its reason: only no crash and no hang is asked of them.
VALID_JSON = {
    # RFC 8259, 8.1: a parser may ignore a UTF-8 byte order mark; nlohmann's does.
    "bom": ANY,
    # `params` is the workload's open record (docs/schema.md): readers show it and compute with
    # none of it; gbench names a batch only when it is a whole int64.
    "huge-integer-batch": ANY,
}


def needle_for(path, needle):
    """What the message must name: the problem when the case knows it, else the file."""
    return needle or os.path.basename(path)


def json_cases(fx):
    cases = []
    good = fx.result
    for name, make, needle in json_mutations(fx):
        consumers = [
            ("report", lambda p: ["report", p]),
            ("report-html", lambda p: ["report", "--format", "html", p]),
            ("report-summary", lambda p: ["report", "-f", "summary", p, good]),
            ("compare-base", lambda p: ["compare", p, good]),
            ("compare-candidate", lambda p: ["compare", good, p]),
            ("compare-ab", lambda p: ["compare-ab", "--base", good, p, "--candidate", good,
                                      good]),
            ("merge", lambda p: ["merge", p, "-o", "out.json"]),
            ("merge-gbench", lambda p: ["merge", "--format", "gbench", p, "-o", "out.json"]),
        ]
        for consumer, argv in consumers:
            def setup(d, make=make, argv=argv, needle=needle):
                p = make(d)
                write(d, "out.json", "an older output that must survive")
                return argv(p), needle_for(p, needle)

            expect = VALID_JSON.get(name, BAD)
            if name == "unreadable" and os.geteuid() == 0:
                expect = ANY  # root reads a file of mode 000: then it is a valid file
            cases.append(Case("json", "%s/%s" % (consumer, name), None, expect, setup=setup,
                              keep=("out.json",)))
    # The gate: compare's thresholds file.
    rules = [("empty-rule", "*/*/*/cosine:\n"), ("bad-op", "*/*/*/cosine: ~~ 3\n"),
             ("nan", "*/*/*/cosine: >= nan\n"), ("inf", "*/*/*/time: +inf%\n"),
             ("huge", "*/*/*/time: +1e999%\n"), ("unknown-metric", "*/*/*/beauty: >= 1\n"),
             ("unknown-policy", "policy: inconclusive=maybe\n"),
             ("too-few-parts", "gemm/cosine: >= 0.9\n"), ("binary", "\x00\xff\xfe\n"),
             ("negative-percent", "*/*/*/memory: --10%\n"),
             ("deep", "[" * 100000 + "\n"), ("long-line", "x" * 1000000 + "\n")]
    for name, body in rules:
        cases.append(Case("json", "gate-thresholds/" + name, None, BAD,
                          setup=lambda d, body=body: (["compare", good, good, "-t",
                                                       write(d, "rules.txt", body)], "rules.txt")))
    for name, make in (("fifo", lambda d: make_fifo(d, "rules.txt")),
                       ("folder", lambda d: make_dir(d, "rules.txt"))):
        cases.append(Case("json", "gate-thresholds/" + name, None, BAD,
                          setup=lambda d, make=make: (["compare", good, good, "-t", make(d)],
                                                      "rules.txt")))
    return cases


# --- the viewer class -----------------------------------------------------------------------


def viewer_cases(fx):
    cases = []
    good = fx.result

    def png_kept(r, d):
        data = open(os.path.join(d, "shot.png"), "rb").read()
        if data != fx.png:
            return "lost", "shot.png replaced (%d bytes) by a failed screenshot" % len(data)
        return None

    for name, make, needle in json_mutations(fx):
        def setup(d, make=make):
            p = make(d)
            write(d, "shot.png", fx.png)
            return ["FILE", p, "--screenshot", "shot.png"], os.path.basename(p)

        expect = VALID_JSON.get(name, VIEWER_BAD)
        if name == "unreadable" and os.geteuid() == 0:
            expect = ANY  # root reads a file of mode 000
        cases.append(Case("viewer", "screenshot/" + name, None, expect, setup=setup,
                          check=png_kept if expect == VIEWER_BAD else None, viewer=True))
    bad_opts = [("view-bogus", ["--view", "bogus"], "bogus"),
                ("view-empty", ["--view", ""], "view"),
                ("view-chart-bogus", ["--view", "charts:bogus"], "bogus"),
                ("view-ladder-chart", ["--view", "ladder:time"], "ladder:time"),
                ("run-negative", ["--run", "-1"], "-1"),
                ("run-past-end", ["--run", "99"], "99"),
                ("run-text", ["--run", "abc"], "abc"),
                ("run-empty", ["--run", ""], "run"),
                ("run-overflow", ["--run", "99999999999999999999"], "99999999999999999999"),
                ("run-fraction", ["--run", "0.5"], "0.5"),
                ("unknown-option", ["--bogus"], "bogus")]
    for name, opts, needle in bad_opts:
        def setup(d, opts=opts, needle=needle):
            write(d, "shot.png", fx.png)
            return ["FILE", good, "--screenshot", "shot.png", *opts], needle

        cases.append(Case("viewer", "option/" + name, None, VIEWER_BAD, setup=setup,
                          check=png_kept, viewer=True))
    for name, make in (("compare-missing", lambda d: os.path.join(d, "nope.json")),
                       ("compare-truncated", lambda d: write(d, "t.json", fx.result_text[:99])),
                       ("compare-fifo", lambda d: make_fifo(d, "p.json"))):
        def setup(d, make=make):
            write(d, "shot.png", fx.png)
            p = make(d)
            return ["FILE", good, "--screenshot", "shot.png", "--view", "compare", "--compare",
                    p], os.path.basename(p)

        cases.append(Case("viewer", "option/" + name, None, VIEWER_BAD, setup=setup,
                          check=png_kept, viewer=True))
    for name, target in (("to-folder", lambda d: make_dir(d, "dir.png")),
                         ("under-a-file", lambda d: write(d, "f", "x") + "/x.png"),
                         ("to-missing-folder", lambda d: os.path.join(d, "no", "x.png")),
                         ("to-empty-name", lambda d: "")):
        cases.append(Case("viewer", "output/" + name, None, VIEWER_BAD, viewer=True,
                          setup=lambda d, target=target: (["FILE", good, "--screenshot",
                                                           target(d)], "")))

    # Valid but extreme: a 1 MB stage id in the compare view (a SIGSEGV once), many runs.
    def huge_id(d):
        doc = json.loads(fx.result_text)
        doc["runs"][0]["stages"][0]["id"] = "x" * 1000000
        doc["runs"][0]["stages"][0]["title"] = "y" * 1000000
        p = write(d, "huge.json", json.dumps(doc))
        return ["FILE", p, "--screenshot", "shot.png", "--view", "compare", "--compare", p], None

    cases.append(Case("viewer", "valid/huge-stage-id-compare", None, OK, setup=huge_id,
                      viewer=True))
    for view in ("ladder", "charts", "charts:time", "charts:memory", "charts:batch", "drilldown",
                 "compare"):
        cases.append(Case("viewer", "valid/empty-runs-" + view.replace(":", "-"), None,
                          VIEWER_BAD if view.startswith("charts:") else ANY, viewer=True,
                          setup=lambda d, view=view: (["FILE", write(
                              d, "e.json", '{"schema":"stagebench/1","context":{},"runs":[]}'),
                              "--screenshot", "shot.png", "--view", view], None)))
    return cases


# --- the sweep class ------------------------------------------------------------------------


def sweep_cases(fx):
    cases = []

    def sweep_file(d, body, name="s.json"):
        return write(d, name, body if isinstance(body, str) else json.dumps(body))

    def entry(**kw):
        e = {"models": "gemm", "sizes": "tiny", "backends": "cpu"}
        e.update(kw)
        return {"defaults": {"ceilings": False, "runner": {"max_time": 0.3, "warmup": 0}},
                "entries": [e]}

    bad_entries = [
        ("no-entries", {"defaults": {}}, "entries"),
        ("entries-empty", {"entries": []}, "entries"),
        ("entries-object", {"entries": {}}, "entries"),
        ("unknown-top-key", dict(entry(), bogus=1), "bogus"),
        ("unknown-entry-key", entry(modles="gemm"), "modles"),
        ("model-unknown", entry(models="nosuch"), "nosuch"),
        ("model-number", entry(models=3), "models"),
        ("models-empty", entry(models=[]), "models"),
        ("size-unknown", entry(sizes="huge"), "huge"),
        ("backend-unknown", entry(backends="tpu"), "tpu"),
        ("batch-zero", entry(models="enformer", batch=0), "batch"),
        ("batch-negative", entry(models="enformer", batch=-1), "batch"),
        ("batch-fraction", entry(models="enformer", batch=1.5), "batch"),
        ("batch-string", entry(models="enformer", batch="4"), "batch"),
        ("batch-overflow", entry(models="enformer", batch=99999999999999999999), "batch"),
        ("batch-empty-array", entry(models="enformer", batch=[]), "batch"),
        ("stages-unknown", entry(stages=["warp"]), "warp"),
        # A string for a list (stages, events) reads as a list of one, as models and sizes do.
        ("stages-string", entry(stages="fp32"), None),
        ("seed-negative", entry(seed=-1), "seed"),
        ("seed-overflow", entry(seed=18446744073709551616), "seed"),
        ("seed-fraction", entry(seed=0.5), "seed"),
        ("length-zero", entry(models="enformer", length=0), "length"),
        ("length-huge", entry(models="enformer", length=18446744073709551615), "length"),
        ("target-u64max", entry(models="enformer", target=18446744073709551615), "target"),
        ("target-negative", entry(models="enformer", target=-1), "target"),
        ("heads-zero", entry(models="geneformer", heads=0), "heads"),
        ("eps-negative", entry(models="geneformer", eps=-1e-6), "eps"),
        ("eps-huge", entry(models="geneformer", eps=1e999), "eps"),
        ("device-with-cpu", entry(device="0:0"), "device"),
        ("weights-missing", entry(models="enformer", weights="/no/such.safetensors"),
         "/no/such.safetensors"),
        ("weights-number", entry(models="enformer", weights=5), "weights"),
        ("events-string", entry(events="cycles"), None),
        ("ceilings-string", entry(ceilings="yes"), "ceilings"),
        ("runner-noise-zero", entry(runner={"noise": 0}), "noise"),
        ("runner-noise-negative", entry(runner={"noise": -0.1}), "noise"),
        ("runner-max-time-negative", entry(runner={"max_time": -1}), "max_time"),
        ("runner-max-time-huge", entry(runner={"max_time": 1e300}), "max"),
        ("runner-warmup-negative", entry(runner={"warmup": -1}), "warm"),
        ("runner-min-over-max", entry(runner={"min_samples": 50, "max_samples": 5}), "samples"),
        ("runner-samples-negative", entry(runner={"min_samples": -5}), "min_samples"),
        ("runner-quality-unknown", entry(runner={"quality": ["vibes"]}), "vibes"),
        ("runner-unknown-key", entry(runner={"speed": 1}), "speed"),
        ("runner-string", entry(runner="fast"), "runner"),
        ("duplicate-job", {"entries": [entry()["entries"][0], entry()["entries"][0]]},
         "repeats"),
        ("gemm-with-batch", entry(batch=4), "gemm"),
    ]
    for name, body, needle in bad_entries:
        cases.append(Case("sweep", "file/" + name, None, BAD if needle else ANY,
                          setup=lambda d, body=body, needle=needle: (
                              ["sweep", sweep_file(d, body), "-q", "-o", "out.json"], needle)))
    good_text = json.dumps(entry())
    text_bad = [("truncated", good_text[:len(good_text) // 2], "s.json"),
                ("empty", "", "s.json"), ("binary", "\x00\x01\x02\xff", "s.json"),
                ("dup-key", good_text.replace('"models"', '"models":"enformer","models"', 1),
                 "duplicate key"),
                ("deep", '{"entries":' + "[" * 100000 + "]" * 100000 + "}", "nested deeper"),
                ("nan", good_text.replace('"warmup": 0', '"warmup": NaN'), "s.json"),
                ("huge-number", good_text.replace('"warmup": 0', '"warmup": 1e999'), "s.json")]
    for name, body, needle in text_bad:
        cases.append(Case("sweep", "file/" + name, None, BAD,
                          setup=lambda d, body=body, needle=needle: (
                              ["sweep", sweep_file(d, body), "-q", "-o", "out.json"], needle)))
    for name, make, needle in (("fifo", lambda d: make_fifo(d, "s.json"), "named pipe"),
                               ("folder", lambda d: make_dir(d, "s.json"), "s.json"),
                               ("missing", lambda d: os.path.join(d, "s.json"), "s.json")):
        cases.append(Case("sweep", "file/" + name, None, BAD,
                          setup=lambda d, make=make, needle=needle: (
                              ["sweep", make(d), "-q", "-o", "out.json"], needle)))

    # Outputs and journals in the way.
    def with_sweep(d):
        return sweep_file(d, sweep_doc(), "sweep.json")

    def journal(d, lines, name="j.jsonl"):
        return write(d, name, "".join(l + "\n" for l in lines))

    rec = [json.loads(l) for l in fx.journal_lines]
    completes = [r for r in rec if r.get("type") == "complete"]

    def dumps(records):
        return [json.dumps(r) for r in records]

    def start_of(d):
        s = json.loads(json.dumps(rec[0]))
        s["config"] = os.path.join(d, "sweep.json")
        return s

    out_cases = [
        ("o-is-sweep-file", lambda d: ["sweep", with_sweep(d), "-o", os.path.join(d, "sweep.json")],
         "sweep.json", ("sweep.json",)),
        ("journal-is-sweep-file",
         lambda d: ["sweep", with_sweep(d), "-o", "out.json", "--journal",
                    os.path.join(d, "sweep.json")], "sweep.json", ("sweep.json",)),
        ("journal-is-output",
         lambda d: ["sweep", with_sweep(d), "-o", "out.json", "--journal", "out.json"],
         "out.json", ()),
        ("journal-is-result-json",
         lambda d: ["sweep", with_sweep(d), "-o", "out.json", "--journal",
                    write(d, "r.json", fx.result_text)], "r.json", ("r.json",)),
        ("journal-is-result-json-resume",
         lambda d: ["sweep", with_sweep(d), "-o", "out.json", "--resume", "--journal",
                    write(d, "r.json", fx.result_text)], "r.json", ("r.json",)),
        ("journal-is-result-json-restart",
         lambda d: ["sweep", with_sweep(d), "-o", "out.json", "--restart", "--journal",
                    write(d, "r.json", fx.result_text)], "r.json", ("r.json",)),
        ("journal-is-text",
         lambda d: ["sweep", with_sweep(d), "-o", "out.json", "--journal",
                    write(d, "notes.txt", "my notes\n")], "notes.txt", ("notes.txt",)),
        ("journal-folder",
         lambda d: ["sweep", with_sweep(d), "-o", "out.json", "--journal", make_dir(d, "j")],
         "j", ()),
        ("journal-fifo",
         lambda d: ["sweep", with_sweep(d), "-o", "out.json", "--journal",
                    make_fifo(d, "j.jsonl")], "j.jsonl", ()),
        ("journal-under-file",
         lambda d: ["sweep", with_sweep(d), "-o", "out.json", "--journal",
                    write(d, "f", "x") + "/j.jsonl"], "--journal", ()),
        ("journal-empty-name",
         lambda d: ["sweep", with_sweep(d), "-o", "out.json", "--journal", ""], "--journal", ()),
        ("o-folder", lambda d: ["sweep", with_sweep(d), "-o", make_dir(d, "o")], "folder", ()),
        ("o-empty", lambda d: ["sweep", with_sweep(d), "-o", ""], "-o", ()),
        ("foreign-journal",
         lambda d: ["sweep", with_sweep(d), "-o", "out.json", "--resume", "--journal",
                    journal(d, [json.dumps(dict(rec[0], config="/elsewhere/other.json",
                                                jobs=["x/y/z/0"]))])],
         "j.jsonl", ("j.jsonl",)),
        ("journal-without-resume",
         lambda d: ["sweep", with_sweep(d), "-o", "out.json", "--journal",
                    journal(d, dumps([start_of(d)] + rec[1:]))], "--resume", ("j.jsonl",)),
        ("resume-and-restart",
         lambda d: ["sweep", with_sweep(d), "-o", "out.json", "--resume", "--restart"],
         "--restart", ()),
    ]
    for name, argv, needle, keep in out_cases:
        cases.append(Case("sweep", "output/" + name, None, BAD, keep=keep,
                          setup=lambda d, argv=argv, needle=needle: (argv(d), needle)))

    # Journal records that are not what they say: skipped with a warning, the job measured
    # again (exit 0), never taken as done.
    def remeasured(r, d):
        out = json.load(open(os.path.join(d, "out.json")))
        runs = [x for x in out["runs"] if x.get("complete") is True]
        keys = sorted(x.get("job", {}).get("key", "") for x in runs)
        want = sorted(c["key"] for c in completes)
        if keys != want:
            return "wrong-code", "out.json's complete runs are of jobs %s, not %s" % (keys, want)
        for x in runs:  # each run is its own job's: seed 1 or 2 as the key's job says
            seed = 1 if x["job"]["key"] == completes[0]["key"] else 2
            if "(seed %d)" % seed not in x["params"].get("inputs", ""):
                return "wrong-code", "out.json holds %s under %s" % (x["params"], x["job"]["key"])
        return None

    def swap_keys(d):
        a, b = json.loads(json.dumps(completes[0])), json.loads(json.dumps(completes[1]))
        a["key"], b["key"] = b["key"], a["key"]
        return [start_of(d), a, b]

    def other_model(d):
        a = json.loads(json.dumps(completes[0]))
        a["run"]["model"] = "enformer"
        return [start_of(d), a, completes[1]]

    def incomplete(d):
        a = json.loads(json.dumps(completes[0]))
        a["run"]["complete"] = False
        return [start_of(d), a, completes[1]]

    def other_seed(d):
        a = json.loads(json.dumps(completes[0]))
        a["run"]["params"]["inputs"] = a["run"]["params"]["inputs"].replace("(seed 1)",
                                                                            "(seed 77)")
        return [start_of(d), a, completes[1]]

    def torn(d):
        return [start_of(d), completes[0], json.dumps(completes[1])[:200]]

    def failed_as_complete(d):
        a = json.loads(json.dumps(completes[0]))
        a["type"] = "failed"
        return [start_of(d), a, completes[1]]

    def dup_key_record(d):
        return [start_of(d), completes[0],
                json.dumps(completes[1]).replace('"type":', '"type": "partial", "type":', 1)]

    for name, make, needle in (("swapped-keys", swap_keys, "skipp"),
                               ("other-model", other_model, "model"),
                               ("complete-false", incomplete, "complete"),
                               ("other-seed", other_seed, "seed"),
                               ("torn-line", torn, "j.jsonl:3"),
                               ("failed-with-stages", failed_as_complete, "j.jsonl"),
                               ("duplicate-key-record", dup_key_record, "duplicate key")):
        def setup(d, make=make, needle=needle):
            lines = [x if isinstance(x, str) else json.dumps(x) for x in make(d)]
            return ["sweep", with_sweep(d), "-q", "-o", "out.json", "--resume", "--journal",
                    journal(d, lines)], needle

        cases.append(Case("sweep", "journal/" + name, None, OK, setup=setup,
                          check=remeasured, timeout=90))

    for shard in ("2/2", "-1/2", "a/b", "1/0", "0/99999999999999999999", "1", "0/1/2", "",
                  "0/-1", " 0/2"):
        cases.append(Case("sweep", "shard/" + repr(shard), None, BAD,
                          setup=lambda d, shard=shard: (
                              ["sweep", with_sweep(d), "-o", "out.json", "--shard", shard],
                              "--shard")))
    # "1:99:00" is not here: Slurm sums the fields (99 minutes), as sbatch(1) takes it.
    slurm_bad = [("time", v, "--time") for v in ("-5", "-1:00:00", ":::", "abc", "",
                                                 "99999999999999999999:00:00", "1:00:00:00:00")]
    slurm_bad += [("shards", v, "--shards") for v in ("0", "-1", "nan", "1e999", "1000001")]
    slurm_bad += [("gpus-per-job", v, "--gpus-per-job") for v in ("0", "-1", "1.5", "inf")]
    slurm_bad += [("cpus-per-job", v, "--cpus-per-job") for v in ("0", "-3", "x")]
    slurm_bad += [("partition", "", "--partition"), ("partition", "a b;rm -rf /", "--partition"),
                  ("partition", "a\nb", "--partition")]
    for opt, value, needle in slurm_bad:
        cases.append(Case("sweep", "slurm/--%s=%r" % (opt, value), None, BAD,
                          setup=lambda d, opt=opt, value=value, needle=needle: (
                              ["sweep", with_sweep(d), "--slurm", "-o", "folder", "--" + opt,
                               value], needle)))
    for name, make, needle in (
            ("missing", lambda d: os.path.join(d, "nope"), "nope"),
            ("file", lambda d: write(d, "f", "x"), "f"),
            ("empty-folder", lambda d: make_dir(d, "empty"), "slurm.json"),
            ("fifo-slurm-json", lambda d: (make_dir(d, "s"), make_fifo(d, "s/slurm.json"))[0],
             "slurm.json"),
            ("garbage-slurm-json",
             lambda d: (make_dir(d, "s"), write(d, "s/slurm.json", "{{{"))[0], "slurm.json"),
            ("deep-slurm-json",
             lambda d: (make_dir(d, "s"), write(d, "s/slurm.json", "[" * 100000))[0],
             "slurm.json"),
            ("folder-slurm-json",
             lambda d: (make_dir(d, "s"), make_dir(d, "s/slurm.json"))[0], "slurm.json")):
        cases.append(Case("sweep", "status/" + name, None, BAD,
                          setup=lambda d, make=make, needle=needle: (
                              ["sweep", "--status", make(d)], needle)))
    # merge --config with a bad sweep file, and merge of a journal.
    for name, body, needle in (("garbage", "{{", "c.json"), ("dup", good_text.replace(
            '"models"', '"models":"enformer","models"', 1), "duplicate key")):
        cases.append(Case("sweep", "merge-config/" + name, None, BAD, keep=("out.json",),
                          setup=lambda d, body=body, needle=needle: (
                              (write(d, "out.json", "older"), ["merge", fx.result, "--config",
                                                               write(d, "c.json", body), "-o",
                                                               "out.json"])[1], needle)))
    cases.append(Case("sweep", "merge-config/foreign-runs", None, BAD, keep=("out.json",),
                      setup=lambda d: ((write(d, "out.json", "older"),
                                        ["merge", fx.result, "--config", fx.sweep, "-o",
                                         "out.json"])[1], "result.json")))
    cases.append(Case("sweep", "merge/journal-as-result", None, BAD,
                      setup=lambda d: (["merge", journal(d, fx.journal_lines), "-o", "out.json"],
                                       "j.jsonl")))
    return cases


# --- the model class ------------------------------------------------------------------------


def model_cases(fx):
    cases = []
    eh, edata = fx.enformer_w
    gh, gdata = fx.geneformer_w

    def infer_enformer(w):
        return ["infer", "enformer", "--weights", w, "--input", fx.path("enformer_idx.npy"),
                "--output", "o.safetensors"]

    def infer_geneformer(w):
        return ["infer", "geneformer", "--weights", w, "--input", fx.path("gf_ids.npy"),
                "--output", "o.safetensors"]

    def run_with(model):
        def argv(w):
            return ["run", model, "--size", "tiny", "--weights", w, "--max-time", "0.3",
                    "--warmup", "0", "--no-ceilings", "-q", "-o", "r.json"]
        return argv

    def edit_values(header, data, name, values_f32):
        data = bytearray(data)
        off = header[name]["data_offsets"][0]
        for i, v in enumerate(values_f32):
            data[off + 4 * i:off + 4 * i + 4] = struct.pack("<f", v)
        return bytes(data)

    def first(header, part):
        return next(k for k in tensors(header) if part in k)

    def mutations(header, data, layer_prefix, layer_from, layer_to):
        out = []
        w0 = first(header, "weight")
        out.append(("nan", header, edit_values(header, data, w0, [float("nan")]), w0))
        out.append(("inf", header, edit_values(header, data, w0, [float("inf")]), w0))
        out.append(("minus-inf", header, edit_values(header, data, w0, [0.0, float("-inf")]), w0))
        for dtype in ("I32", "I8", "BOOL", "U8", "I64", "F64", "XX"):
            h = json.loads(json.dumps(header))
            h[w0]["dtype"] = dtype
            out.append(("dtype-" + dtype, h, data, w0))
        h = json.loads(json.dumps(header))
        for k in tensors(header):
            if k.startswith(layer_prefix + layer_from):
                h[layer_prefix + layer_to + k[len(layer_prefix + layer_from):]] = h.pop(k)
        out.append(("layer-gap", h, data, "missing"))
        h = json.loads(json.dumps(header))
        h[w0]["shape"] = [2 ** 40, 2 ** 40]
        out.append(("huge-dims", h, data, w0))
        h = json.loads(json.dumps(header))
        h[w0]["shape"] = [2 ** 32, 2 ** 32, 2 ** 32]
        out.append(("dims-overflow", h, data, w0))
        h = json.loads(json.dumps(header))
        h[w0]["shape"] = [-1] + h[w0]["shape"][1:]
        out.append(("negative-dim", h, data, w0))
        h = json.loads(json.dumps(header))
        h[w0]["shape"] = [0] * len(h[w0]["shape"])
        h[w0]["data_offsets"] = [h[w0]["data_offsets"][0]] * 2
        out.append(("zero-dims", h, data, (w0, "= 0")))
        h = json.loads(json.dumps(header))
        h[w0]["data_offsets"] = [0, 2 ** 62]
        out.append(("offsets-past-end", h, data, w0))
        h = json.loads(json.dumps(header))
        h[w0]["data_offsets"] = list(reversed(h[w0]["data_offsets"]))
        out.append(("offsets-reversed", h, data, w0))
        h = json.loads(json.dumps(header))
        h.pop(w0)
        out.append(("tensor-missing", h, data, w0))
        h = json.loads(json.dumps(header))
        h[w0]["shape"] = [3, 5]
        out.append(("wrong-shape", h, data, w0))
        out.append(("truncated-data", header, data[:len(data) // 2], "safetensors"))
        return out

    for model, (header, data), prefix, frm, to, runner in (
            ("enformer", fx.enformer_w, "transformer.", "1.", "2.", infer_enformer),
            ("geneformer", fx.geneformer_w, "encoder.layer.", "1.", "2.", infer_geneformer)):
        for name, h, dat, needle in mutations(header, data, prefix, frm, to):
            for how, argv in (("infer", runner), ("run", run_with(model))):
                if how == "run" and name not in ("nan", "dtype-I32", "layer-gap", "huge-dims"):
                    continue

                def setup(d, h=h, dat=dat, argv=argv, needle=needle):
                    p = os.path.join(d, "w.safetensors")
                    write_safetensors(p, h, dat)
                    return argv(p), needle

                cases.append(Case("model", "%s-%s/weights-%s" % (how, model, name), None, BAD,
                                  setup=setup, timeout=90))
        raw = [("header-len-huge", struct.pack("<Q", 2 ** 63) + b"{}"),
               ("header-len-past-end", struct.pack("<Q", 1000) + b"{}"),
               ("header-not-json", struct.pack("<Q", 4) + b"{{{{"),
               ("header-deep", struct.pack("<Q", 200000) + b"[" * 200000),
               ("header-dup-key", None), ("empty-file", b""), ("seven-bytes", b"\x01" * 7)]
        for name, blob in raw:
            def setup(d, blob=blob, header=header, data=data, runner=runner):
                p = os.path.join(d, "w.safetensors")
                if blob is None:
                    k = tensors(header)[0]
                    h = json.dumps(header).replace('"%s":' % k, '"%s": {}, "%s":' % (k, k), 1)
                    write_safetensors(p, None, data, raw_header=h.encode())
                else:
                    write(d, "w.safetensors", blob)
                return runner(p), "w.safetensors"

            cases.append(Case("model", "infer-%s/weights-%s" % (model, name), None, BAD,
                              setup=setup))

    # config.json beside the weights.
    for model, w, cfg, needle in (
            ("enformer", "enformer.safetensors", {"target_length": 18446744073709551615},
             "target_length"),
            # -1 is enformer-pytorch's "no crop" (TargetLengthCrop): valid.
            ("enformer", "enformer.safetensors", {"target_length": -1}, None),
            ("enformer", "enformer.safetensors", {"target_length": 1e999}, "config.json"),
            ("enformer", "enformer.safetensors", {"target_length": "16"}, "target_length"),
            ("enformer", "enformer.safetensors", {"heads": 0}, "heads"),
            ("geneformer", "geneformer.safetensors", {"num_attention_heads": 0}, "heads"),
            ("geneformer", "geneformer.safetensors", {"num_attention_heads": 7}, "heads"),
            ("geneformer", "geneformer.safetensors", {"layer_norm_eps": -1}, "eps"),
            ("geneformer", "geneformer.safetensors", {"num_attention_heads": 2 ** 64},
             "num_attention_heads"),
            ("geneformer", "geneformer.safetensors", "{{", "config.json")):
        def setup(d, model=model, w=w, cfg=cfg, needle=needle):
            os.mkdir(os.path.join(d, "ckpt"))
            shutil.copy(fx.path(w), os.path.join(d, "ckpt", "model.safetensors"))
            write(d, "ckpt/config.json", cfg if isinstance(cfg, str) else json.dumps(cfg))
            runner = infer_enformer if model == "enformer" else infer_geneformer
            return runner(os.path.join(d, "ckpt")), needle

        cases.append(Case("model", "config-%s/%s" % (model, json.dumps(cfg)[:40]), None,
                          BAD if needle else ANY, setup=setup))

    # Cells and inputs (.npy).
    def gf_infer(p, extra=()):
        return ["infer", "geneformer", "--size", "tiny", "--input", p, "--output",
                "o.safetensors", *extra]

    def gf_run(p):
        return ["run", "geneformer", "--size", "tiny", "--stages", "eager", "--max-time", "0.3",
                "--warmup", "0", "--no-ceilings", "-q", "--input", p, "-o", "r.json"]

    def enf_infer(p):
        return ["infer", "enformer", "--size", "tiny", "--input", p, "--output", "o.safetensors"]

    def f8(values):
        return struct.pack("<%dd" % len(values), *values)

    npys = [
        ("gf", "nan-id", "<f8", (1, 4), f8([5, float("nan"), 7, 8]), "nan"),
        ("gf", "inf-id", "<f8", (1, 4), f8([5, float("inf"), 7, 8]), "inf"),
        ("gf", "fractional-id", "<f8", (1, 4), f8([5, 6.5, 7, 8]), "6.5"),
        ("gf", "negative-id", "<i8", (1, 4), struct.pack("<4q", 5, -3, 7, 8), "-3"),
        ("gf", "id-past-vocab", "<i8", (1, 4), struct.pack("<4q", 5, 10 ** 9, 7, 8),
         "1000000000"),
        ("gf", "zero-length", "<i8", (1, 0), b"", "0 tokens"),
        ("gf", "zero-cells", "<i8", (0, 4), b"", "0 cells"),
        ("gf", "all-padding", "<i8", (2, 4), struct.pack("<8q", *[0] * 8), "all padding"),
        ("gf", "one-cell-padding", "<i8", (2, 2), struct.pack("<4q", 5, 6, 0, 0), "all padding"),
        ("gf", "too-long", "<i8", (1, 5000), struct.pack("<5000q", *[5] * 5000), "5000"),
        ("gf", "3-dims", "<i8", (1, 2, 2), struct.pack("<4q", 5, 6, 7, 8), "shape"),
        ("gf", "1-dim", "<i8", (4,), struct.pack("<4q", 5, 6, 7, 8), None),
        ("gf", "huge-dims", "<i8", (2 ** 40, 2 ** 40), b"\x05" * 64, "ids.npy"),
        ("gf", "data-short", "<i8", (1, 100), struct.pack("<4q", 5, 6, 7, 8), "ids.npy"),
        ("gf", "complex", "<c8", (1, 2), b"\x00" * 16, "c8"),
        ("gf", "bool", "|b1", (1, 4), b"\x01\x01\x00\x01", None),
        ("gf", "f2-nan", "<f2", (1, 2), b"\x00\x7e\x00\x7e", "nan"),
        ("gf", "big-endian-garbage", ">q", (1, 2), b"\xff" * 16, "ids.npy"),
        ("gf", "object", "|O", (1, 2), b"\x00" * 16, "ids.npy"),
        ("enf", "nan-onehot", "<f4", (1, 4096, 4),
         struct.pack("<f", float("nan")) + b"\x00" * (4096 * 16 - 4), "nan"),
        # Documented (models/enformer/infer.cpp, docs/models.md): a base index outside 0..3 is N,
        # an all-zero row; valid.
        ("enf", "base-5", "<i8", (1, 4096), struct.pack("<4096q", *([5] + [0] * 4095)), None),
        ("enf", "length-3000", "<i8", (1, 3000), struct.pack("<3000q", *[0] * 3000), "3000"),
        ("enf", "length-0", "<i8", (1, 0), b"", "ids.npy"),
        ("enf", "onehot-5-channels", "<f4", (1, 4096, 5), b"\x00" * (4096 * 20), "5"),
        ("enf", "huge-dims", "<f4", (2 ** 31, 2 ** 31, 4), b"\x00" * 64, "ids.npy"),
    ]
    for who, name, descr, shape, data, needle in npys:
        for how in (("infer", "run") if who == "gf" and name in ("nan-id", "zero-length",
                                                                 "all-padding") else ("infer",)):
            def setup(d, descr=descr, shape=shape, data=data, needle=needle, who=who, how=how):
                p = os.path.join(d, "ids.npy")
                write_npy(p, descr, shape, data)
                argv = (gf_infer(p) if how == "infer" else gf_run(p)) if who == "gf" else \
                    enf_infer(p)
                return argv, needle or "ids.npy"

            # A 1-D array or booleans may be read as one cell or ids 0/1: valid or not, never a
            # crash; the rest is bad input.
            expect = ANY if name in ("1-dim", "bool", "base-5") else BAD
            cases.append(Case("model", "%s-%s/npy-%s" % (how, who, name), None, expect,
                              setup=setup, timeout=90))
    raw_npy = [("bad-magic", b"NOTNUMPY" + b"\x00" * 100),
               ("version-9", b"\x93NUMPY\x09\x00" + struct.pack("<H", 4) + b"{}  "),
               ("header-len-past-end", b"\x93NUMPY\x01\x00" + struct.pack("<H", 60000) + b"{"),
               ("header-not-dict", None), ("fortran", "fortran"), ("empty", b""),
               ("shape-negative", "negative"), ("shape-string", "shape-string")]
    for name, blob in raw_npy:
        def setup(d, blob=blob):
            p = os.path.join(d, "ids.npy")
            if blob is None:
                write_npy(p, "", (), b"", header="[1, 2, 3]")
            elif blob == "fortran":
                write_npy(p, "", (), struct.pack("<4q", 5, 6, 7, 8),
                          header="{'descr': '<i8', 'fortran_order': True, 'shape': (2, 2), }")
            elif blob == "negative":
                write_npy(p, "", (), b"",
                          header="{'descr': '<i8', 'fortran_order': False, 'shape': (-1, 4), }")
            elif blob == "shape-string":
                write_npy(p, "", (), b"",
                          header="{'descr': '<i8', 'fortran_order': False, 'shape': 'x', }")
            else:
                write(d, "ids.npy", blob)
            return gf_infer(p), "ids.npy"

        # Fortran order holds the same values transposed: read right or refused, never a crash.
        cases.append(Case("model", "infer-gf/npy-" + name, None,
                          ANY if name == "fortran" else BAD, setup=setup))
    # Cells in a .safetensors with a mask.
    for name, ids, mask, needle in (
            ("mask-all-zero", [5, 6, 7, 8], [0, 0, 0, 0], "all padding"),
            ("mask-shape", [5, 6, 7, 8], [1, 1], "attention mask"),
            ("mask-two", [5, 6, 7, 8], [1, 2, 1, 1], "attention mask"),
            ("ids-f32-nan", None, None, "nan")):
        def setup(d, ids=ids, mask=mask, needle=needle):
            p = os.path.join(d, "cells.safetensors")
            if ids is None:
                raw = struct.pack("<4f", 5, float("nan"), 7, 8)
                write_safetensors(p, {"input_ids": {"dtype": "F32", "shape": [1, 4],
                                                    "data_offsets": [0, 16]}}, raw)
            else:
                a = struct.pack("<%dq" % len(ids), *ids)
                m = struct.pack("<%dq" % len(mask), *mask)
                write_safetensors(p, {"input_ids": {"dtype": "I64", "shape": [1, len(ids)],
                                                    "data_offsets": [0, len(a)]},
                                      "attention_mask": {"dtype": "I64", "shape": [1, len(mask)],
                                                         "data_offsets": [len(a),
                                                                          len(a) + len(m)]}},
                                  a + m)
            return gf_infer(p), needle

        cases.append(Case("model", "infer-gf/cells-" + name, None, BAD, setup=setup))
    # DeepFM tables.
    tables = [
        ("empty", "", "t.tsv"), ("header-only", TSV_HEADER, "t.tsv"),
        ("no-header", "".join(tsv_row(i) for i in range(10)), "t.tsv"),
        ("six-columns", TSV_HEADER + "a\tb\tc\td\te\tf\n" * 5, "t.tsv"),
        ("eight-columns", TSV_HEADER + "a\tb\tc\td\te\tf\tg\th\n" * 5, "t.tsv"),
        ("binary", "\x00\xff\xfe\x01" * 100, "t.tsv"),
        ("unknown-direction", TSV_HEADER + "".join(tsv_row(i, "sideways") for i in range(10)),
         "sideways"),
        ("long-line", TSV_HEADER + "x" * 2000000 + "\n", "t.tsv"),
        ("one-label", TSV_HEADER + "".join(tsv_row(i, "increased") for i in range(10)), "t.tsv"),
    ]
    for name, body, needle in tables:
        for how in ("run", "export-steps"):
            def setup(d, body=body, needle=needle, how=how):
                p = write(d, "t.tsv", body)
                if how == "run":
                    return ["run", "deepfm", "--size", "tiny", "--data", p, "--max-time", "0.3",
                            "--warmup", "0", "--no-ceilings", "-q", "-o", "r.json"], needle
                return ["export-steps", "deepfm", "--size", "tiny", "--steps", "2", "--data", p,
                        "--out", "steps"], needle

            # A table of one label is legal data (the model learns nothing): valid or refused.
            cases.append(Case("model", "%s-deepfm/table-%s" % (how, name), None,
                              ANY if name == "one-label" else BAD, setup=setup, timeout=90))
    return cases


# --- the cli class --------------------------------------------------------------------------

INT_BAD = ["-1", "", "abc", "1.5", "nan", "inf", "-inf", "1e999", "99999999999999999999",
           "0x10", " 5", "5 "]
FLOAT_BAD = ["-1", "", "abc", "nan", "inf", "-inf", "1e999", "-1e999", "1,5"]


# Values judged valid, each with its reason: only no crash and no hang is asked of them.
VALID_CLI = {
    # A list naming a stage twice (and an empty item) measures the stage once.
    ("gemm", "--stages", "fp32,,fp32"): ANY,
    # PAPI events this machine lacks are recorded in the result with their error, by design.
    ("gemm", "--events", "NO_SUCH_EVENT"): ANY,
    # probe --events lists the events to try: a missing one is reported as missing.
    ("probe", "--events", "NO_SUCH_EVENT"): ANY,
}


def option_needles(opt, value):
    """What a message about `opt` given `value` may name: the option, the option as words
    ("max time", "warm-up"), the value as given, or the empty value quoted."""
    words = opt.lstrip("-").replace("-", " ")
    out = (opt, words, words.rstrip("s"), words.replace("warmup", "warm-up"))
    return out + ((value.strip(),) if value.strip() else ("''",))


def with_option(argv, opt, value):
    """argv with `opt` set to `value`: replaced where argv sets it already, else appended."""
    argv = list(argv)
    if opt in argv:
        argv[argv.index(opt) + 1] = value
        return argv
    return argv + [opt, value]


def cli_cases(fx):
    cases = []
    quick = ["--max-time", "0.3", "--warmup", "0", "--no-ceilings", "-q", "-o", "r.json"]
    run = {
        "gemm": ["run", "gemm", "--size", "tiny"],
        "enformer": ["run", "enformer", "--size", "tiny", "--stages", "original"],
        "geneformer": ["run", "geneformer", "--size", "tiny", "--stages", "eager"],
        "deepfm": ["run", "deepfm", "--size", "tiny"],
    }
    # (command prefix, option, bad values, values that are also bad here)
    table = [
        (run["gemm"], "--max-time", FLOAT_BAD + ["1e300"]),  # 0 is valid: min-samples only
        (run["gemm"], "--warmup", FLOAT_BAD + ["1e300"]),
        (run["gemm"], "--noise", FLOAT_BAD + ["0"]),
        (run["gemm"], "--min-samples", INT_BAD),
        (run["gemm"], "--max-samples", INT_BAD),
        (run["gemm"], "--seed", INT_BAD + ["18446744073709551616"]),
        (run["gemm"], "--repeat", INT_BAD + ["0", "1001"]),
        (run["gemm"], "--size", ["", "huge", "0x0x0", "-1x2x3", "99999999999x1x1", "1x1",
                                 "nanxnanxnan", "1x1x1x1"]),
        (run["gemm"], "--backend", ["", "tpu", "CPU", "cpu,opencl"]),
        (run["gemm"], "--stages", ["", "99", "-1", "nosuch", "fp32,,fp32"]),
        (run["gemm"], "--quality", ["", "vibes"]),
        (run["gemm"], "--format", ["", "xml"]),
        (run["gemm"], "--ceiling", ["", "=", "fp32", "fp32=", "fp32=-5", "fp32=nan",
                                    "fp32=inf", "fp99=5", "fp32=1e999"]),
        (run["gemm"], "--events", ["", "NO_SUCH_EVENT"]),
        (run["gemm"], "--device", ["0:0"]),
        (run["gemm"], "--memory-cap", ["1G"]),
        (run["gemm"], "--batch", INT_BAD + ["auto"]),
        (run["enformer"], "--batch", INT_BAD + ["Auto"]),
        (run["enformer"], "--length", INT_BAD + ["0", "3000"]),
        (run["enformer"], "--target", INT_BAD + ["0", "64", "5"]),
        (run["enformer"], "--memory-cap", ["1G", "", "-1", "nan", "0", "1e30", "5Q"]),
        (run["enformer"], "--heads", ["4"]),
        (run["geneformer"], "--heads", INT_BAD + ["0", "3"]),
        (run["geneformer"], "--eps", FLOAT_BAD + ["0"]),
        (run["geneformer"], "--length", ["128"]),
        (run["deepfm"], "--data", ["", "/no/such.tsv"]),
        (run["deepfm"], "--weights", ["", "/no/such.safetensors"]),
        (run["gemm"], "--timeline", ["", "r.json"]),
        (run["gemm"], "-o", [""]),
    ]
    for prefix, opt, values in table:
        for v in values:
            argv = with_option(prefix + quick, opt, v)
            if opt == "--memory-cap" and v != "1G" and prefix is run["enformer"]:
                argv = with_option(prefix + ["--batch", "auto"] + quick, opt, v)
            needle = opt if opt not in ("--size", "--backend", "--stages", "--quality",
                                        "--ceiling", "--events", "--timeline") or not v else v
            if opt in ("--stages",) and v in ("99", "-1"):
                needle = v
            cases.append(Case("cli", "%s/%s=%r" % (prefix[1], opt, v), argv,
                              VALID_CLI.get((prefix[1], opt, v), BAD),
                              needle=option_needles(opt, v), timeout=60))
    tails = {
        "report": ["report", fx.result],
        "compare": ["compare", fx.result, fx.result],
        "compare-ab": ["compare-ab", "--base", fx.result, "--candidate", fx.result],
        "merge": ["merge", fx.result, "-o", "m.json"],
        "infer": ["infer", "geneformer", "--size", "tiny", "--input", fx.path("gf_ids.npy"),
                  "--output", "o.safetensors"],
        "export": ["export-steps", "deepfm", "--size", "tiny", "--out", "steps"],
        "tune": ["tune", "--device", "no-such-device-anywhere"],
        "peer": ["peer", "enformer", "--size", "tiny", "-o", fx.result],
        "probe": ["probe"],
        "sweep": ["sweep", fx.sweep, "-o", "s.json"],
    }
    more = [
        ("compare", "--alpha", FLOAT_BAD + ["0", "1", "2"]),
        ("compare", "--min-effect", FLOAT_BAD),
        ("compare", "--min-samples", INT_BAD),
        ("compare", "--format", ["", "xml"]),
        ("compare", "-o", ["", "/"]),
        ("compare-ab", "--slower", FLOAT_BAD + ["0", "0.5", "1e9"]),
        ("compare-ab", "--format", ["xml"]),
        ("report", "--format", ["", "pdf"]),
        ("report", "-o", ["", "/"]),
        ("merge", "--format", ["", "xml"]),
        ("merge", "-o", ["", "/"]),
        ("infer", "--seed", INT_BAD),
        ("infer", "--heads", INT_BAD + ["0"]),
        ("infer", "--eps", FLOAT_BAD + ["0"]),
        ("infer", "--target", INT_BAD + ["0"]),
        ("infer", "--stage", ["", "99", "nosuch", "-1"]),
        ("infer", "--size", ["", "huge"]),
        ("infer", "--backend", ["", "tpu", "all"]),
        ("infer", "--device", ["0:0"]),
        ("infer", "--output", [""]),
        ("infer", "--mask", ["/no/such.npy"]),
        ("infer", "--export-weights", [""]),
        ("export", "--steps", INT_BAD + ["0"]),
        ("export", "--batch", INT_BAD),
        ("export", "--seed", INT_BAD),
        ("export", "--stage", ["", "99", "nosuch"]),
        ("export", "--size", ["", "huge"]),
        ("export", "--backend", ["", "tpu", "all"]),
        ("export", "--device", ["0:0"]),
        ("export", "--out", [""]),
        ("export", "--weights", ["/no/such.safetensors"]),
        ("tune", "--size", INT_BAD + ["0"]),
        ("tune", "--fraction", FLOAT_BAD + ["0", "2"]),
        ("tune", "--device", ["no-such-device-anywhere"]),
        ("peer", "--size", ["", "huge"]),
        ("peer", "--runs", INT_BAD + ["0"]),
        ("peer", "--deadline", FLOAT_BAD + ["0"]),
        ("peer", "--variant-budget", FLOAT_BAD + ["0"]),
        ("peer", "--autotune-budget", FLOAT_BAD),
        ("peer", "--variants", ["", ",", "nosuch"]),
        ("peer", "--python", ["/no/such/python"]),
        ("peer", "--scripts", ["/no/such/folder"]),
        ("sweep", "--format", ["", "xml"]),
        ("probe", "--json", ["", "/"]),
        ("probe", "--events", ["NO_SUCH_EVENT"]),
    ]
    for cmd, opt, values in more:
        for v in values:
            argv = with_option(tails[cmd], opt, v)
            needle = opt if not v or opt in ("--alpha", "--min-effect", "--slower", "--seed",
                                             "--heads", "--eps", "--target", "--steps",
                                             "--batch", "--runs", "--deadline",
                                             "--variant-budget", "--autotune-budget",
                                             "--min-samples", "--fraction", "--format") else v
            if opt in ("-o", "--json") and v == "/":
                needle = "folder"
            keep = ("copy.json",) if cmd == "peer" else ()
            if cmd == "peer":
                def setup(d, opt=opt, v=v, needle=(needle,) + option_needles(opt, v)):
                    shutil.copy(fx.enformer_result, os.path.join(d, "copy.json"))
                    return with_option(["peer", "enformer", "--size", "tiny", "-o", "copy.json"],
                                       opt, v), needle

                cases.append(Case("cli", "peer/%s=%r" % (opt, v), None, BAD, setup=setup,
                                  keep=keep, timeout=60))
                continue
            cases.append(Case("cli", "%s/%s=%r" % (cmd, opt, v), argv,
                              VALID_CLI.get((cmd, opt, v), BAD),
                              needle=(needle,) + option_needles(opt, v), timeout=60))
    for cmd, argv in tails.items():
        cases.append(Case("cli", "%s/unknown-option" % cmd, argv + ["--bogus-option"], BAD,
                          needle="--bogus-option"))
        cases.append(Case("cli", "%s/extra-positional" % cmd,
                          argv + ["extra-positional-arg"], BAD,
                          needle="extra-positional-arg"))
    for argv, needle in ((["run"], "model"), (["run", "nosuch"], "nosuch"), ([], "subcommand"),
                         (["bogus"], "bogus"), (["report"], "files"), (["compare", fx.result],
                                                                         "candidate"),
                         (["merge", fx.result], "--output"), (["infer", "enformer"], "--input"),
                         (["export-steps", "enformer", "--out", "x"], "enformer"),
                         (["peer", "nosuch"], ("nosuch", "--output")), (["sweep"], "sweep file"),
                         (["trace"], "trace"), (["run", "gemm", "--size"], "--size")):
        cases.append(Case("cli", "missing/" + " ".join(argv), argv, BAD, needle=needle))
    return cases


# --- the signals class ----------------------------------------------------------------------


def catches_sigterm(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return (int(line.split()[1], 16) >> (signal.SIGTERM - 1)) & 1 == 1
    except OSError:
        pass
    return False


def signal_runner(sig, delay, second=None, journal=None):
    def run_case(case, sb, viewer, d, env, argv):
        argv = [sb] + argv
        t0 = time.monotonic()
        # Output to a file, not a pipe: a child left running would hold a pipe open.
        log = open(os.path.join(d, "output.txt"), "w+b")
        p = subprocess.Popen(argv, cwd=d, env=env, stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)

        def result(timed_out):
            log.seek(0)
            text = log.read().decode(errors="replace")
            log.close()
            return p.returncode, text, time.monotonic() - t0, timed_out

        limit = time.monotonic() + 20
        while not catches_sigterm(p.pid) and p.poll() is None and time.monotonic() < limit:
            time.sleep(0.001)
        if p.poll() is not None:
            return result(False)
        time.sleep(delay)
        p.send_signal(sig)
        if second is not None:
            time.sleep(second)
            try:
                p.send_signal(sig)
            except ProcessLookupError:
                pass
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            return result(True)
        return result(False)

    return run_case


def stopped_output_ok(fx_sb, journal=None):
    def check(r, d):
        out = os.path.join(d, "r.json")
        if os.path.exists(out):
            try:
                doc = json.load(open(out))
            except ValueError as e:
                return "lost", "r.json is not JSON after the stop: %s" % e
            for run in doc.get("runs", []):
                for s in run.get("stages", []):
                    if not s.get("id") or not s.get("title"):
                        return "lost", "a stage without id or title: %s" % json.dumps(s)[:200]
            rep = subprocess.run([fx_sb, "report", out], capture_output=True, text=True,
                                 timeout=60)
            if rep.returncode != 0:
                return "lost", "report refuses r.json after the stop: %s" % rep.stderr[-300:]
        if journal:
            path = os.path.join(d, journal)
            if os.path.exists(path):
                lines = [l for l in open(path).read().split("\n") if l]
                try:
                    json.loads(lines[-1]) if lines else None
                except ValueError:
                    return "lost", "the journal's last line is torn"
        return None
    return check


def signal_cases(fx, sb):
    cases = []
    long_run = ["--no-ceilings", "-q", "--warmup", "3000", "-o", "r.json"]
    targets = {
        "run-enformer": ["run", "enformer", "--size", "tiny"] + long_run,
        "run-gemm": ["run", "gemm", "--size", "tiny"] + long_run,
        "run-deepfm": ["run", "deepfm", "--size", "tiny", "--stages", "vectorized-fm"] + long_run,
        "run-geneformer-opencl": ["run", "geneformer", "--size", "tiny", "--backend", "opencl",
                                  "--stages", "eager"] + long_run,
        "run-repeat": ["run", "gemm", "--size", "tiny", "--repeat", "3"] + long_run,
    }
    for name, argv in targets.items():
        delays = (0.0, 0.05, 0.3, 1.0, 2.5) if name in ("run-enformer", "run-gemm") else (0.2,
                                                                                          1.5)
        for sig in (signal.SIGTERM, signal.SIGINT):
            for delay in delays:
                cases.append(Case("signals", "%s/%s@%gs" % (name, sig.name, delay), argv, STOP,
                                  runner=signal_runner(sig, delay), check=stopped_output_ok(sb),
                                  timeout=60))
        cases.append(Case("signals", "%s/SIGTERM-twice@1s" % name, argv, STOP,
                          runner=signal_runner(signal.SIGTERM, 1.0, second=0.01),
                          check=stopped_output_ok(sb), timeout=60))

    def sweep_setup(d):
        doc = sweep_doc(warmup=3000)
        write(d, "sweep.json", json.dumps(doc))
        return ["sweep", "sweep.json", "-q", "-o", "r.json"], None

    for sig in (signal.SIGTERM, signal.SIGINT):
        for delay in (0.0, 0.1, 0.5, 1.5, 3.0):
            cases.append(Case("signals", "sweep/%s@%gs" % (sig.name, delay), None, STOP,
                              setup=sweep_setup, runner=signal_runner(sig, delay),
                              check=stopped_output_ok(sb, "r.journal.jsonl"), timeout=60))
    cases.append(Case("signals", "sweep/SIGTERM-twice@1.5s", None, STOP, setup=sweep_setup,
                      runner=signal_runner(signal.SIGTERM, 1.5, second=0.01),
                      check=stopped_output_ok(sb, "r.journal.jsonl"), timeout=60))
    return cases


# --- the faults class -----------------------------------------------------------------------


def faults_cases(fx):
    cases = []
    enf = ["run", "enformer", "--size", "tiny", "--backend", "opencl", "--max-time", "0.5",
           "--warmup", "0", "-q", "--no-ceilings", "--stages", "original,fused-attention,bf16",
           "-o", "r.json"]

    def failed_document(needles):
        def check(r, d):
            try:
                doc = json.load(open(os.path.join(d, "r.json")))
            except (OSError, ValueError) as e:
                return "lost", "no valid r.json after a fault: %s" % e
            text = json.dumps(doc)
            if not any(n in text for n in needles):
                return "wrong-code", "r.json names none of %s" % (needles,)
            return None
        return check

    good = [("launch:gemm_epilogue", ["injected by STAGEBENCH_FAULT"]),
            ("launch:softmax_rows,launch:gemm_epilogue", ["injected"]),
            ("build:activation", ["CL_BUILD_PROGRAM_FAILURE"]),
            ("alloc:1", ["CL_MEM_OBJECT_ALLOCATION_FAILURE"]),
            ("alloc:65536", ["CL_MEM_OBJECT_ALLOCATION_FAILURE"]),
            ("lost:0", ["device lost"]), ("lost:1", ["device lost"]),
            ("lost:40", ["device lost"]), ("lost:300", ["device lost"])]
    for spec, needles in good:
        cases.append(Case("faults", "run-enformer/" + spec, enf, FAILED,
                          env={"STAGEBENCH_FAULT": spec}, check=failed_document(needles),
                          timeout=120))
    # The GEMM benchmark's products are CLBlast's: launch:gemm_epilogue (the portable GEMM's)
    # never fires there, and a clean exit 0 is right.
    for spec, needles in (("launch:gemm_epilogue", None), ("lost:5", ["device lost"]),
                          ("alloc:1", ["CL_MEM_OBJECT_ALLOCATION_FAILURE"])):
        cases.append(Case("faults", "run-gemm/" + spec,
                          ["run", "gemm", "--size", "tiny", "--backend", "opencl", "--max-time",
                           "0.3", "--warmup", "0", "-q", "--no-ceilings", "-o", "r.json"],
                          FAILED if needles else ANY, env={"STAGEBENCH_FAULT": spec},
                          check=needles and failed_document(needles), timeout=120))
        cases.append(Case("faults", "run-all-gemm/" + spec,
                          ["run", "gemm", "--size", "tiny", "--backend", "all", "--max-time",
                           "0.3", "--warmup", "0", "-q", "--no-ceilings", "-o", "r.json"],
                          FAILED if needles else ANY, env={"STAGEBENCH_FAULT": spec},
                          check=needles and failed_document(needles), timeout=120))
    cases.append(Case("faults", "run-geneformer/lost:10",
                      ["run", "geneformer", "--size", "tiny", "--backend", "opencl", "--max-time",
                       "0.3", "--warmup", "0", "-q", "--no-ceilings", "-o", "r.json"],
                      FAILED, env={"STAGEBENCH_FAULT": "lost:10"},
                      check=failed_document(["device lost"]), timeout=120))
    cases.append(Case("faults", "run-deepfm/alloc:1",
                      ["run", "deepfm", "--size", "tiny", "--backend", "opencl", "--max-time",
                       "0.3", "--warmup", "0", "-q", "--no-ceilings", "-o", "r.json"],
                      FAILED, env={"STAGEBENCH_FAULT": "alloc:1"},
                      check=failed_document(["CL_MEM_OBJECT_ALLOCATION_FAILURE"]), timeout=120))

    def sweep_fault(d):
        doc = sweep_doc()
        doc["entries"][0]["backends"] = ["cpu", "opencl"]
        write(d, "sweep.json", json.dumps(doc))
        return ["sweep", "sweep.json", "-q", "-o", "r.json"], None

    for spec, needles in (("lost:3", ["device lost"]), ("alloc:1", ["ALLOCATION"])):
        cases.append(Case("faults", "sweep/" + spec, None, FAILED, setup=sweep_fault,
                          env={"STAGEBENCH_FAULT": spec}, check=failed_document(needles),
                          timeout=120))
    infer = ["infer", "geneformer", "--size", "tiny", "--backend", "opencl", "--input",
             fx.path("gf_ids.npy"), "--output", "o.safetensors"]
    for spec in ("lost:0", "alloc:1", "launch:gemm_epilogue"):
        cases.append(Case("faults", "infer/" + spec, infer, FAILED,
                          env={"STAGEBENCH_FAULT": spec}, timeout=120))
    # A bad switch is bad input, whichever command and backend reads it.
    # Not here: "," (empty entries, no faults, as an empty value is: documented).
    bad = ["launch", "lost:-1", "lost:abc", "lost:", "alloc:", "alloc:-5", "alloc:1e999",
           "bogus:x", "lost:99999999999999999999", "build:", "launch:", "lost:1,lost:2",
           "alloc:1,alloc:2", "alloc:1K"]
    for spec in bad:
        cases.append(Case("faults", "bad-switch/%r" % spec, enf, BAD,
                          env={"STAGEBENCH_FAULT": spec}, needle="STAGEBENCH_FAULT",
                          timeout=120))
    for spec in ("launch", "lost:-1"):
        for argv, name in ((infer, "infer"), (["export-steps", "deepfm", "--size", "tiny",
                                               "--backend", "opencl", "--steps", "1", "--out",
                                               "steps"], "export-steps")):
            cases.append(Case("faults", "bad-switch-%s/%r" % (name, spec), argv, BAD,
                              env={"STAGEBENCH_FAULT": spec}, needle="STAGEBENCH_FAULT",
                              timeout=120))
    slow_bad = ["gemm", "gemm:", "gemm:0", "gemm:-2", "gemm:nan", "gemm:inf", "gemm:1e999",
                ":2", "nosuch_op:2", "gemm:abc", "gemm:0.5"]
    for spec in slow_bad:
        cases.append(Case("faults", "bad-slow-op/%r" % spec,
                          ["run", "gemm", "--size", "tiny", "--max-time", "0.3", "--warmup", "0",
                           "-q", "--no-ceilings", "-o", "r.json"], BAD,
                          env={"STAGEBENCH_SLOW_OP": spec}, needle="STAGEBENCH_SLOW_OP",
                          timeout=60))
    for spec in ("-1", "abc", "0", "1e999", "99999999999999999999"):
        cases.append(Case("faults", "bad-local-mem-limit/%r" % spec, enf, BAD,
                          env={"STAGEBENCH_CL_LOCAL_MEM_LIMIT": spec},
                          needle="STAGEBENCH_CL_LOCAL_MEM_LIMIT", timeout=120))
    return cases


# --- running and classifying ----------------------------------------------------------------


def classify(case, rc, output, timed_out, d, keep_before):
    if timed_out:
        return "hang", "no exit within %d s" % case.timeout
    for mark in CRASH_MARKS:
        if mark in output:
            return "crash", "output holds '%s'" % mark
    if rc < 0:
        return "crash", "killed by signal %d" % -rc
    if rc >= 128 and not (case.expect == STOP and rc == 130):
        return "crash", "exit %d" % rc
    if case.expect == STOP:
        if rc != 130:
            return "wrong-code", "exit %d after the signal (want 130)" % rc
    elif case.expect == BAD:
        if rc == 0:
            return "silent-0", "exit 0 on bad input"
        if rc != 2:
            return "wrong-code", "exit %d on bad input (want 2)" % rc
        if not names(case.needle, output):
            return "unnamed", "exit 2 but the message names none of %r" % (case.needle,)
        if not output.strip():
            return "unnamed", "exit 2 without a message"
    elif case.expect == VIEWER_BAD:
        if rc == 0:
            return "silent-0", "exit 0 on bad input"
        if rc not in (1, 2):
            return "wrong-code", "exit %d (the viewer's documented codes are 1 and 2)" % rc
        if not names(case.needle, output):
            return "unnamed", "the message names none of %r" % (case.needle,)
    elif case.expect == FAILED:
        if rc == 0:
            return "silent-0", "exit 0 under an injected fault"
        if rc != 1:
            return "wrong-code", "exit %d under a fault (want 1)" % rc
    elif case.expect == OK:
        if rc != 0:
            return "wrong-code", "exit %d on valid input (want 0)" % rc
        if case.needle and case.needle not in output:
            return "unnamed", "exit 0 but the output does not say '%s'" % case.needle
    elif case.expect == ANY:
        if rc not in (0, 1, 2, 3):
            return "wrong-code", "exit %d" % rc
    if case.expect in (BAD, VIEWER_BAD):
        for name, before in keep_before.items():
            if snapshot(os.path.join(d, name)) != before:
                return "lost", "%s changed by a refused run" % name
    if case.check:
        found = case.check(output, d)
        if found:
            return found
    return "clean", ""


def leftovers(d):
    """Processes still running in the case's folder, the cwd every process of the case inherits
    (a child in a process group or session of its own included), with their command lines."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.readlink("/proc/%s/cwd" % entry) != d:
                continue
            with open("/proc/%s/stat" % entry) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                found.append((int(entry), f.read().replace(b"\0", b" ").decode(errors="replace")))
        except OSError:
            continue
    return found


def names(needle, output):
    """Whether the output names the problem: `needle`, or any of a tuple of them."""
    if not needle:
        return True
    return any(n in output for n in (needle if isinstance(needle, tuple) else (needle,)))


def snapshot(path):
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISREG(st.st_mode):
        try:
            return open(path, "rb").read()
        except OSError:
            return "unreadable"
    return stat.S_IFMT(st.st_mode)


def run_case(case, sb, viewer, root, index):
    d = os.path.join(root, "cases", "%04d" % index)
    os.makedirs(d)
    argv = case.argv
    if case.setup:
        argv, needle = case.setup(d)
        if case.needle is None:
            case.needle = needle or None
    keep_before = {k: snapshot(os.path.join(d, k)) for k in case.keep}
    env = dict(os.environ, OMP_NUM_THREADS="1", STAGEBENCH_ADAPT_THREADS="0")
    env.update(case.env)
    t0 = time.monotonic()
    if case.runner:
        rc, output, _, timed_out = case.runner(case, sb, viewer, d, env, argv)
    else:
        if case.viewer:
            env["QT_QPA_PLATFORM"] = "offscreen"
            env["XDG_RUNTIME_DIR"] = os.path.join(d, "xdg")  # Qt wants it private
            os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)
            cmd = [viewer] + [a for a in argv if a != "FILE"]
        else:
            cmd = [sb] + argv
        with open(os.path.join(d, "output.txt"), "w+b") as log:
            p = subprocess.Popen(cmd, cwd=d, env=env, stdout=log, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
            timed_out = False
            try:
                p.wait(timeout=case.timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            rc = p.returncode
            log.seek(0)
            output = log.read().decode(errors="replace")
    took = time.monotonic() - t0
    outcome, detail = classify(case, rc, output, timed_out, d, keep_before)
    left = leftovers(d)
    for _ in range(20):  # a child ending on its own takes a moment
        if not left:
            break
        time.sleep(0.1)
        left = leftovers(d)
    if left and outcome != "hang":
        outcome, detail = "hang", "left %d process(es) running after it exited: %s" % (
            len(left), "; ".join(a for _, a in left)[:300])
    for pid, _ in left:  # started by this case (they run in its folder): ended here
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for dirpath, dirnames, filenames in os.walk(d):  # unreadable fixtures block rmtree
        for n in dirnames + filenames:
            try:
                os.chmod(os.path.join(dirpath, n), 0o700)
            except OSError:
                pass
    return {"class": case.cls, "name": case.name, "outcome": outcome, "detail": detail,
            "exit": rc, "seconds": round(took, 2),
            "argv": argv if argv is not None else case.argv,
            "env": case.env, "output": output[-1500:] if outcome != "clean" else ""}


CLASSES = ("json", "sweep", "model", "cli", "signals", "faults", "viewer")
OUTCOMES = ("clean", "crash", "hang", "silent-0", "wrong-code", "unnamed", "lost")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--classes", default=",".join(CLASSES))
    ap.add_argument("--match", default="", help="only cases whose class/name holds this text")
    ap.add_argument("--summary", help="write the summary here as well as to stdout")
    ap.add_argument("--log", help="one JSON line per case (every case, the output of failures)")
    ap.add_argument("--keep", help="keep the cases' folders under this folder")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    args = ap.parse_args()
    classes = [c for c in args.classes.split(",") if c]
    for c in classes:
        if c not in CLASSES:
            ap.error("unknown class %r (%s)" % (c, ", ".join(CLASSES)))
    sb = os.path.join(args.build, "harness", "stagebench")
    viewer = os.path.join(args.build, "gui", "stagebench-viewer")
    for b in (sb,) + ((viewer,) if "viewer" in classes else ()):
        if not os.access(b, os.X_OK):
            ap.error("%s is not built" % b)
    root = args.keep or tempfile.mkdtemp(prefix="sb-hostile-")
    os.makedirs(root, exist_ok=True)
    try:
        return campaign(args, classes, sb, viewer, root)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def campaign(args, classes, sb, viewer, root):
    started = time.monotonic()
    fx = Fixtures(sb, root)
    fx.make()
    makers = {"json": lambda: json_cases(fx), "sweep": lambda: sweep_cases(fx),
              "model": lambda: model_cases(fx), "cli": lambda: cli_cases(fx),
              "signals": lambda: signal_cases(fx, sb), "faults": lambda: faults_cases(fx),
              "viewer": lambda: viewer_cases(fx)}
    cases = [c for cls in classes for c in makers[cls]()
             if args.match in "%s/%s" % (c.cls, c.name)]
    if args.list:
        for c in cases:
            print("%s/%s" % (c.cls, c.name))
        return 0
    results = [None] * len(cases)
    done = 0
    lock = threading.Lock()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_case, c, sb, viewer, root, i): i for i, c in enumerate(cases)}
        for f in concurrent.futures.as_completed(futures):
            i = futures[f]
            try:
                results[i] = f.result()
            except Exception as e:  # a bug of this script: reported, not hidden
                results[i] = {"class": cases[i].cls, "name": cases[i].name,
                              "outcome": "driver-error", "detail": repr(e), "exit": None,
                              "seconds": 0, "argv": cases[i].argv, "env": cases[i].env,
                              "output": ""}
            with lock:
                done += 1
                r = results[i]
                if r["outcome"] != "clean":
                    print("[%d/%d] %s %s/%s: %s" % (done, len(cases), r["outcome"].upper(),
                                                    r["class"], r["name"], r["detail"]),
                          file=sys.stderr, flush=True)
    wall = time.monotonic() - started
    if args.log:
        with open(args.log, "w") as f:
            for r in results:
                f.write(json.dumps(r) + "\n")
    build = fx.doc.get("context", {}).get("build", {})
    built = "%s%s" % (build.get("git", "unknown"), " (dirty)" if build.get("git_dirty") else "")
    text = summary(results, classes, wall, args, built)
    print(text)
    if args.summary:
        with open(args.summary, "w") as f:
            f.write(text)
    return 0 if all(r["outcome"] == "clean" for r in results) else 1


def git_commit():
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return head + (" (dirty)" if dirty else "")
    except OSError:
        return "unknown"


def summary(results, classes, wall, args, built):
    counts = collections.OrderedDict((c, collections.Counter()) for c in classes)
    for r in results:
        counts[r["class"]][r["outcome"]] += 1
    outcomes = list(OUTCOMES) + sorted({r["outcome"] for r in results} - set(OUTCOMES))
    lines = ["hostile-input campaign (issue 29): tests/hostile/campaign.py",
             "commit: %s (the driver); binaries built from %s (%s)" % (
                 git_commit(), built, os.path.relpath(args.build, ROOT)),
             "command: python3 tests/hostile/campaign.py %s" % " ".join(sys.argv[1:]),
             "date: %s" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
             "wall time: %.0f s (%d cases, %d jobs at a time; load average at the end %.1f)" % (
                 wall, len(results), args.jobs, os.getloadavg()[0]),
             ""]
    width = max(len(o) for o in outcomes) + 2
    lines.append("class".ljust(9) + "cases".rjust(7) + "".join(o.rjust(width) for o in outcomes))
    total = collections.Counter()
    for c, k in counts.items():
        total.update(k)
        lines.append(c.ljust(9) + str(sum(k.values())).rjust(7) +
                     "".join(str(k[o]).rjust(width) for o in outcomes))
    lines.append("total".ljust(9) + str(sum(total.values())).rjust(7) +
                 "".join(str(total[o]).rjust(width) for o in outcomes))
    bad = [r for r in results if r["outcome"] != "clean"]
    if bad:
        lines += ["", "not clean:"]
        for r in bad:
            lines.append("  %s %s/%s: %s" % (r["outcome"], r["class"], r["name"], r["detail"]))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
