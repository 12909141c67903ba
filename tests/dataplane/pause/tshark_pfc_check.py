#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Conformance of our PFC frames with a decoder nobody here wrote.

Runs pfc_pcap_writer, then tshark on its pcap, and asserts that tshark
decodes every frame as a MAC control PFC frame (Wireshark calls opcode 0x0101
"Class Based Flow Control [CBFC] Pause"; its fields are macc.*, there is no
pfc.* protocol in tshark 4.0) with the expected class-enable vector and
quanta, 60 bytes long, and without any expert warning (tshark flags e.g. a
non-zero reserved octet of the vector; a corrupted copy checks that it does).

Usage: tshark_pfc_check.py PFC_PCAP_WRITER OUT_DIR   (exit 77 = skipped)
"""
import os
import shutil
import subprocess
import sys

SRC = "02:00:00:00:00:07"
# frame.len, eth.dst, eth.src, eth.type, macc.opcode, macc.cbfc.enbv, C0..C7
# The generator scenario: prio 3 crosses XOFF; prio 5 crosses (3 rides along
# with a fresh XOFF); prio 3 drains to XON (5 stays paused); prio 5 drains.
# Then one frame with all eight classes and distinct quanta.
EXPECTED = [
    ["60", "01:80:c2:00:00:01", SRC, "0x8808", "0x0101", "0x0008", "0", "0", "0", "65535", "0", "0", "0", "0"],
    ["60", "01:80:c2:00:00:01", SRC, "0x8808", "0x0101", "0x0028", "0", "0", "0", "65535", "0", "65535", "0", "0"],
    ["60", "01:80:c2:00:00:01", SRC, "0x8808", "0x0101", "0x0028", "0", "0", "0", "0", "0", "65535", "0", "0"],
    ["60", "01:80:c2:00:00:01", SRC, "0x8808", "0x0101", "0x0020", "0", "0", "0", "0", "0", "0", "0", "0"],
    ["60", "01:80:c2:00:00:01", SRC, "0x8808", "0x0101", "0x00ff",
     "4369", "8738", "13107", "17476", "21845", "26214", "30583", "34952"],
]
FIELDS = ["frame.len", "eth.dst", "eth.src", "eth.type", "macc.opcode", "macc.cbfc.enbv"] + [
    f"macc.cbfc.pause_time.c{i}" for i in range(8)]


def tshark(args):
    r = subprocess.run(["tshark"] + args, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit(f"tshark {' '.join(args)} failed ({r.returncode}): {r.stderr}")
    return [l for l in r.stdout.splitlines() if l.strip()]


def main():
    writer, out_dir = sys.argv[1], sys.argv[2]
    if shutil.which("tshark") is None:
        print("tshark not installed: skipped")
        return 77
    os.makedirs(out_dir, exist_ok=True)
    pcap = os.path.join(out_dir, "pfc_frames.pcap")
    subprocess.run([writer, pcap], check=True, timeout=30)

    fields = []
    for f in FIELDS:
        fields += ["-e", f]
    got = [l.split(",") for l in tshark(["-r", pcap, "-Y", "macc.opcode == 0x0101",
                                         "-T", "fields", "-E", "separator=,"] + fields)]
    failures = []
    if len(got) != len(EXPECTED):
        failures.append(f"tshark decoded {len(got)} PFC frames, expected {len(EXPECTED)}")
    for i, (g, e) in enumerate(zip(got, EXPECTED)):
        for name, gv, ev in zip(FIELDS, g, e):
            if gv != ev:
                failures.append(f"frame {i + 1}: {name} = {gv!r}, expected {ev!r}")

    verbose = "\n".join(tshark(["-r", pcap, "-V"]))
    if verbose.count("Class Based Flow Control [CBFC] Pause (0x0101)") != len(EXPECTED):
        failures.append("tshark -V does not name every frame a CBFC (PFC) pause")
    flagged = tshark(["-r", pcap, "-Y", "_ws.expert or _ws.malformed"])
    if flagged:
        failures.append(f"tshark raised expert info / malformed on: {flagged}")

    # Negative control: set the reserved octet of frame 1's vector; tshark
    # must notice, or the expert check above proves nothing.
    with open(pcap, "rb") as f:
        data = bytearray(f.read())
    data[24 + 16 + 16] = 0xFF   # global header + record header + offset 16
    bad = os.path.join(out_dir, "pfc_frames_bad.pcap")
    with open(bad, "wb") as f:
        f.write(data)
    if len(tshark(["-r", bad, "-Y", "_ws.expert or _ws.malformed"])) != 1:
        failures.append("negative control: tshark did not flag a corrupted vector")

    if failures:
        print("\n".join(failures))
        return 1
    print(f"tshark decoded {len(got)} PFC frames as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
