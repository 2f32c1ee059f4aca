#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""Check that a shared library exports exactly the functions its public
header declares, each with a symbol version.

  check-exports.py LIBRARY.so HEADER.h

Compares `nm -D --defined-only` of the library with the function names
declared in the header (comments stripped): any symbol exported but not
declared (an internal function leaking), or declared but not exported,
fails, as does an export without a version. Exit 0 when they agree."""
import re
import subprocess
import sys


def declared(header):
    text = open(header).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"#[^\n]*(\\\n[^\n]*)*", " ", text)  # macros are not exports
    # every public name has the twheel_ prefix; a function pointer typedef
    # "(*twheel_x_fn)(" is a type, not a function
    text = re.sub(r"\(\s*\*\s*\w+\s*\)", " ", text)
    return set(re.findall(r"\b(twheel_\w+)\s*\(", text))


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", "--with-symbol-versions", lib],
                         check=True, capture_output=True, text=True).stdout
    syms, versions = {}, set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, name = parts[1], parts[2]
        base, _, ver = name.partition("@")
        ver = ver.lstrip("@")
        if kind == "A":  # the version node itself
            versions.add(base)
            continue
        syms[base] = ver
    return syms, versions


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    lib, header = sys.argv[1:]
    want = declared(header)
    have, versions = exported(lib)
    ok = True
    for name in sorted(set(have) - want):
        print(f"FAIL exported but not declared in {header}: {name}")
        ok = False
    for name in sorted(want - set(have)):
        print(f"FAIL declared in {header} but not exported: {name}")
        ok = False
    for name, ver in sorted(have.items()):
        if not ver or ver not in versions:
            print(f"FAIL exported without a symbol version: {name}")
            ok = False
    print(f"{len(have)} exported, {len(want)} declared, versions {sorted(versions)}")
    print("exports match the header" if ok else "exports differ from the header")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
