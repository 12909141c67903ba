#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The fabric experiments after Fig. 10, shortened (suite 'fabric'), each
asserting the paper's qualitative result exactly and no lossless drop:
  fig11    Tagger Fig. 11: a routing loop at run time deadlocks flow 2
           without Tagger, not with it; flow 1 dies of TTL expiry in both.
  fig11_rc Tagger Fig. 11 with RC transport (loop from 2 to 3 ms): with
           Tagger the looping packets are dropped as lossy and go-back-N
           completes every message; without, the deadlock outlives the route.
  fig12    Tagger Fig. 12: all 8 shuffle flows stop without Tagger, none with.
  hotnets  HotNets'16 §3: the 2-switch loop (TTL 16, 40 Gb/s) is clear at
           4 Gb/s and deadlocks at 6 Gb/s (analytic turn 5.33); the 4-switch
           CBD deadlocks without rate limits, not with flows at 15 Gb/s.

  experiments_test.py CASE BUILD_DIR SOURCE_DIR
"""
import os
import sys
import tempfile

case, build, src = sys.argv[1], sys.argv[2], sys.argv[3]
from pfclib.fabric_results import STOPPED_GBPS, summary  # noqa: E402

from hotnets.deadlocks import CBD_RING, LOOP_RING, cbd_file, loop_file  # noqa: E402
from pfclib.checks import check, finish, run  # noqa: E402

fabric = os.path.join(build, "dataplane/emulator/pfcfabric")
tagger = os.path.join(build, "ctrl/tagger/pfc-tagger")
cfg = os.path.join(src, "configs/fabric")


def pair(tmp, without, with_):
    """Runs without Tagger, makes pfc-tagger's rules (ELP: shortest +
    1-bounce) from its topology, runs with them; returns both summaries."""
    a, t, rules = (os.path.join(tmp, x) for x in ("without", "with", "rules"))
    run([fabric, "--fabric", os.path.join(cfg, without), "--out", a])
    run([tagger, "tag", "--topo", os.path.join(a, "topology.json"), "--elp-gen", "clos", "--bounces", "1",
         "--algo", "clos", "-o", rules])
    run([fabric, "--fabric", os.path.join(cfg, with_), "--rules", rules, "--out", t])
    return summary(a), summary(t)


def no_loss(name, s):
    check(f"{name}: a deadlock is a stall, not a loss: no lossless drop", s["lossless_drops"] == 0,
          str(s["lossless_drops"]))


def fig11(tmp):
    w, t = pair(tmp, "fig11-loop.yaml", "fig11-tagger.yaml")
    loop = {("T1", "L1"), ("L1", "T1")}
    check("without Tagger flow 2 stops", w["rates"]["flow2"] < STOPPED_GBPS, str(w["rates"]))
    check("without Tagger both directions of the loop are paused and idle", loop <= set(w["stuck"]), str(w["stuck"]))
    check("with Tagger flow 2 keeps its 10 Gb/s", t["rates"]["flow2"] > 9, str(t["rates"]))
    check("with Tagger no link is stuck", t["stuck"] == [], str(t["stuck"]))
    for name, s in (("without", w), ("with", t)):
        check(f"{name} Tagger flow 1 (in the loop) delivers nothing", s["rates"]["flow1"] == 0, str(s["rates"]))
        check(f"{name} Tagger flow 1's packets expire (ttl_expired > 0)", s["ttl_expired"] > 0, str(s["ttl_expired"]))
        no_loss(name, s)
    check("flow 1 ran before the loop", w["flows"]["flow1"]["rx_bytes"] > 2_000_000,
          str(w["flows"]["flow1"]["rx_bytes"]))


def fig11_rc(tmp):
    w, t = pair(tmp, "fig11-rc-loop.yaml", "fig11-rc-tagger.yaml")
    loop = {("T1", "L1"), ("L1", "T1")}
    rc = {run: {n: f["rc"] for n, f in s["flows"].items()} for run, s in (("without", w), ("with", t))}
    check("with Tagger every message of both flows completes",
          all(f["completed"] and f["messages_done"] == 64 for f in rc["with"].values()), str(rc["with"]))
    check("with Tagger flow 1's looping packets are resent (go-back-N after NAKs)",
          rc["with"]["flow1"]["retransmits"] > 0 and rc["with"]["flow1"]["naks"] > 0, str(rc["with"]["flow1"]))
    check("with Tagger flow 2 resends nothing", rc["with"]["flow2"]["retransmits"] == 0, str(rc["with"]["flow2"]))
    check("with Tagger flow 2 completes near its ideal time",
          t["flows"]["flow2"]["fct"]["slowdown"] < 1.01, str(t["flows"]["flow2"]["fct"]))
    check("with Tagger no link is stuck", t["stuck"] == [], str(t["stuck"]))
    check("without Tagger the deadlock outlives the route: the loop stays paused", loop <= set(w["stuck"]),
          str(w["stuck"]))
    check("without Tagger no flow completes, each keeps timing out",
          all(not f["completed"] and f["timeouts"] > 0 for f in rc["without"].values()), str(rc["without"]))
    for name, s in (("without", w), ("with", t)):
        no_loss(name, s)


def fig12(tmp):
    w, t = pair(tmp, "fig12-shuffle.yaml", "fig12-tagger.yaml")
    check("8 flows", len(w["rates"]) == 8 and len(t["rates"]) == 8)
    check("without Tagger all 8 flows stop", all(g < STOPPED_GBPS for g in w["rates"].values()), str(w["rates"]))
    cbd = {("L2", "S1"), ("S1", "L3"), ("L3", "S2"), ("S2", "L2")}
    check("without Tagger the CBD's links are paused and idle", cbd <= set(w["stuck"]), str(w["stuck"]))
    check("with Tagger no flow stops", all(g > 3 for g in t["rates"].values()), str(t["rates"]))
    check("with Tagger no link is stuck", t["stuck"] == [], str(t["stuck"]))
    for name, s in (("without", w), ("with", t)):
        no_loss(name, s)


def hotnets(tmp):
    def one(make, name, arg):
        f = make(cfg, os.path.join(tmp, name + ".yaml"), arg)
        run([fabric, "--fabric", f, "--out", os.path.join(tmp, name)])
        s = summary(os.path.join(tmp, name))
        no_loss(name, s)
        return s
    for rate, dead in (("4", False), ("6", True)):
        s = one(loop_file, f"loop-{rate}G", rate)
        check(f"loop at {rate}G: deadlock {dead} (turn at 2 x 40 / 15 = 5.33 Gb/s)",
              (LOOP_RING <= set(s["stuck"])) == dead, str(s["stuck"]))
        check(f"loop at {rate}G: packets die of TTL expiry", s["ttl_expired"] > 0, str(s["ttl_expired"]))
    for lim, dead in (("unlimited", True), ("15", False)):
        s = one(cbd_file, "cbd" if lim == "unlimited" else f"cbd-{lim}G", lim)
        what = f"CBD {'without rate limits' if dead else 'with flows at 15 Gb/s'}"
        check(f"{what}: deadlock {dead}", (CBD_RING <= set(s["stuck"])) == dead, str(s["stuck"]))
        check(f"{what}: flows {'stop' if dead else 'flow'}",
              all((g < STOPPED_GBPS) == dead for g in s["rates"].values()), str(s["rates"]))


with tempfile.TemporaryDirectory(prefix=f"fabric-{case}-") as tmp:
    {"fig11": fig11, "fig11_rc": fig11_rc, "fig12": fig12, "hotnets": hotnets}[case](tmp)
finish()
