#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The chaos runs' short version (suite 'fabric'): four seeded runs of
bench/chaos/runs.py (random fabric, random faults, invariants from the
results, a rerun byte-identical), which must break no invariant; then the
checker itself, fed one run's results doctored one way per invariant, must
catch each (a check that cannot fail is no check).

  chaos_test.py BUILD_DIR SOURCE_DIR
"""
import copy
import json
import os
import shutil
import sys
import tempfile

from chaos import invariants as I  # noqa: E402
from pfclib.checks import check, finish, run  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
tagger = os.path.join(build, "ctrl/tagger/pfc-tagger")
SEEDS = 4


def caught(name, d, r, hosts, inv):
    rep = I.check(d, r, hosts)
    check(f"doctored results: {name} caught as ({inv})", inv in {v[0] for v in rep.violations},
          str(rep.violations[:2]))


with tempfile.TemporaryDirectory(prefix="fabric-chaos-") as tmp:
    p = run(["/usr/bin/python3", os.path.join(src, "bench/chaos/runs.py"), str(SEEDS), fabric, tagger, tmp,
             "--seed", "101"])
    print(p.stdout)
    last = p.stdout.strip().splitlines()[-1]
    check("RESULT line last", last.startswith(f"RESULT runs={SEEDS} "), last)
    check("no violation, no lossless loss, no leaked mbuf",
          " violations=0 lossless_drops=0 leaked_mbufs=0" in last, last)
    res = json.load(open(os.path.join(tmp, "runs.json")))["runs"]
    check("faults injected in every run", all(x["faults"] > 0 for x in res))
    check("the PNG is written", os.path.getsize(os.path.join(tmp, "chaos.png")) > 10_000)

    # One run kept whole, for doctoring: a leaf-spine with links down and up,
    # lossy and lossless flows and a pause storm.
    d = os.path.join(tmp, "doctor")
    os.makedirs(d)
    with open(os.path.join(d, "switch.yaml"), "w") as f:
        f.write("qos: { tag_map: { 1: 1 }, lossless: [1], lossy_priority: 0, lossy_tag: 0 }\n")
    with open(os.path.join(d, "fabric.yaml"), "w") as f:
        f.write("fabric: { clock: virtual, duration: 6ms, bin: 100us, seed: 1 }\n"
                "topology: { gen: \"leafspine:2:2:2\" }\n"
                "links: { rate: 25G, delay: 1us }\nswitch: { config: switch.yaml }\n"
                "flows:\n"
                "  - { name: a, from: h0_0, to: h1_0, dscp: 1, prio: 1, start: 0, stop: 1ms }\n"
                "  - { name: b, from: h0_1, to: h1_0, dscp: 0, prio: 0, start: 0, stop: 1ms }\n"
                "  - { name: c, from: h1_1, to: h0_0, dscp: 1, prio: 1, bytes: 100K, transport: rc, stop: 1ms }\n"
                "events:\n"
                "  - { at: 200us, link: [t0, sp0], state: down }\n"
                "  - { at: 400us, link: [t0, sp0], state: up }\n"
                "  - { at: 100us, link: [t1, h1_0], state: down }\n"
                "  - { at: 150us, link: [t1, h1_0], state: up }\n"
                "  - { at: 300us, host: h1_0, storm: [1] }\n"
                "  - { at: 500us, host: h1_0, storm: [] }\n")
    out = os.path.join(d, "out")
    run([fabric, "--fabric", os.path.join(d, "fabric.yaml"), "--out", out])
    r0, hosts = I.load(out)
    rep = I.check(out)
    check("the undoctored run passes", not rep.violations and rep.n["link_down"] > 0, str(rep.violations[:3]))
    sw0 = sorted(r0["switches"])[0]

    def doctored(f):
        r = copy.deepcopy(r0)
        f(r)
        return r

    def prio(r, s=sw0, port=0, q=1):
        return r["switches"][s]["ports"][port]["prio"][q]

    # (a) conservation, each identity.
    caught("a switch forwarded one frame more than it received", out,
           doctored(lambda r: prio(r).__setitem__("tx_packets", prio(r)["tx_packets"] + 1)), hosts, "a")
    caught("a link delivered a frame it never carried", out,
           doctored(lambda r: r["switches"]["sp0"]["ports"][0].__setitem__(
               "rx_packets", r["switches"]["sp0"]["ports"][0]["rx_packets"] + 1)), hosts, "a")
    caught("a host sent a frame nobody accounts for", out,
           doctored(lambda r: r["hosts"]["h0_1"].__setitem__("tx_frames", r["hosts"]["h0_1"]["tx_frames"] + 1)),
           hosts, "a")
    caught("a flow received more than was sent", out,
           doctored(lambda r: r["flows"][0].__setitem__("rx_frames", r["flows"][0]["tx_frames"] + 1)), hosts, "a")
    caught("the verdict's link_down disagrees", out,
           doctored(lambda r: r["verdict"]["lost"].__setitem__("link_down", r["verdict"]["lost"]["link_down"] + 3)),
           hosts, "a")
    # (b) a lossless drop with a reason that is loss, and a hidden one.
    def lossless_drop(r):  # on sp0's port to t1, whose link never went down
        q = prio(r, port=1)
        q["drops"]["lossless_headroom_exceeded"] += 1
        q["rx_packets"] += 1
        r["hosts"]["h0_0"]["tx_frames"] += 1
        r["flows"][0]["tx_frames"] += 1
        r["lossless_drops"] += 1
    caught("a lossless headroom drop", out, doctored(lossless_drop), hosts, "b")
    def flap_drop(r):  # the same on sp0's port to t0, whose link went down: the flap's
        lossless_drop(r)
        prio(r, port=1)["drops"]["lossless_headroom_exceeded"] -= 1
        prio(r, port=1)["rx_packets"] -= 1
        prio(r, port=0)["drops"]["lossless_headroom_exceeded"] += 1
        prio(r, port=0)["rx_packets"] += 1
    rep = I.check(out, doctored(flap_drop), hosts)
    check("a headroom drop at a port whose link flapped is the flap's (flap_overflow), not loss",
          rep.n["flap_overflow"] == 1 and "b" not in {v[0] for v in rep.violations}, str(rep.violations[:2]))
    caught("results.json's lossless_drops hiding a drop", out,
           doctored(lambda r: r.__setitem__("lossless_drops", 1)), hosts, "b")
    # (c) an mbuf not back in the pool; (d) a queue or buffer not empty.
    caught("an mbuf leaked", out, doctored(lambda r: r["switches"][sw0].__setitem__("pool_in_use", 1)), hosts, "c")
    caught("buffer bytes left", out, doctored(lambda r: prio(r).__setitem__("buffer_bytes", 1024)), hosts, "d")
    caught("shared buffer used", out,
           doctored(lambda r: r["switches"][sw0].__setitem__("buffer_shared_used", 128)), hosts, "d")
    caught("a frame left queued", out, doctored(lambda r: prio(r).__setitem__("queue_depth", 1)), hosts, "a")
    # (f) a failed reload that changed the tables.
    caught("a generation with no reload to show for it", out,
           doctored(lambda r: r["switches"][sw0].__setitem__("generation", 2)), hosts, "f")
    # (e) a rerun that differs in one byte.
    other = os.path.join(d, "other")
    shutil.copytree(out, other)
    with open(os.path.join(other, "ports.csv"), "a") as f:
        f.write("\n")
    check("doctored rerun: a changed ports.csv caught as (e)", I.identical(out, other) == ["ports.csv"])
    check("the same run twice is identical", I.identical(out, out) == [])

    # Seed 449 of the first 500-run schedule, shrunk: a route loop t0 -> sp0
    # -> t0 deadlocks priority 1 for good, and the switches keep refreshing
    # their XOFFs, one of which was on the wire when the run stopped. The
    # checker took it for a lost frame; a stuck run's link identities are
    # inequalities. A data frame forwarded from nothing is still caught.
    d = os.path.join(tmp, "stuck")
    os.makedirs(d)
    with open(os.path.join(d, "switch.yaml"), "w") as f:
        f.write("switch: { idle_sleep_us: 0 }\n"
                "qos: { tag_map: { 1: 1 }, lossless: [1], lossy_priority: 0, lossy_tag: 0 }\n"
                "buffer: { total_bytes: 2M, cell_bytes: 128,\n"
                "  lossless: { reserved: 16K, xoff: 64K, headroom: auto, xon_hysteresis: 44K } }\n")
    with open(os.path.join(d, "fabric.yaml"), "w") as f:
        f.write("fabric: { clock: virtual, duration: 4671us, bin: 100us, seed: 28050 }\n"
                "topology: { gen: \"leafspine:2:2:3\" }\n"
                "links: { rate: 100G, delay: 2000ns }\nswitch: { config: switch.yaml }\n"
                "flows:\n"
                "  - { name: f0, from: h0_2, to: h1_0, dscp: 1, prio: 1, ttl: 32, start: 373us, stop: 1026us }\n"
                "  - { name: f2, from: h0_2, to: h0_0, dscp: 1, prio: 1, bytes: 1048576, transport: rc,"
                " start: 447us, stop: 936us }\n"
                "events:\n"
                "  - { at: 400us, route: { switch: t0, to: h0_0, via: sp0 } }\n"
                "  - { at: 792us, route: { switch: t0, to: h0_0, via: h0_0 } }\n")
    out = os.path.join(d, "out")
    run([fabric, "--fabric", os.path.join(d, "fabric.yaml"), "--out", out])
    r0, hosts = I.load(out)
    rep = I.check(out)
    check("seed 449: stuck, and no violation", rep.stuck and not rep.violations, str(rep.violations[:3]))
    sw0 = "t0"
    caught("stuck: a switch forwarded one frame more than it received", out,
           doctored(lambda r: prio(r, "t0", 0, 1).__setitem__("tx_packets", prio(r, "t0", 0, 1)["tx_packets"] + 10**6)),
           hosts, "a")
finish()
