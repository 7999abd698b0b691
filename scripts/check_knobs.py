"""Every environment setting the tool reads is documented: each "STAGEBENCH_*" string literal in
the sources outside tests/ (a getenv or a knob parser's name) must appear, as a whole word, in
README.md or a file of docs/. A knob added without a line saying what it does fails ctest
(test `knobs`); `knobs_self_test` shows the check finds an undocumented one.

Usage: python3 scripts/check_knobs.py [ROOT]      (exit 1 naming each undocumented knob)
       python3 scripts/check_knobs.py --self-test
"""
import os
import re
import sys
import tempfile

KNOB = re.compile(r'"(STAGEBENCH_[A-Z0-9_]+)')
SOURCES = (".h", ".hpp", ".cpp", ".cc", ".cl")
SKIPPED = ("tests", "build", "results", ".git")


def knobs(root):
    """{knob: first source file that names it}"""
    found = {}
    for dirpath, dirs, files in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel.split(os.sep)[0].startswith(SKIPPED):
            dirs[:] = []
            continue
        for name in sorted(files):
            if name.endswith(SOURCES):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for knob in KNOB.findall(f.read()):
                        found.setdefault(knob, os.path.relpath(path, root))
    return found


def documentation(root):
    texts = []
    readme = os.path.join(root, "README.md")
    if os.path.isfile(readme):
        texts.append(open(readme, encoding="utf-8").read())
    docs = os.path.join(root, "docs")
    for dirpath, _, files in os.walk(docs):
        for name in files:
            if name.endswith(".md"):
                texts.append(open(os.path.join(dirpath, name), encoding="utf-8").read())
    return "\n".join(texts)


def undocumented(root):
    text = documentation(root)
    return {k: src for k, src in knobs(root).items()
            if not re.search(r"(?<![A-Z0-9_])" + k + r"(?![A-Z0-9_])", text)}


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "models"))
        os.makedirs(os.path.join(root, "docs"))
        os.makedirs(os.path.join(root, "tests"))
        with open(os.path.join(root, "models", "a.cpp"), "w") as f:
            f.write('getenv("STAGEBENCH_SAID"); getenv("STAGEBENCH_UNSAID");\n')
        with open(os.path.join(root, "tests", "t.cpp"), "w") as f:
            f.write('setenv("STAGEBENCH_TEST_ONLY", "1", 1);\n')
        with open(os.path.join(root, "docs", "method.md"), "w") as f:
            f.write("`STAGEBENCH_SAID=off` does this; STAGEBENCH_UNSAID_TOO is another.\n")
        got = undocumented(root)
        if got != {"STAGEBENCH_UNSAID": os.path.join("models", "a.cpp")}:
            print("self-test failed:", got)
            return 1
    print("self-test passed: an undocumented knob is named, a prefix of a documented one is not "
          "enough, tests/ are not read")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    root = argv[1] if len(argv) > 1 else "."
    missing = undocumented(root)
    for knob, src in sorted(missing.items()):
        print(f"{src}: {knob} is read but not documented in README.md or docs/")
    if not missing:
        print(f"{len(knobs(root))} knobs, each documented")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
