#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Fabric soak: one pfcfabric process on the real clock (three switches,
three Linux hosts in network namespaces on af_packet veths, two emulated
hosts) under mixed traffic for a while, then checks it is back where it
started. Run through bench/fabric/soak.sh MINUTES (as root).

  h0 (H1) ==\\              h1 (H3)                    /== h2 (H2): receiver
  E1 ------- S1 --1G-- S2 ==/ --40M-- S3 ---------------- E2
The real senders are bench/switch/soak.py's (`soak.py gen`): H1 and H3 each send
lossless (DSCP 24) on/off bursts, 16 Mb/s for 200 ms in every 500 ms, H3
also 24 Mb/s lossy; H2 counts what arrives with soak.py's receiver (by
source and sequence number). The emulated E1 sends E2 20 Mb/s lossless
and 10 Mb/s lossy. The lossless bursts together exceed the 40 Mb/s S2-S3
link and average under it: S2 pauses S1, S1 pauses E1 (which stops) and
H1 (which does not: Linux ignores PFC, so the headroom is sized for what
it sends meanwhile); the lossy traffic alone exceeds what is left.

At the end: pfcfabric did not crash and exits 0; once traffic stopped every
switch drains (buffer and queues empty), and at exit every mbuf is back in
its pool (results.json's pool_in_use); no lossless drop (results.json and the
verdict); every lossless frame accounted for: the real hosts' frames sent =
received once, the emulated lossless flow's tx_frames = rx_frames; the
process's own resident memory (VmRSS less RssShmem, sampled each second
with the switches' counters) did not grow more than the limit after the
warm-up, and EAL's (the mbuf pool, touched for the first time as its mbufs
come round) stayed within the pool's size. Writes <out>/fabric_soak.png
(RSS and rates over time). Last line:
  RESULT minutes=<m> lossless_drops=<n> pool_ok=<0|1> rss_growth_kb=<k> frames_lost=<n>
         eal_first_touch_kb=<k>
Exit status 0 only if every check passed."""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

from pfclib.fabric_results import drops_sum, flows_by_name, prio_rows, results
import swlib
from switch import soak

PREFIX = "fk"
SWITCHES = ("S1", "S2", "S3")
# Real hosts: (fabric host, namespace index, soak.py's net: its 10.0.N.0/24).
REAL = (("H1", 0, 1), ("H3", 1, 2), ("H2", 2, 3))


def fabric_file(out, seconds):
    tmpl = swlib.write_config("""
switch: { idle_sleep_us: 20 }
qos: { tag_map: { 24: 3 }, lossless: [3], lossy_priority: 0, lossy_tag: 0 }
buffer:
  total_bytes: 16M
  cell_bytes: 256
  lossy: { reserved: 0, limit: 256K }
  lossless: { reserved: 0, xoff: 32K, headroom: 1M, xon_hysteresis: 8K }
""")
    hosts = "".join(f'  - {{ name: {h}, device: "net_af_packet{i},iface={PREFIX}p{i},framecnt=4096", '
                    f"address: 10.0.{net}.2/24, gateway: 10.0.{net}.1 }}\n" for h, i, net in REAL)
    path = swlib.run_file("fabric-soak", ".yaml")
    with open(path, "w") as f:
        # bin 1s: the recorder keeps a sample per bin for the whole run.
        f.write(f"""
fabric: {{ clock: real, bin: 1s, out: {out} }}
topology:
  switches: [S1, S2, S3]
  hosts: [H1, H2, H3, E1, E2]
  links: [[H1, S1], [E1, S1], [S1, S2], [H3, S2], [S2, S3], [S3, H2], [S3, E2]]
links:
  rate: 1G
  delay: 10us
  overrides: [ {{ between: [S2, S3], rate: 40M }} ]
switch: {{ config: {tmpl} }}
hosts:
{hosts}flows:
  - {{ name: ell, from: E1, to: E2, dscp: 24, prio: 3, rate: 20M, stop: {seconds:g}s }}
  - {{ name: elossy, from: E1, to: E2, dscp: 0, prio: 0, rate: 10M, stop: {seconds:g}s }}
