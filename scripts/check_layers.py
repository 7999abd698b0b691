"""The dependency direction of docs/architecture.md, held by the includes themselves: CMake links
only say what a target may use, and a header reached through the include path compiles whether
or not its folder is a declared dependency. ctest runs this (test `layers`), and its self-test
(`layers_self_test`) shows it finds each kind of crossing.

- contract/ is a leaf: it includes nothing of the project outside itself.
- models/ never includes the harness side (harness/, collectors/, stats/, reports/, gui/): a
  model knows the harness only through contract/.
- harness/ outside harness/cli/ never includes models/: the harness drives a model through
  contract/'s Workload alone.
- harness/cli/, the one place that wires models and harness, never includes the op library
  (models/ops/, models/io/): it gets backends through models/registry.h.
- Nothing in harness/ (the CLI included) names a model: a model is a folder of models/ with an
  entry.cpp (its declaration, models/model_entry.h), and its name appears in no harness source,
  code, string or comment. The CLI builds its options, help and dispatch from the declarations.
  "gemm" is left out: it is also the operation's name (GEMM ceilings, tuned GEMMs).

Usage: python3 scripts/check_layers.py [ROOT]      (exit 1 on any crossing)
       python3 scripts/check_layers.py --self-test
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', re.M)
SOURCES = (".h", ".hpp", ".cpp", ".cc", ".inc")
HARNESS_SIDE = ("harness/", "collectors/", "stats/", "reports/", "gui/")
OP_LIBRARY = ("models/ops/", "models/io/")
CONTRACT = "contract/"


def rules(root):
    """(folder, subfolder it leaves to another rule or None, forbidden prefixes, why)."""
    project = tuple(d + "/" for d in sorted(os.listdir(root))
                    if os.path.isfile(os.path.join(root, d, "CMakeLists.txt")) and
                    d + "/" != CONTRACT)
    return [
        (CONTRACT, None, project, "contract/ is a leaf"),
        ("models/", None, HARNESS_SIDE, "a model knows the harness only through contract/"),
        ("harness/", "harness/cli/", ("models/",),
         "the harness drives a model through contract/ alone"),
        ("harness/cli/", None, OP_LIBRARY,
         "the CLI gets backends through models/registry.h, never from the op library"),
    ]


NOT_A_MODEL_NAME = {"gemm"}


def model_names(root):
    """The models: folders of models/ holding an entry.cpp."""
    folder = os.path.join(root, "models")
    if not os.path.isdir(folder):
        return []
    return sorted(d for d in os.listdir(folder)
                  if os.path.isfile(os.path.join(folder, d, "entry.cpp")) and
                  d not in NOT_A_MODEL_NAME)


def sources(root, folder):
    """(path, path relative to root with / separators) of every source file under folder, in a
    stable order."""
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(SOURCES):
                path = os.path.join(dirpath, name)
                yield path, os.path.relpath(path, root).replace(os.sep, "/")


def named_models(root):
    """Every line of harness/ that names a model (whole word, any case)."""
    names = model_names(root)
    if not names:
        return []
    word = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b", re.I)
    problems = []
    for path, rel in sources(root, "harness"):
        with open(path, errors="replace") as fh:
            for number, line in enumerate(fh, 1):
                m = word.search(line)
                if m:
                    problems.append(f"{rel}:{number}: names model {m.group(1)}: the harness "
                                    "knows models only by their declarations")
    return problems


def check(root):
    problems = named_models(root)
    for folder, left, forbidden, why in rules(root):
        for path, rel in sources(root, folder):
            if left and rel.startswith(left):
                continue
            with open(path, errors="replace") as fh:
                text = fh.read()
            for m in INCLUDE.finditer(text):
                if m.group(1).startswith(forbidden):
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append(f"{rel}:{line}: includes {m.group(1)}: {why}")
    return problems


def self_test():
    """Every kind of crossing is found at its line, and what is allowed (the CLI on
    models/registry.h, a path in a comment) is not."""
    files = {
        "schema/CMakeLists.txt": "",
        "contract/CMakeLists.txt": "",
        "contract/a.h": '#include <string>\n#include "contract/b.h"\n#include "schema/records.h"\n',
        "contract/b.h": "",
        "models/m/c.h": '// harness/workload.h was here\n\n#include "harness/workload.h"\n',
        "models/m/d.cpp": '#include "contract/workload.h"\n#include "models/ops/backend.h"\n',
        "harness/e.cpp": '#include "contract/device_lost.h"\n# include "models/ops/device_lost.h"\n',
        "harness/cli/f.cpp": '#include "models/registry.h"\n#include "models/ops/op_types.h"\n',
        "models/mymodel/entry.cpp": "",
        "models/gemm/entry.cpp": "",
        "harness/g.cpp": '// runs a GEMM\nconst char* k = "MyModel: x";\nint mymodels = 0;\n',
    }
    expected = [
        "contract/a.h:3: includes schema/records.h",
        "models/m/c.h:3: includes harness/workload.h",
        "harness/e.cpp:2: includes models/ops/device_lost.h",
        "harness/cli/f.cpp:2: includes models/ops/op_types.h",
        "harness/g.cpp:2: names model MyModel",
    ]
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as fh:
                fh.write(text)
        found = [p.split(": ", 1)[0] + ": " + p.split(": ")[1] for p in check(root)]
    if sorted(found) != sorted(expected):
        print("check_layers self-test: expected\n  " + "\n  ".join(expected) + "\nfound\n  " +
              "\n  ".join(found))
        return 1
    print(f"check_layers self-test: the {len(expected)} crossings found, nothing else")
    return 0


def main(args):
    if args == ["--self-test"]:
        return self_test()
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    problems = check(root)
    for p in problems:
        print(p)
    print(f"check_layers: {len(problems)} includes cross the dependency direction or harness "
          "lines name a model (docs/architecture.md)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
