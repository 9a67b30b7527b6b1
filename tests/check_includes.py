#!/usr/bin/env python3
"""The include check: every #include "folder/..." in sim/ goes one way, along an edge listed here.

This table is the one place the allowed edges between sim/'s folders are written down
(docs/architecture.md draws it). A folder may always include itself. Run from anywhere:
    python3 tests/check_includes.py [SOURCE_DIR]
Prints each include that crosses folders against the table, with file and line, and exits 1 if
there is any; also refuses a folder of sim/ the table does not know, so a new one gets its place.
"""
import pathlib
import re
import sys

# folder: the folders it may include. Bottom to top.
ALLOWED = {
    "util": [],
    "spec": ["util"],
    "workload": ["spec", "util"],
    "timing": ["spec", "util"],
    "program": ["timing", "spec", "util"],
    "mapping": ["program", "timing", "workload", "spec", "util"],
    "parallel": ["mapping", "program", "timing", "workload", "spec", "util"],
    "results": ["program", "spec", "util"],
    "dram": ["results", "timing", "spec", "util"],
    "hw": ["program", "dram", "results", "timing", "spec", "util"],
    "simulate": ["hw", "parallel", "mapping", "program", "results", "timing", "workload", "spec", "util"],
    "config": ["workload", "spec", "util"],
    "energy": ["results", "spec", "util"],
    "report": ["energy", "results", "program", "workload", "spec", "util"],
    "import": ["config", "workload", "spec", "util"],
    "trace": ["config", "report", "mapping", "program", "timing", "workload", "spec", "util"],
    "cli": ["trace", "import", "report", "energy", "config", "simulate", "hw", "dram", "results", "parallel", "mapping", "program",
            "timing", "workload", "spec", "util"],
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"')


def problems(source_dir: pathlib.Path):
    sim = source_dir / "sim"
    found = []
    for folder in sorted(p for p in sim.iterdir() if p.is_dir()):
        if folder.name not in ALLOWED:
            found.append(f"sim/{folder.name}/: a folder the include check does not know; give it its edges in "
                         f"tests/check_includes.py (and docs/architecture.md)")
            continue
        for path in sorted(folder.rglob("*")):
            if path.suffix not in (".h", ".cpp"):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = match.group(1)
                if target != folder.name and target not in ALLOWED[folder.name]:
                    found.append(f"{path.relative_to(source_dir)}:{number}: {folder.name} includes {target} "
                                 f"(allowed: {', '.join(ALLOWED[folder.name]) or 'nothing'})")
    return found


def main():
    source_dir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    found = problems(source_dir)
    for problem in found:
        print(problem)
    print(f"check_includes: {len(found)} include(s) against the module graph")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
