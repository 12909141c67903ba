#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Docs test: runs docs/tutorial.md and checks that every step prints what the
tutorial says it prints, so the tutorial cannot drift from the programs.

Every ```sh block of the page is run, in order, in one bash process started
in the source root (so variables, background jobs and the working directory
carry from block to block, as in the reader's shell). A ```text block that
follows a sh block (only blank lines between) is the output it must print
(stdout and stderr together), compared as doctest does with ELLIPSIS and
NORMALIZE_WHITESPACE: `...` matches any text, including several lines, and
runs of spaces compare equal. Every sh block must end with status 0.

  tutorial_test.py BUILD_DIR SOURCE_DIR [TUTORIAL.md]

The tutorial's shell gets B=BUILD_DIR and T=<a fresh temporary directory>.
Needs root (network namespaces): exit 77 otherwise, as for a missing tool.
Whatever happens, the namespaces the tutorial creates (tut-*), its switch
process and that switch's DPDK runtime directory (/var/run/dpdk/tut) are
removed at the end."""
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77
BLOCK_TIMEOUT_S = 90
NAMESPACES = ("tut-sw", "tut-h0", "tut-h1")
# The tutorial's --file-prefix is tut; DPDK's runtime directory for root.
RUNTIME_DIR = "/var/run/dpdk/tut"
MARK = "__TUTORIAL_BLOCK_END__"


def blocks(path):
    """[(line, command text, expected output or None)] from the page."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fences = []  # (info string, first line number, body)
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start = i
        i += 1
        body = []
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise SystemExit(f"{path}:{start + 1}: fenced block never closed")
        fences.append((m.group(1), start + 1, i + 1, "\n".join(body)))
        i += 1
    out = []
    for k, (info, first, last, body) in enumerate(fences):
        if info != "sh":
            continue
        expected = None
        if k + 1 < len(fences) and fences[k + 1][0] == "text":
            between = lines[last:fences[k + 1][1] - 1]
            if all(not x.strip() for x in between):
                expected = fences[k + 1][3]
        out.append((first, body, expected))
    return out


def normalise(text):
    """Lines with runs of whitespace made one space, no trailing blanks."""
    lines = [re.sub(r"[ \t]+", " ", x).strip() for x in text.replace("\r", "").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def matches(expected, got):
    """doctest's ELLIPSIS over normalised text: '...' matches anything."""
    parts = [re.escape(p) for p in normalise(expected).split("...")]
    return re.fullmatch(".*?".join(parts), normalise(got), re.S) is not None


class Shell:
    """One bash, fed block by block; each block's output read up to a marker."""

    def __init__(self, cwd, env):
        self.p = subprocess.Popen(["bash", "--noprofile", "--norc"], cwd=cwd, env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        self.buf = b""

    def run(self, script, timeout):
        self.p.stdin.write((script + f"\nprintf '\\n{MARK} %d\\n' $?\n").encode())
        self.p.stdin.flush()
        deadline = time.monotonic() + timeout
        pat = re.compile(rb"\n" + MARK.encode() + rb" (\d+)\n")
        while True:
            m = pat.search(self.buf)
            if m:
                text = self.buf[:m.start()].decode(errors="replace")
                self.buf = self.buf[m.end():]
                return int(m.group(1)), text
            left = deadline - time.monotonic()
            if left <= 0:
                return None, self.buf.decode(errors="replace")
            ready, _, _ = select.select([self.p.stdout], [], [], left)
            if ready:
                chunk = os.read(self.p.stdout.fileno(), 65536)
                if not chunk:
                    return None, self.buf.decode(errors="replace") + "\n(the shell exited)"
                self.buf += chunk

    def close(self):
        if self.p.poll() is None:
            try:
                os.killpg(self.p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.p.wait()


def cleanup(shell):
    # The tutorial's own switch first (its pid is $SW in the shell), then the
    # namespaces it creates; both are the tutorial's, named by it.
    if shell is not None and shell.p.poll() is None:
        shell.run('[ -n "${SW:-}" ] && kill -INT "$SW" 2>/dev/null && wait "$SW" 2>/dev/null; true', 20)
        shell.close()
    for n in NAMESPACES:
        subprocess.run(["ip", "netns", "del", n], stderr=subprocess.DEVNULL)
    # The page removes it in its last step; a run that stopped before has not.
    shutil.rmtree(RUNTIME_DIR, ignore_errors=True)


def main():
    if len(sys.argv) < 3:
        print("usage: tutorial_test.py BUILD_DIR SOURCE_DIR [TUTORIAL.md]", file=sys.stderr)
        return 2
    build, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    page = sys.argv[3] if len(sys.argv) > 3 else os.path.join(src, "docs", "tutorial.md")
    steps = blocks(page)
    if not steps:
        print(f"FAIL: {page}: no ```sh blocks")
        return 1
    if os.geteuid() != 0:
        print("SKIP: the tutorial needs root (network namespaces)")
        return SKIP
    for tool in ("ip", "ethtool", "ping", "bash"):
        if shutil.which(tool) is None:
            print(f"SKIP: {tool} is not installed")
            return SKIP
    existing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    taken = [n for n in NAMESPACES if re.search(rf"^{n}\b", existing, re.M)]
    if taken:
        print(f"FAIL: namespaces {', '.join(taken)} exist already (another tutorial run?); "
              f"remove them with ip netns del")
        return 1
    tmp = tempfile.mkdtemp(prefix="pfc-tutorial-")
    env = dict(os.environ, B=build, T=os.path.join(tmp, "t"), LC_ALL="C")
    shell = Shell(src, env)
    failed = 0
    try:
        for n, (line, script, expected) in enumerate(steps, start=1):
            t0 = time.monotonic()
            status, got = shell.run(script, BLOCK_TIMEOUT_S)
            took = time.monotonic() - t0
            where = f"{page}:{line} (block {n} of {len(steps)})"
            if status is None:
                print(f"FAIL {where}: no end within {BLOCK_TIMEOUT_S} s; output so far:\n{got}")
                failed += 1
                break
            if status != 0:
                print(f"FAIL {where}: exit status {status}; output:\n{got}")
                failed += 1
                break
            if expected is not None and not matches(expected, got):
                print(f"FAIL {where}: output differs from the tutorial's")
                print("--- the tutorial shows:\n" + expected)
                print("--- the commands printed:\n" + got)
                failed += 1
                break
            print(f"ok   {where}: {'output as shown' if expected is not None else 'ran'} ({took:.1f} s)")
    finally:
        cleanup(shell)
        shutil.rmtree(tmp, ignore_errors=True)
    if failed:
        return 1
    print(f"PASS: {len(steps)} blocks of {page} ran and printed what the page shows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
