#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Docs test: every relative link of README.md and docs/**/*.md resolves.

A link [text](target) that is not a URL must name a file or directory of the
tree, relative to the page; a `#fragment` on a Markdown target must be one of
that page's headings as GitHub makes them anchors (lower case, punctuation
dropped, spaces as hyphens). Links inside code (fenced blocks, `spans`) are
not links. Also checks that docs/reference/counters.md still has the counter
table tests/system/test_counters.py reads.

  links_test.py SOURCE_DIR"""
import glob
import os
import re
import sys

LINK = re.compile(r"(?<!\!)\[([^\]]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")


def strip_code(text):
    """The text with fenced blocks and inline code spans blanked (lines kept)."""
    out, fence = [], False
    for line in text.split("\n"):
        if re.match(r"^\s*```", line):
            fence = not fence
            out.append("")
            continue
        out.append("" if fence else re.sub(r"`[^`]*`", "``", line))
    return "\n".join(out)


def anchors(path):
    """GitHub's heading anchors of a Markdown page."""
    seen, out = {}, set()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    fence = False
    for line in text.split("\n"):
        if re.match(r"^\s*```", line):
            fence = not fence
            continue
        m = None if fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = m.group(1).strip().lower()
        slug = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", slug)  # a link's text
        slug = re.sub(r"[^\w\- ]", "", slug).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def check_links(root, pages):
    errors = []
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = strip_code(f.read())
        for lineno, line in enumerate(text.split("\n"), start=1):
            for m in LINK.finditer(line):
                target = m.group(2) or m.group(3)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, mailto:, ...
                    continue
                path, _, frag = target.partition("#")
                dest = page if not path else os.path.normpath(os.path.join(os.path.dirname(page), path))
                rel = os.path.relpath(page, root)
                if not os.path.exists(dest):
                    errors.append(f"{rel}:{lineno}: {target}: no such file ({os.path.relpath(dest, root)})")
                elif not os.path.realpath(dest).startswith(os.path.realpath(root) + os.sep):
                    errors.append(f"{rel}:{lineno}: {target}: outside the source tree")
                elif frag and dest.endswith(".md") and frag not in anchors(dest):
                    errors.append(f"{rel}:{lineno}: {target}: no heading #{frag} in {os.path.relpath(dest, root)}")
    return errors


def counter_rows(path, heading):
    """The rows of the counter table (the one whose header is '| scope | counters |')."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if heading:
        if heading not in text:
            return None
        text = text[text.index(heading):]
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.strip() == "| scope | counters |":
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(row.rstrip())
            return rows
    return None


def main():
    if len(sys.argv) != 2:
        print("usage: links_test.py SOURCE_DIR", file=sys.stderr)
        return 2
    root = os.path.abspath(sys.argv[1])
    pages = [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
    errors = check_links(root, pages)
    if not counter_rows(os.path.join(root, "docs", "reference", "counters.md"), None):
        errors.append("docs/reference/counters.md: no '| scope | counters |' table "
                      "(tests/system/test_counters.py reads it)")
    for e in errors:
        print("FAIL " + e)
    if errors:
        return 1
    print(f"PASS: every relative link of {len(pages)} pages resolves; the counter table is there")
    return 0


if __name__ == "__main__":
    sys.exit(main())
