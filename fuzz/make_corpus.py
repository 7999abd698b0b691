#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (fuzz/corpus/TARGET/) from the repository's own
fixtures, trimmed to a few hundred bytes each: a valid file per format and a few edge cases.
Re-run after a format changes; files the fuzzers found (crash-*, regression-*) are kept."""
import json
import pathlib
import struct

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"


def put(target, name, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def trim(value):
    """A fixture made small: arrays cut to two elements, recursively."""
    if isinstance(value, list):
        return [trim(v) for v in value[:2]]
    if isinstance(value, dict):
        return {k: trim(v) for k, v in value.items()}
    return value


def result_json():
    doc = json.loads((ROOT / "tests/reports/fixtures/train.json").read_text())
    doc = trim(doc)
    put("fuzz_result_json", "train_trimmed.json", json.dumps(doc, separators=(",", ":")))
    put("fuzz_result_json", "empty_runs.json",
        json.dumps({k: doc[k] for k in doc if k != "runs"} | {"runs": []}, separators=(",", ":")))
    put("fuzz_result_json", "not_an_object.json", "[1,2,3]")


def thresholds():
    lines = [l for l in (ROOT / ".ci/thresholds.txt").read_text().splitlines()
             if l and not l.startswith("#")]
    put("fuzz_thresholds", "ci_gate.txt", "\n".join(lines) + "\n")
    put("fuzz_thresholds", "forms.txt",
        "# comment\npolicy: inconclusive=fail\n*/tiny/cpu/time: +5%\n"
        "enformer/*/opencl/throughput: -10%\ngeneformer/small/cpu/baseline/cosine: >= 0.999\n")


def sweep_config():
    put("fuzz_sweep_config", "ci_gate.json",
        json.dumps(json.loads((ROOT / ".ci/gate-sweep.json").read_text()), separators=(",", ":")))
    put("fuzz_sweep_config", "geneformer_batch.json",
        json.dumps(json.loads((ROOT / "sweeps/geneformer-batch-gpu.json").read_text()),
                   separators=(",", ":")))


def npy_bytes(descr, shape, payload):
    shape_text = "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    pad = 64 - (10 + len(header) + 1) % 64
    header += " " * pad + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + payload


def safetensors_bytes(tensors):
    header, data = {}, b""
    for name, (dtype, shape, payload) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(payload)]}
        data += payload
    h = json.dumps(header, separators=(",", ":")).encode()
    return struct.pack("<Q", len(h)) + h + data


def io_files():
    put("fuzz_npy", "f4_2x3.npy", npy_bytes("<f4", [2, 3], struct.pack("<6f", *range(6))))
    put("fuzz_npy", "i8_4.npy", npy_bytes("<i8", [4], struct.pack("<4q", 2, 3, 0, 0)))
    put("fuzz_npy", "f2_scalar.npy", npy_bytes("<f2", [], struct.pack("<e", 1.5)))
    put("fuzz_safetensors", "f32_f16.safetensors", safetensors_bytes({
        "w": ("F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4)),
        "b": ("F16", [2], struct.pack("<2e", 0.5, -1))}))
    put("fuzz_safetensors", "bf16.safetensors",
        safetensors_bytes({"x": ("BF16", [3], b"\x80\x3f\x00\x40\x40\x40")}))
    put("fuzz_geneformer_cells", "ids_i64.npy",
        npy_bytes("<i8", [2, 4], struct.pack("<8q", 2, 5, 7, 0, 3, 4, 0, 0)))
    put("fuzz_geneformer_cells", "ids_mask.safetensors", safetensors_bytes({
        "input_ids": ("I32", [1, 4], struct.pack("<4i", 2, 9, 11, 0)),
        "attention_mask": ("U8", [1, 4], bytes([1, 1, 1, 0]))}))


def deepfm_table():
    header = "effect_type\tdrug\tgenalle\tgene\tallele\tphenotype_outcome\teffect_direction\n"
    rows = "".join(f"side effect\tdrug {i}\tCYP2D6 *4\tgene A1\trs1000 A\tEfficacy; Other\t"
                   f"not associated\n" for i in range(5))
    put("fuzz_deepfm_table", "five_rows.tsv", header + rows)
    put("fuzz_deepfm_table", "crlf.tsv", (header + rows).replace("\n", "\r\n") + "\r\n")
    put("fuzz_deepfm_table", "header_only.tsv", header)


if __name__ == "__main__":
    result_json()
    thresholds()
    sweep_config()
    io_files()
    deepfm_table()
