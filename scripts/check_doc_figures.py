"""Every measured figure quoted in README.md and docs/*.md must be in the committed results file
it names (docs/testing.md#figures-in-the-docs). CI runs this after the gates.

A figure is a number with a unit of measurement: ms, us, TFLOP/s, GFLOP/s, TOP/s, TB/s, GB/s,
GB, MB, GiB, cells/s, samples/s, sequences/s, volumes/s. Ratios ("1.76x") and percentages are
left out: they are derived from two figures and rarely appear in a file as written. The files a
figure may come from are the results paths (files, folders or globs under results/) named in its
paragraph, list item or table, else anywhere in its section (between headings). The figure is
found when a number in one of those files rounds to it at the figure's precision, also after a
factor of 1000 (ms against s, GB against MB) or from a byte count (GB, MB, GiB). A figure whose
section names no results file fails too: a measured figure must say where it comes from.

Three marks in the Markdown, as HTML comments so they do not show:
- `<!-- not measured: WHY -->` in a block skips the block; right under a heading, the section
  (examples of output, the documents' own claims, limits of the tool);
- `<!-- derived: 173 ms, 83 ms: HOW -->` in a block skips those figures there: a sum or a
  difference of figures in the file, which the file does not hold as written;
- fenced code blocks are examples and are skipped.

Two checks of results/ itself (results/README.md), so that every figure's file can be traced:
- a path under results/<machine>/ that a document names must exist (a moved file leaves no
  citation behind);
- every measuring session is a folder results/<machine>/<session>/ with a README.md manifest that
  has a `- commit:` line (the commit and dirty flag its files record); no file lies directly in
  results/<machine>/. results/ci-baseline.json, outside any machine folder, is the CI gate's.

Usage: python3 scripts/check_doc_figures.py [FILE.md...]   (exit 1 on any problem)
"""
import glob
import json
import os
import re
import sys

UNITS = (r"(ms|us|µs|TFLOP/s|GFLOP/s|TOP/s|TB/s|GB/s|GiB|GB|MB|cells/s|samples/s|sequences/s|"
         r"volumes/s)")
# "1,239.70 GFLOP/s" is one figure: thousands with decimals too (read as "239.70" until
# 2026-11-29, so such a figure was checked against the wrong number).
FIGURE = re.compile(r"(?<![\w.,\-/])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s?" + UNITS +
                    r"(?![\w/])")
SOURCE = re.compile(r"results/[A-Za-z0-9_.\-/*]+")
CITED = re.compile(r"results/[A-Za-z0-9_.\-/*{},]+")  # any results path, braces included
MANIFEST_COMMIT = re.compile(r"^- commit:", re.M | re.I)
DERIVED = re.compile(r"<!--\s*derived:(.*?)-->", re.S)
NOT_MEASURED = "<!-- not measured:"
# Factors from a file's numbers to a figure's: as written, per 1000 either way, from bytes.
SCALES = {"GB": (1, 1e-9), "MB": (1, 1e-6), "GiB": (1, 2.0 ** -30)}
NUMBER = re.compile(r"-?\d[\d,]*\.?\d*(?:[eE][-+]?\d+)?")
_numbers = {}


