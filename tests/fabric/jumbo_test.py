#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Jumbo raw frames in the emulator (suite 'fabric', virtual clock): with
switch.mtu 9216, a raw flow's `frame` goes up to 9,230 bytes (the MTU and
the 14-byte Ethernet header). Two switches, A and B, with 10 Gb/s links;
H1 and H2 on A, H3 on B. H1 sends 9,000-byte frames at 4 Gb/s on the
lossless priority, H2 9,230-byte ones as fast as PFC allows: A's port to B
is the bottleneck, so A pauses H2. Checks: tshark decodes the capture of
A-B, every data frame is 9,000 or 9,230 bytes and the counts are the
flows'; H1 receives its 4 Gb/s (of wire bits: 9,000 / 9,024 of it in
frame bits), the two fill the 10 Gb/s link, and nothing lossless is lost
(the default headroom covers two 9,216-byte frames). Refused before the
run, naming the file, the line, the field and the switch.mtu needed:
a 9,000-byte frame without switch.mtu, and 9,231 bytes even with 9216;
accepted when the switch section comes after the flows, in an included file.

  jumbo_test.py BUILD_DIR SOURCE_DIR
"""
import collections
import os
import subprocess
import sys
import tempfile

from pfclib.checks import check, finish, run, tshark, write_file
from pfclib.fabric_results import rates, results

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
cfg = os.path.abspath(os.path.join(src, "configs/fabric"))

TOPO = """topology:
  switches: [A, B]
  hosts: [H1, H2, H3]
  links: [[A, B], [A, H1], [A, H2], [B, H3]]
links: { rate: 10G, delay: 1us }
"""
FLOWS = """flows:
  - { name: f1, from: H1, to: H3, dscp: 1, prio: 1, rate: 4G, frame: 9000 }
  - { name: f2, from: H2, to: H3, dscp: 1, prio: 1, frame: FRAME2 }
"""
RUN = "fabric: { clock: virtual, duration: 4ms, bin: 250us, seed: 1 }\n"
SWITCH = "switch: { config: " + cfg + "/switch-lossless.yaml, mtu: 9216 }\n"
CAPTURE = ("captures:\n  - { link: [A, B], file: a-b.pcapng }\n"
           "  - { link: [A, H2], file: a-h2.pcapng }\n")


def refused(path, out):
    p = subprocess.run([fabric, "--fabric", path, "--out", out, "--check"], capture_output=True, text=True)
    msg = (p.stdout + p.stderr).strip().splitlines()
    return p.returncode, msg[-1] if msg else ""


with tempfile.TemporaryDirectory(prefix="fabric-jumbo-") as tmp:
    flows = FLOWS.replace("FRAME2", "9230")
    path = write_file(tmp, "jumbo.yaml", RUN + TOPO + SWITCH + flows + CAPTURE)
    out = os.path.join(tmp, "out")
    run([fabric, "--fabric", path, "--out", out])
    r = results(out)
    fl = {f["name"]: f for f in r["flows"]}
    print({n: (f["rx_frames"], f["rx_bytes"]) for n, f in fl.items()})
    check("both flows delivered jumbo frames",
          all(f["rx_frames"] > 0 for f in fl.values()), str({n: f["rx_frames"] for n, f in fl.items()}))
    check("received bytes are whole 9,000- and 9,230-byte frames",
          fl["f1"]["rx_bytes"] == 9000 * fl["f1"]["rx_frames"]
          and fl["f2"]["rx_bytes"] == 9230 * fl["f2"]["rx_frames"])
    lost = r["verdict"]["lost"]
    check("nothing lost, lossless or lossy (the verdict's loss totals)",
          r["lossless_drops"] == 0 and not lost["lossless_prios"] and not lost["lossy_prios"]
          and lost["link_down"] == 0, str(lost))

    pcap = os.path.join(out, "a-b.pcapng")
    data = tshark(pcap, ["frame.len", "udp.srcport", "ip.len"], "udp")
    lens = collections.Counter(int(d[0]) for d in data)
    print("frame lengths on A-B:", dict(lens))
    check("tshark decodes every data frame on A-B as IPv4/UDP of 9,000 or 9,230 bytes",
          set(lens) == {9000, 9230} and all(int(d[2]) == int(d[0]) - 14 for d in data), str(dict(lens)))
    # Frames still between A-B's far end and H3 at the end crossed A-B but
    # were not received yet.
    check("the capture's counts are the flows' (each frame crossed A-B once; at most 2 on the way)",
          all(0 <= lens[n] - fl[f]["rx_frames"] <= 2 and lens[n] <= fl[f]["tx_frames"]
              for n, f in ((9000, "f1"), (9230, "f2"))),
          f"{dict(lens)} vs {fl['f1']['rx_frames']}, {fl['f2']['rx_frames']}")

    rate = rates(out, from_ms=1.0)
    want1 = 4.0 * 9000 / 9024
    check(f"H1 gets its 4 Gb/s of wire bits ({want1:.3f} Gb/s of frames, +-1%)",
          abs(rate["f1"] - want1) < 0.01 * want1, f"{rate['f1']:.4f}")
    full = 10.0 * 9000 / 9024
    check("the two fill the 10 Gb/s link A-B (within 1% of its frame bits)",
          abs(rate["f1"] + rate["f2"] - full) < 0.01 * full, f"{rate['f1'] + rate['f2']:.4f}")
    pfc = tshark(os.path.join(out, "a-h2.pcapng"), ["macc.cbfc.enbv", "macc.cbfc.pause_time.c1"], "macc")
    check("A paused H2 on priority 1 (tshark decodes its PFC frames on A-H2)",
          len(pfc) > 0 and all(int(e, 16) == 0x02 for e, _ in pfc), f"{len(pfc)} frames")

    # Refusals: file, line, field and the switch.mtu a frame needs.
    bad = write_file(tmp, "bad.yaml", RUN + TOPO + "switch: { config: " + cfg + "/switch-lossless.yaml }\n"
                + FLOWS.replace("FRAME2", "1000"))
    rc, msg = refused(bad, os.path.join(tmp, "b1"))
    check("refused without switch.mtu: file, line, field, the mtu needed",
          rc != 0 and bad + ":9: flows[0].frame: expected at most 1514 bytes" in msg
          and "needs switch.mtu >= 8986" in msg and "got '9000'" in msg, msg)
    over = write_file(tmp, "over.yaml", RUN + TOPO + SWITCH + FLOWS.replace("FRAME2", "9231"))
    rc, msg = refused(over, os.path.join(tmp, "b2"))
    check("refused: 9,231 bytes even with switch.mtu 9216",
          rc != 0 and over + ":10: flows[1].frame: expected an integer from 66 to 9230" in msg, msg)
    inc = write_file(tmp, "switch-jumbo.yaml", SWITCH)
    later = write_file(tmp, "later.yaml", RUN + TOPO + FLOWS.replace("FRAME2", "9230") + "include: " + inc + "\n")
    p = subprocess.run([fabric, "--fabric", later, "--out", os.path.join(tmp, "b3"), "--check"],
                       capture_output=True, text=True)
    check("accepted with switch.mtu in a file included after the flows", p.returncode == 0,
          (p.stdout + p.stderr).strip()[-300:])
finish()
