#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
"""Check that a shared library exports exactly the functions its public
header declares, each in the version node its tier says.

  check-exports.py LIBRARY.so HEADER.h [ARCHIVE.a]

The header's functions (comments and preprocessor lines stripped) are of
two tiers: those whose declaration carries __twheel_experimental belong to
the EXPERIMENTAL node, every other one to the stable node (TWHEEL_0).
`nm -D --defined-only --with-symbol-versions` of the library must show
each declared function, versioned in its tier's node, and nothing else.
With the static archive of the same objects, `objdump -t` must show the
experimental functions, and only those, in the section .text.experimental
(the linker merges that section into .text in the shared library). Any
difference fails: an export not declared (an internal function leaking),
a declaration not exported, an export without a version, a marked
function in TWHEEL_0 or an unmarked one in EXPERIMENTAL. Exit 0 when they
agree."""
import re
import subprocess
import sys

STABLE = "TWHEEL_0"
EXPERIMENTAL = "EXPERIMENTAL"
MARKER = "__twheel_experimental"
SECTION = ".text.experimental"


def declared(header):
    """{function name: node} for the header's function declarations."""
    text = open(header).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"#[^\n]*(\\\n[^\n]*)*", " ", text)  # macros are not exports
    # every public name has the twheel_ prefix; a function pointer typedef
    # "(*twheel_x_fn)(" is a type, not a function
    text = re.sub(r"\(\s*\*\s*\w+\s*\)", " ", text)
    funcs = {}
    for m in re.finditer(r"\b(twheel_\w+)\s*\(", text):
        # the declaration's start: after the previous ';', '{' or '}'
        start = max(text.rfind(c, 0, m.start()) for c in ";{}") + 1
        marked = re.search(r"\b" + MARKER + r"\b", text[start:m.start()])
        funcs[m.group(1)] = EXPERIMENTAL if marked else STABLE
    return funcs


def exported(lib):
    """({symbol: version}, {version nodes}) of the library's dynamic table."""
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


def in_section(archive, section):
    """Global functions of the archive's objects that are in section."""
    out = subprocess.run(["objdump", "-t", archive], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        # address, flags (g: global, F: function), section, size, name
        parts = line.split()
        if len(parts) >= 5 and parts[1] == "g" and parts[-3] == section:
            names.add(parts[-1])
    return names


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__)
        return 2
    lib, header = sys.argv[1:3]
    archive = sys.argv[3] if len(sys.argv) == 4 else None
    want = declared(header)
    have, versions = exported(lib)
    ok = True
    for name in sorted(set(have) - set(want)):
        print(f"FAIL exported but not declared in {header}: {name}")
        ok = False
    for name in sorted(set(want) - set(have)):
        print(f"FAIL declared in {header} but not exported: {name}")
        ok = False
    for name, ver in sorted(have.items()):
        if not ver or ver not in versions:
            print(f"FAIL exported without a symbol version: {name}")
            ok = False
        elif name in want and ver != want[name]:
            tier = "marked " + MARKER if want[name] == EXPERIMENTAL else "not marked"
            print(f"FAIL {name} is {tier} in {header} but exported in {ver},"
                  f" not {want[name]}")
            ok = False
    experimental = {n for n, v in want.items() if v == EXPERIMENTAL}
    if archive is not None:
        placed = in_section(archive, SECTION)
        for name in sorted(experimental - placed):
            print(f"FAIL experimental {name} is not in section {SECTION} of {archive}")
            ok = False
        for name in sorted(placed - experimental):
            print(f"FAIL {name} is in section {SECTION} but not marked {MARKER}")
            ok = False
    print(f"{len(have)} exported, {len(want)} declared"
          f" ({len(experimental)} experimental), versions {sorted(versions)}")
    print("exports match the header" if ok else "exports differ from the header")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
