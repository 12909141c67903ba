#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: pfcctl's SONiC-like views against a real pfcswitch and
pfcfabric processes.
 A. An idle switch: every view has a row for every port (and queue), zeros.
 B. PFC made on purpose (a lossless stream into a shaped egress fills p0's
    priority group past XOFF; PFC frames injected on p1): the `pfc` matrix
    (Rx, Tx, XON, pause time), `queue counters`, `queue watermark` and
    `pfcwd stats` show exactly what `pfcctl stats` says; the new egress queue
    watermark is above 0.
 C. `clear watermarks` sets it to 0; `clear counters` makes the views show
    what changed since (pfcctl's baseline), while `stats` keeps totals.
 D. `-i 1 -n 2` prints two samples of rates; `-i` without -n ends on SIGINT
    with status 0, and with status 1 when the switch goes away.
 E. Usage errors exit 2.
 F. Against a pfcfabric process (real clock, then virtual clock) without
    --switch, pfcctl lists the switches (exit 2), `pfcctl switches` lists
    them, and --switch picks one."""
import os
import re
import signal
import subprocess

from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Results, Switch, Topo, ns, prio, sh

r = Results()
SW0 = "02:00:00:00:01:01"
# The `clear counters` baseline goes to the run's directory (removed at exit).
os.environ["XDG_RUNTIME_DIR"] = swlib.RUN_DIR


def tables(text):
    """[(header, {row name: [cells]})] of every table in a view's text, in
    order: a header line, a line of dashes, rows up to a blank line. Columns
    are two or more spaces apart (pfcctl/table.h); a row whose second cell
    is a queue (UC3, PG3) is keyed by (port, queue)."""
    out, lines = [], text.splitlines()
    for i in range(len(lines) - 1):
        if not re.fullmatch(r"-+( +-+)*", lines[i + 1]):
            continue
        rows = {}
        for line in lines[i + 2:]:
            if not line.strip() or line.startswith("("):
                break
            cells = re.split(r" {2,}", line.strip())
            if re.fullmatch(r"(UC|PG)\d", cells[1]):
                rows[(cells[0], cells[1])] = cells[2:]
            else:
                rows[cells[0]] = cells[1:]
        out.append((re.split(r" {2,}", lines[i].strip()), rows))
    return out


def table(text, title, nth=0):
    """The rows of the nth table whose first column is headed `title`."""
    return [rows for header, rows in tables(text) if header[0] == title][nth]


def matrix(text, title, nth=0):
    """{port: [8 values]} of a per-priority matrix (PFC0..7, UC0..7, PG0..7)."""
    return {p: [int(v) for v in cells] for p, cells in table(text, title, nth).items()}


def check_pfc(view, st, what):
    """The pfc matrices of `view` against the stats document `st`."""
    want = {
        "Port Rx": lambda q: q["pfc_xoff_rx"],
        "Port Tx": lambda q: q["pfc_xoff_tx"] + q["pfc_refresh_tx"],
        "Port Rx XON": lambda q: q["pfc_xon_rx"],
        "Port Tx XON": lambda q: q["pfc_xon_tx"],
        "Paused us": lambda q: q["paused_ns"] // 1000,
        "Pausing us": lambda q: q["pausing_ns"] // 1000,
    }
    for title, f in want.items():
        got = matrix(view, title)
        exp = {p["name"]: [f(q) for q in p["prio"]] for p in st["ports"]}
        r.eq(got, exp, f"{what}: pfc {title} equals pfcctl stats")


def queue_rows(view):
    return table(view, "Port")


def check_queues(view, st, what):
    got = queue_rows(view)
    exp = {(p["name"], f"UC{q['prio']}"): [str(q[k]) for k in ("tx_packets", "tx_bytes", "tx_discards",
                                                                  "tx_discard_bytes", "ecn_marked", "queue_depth")]
           for p in st["ports"] for q in p["prio"]}
    r.eq(got, exp, f"{what}: queue counters equal pfcctl stats, a row per port and queue")


def minus(a, b):
    """Counter document a less b, for the keys the views show."""
    out = {"ports": []}
    for pa, pb in zip(a["ports"], b["ports"]):
        prios = []
        for qa, qb in zip(pa["prio"], pb["prio"]):
            q = dict(qa)
            for k in ("pfc_xoff_rx", "pfc_xoff_tx", "pfc_refresh_tx", "pfc_xon_rx", "pfc_xon_tx",
                      "paused_ns", "pausing_ns", "tx_packets", "tx_bytes", "tx_discards",
                      "tx_discard_bytes", "ecn_marked"):
                q[k] = qa[k] - qb[k]
            prios.append(q)
        out["ports"].append({"name": pa["name"], "prio": prios})
    return out


def stream(src, n, first=0):
    return [Ether(src=src, dst=SW0) / IP(src="10.0.1.2", dst="10.0.2.2", tos=0x60) /
            UDP(sport=3000, dport=9) / Raw((first + i).to_bytes(4, "big") + bytes(996)) for i in range(n)]


def settled(sw):
    """pfcctl stats once no pause is running either way (the pause-time
    gauges stop moving) and the switch is idle."""
    def quiet():
        st = sw.stats()
        busy = any(q["paused_now"] or q["pausing_now"] or q["queue_depth"] for p in st["ports"] for q in p["prio"])
        return None if busy else st
    return swlib.wait_until(quiet, 20, "no pause running and empty queues")


def popen_ctl(sw, *args):
    log = swlib.run_file("pfcctl-", ".out")
    f = open(log, "w")
    p = subprocess.Popen([swlib.PFCCTL, "--file-prefix", sw.prefix, *args], stdout=f,
                         stderr=subprocess.STDOUT, text=True)
    return p, log, f


def read(path):
    with open(path) as f:
        return f.read()


cfg = swlib.write_config(swlib.shaped_two_port_config())
N = 300
with Topo(2, "pv") as t, Switch(t, cfg) as sw:
    # ---- A: idle ------------------------------------------------------------
    st = sw.stats()
    idle_pfc = sw.ctl("pfc", "--xon").stdout
    r.eq(sorted(matrix(idle_pfc, "Port Rx")), ["p0", "p1"], "A: idle pfc view has a row per port")
    r.check(all(v == [0] * 8 for v in matrix(idle_pfc, "Port Tx").values()), "A: ... of zeros")
    r.eq(len(queue_rows(sw.ctl("queue", "counters").stdout)), 16, "A: idle queue counters: 2 ports x 8 queues")
    r.eq(matrix(sw.ctl("queue", "watermark").stdout, "Port"), {"p0": [0] * 8, "p1": [0] * 8},
         "A: idle egress watermarks, zeros")
    wd = table(sw.ctl("pfcwd", "stats").stdout, "QUEUE")
    r.eq(sorted(wd), ["p0:3", "p0:4", "p1:3", "p1:4"], "A: pfcwd stats has the lossless queues (3, 4)")

    # ---- B: PFC both ways ---------------------------------------------------
    for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1")):
        ns(t.host(h), ["ping", "-c", "1", "-W", "2", gw], check=False)
    base = sw.stats()
    swlib.send(t.host(0), stream(t.mac(0), N))
    # Pause p1's priority 4 (where the rule queues the stream, tag 26)
    # three times, briefly, and release it twice.
    q4 = [0] * 8
    q4[4] = 100
    swlib.send(t.host(1), [swlib.pfc_frame(t.mac(1), 1 << 4, q4)] * 3 + [swlib.pfc_frame(t.mac(1), 1 << 4, [0] * 8)] * 2)
    sw.wait_idle(rx_at_least={("p0", 3): prio(base, "p0", 3)["rx_packets"] + N})
    st = settled(sw)
    r.check(prio(st, "p0", 3)["pfc_xoff_tx"] > 0, f"B: the switch paused h0 ({prio(st, 'p0', 3)['pfc_xoff_tx']} XOFF)")
    r.eq(prio(st, "p1", 4)["pfc_xoff_rx"], 3, "B: p1 received the 3 XOFF for priority 4")
    check_pfc(sw.ctl("pfc", "--xon").stdout, st, "B")
    check_pfc(sw.ctl("pfc", "counters", "--xon").stdout, st, "B (pfc counters)")
    check_queues(sw.ctl("queue", "counters").stdout, st, "B")
    r.check(prio(st, "p1", 4)["tx_packets"] >= N, f"B: p1 UC4 sent the stream ({prio(st, 'p1', 4)['tx_packets']})")
    wm_view = sw.ctl("queue", "watermark").stdout
    wm = matrix(wm_view, "Port")
    r.eq(wm, {p["name"]: [q["egress_watermark"] for q in p["prio"]] for p in st["ports"]},
         "B: egress watermarks equal pfcctl stats")
    r.check(wm["p1"][4] > 1, f"B: the shaped egress queue p1 UC4 built up: watermark {wm['p1'][4]} packets")
    pg = matrix(wm_view, "Port", 1)
    r.eq(pg, {p["name"]: [q["buffer_watermark"] for q in p["prio"]] for p in st["ports"]},
         "B: ingress buffer watermarks equal pfcctl stats")
    r.check(pg["p0"][3] > 16384, f"B: p0 PG3 went past XOFF: {pg['p0'][3]} bytes")
    r.eq(matrix(wm_view, "Port", 2), {p["name"]: [q["headroom_watermark"] for q in p["prio"]] for p in st["ports"]},
         "B: ingress headroom watermarks equal pfcctl stats")
    wd = table(sw.ctl("pfcwd", "stats").stdout, "QUEUE")
    r.eq(wd["p1:4"], ["off", f"{prio(st, 'p1', 4)['pfcwd_storms']}/{prio(st, 'p1', 4)['pfcwd_restores']}",
                      str(prio(st, "p1", 4)["pfcwd_storm_ns"] // 1000),
                      f"{prio(st, 'p1', 4)['tx_packets']}/{prio(st, 'p1', 4)['tx_discards']}",
                      str(prio(st, "p1", 4)["drops"]["pfcwd_storm"])], "B: pfcwd stats of p1:4 equal pfcctl stats")

    # ---- C: clear -----------------------------------------------------------
    out = sw.ctl("clear", "watermarks").stdout
    r.check("watermarks cleared" in out, f"C: clear watermarks: {out.strip()}")
    r.eq(matrix(sw.ctl("queue", "watermark").stdout, "Port"), {"p0": [0] * 8, "p1": [0] * 8},
         "C: egress watermarks are 0 after clear watermarks")
    st = sw.stats()
    r.check(all(q["buffer_watermark"] == q["buffer_bytes"] and q["headroom_watermark"] == q["headroom_used"]
                for p in st["ports"] for q in p["prio"]),
            "C: ingress buffer and headroom watermarks start again from what is held")
    r.check(all(q["egress_watermark"] == 0 for p in sw.stats()["ports"] for q in p["prio"]),
            "C: ... in pfcctl stats too")
    sw.ctl("clear", "counters")
    at_clear = sw.stats()
    r.check(any(f.startswith("pfcctl-pvdp") for f in os.listdir(swlib.RUN_DIR)),
            "C: the baseline is a file under $XDG_RUNTIME_DIR")
    cleared = sw.ctl("pfc", "--xon").stdout
    r.check(cleared.startswith("Counters since "), "C: the view says it counts since a clear")
    r.check(all(v == [0] * 8 for title in ("Port Rx", "Port Tx", "Port Rx XON", "Port Tx XON")
                for v in matrix(cleared, title).values()), "C: pfc counters all 0 right after clear counters")
    r.check(all(c[:5] == ["0"] * 5 for c in queue_rows(sw.ctl("queue", "counters").stdout).values()),
            "C: queue counters all 0 right after clear counters")
    r.eq(prio(at_clear, "p1", 4)["tx_packets"], prio(st, "p1", 4)["tx_packets"], "C: pfcctl stats keeps totals")
    M = 20
    swlib.send(t.host(0), stream(t.mac(0), M, N))
    sw.wait_idle(rx_at_least={("p0", 3): prio(at_clear, "p0", 3)["rx_packets"] + M})
    now = settled(sw)
    since = minus(now, at_clear)
    check_queues(sw.ctl("queue", "counters").stdout, since, "C: after 20 more packets")
    r.eq(queue_rows(sw.ctl("queue", "counters").stdout)[("p1", "UC4")][0], str(M), "C: p1 UC4 shows the 20 since")
    check_pfc(sw.ctl("pfc", "--xon").stdout, since, "C: after 20 more packets")
    wm = matrix(sw.ctl("queue", "watermark").stdout, "Port")
    r.check(wm["p1"][4] >= 1, f"C: the watermark rises again with traffic: {wm['p1'][4]}")

    # ---- D: -i / -n, SIGINT, switch going away --------------------------------
    rep = sw.ctl("pfc", "-i", "1", "-n", "2")
    r.eq(len(re.findall(r"^== sample \d of 2: per second over", rep.stdout, re.M)), 2, "D: -i 1 -n 2: two samples")
    r.eq(rep.stdout.count("Port Rx/s"), 2, "D: ... each a table of rates")
    rep = sw.ctl("queue", "counters", "-n", "1")
    r.check("== sample 1 of 1" in rep.stdout and "Counter/pkts/s" in rep.stdout, "D: -n alone repeats each second")
    p, log, f = popen_ctl(sw, "queue", "counters", "-i", "1")
    swlib.wait_until(lambda: "== sample 1" in read(log), 20, "pfcctl -i 1 to print a sample")
    p.send_signal(signal.SIGINT)
    r.eq(p.wait(20), 0, "D: pfcctl -i ends on SIGINT with status 0")
    f.close()
    p, log, f = popen_ctl(sw, "pfc", "-i", "1")
    swlib.wait_until(lambda: "== sample 1" in read(log), 20, "pfcctl -i 1 to print a sample")
    sw.stop()
    rc = p.wait(20)
    f.close()
    r.check(rc == 1 and "the switch went away" in read(log),
            f"D: pfcctl -i exits 1 when the switch goes away: {rc}, {read(log).strip().splitlines()[-1]}")

# ---- E: usage errors ----------------------------------------------------------
for args in (["queue"], ["clear", "everything"], ["pfc", "-i", "0"], ["pfc", "-n", "x"], ["pfcwd", "nonsense"]):
    rc = sh([swlib.PFCCTL, "--file-prefix", "nobody", *args], check=False).returncode
    r.eq(rc, 2, f"E: pfcctl {' '.join(args)} is a usage error")
r.eq(sh([swlib.PFCCTL, "--version"], check=False).returncode, 0, "E: --version")

# ---- F: pfcfabric ---------------------------------------------------------------
tmpl = swlib.write_config("""
qos: { tag_map: { 24: 3 }, lossless: [3], lossy_priority: 0, lossy_tag: 0 }
buffer: { total_bytes: 4M, cell_bytes: 256, lossless: { reserved: 0, xoff: 32K, headroom: 64K } }
""")


def fabric_file(clock):
    # The virtual run lasts long enough of real time to be asked (a long
    # line-rate flow through three switches); the real one until stopped
    # (60 s at most, should the test die).
    duration = "30s" if clock == "virtual" else "60s"
    path = swlib.run_file("fabric-" + clock, ".yaml")
    with open(path, "w") as f:
        f.write(f"""
fabric: {{ clock: {clock}, duration: {duration}, out: {os.path.join(swlib.RUN_DIR, clock)} }}
{swlib.FABRIC_LINE3}links: {{ rate: 1G, delay: 1us }}
switch: {{ config: {tmpl} }}
flows:
  - {{ name: f1, from: H1, to: H2, dscp: 24, prio: 3, rate: 1G, frame: 1000 }}
""")
    return path


for clock in ("real", "virtual"):
    log = swlib.run_file("pfcfabric-", ".log")
    with open(log, "w") as out:
        proc = subprocess.Popen([swlib.FABRIC, "--fabric", fabric_file(clock)], stdout=out, stderr=subprocess.STDOUT)
    try:
        prefix = f"pfcfabric-{proc.pid}"

        def up():
            if proc.poll() is not None:
                raise RuntimeError(f"pfcfabric exited {proc.returncode}:\n{read(log)}")
            return "pfcfabric: running" in read(log) and os.path.exists(f"/var/run/dpdk/{prefix}/dpdk_telemetry.v2")
        swlib.wait_until(up, 60, f"pfcfabric ({clock} clock) to run")
        ctl = [swlib.PFCCTL, "--file-prefix", prefix]
        bare = sh(ctl + ["pfc"], check=False)
        r.check(bare.returncode == 2 and bare.stdout.split() == ["S1", "S2", "S3"] and "--switch" in bare.stderr,
                f"F ({clock}): pfcctl pfc without --switch lists the switches, exit 2: "
                f"{bare.returncode} {bare.stdout.split()} {bare.stderr.strip()}")
        r.check("bad answer" not in bare.stderr, f"F ({clock}): ... not 'bad answer'")
        r.eq(sh(ctl + ["switches"], check=False).stdout.split(), ["S1", "S2", "S3"], f"F ({clock}): pfcctl switches")
        one = sh(ctl + ["--switch", "S2", "pfc"], check=False)
        r.check(one.returncode == 0 and sorted(matrix(one.stdout, "Port Rx")) == ["S1", "S3"],
                f"F ({clock}): --switch S2 pfc shows S2's ports S1 and S3: {one.returncode} {one.stderr.strip()}")
        wrong = sh(ctl + ["--switch", "S9", "info"], check=False)
        r.check(wrong.returncode == 2 and "no switch named 'S9'" in wrong.stderr,
                f"F ({clock}): an unknown --switch names the switches: {wrong.stderr.strip()}")
        r.check(proc.poll() is None, f"F ({clock}): the fabric was still running while asked")
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
r.done()
