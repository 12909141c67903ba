#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/wireshark/dcfit.lua decodes the DCFIT messages our code writes.

Runs dcfit_frames (hex lines: frames built by the DCFIT encoder and
detector), writes them into a classic pcap here, runs
`tshark -X lua_script:tools/wireshark/dcfit.lua` on it and asserts the
decoded fields of every frame, that a plain PFC frame gets no DCFIT tree,
that tshark still decodes each frame as PFC, and that only the corrupted
frame raises the dissector's checksum warning.

Usage: tshark_dcfit_check.py DCFIT_FRAMES LUA_SCRIPT OUT_DIR  (exit 77 = skipped)
"""
import os
import shutil
import struct
import subprocess
import sys

# The same tshark runner as the PFC conformance check beside it (on
# PYTHONPATH: tests/dataplane/pause, as meson's test sets it).
from tshark_pfc_check import tshark  # noqa: E402

FIELDS = ["frame.number", "macc.cbfc.enbv", "dcfit.kind", "dcfit.version", "dcfit.flags",
          "dcfit.flags.second_pass", "dcfit.flags.trigger_host", "dcfit.flags.middle",
          "dcfit.prio", "dcfit.hops", "dcfit.gen_sw", "dcfit.gen_port", "dcfit.seq",
          "dcfit.tri_sw", "dcfit.tri_port", "dcfit.checksum_ok"]
# Frames 1-3 and 5 (4 has no message). Booleans as 1/0, as tshark 4.0's
# -T fields prints them (newer versions print True/False: both accepted).
EXPECTED = {
    "1": ["0x0008", "0", "1", "0x00", "0", "0", "0", "3", "0", "5", "1", "1", "5", "1", "1"],
    "2": ["0x0008", "0", "1", "0x02", "0", "1", "0", "3", "0", "5", "0", "1", "5", "2", "1"],
    "3": ["0x0000", "1", "1", "0x07", "1", "1", "1", "3", "4", "4660", "63", "2712847316",
          "2571", "7", "1"],
    "5": ["0x0000", "1", "1", "0x07", "1", "1", "1", "3", "4", "4660", "63", "2712847317",
          "2571", "7", "0"],
}


def norm(v):
    return {"True": "1", "False": "0"}.get(v, v)


def main():
    frames_bin, lua, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    if shutil.which("tshark") is None:
        print("tshark not installed: skipped")
        return 77
    os.makedirs(out_dir, exist_ok=True)
    hexes = subprocess.run([frames_bin], check=True, capture_output=True, text=True,
                           timeout=30).stdout.split()
    pcap = os.path.join(out_dir, "dcfit_frames.pcap")
    with open(pcap, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))  # LINKTYPE_ETHERNET
        for i, h in enumerate(hexes):
            b = bytes.fromhex(h)
            f.write(struct.pack("<IIII", 1700000000, i, len(b), len(b)) + b)

    lua_arg = ["-X", "lua_script:" + lua]
    failures = []
    if len(hexes) != 5:
        failures.append(f"dcfit_frames wrote {len(hexes)} frames, expected 5")
    args = []
    for fl in FIELDS:
        args += ["-e", fl]
    rows = [l.split("\t") for l in tshark(lua_arg + ["-r", pcap, "-Y", "dcfit", "-T", "fields"] + args)]
    got = {r[0]: [norm(v) for v in r[1:]] for r in rows}
    if sorted(got) != sorted(EXPECTED):
        failures.append(f"frames with a DCFIT tree: {sorted(got)}, expected {sorted(EXPECTED)}")
    for num, want in EXPECTED.items():
        for name, g, w in zip(FIELDS[1:], got.get(num, []), want):
            if g != w:
                failures.append(f"frame {num}: {name} = {g!r}, expected {w!r}")
    # Still PFC to tshark's own dissector: every frame is a CBFC pause.
    pfc = tshark(lua_arg + ["-r", pcap, "-Y", "macc.opcode == 0x0101"])
    if len(pfc) != 5:
        failures.append(f"tshark decodes {len(pfc)} of 5 frames as PFC")
    warned = tshark(lua_arg + ["-r", pcap, "-Y", "_ws.expert", "-T", "fields", "-e", "frame.number",
                               "-e", "_ws.expert.message"])
    if len(warned) != 1 or not warned[0].startswith("5\t") or "checksum" not in warned[0]:
        failures.append(f"expert info expected on frame 5 only (checksum): {warned}")
    info = tshark(lua_arg + ["-r", pcap, "-Y", "frame.number == 2", "-T", "fields", "-e", "_ws.col.Info"])
    if not info or "[DCFIT gen=5/0 seq=1 tri=5/2 (host) hops=0]" not in info[0]:
        failures.append(f"Info column of frame 2: {info}")
    print("\n".join(failures) or f"tshark with dcfit.lua decoded {len(got)} messages as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