""")
    return path


class Fabric:
    """pfcfabric in the switch namespace; pfcctl reaches a switch through
    EAL's --file-prefix pfcfabric-<pid> (ip netns exec execs it: same pid)."""

    def __init__(self, topo, path):
        self.cmd = ["ip", "netns", "exec", topo.sw, swlib.FABRIC, "--fabric", path]

    def __enter__(self):
        self.log = open(swlib.run_file("pfcfabric", ".log"), "w+")
        self.proc = subprocess.Popen(self.cmd, stdout=self.log, stderr=subprocess.STDOUT)
        self.prefix = f"pfcfabric-{self.proc.pid}"

        def ready():
            if self.proc.poll() is not None:
                raise RuntimeError("pfcfabric did not start:\n" + self.text())
            return ("pfcfabric: running" in self.text() and
                    os.path.exists(f"/var/run/dpdk/{self.prefix}/dpdk_telemetry.v2"))
        swlib.wait_until(ready, 60, "pfcfabric to start")
        return self

    def text(self):
        self.log.seek(0)
        return self.log.read()

    def ctl(self, switch, *args):
        return swlib.sh([swlib.PFCCTL, "--file-prefix", self.prefix, "--switch", switch, *args]).stdout

    def rss_kb(self):
        """VmRSS, and of it RssShmem (EAL's memory: the mbuf pools), in kB."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            kb = {l.split(":")[0]: int(l.split()[1]) for l in f if l.startswith(("VmRSS:", "RssShmem:"))}
        return kb["VmRSS"], kb["RssShmem"]

    def stop(self):
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(60)
        return self.text()

    def __exit__(self, *a):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def totals(stats):
    """(bytes sent at priority 3, at priority 0, XOFF sent) over a switch's ports."""
    rows = [q for p in stats["ports"] for q in p["prio"]]
    return (sum(q["tx_bytes"] for q in rows if q["prio"] == 3),
            sum(q["tx_bytes"] for q in rows if q["prio"] == 0),
            sum(q["pfc_xoff_tx"] for q in rows))


def drained(fab):
    """Every switch's stats when none holds a packet (shared buffer and
    egress queues empty) and none received one while asked, else None."""
    def rx(st):
        return [p["rx_packets"] for p in st["ports"]]
    before = {s: json.loads(fab.ctl(s, "stats")) for s in SWITCHES}
    info = {s: json.loads(fab.ctl(s, "info")) for s in SWITCHES}
    after = {s: json.loads(fab.ctl(s, "stats")) for s in SWITCHES}
    busy = any(info[s]["buffer_shared_used"] or rx(before[s]) != rx(after[s]) or
               any(q["queue_depth"] for p in after[s]["ports"] for q in p["prio"]) for s in SWITCHES)
    return None if busy else after