def walk(value, found):
    """The numbers of a JSON document, except raw samples: a figure quoted from a result is a
    summary (a median, a rate), and thousands of samples would match almost any number."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k != "samples_ms":
                walk(v, found)
    elif isinstance(value, list):
        for v in value:
            walk(v, found)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        found.add(float(value))


def numbers_in(path):
    if path not in _numbers:
        found = set()
        files = [path] if os.path.isfile(path) else glob.glob(os.path.join(path, "**", "*"),
                                                               recursive=True)
        for f in files:
            if not os.path.isfile(f):
                continue
            with open(f, errors="replace") as fh:
                text = fh.read()
            if f.endswith(".json"):
                try:
                    walk(json.loads(text), found)
                    continue
                except ValueError:
                    pass  # not JSON after all: read as text
            for m in NUMBER.finditer(text):
                try:
                    found.add(float(m.group().replace(",", "")))
                except ValueError:
                    pass
        _numbers[path] = found
    return _numbers[path]


def sources(text):
    out = []
    for s in SOURCE.findall(text):
        s = s.rstrip(".,;:)`/")
        out.extend(p for p in (glob.glob(s) if "*" in s else [s]) if os.path.exists(p))
    return out


def found(figure, unit, paths):
    text = figure.replace(",", "")
    decimals = len(text.split(".")[1]) if "." in text else 0
    value = float(text)
    scales = SCALES.get(unit, (1, 1e3, 1e-3))
    for p in paths:
        for x in numbers_in(p):
            for scale in scales:
                if round(x * scale, decimals) == value:
                    return True
    return False


def blocks(section):
    """Paragraphs, list items and tables, without fenced code blocks."""
    block, fenced = [], False
    for line in section.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.strip():
            block.append(line)
        elif block:
            yield "\n".join(block)
            block = []
    if block:
        yield "\n".join(block)


def scoped(block, figures, default):
    """(number, unit, paths) for each figure. In a table a row that names results files is held
    to them alone, and the rows after it ("same file") too, until another row names its own."""
    if not block.lstrip().startswith("|"):
        return [(n, u, default) for n, u in figures]
    out, current = [], default
    for row in block.split("\n"):
        current = sources(row) or current
        out += [(n, u, current) for n, u in FIGURE.findall(row) if (n, u) in figures]
    return out


def sections(text):
    """The text split at headings outside fenced code blocks (a shell comment is no heading)."""
    out, current, fenced = [], [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and re.match(r"#+ ", line) and current:
            out.append("\n".join(current))
            current = []
        current.append(line)
    out.append("\n".join(current))
    return out


def machines():
    return sorted(d for d in glob.glob("results/*/") if os.path.isdir(d))


def missing_citations(md, text):
    """Paths into a machine's folder that name nothing (a brace list counts by its prefix)."""
    out = []
    for s in sorted(set(CITED.findall(text))):
        s = s.rstrip(".,;:)`/")
        if any(s.startswith(m) for m in machines()) and not glob.glob(s.split("{")[0] + "*"):
            out.append(f"{md}: {s} does not exist")
    return out


def check_results():
    """One folder per measuring session under results/<machine>/, each with a manifest."""
    problems = []
    for machine in machines():
        for entry in sorted(os.listdir(machine)):
            path = os.path.join(machine, entry)
            if os.path.isfile(path):
                problems.append(f"{path}: a result file outside a session folder "
                                f"({machine}<what>-<date>/ with a README.md manifest)")
                continue
            files = [f for f in glob.glob(os.path.join(path, "**", "*"), recursive=True)
                     if os.path.isfile(f)]
            if not files:
                continue
            manifest = os.path.join(path, "README.md")
            if not os.path.isfile(manifest):
                problems.append(f"{path}/: session folder without a README.md manifest")
            else:
                with open(manifest) as f:
                    if not MANIFEST_COMMIT.search(f.read()):
                        problems.append(f"{manifest}: no '- commit:' line (the commit and dirty "
                                        "flag the files record, or 'not recorded')")
    return problems


def check(md):
    problems = []
    with open(md) as f:
        text = f.read()
    problems += missing_citations(md, text)
    for section in sections(text):
        lines = section.split("\n")
        if len(lines) > 2 and lines[0].startswith("#") and NOT_MEASURED in "\n".join(lines[1:3]):
            continue
        in_section = sources(section)
        for block in blocks(section):
            if NOT_MEASURED in block:
                continue
            derived = set()
            for d in DERIVED.findall(block):
                derived |= {(n.replace(",", ""), u) for n, u in FIGURE.findall(d.split(":")[0])}
            figures = [(n, u) for n, u in FIGURE.findall(DERIVED.sub("", block))
                       if (n.replace(",", ""), u) not in derived]
            if not figures:
                continue
            first = block.strip().split("\n")[0][:70]
            for number, unit, paths in scoped(block, figures, sources(block) or in_section):
                if not paths:
                    problems.append(f"{md}: {number} {unit} names no results file ({first})")
                elif not found(number, unit, paths):
                    problems.append(f"{md}: {number} {unit} is not in {', '.join(paths)} ({first})")
    return problems


def main(files):
    files = files or ["README.md"] + sorted(glob.glob("docs/*.md"))
    problems = [p for md in files for p in check(md)]
    layout = check_results()
    for p in problems + layout:
        print(p)
    print(f"check_doc_figures: {len(problems)} figures or citations not found in {len(files)} "
          f"files; {len(layout)} problems in results/ (one folder per session, with a manifest)")
    return 1 if problems or layout else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
