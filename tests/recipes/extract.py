#!/usr/bin/env python3
"""Writes the recipes of a page, exactly as the page shows them, as files.

    extract.py PAGE LANG OUTDIR

A recipe is a fenced code block right after a line

    <!-- recipe: LANG PATH -->

(the comment does not show when the page is read). Each recipe of LANG is
written to OUTDIR/PATH, its text unchanged; a page with none for LANG is
an error, so that a recipe renamed by mistake cannot silently stop being
tested. Prints the paths written.
"""

import pathlib
import re
import sys

MARK = re.compile(r"^<!-- recipe: (\w+) (\S+) -->$")
FENCE = re.compile(r"^(```+|~~~+)")


def recipes(text):
    """(lang, path, code) for each marked block of `text`."""
    lines = text.splitlines(keepends=True)
    found = []
    i = 0
    while i < len(lines):
        mark = MARK.match(lines[i].rstrip("\n"))
        i += 1
        if not mark:
            continue
        if i >= len(lines) or not FENCE.match(lines[i]):
            sys.exit(f"line {i}: a recipe mark not followed by a fenced block")
        fence = FENCE.match(lines[i]).group(1)
        i += 1
        start = i
        while i < len(lines) and not lines[i].startswith(fence):
            i += 1
        if i == len(lines):
            sys.exit(f"line {start}: the recipe {mark.group(2)} is not closed")
        found.append((mark.group(1), mark.group(2), "".join(lines[start:i])))
        i += 1
    return found


def main(page, lang, outdir):
    out = pathlib.Path(outdir)
    written = []
    for kind, path, code in recipes(pathlib.Path(page).read_text()):
        if kind != lang:
            continue
        target = out / path
        if out.resolve() not in target.resolve().parents:
            sys.exit(f"the recipe path {path} leaves {outdir}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(code)
        written.append(str(target))
    if not written:
        sys.exit(f"{page} has no {lang} recipe")
    print("\n".join(written))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