def plot(samples, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = [s["t"] for s in samples]
    fig, (a, b) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    a.plot(t, [(s["rss_kb"] - samples[0]["rss_kb"]) / 1024 for s in samples], label="VmRSS")
    a.plot(t, [(s["shmem_kb"] - samples[0]["shmem_kb"]) / 1024 for s in samples], label="RssShmem (EAL memory)")
    a.legend(fontsize=8)
    a.set_ylabel(f"pfcfabric RSS - {samples[0]['rss_kb'] / 1024:.0f} MB")
    a.set_title("fabric soak")
    for i, (what, style) in enumerate((("lossless", "-"), ("lossy", "--"))):
        for sw in SWITCHES:
            rate = [0] + [(y["sw"][sw][i] - x["sw"][sw][i]) * 8e-6 / (y["t"] - x["t"])
                          for x, y in zip(samples, samples[1:])]
            b.plot(t, rate, style, label=f"{sw} {what}")
    b.set_ylabel("sent by the switch (Mb/s)")
    b.set_xlabel("seconds")
    b.legend(ncol=2, fontsize=8)
    fig.tight_layout()
    fig.savefig(png)


def run(seconds, rss_limit_kb, out):
    failures = []
    samples = []
    gen = [sys.executable, soak.__file__]
    with swlib.Topo(len(REAL), PREFIX) as topo, Fabric(topo, fabric_file(out, seconds)) as fab:
        t0 = time.monotonic()
        hosts = {h["name"]: h for h in json.load(open(os.path.join(out, "hosts.json")))["hosts"]}
        for name, i, _ in REAL:
            # The gateway answers ARP and learns the host.
            swlib.ns(topo.host(i), ["ping", "-c", "1", "-W", "2", hosts[name]["gateway"]], check=False)

        def start(i, *args):
            return subprocess.Popen(["ip", "netns", "exec", topo.host(i), *gen, *args],
                                    stdout=subprocess.PIPE, text=True)
        receiver = start(2, "recv", str(seconds + 120))
        if receiver.stdout.readline().strip() != "ready":
            raise RuntimeError("receiver did not start")
        left = str(max(5.0, seconds - (time.monotonic() - t0)))   # the emulated flows stop at `seconds`
        gens = {"lossless_h1": start(0, "gen", "lossless", left, "1", hosts["H1"]["gateway_mac"]),
                "lossless_h3": start(1, "gen", "lossless", left, "2", hosts["H3"]["gateway_mac"]),
                "lossy_h3": start(1, "gen", "lossy", left, "2", hosts["H3"]["gateway_mac"])}
        while any(g.poll() is None for g in gens.values()) or time.monotonic() - t0 < seconds:
            if fab.proc.poll() is not None:
                failures.append(f"pfcfabric died with status {fab.proc.returncode}")
                break
            now = time.monotonic() - t0
            rss, shmem = fab.rss_kb()
            samples.append({"t": now, "rss_kb": rss, "shmem_kb": shmem,
                            "sw": {s: totals(json.loads(fab.ctl(s, "stats"))) for s in SWITCHES}})
            time.sleep(max(0.0, 1.0 - (time.monotonic() - t0 - now)))
        sent = {k: json.loads(g.communicate(timeout=60)[0] or "{}").get("sent", 0) for k, g in gens.items()}

        # Traffic has stopped: whatever is queued drains through the 40M link.
        # Not swlib.wait_idle: live, a switch's pool_in_use also counts the
        # mbuf each emulated host keeps for its next frame (runtime/host.h, Host::
        # spare), returned when the run ends; results.json's is checked.
        live = {}
        if fab.proc.poll() is None:
            try:
                live = swlib.wait_until(lambda: drained(fab), 30, "every switch to drain (buffers and queues empty)")
            except RuntimeError as e:
                failures.append(str(e))
        time.sleep(0.5)   # the last frames sent reach the receiver's socket
        receiver.send_signal(signal.SIGTERM)
        got = json.loads(receiver.communicate(timeout=30)[0].strip().splitlines()[-1])
        try:
            text = fab.stop()
        except subprocess.TimeoutExpired:
            failures.append("pfcfabric did not exit within 60 s of SIGINT")
            text = fab.text()
        if fab.proc.returncode != 0:
            failures.append(f"pfcfabric exit status {fab.proc.returncode}: {text[-2000:]}")

    res = results(out) if os.path.exists(os.path.join(out, "results.json")) else None
    if res is None:
        failures.append("no results.json")
        res = {"switches": {}, "flows": [], "lossless_drops": -1, "verdict": {}}
    pool = {s: v.get("pool_in_use", -1) for s, v in res["switches"].items()}
    pool_ok = bool(pool) and not any(pool.values()) and len(live) == len(SWITCHES)
    if not pool_ok:
        failures.append(f"mbufs not returned: pool_in_use at exit {pool}")
    busy = [(s, p, q["prio"], k, q[k]) for s, p, q in prio_rows(res)
            for k in ("buffer_bytes", "headroom_used", "queue_depth") if q.get(k)]
    if busy:
        failures.append(f"buffers not empty at exit: {busy[:6]}")
    lossless_drops = res["lossless_drops"]
    if lossless_drops != 0 or "lossless drops 0;" not in text:
        failures.append(f"lossless drops: results.json {lossless_drops}, verdict {res['verdict']}")
    # Every lossless frame accounted for: the real hosts' at the receiver,
    # each once; the emulated flow's at its receiver.
    sent_ll = sent["lossless_h1"] + sent["lossless_h3"]
    lost_real = sent_ll - got["lossless_unique"]
    if lost_real or got["lossless"] != got["lossless_unique"]:
        failures.append(f"real lossless: sent {sent_ll}, received {got['lossless_unique']} "
                        f"({got['lossless']} with duplicates), receiver socket drops {got['socket_drops']}")
    flows = flows_by_name(res)
    ell = flows.get("ell", {"tx_frames": 0, "rx_frames": 0})
    lost_emu = ell["tx_frames"] - ell["rx_frames"]
    if lost_emu or not ell["tx_frames"]:
        failures.append(f"emulated lossless flow: tx {ell['tx_frames']}, rx {ell['rx_frames']}")
    frames_lost = lost_real + lost_emu
    lossy_drops = drops_sum(res, "lossy_buffer_full") if res["switches"] else 0
    if not (got["lossy"] and lossy_drops and sum(s["sw"]["S1"][2] + s["sw"]["S2"][2] for s in samples[-1:])):
        failures.append(f"some traffic did not happen: lossy received {got['lossy']}, lossy drops "
                        f"{lossy_drops}, XOFF sent by S1 and S2 {samples[-1]['sw'] if samples else None}")
    # Warm-up: the first quarter (at least 5 s). After it the process's own
    # memory (VmRSS less RssShmem: heap, stacks) must stay flat. EAL's
    # memory (RssShmem, the mbuf pool's memfd) grows as mbufs are used for
    # the first time: frees on one lcore and allocations on another pass
    # through the pool's ring, which hands out every mbuf in turn, so it
    # grows until the whole pool has been touched once (first touch, not a
    # leak): bounded by the pool's size, which is what is checked for it.
    warm = [s for s in samples if s["t"] >= max(5.0, seconds / 4)]
    own = [s["rss_kb"] - s["shmem_kb"] for s in warm]
    growth = own[-1] - own[0] if len(own) >= 2 else 0
    shmem_growth = warm[-1]["shmem_kb"] - warm[0]["shmem_kb"] if len(warm) >= 2 else 0
    pool_kb = max((v.get("pool_size", 0) for v in res["switches"].values()), default=0) * 2432 // 1024 \
        if res and res["switches"] else 0
    if len(warm) < 2:
        failures.append("too few RSS samples after the warm-up")
    if growth > rss_limit_kb:
        failures.append(f"the process's own RSS (VmRSS - RssShmem) grew {growth} kB after the warm-up "
                        f"(limit {rss_limit_kb})")
    if shmem_growth > pool_kb:
        failures.append(f"EAL memory grew {shmem_growth} kB after the warm-up, more than the whole "
                        f"pool's {pool_kb} kB could touch")
    png = os.path.join(out, "fabric_soak.png")
    if samples:
        plot(samples, png)
    for f in failures:
        print("FAIL " + f, flush=True)
    emu = {k: (v["tx_frames"], v["rx_frames"]) for k, v in flows.items()}
    print(f"fabric soak: real hosts sent {sent}; received {got}; emulated flows (tx, rx) {emu}; "
          f"lossy_buffer_full {lossy_drops}; pool_in_use at exit {pool}; plot {png}; "
          f"RSS kB by second {[(int(s['t']), s['rss_kb']) for s in samples[::max(1, len(samples) // 8)]]}",
          flush=True)
    print(f"RESULT minutes={seconds / 60:g} lossless_drops={lossless_drops} pool_ok={int(pool_ok)} "
          f"rss_growth_kb={growth} frames_lost={frames_lost} eal_first_touch_kb={shmem_growth}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="pfcfabric real-clock soak (see the module docstring)")
    ap.add_argument("seconds", type=float, nargs="?", help="how long the traffic runs")
    ap.add_argument("--minutes", type=float, help="the same in minutes (bench/fabric/soak.sh)")
    ap.add_argument("--rss-limit-kb", type=int, default=int(os.environ.get("FABRIC_SOAK_RSS_LIMIT_KB", "1024")))
    ap.add_argument("--out", default=os.environ.get("FABRIC_SOAK_OUT"),
                    help="results directory (default: one removed at exit)")
    a = ap.parse_args()
    if (a.seconds is None) == (a.minutes is None):
        ap.error("give the duration once: SECONDS or --minutes M")
    out = os.path.abspath(a.out) if a.out else os.path.join(swlib.RUN_DIR, "fab")
    sys.exit(run(a.seconds if a.minutes is None else a.minutes * 60, a.rss_limit_kb, out))
