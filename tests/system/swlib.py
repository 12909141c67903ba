# SPDX-License-Identifier: BSD-3-Clause
"""Helpers for the system tests: network namespaces with veth pairs, the real
pfcswitch process on net_af_packet ports, traffic with scapy, captures with
tcpdump, and counters through pfcctl (DPDK telemetry). Runs as root with
Debian's /usr/bin/python3 (python3-scapy).

Cleanup: every file a test makes (configs, logs, captures) goes into one
directory per test run, RUN_DIR, removed at exit; every namespace made
through Topo or netns_add is deleted at exit, and listed in the file named
by $PFC_NETNS_MANIFEST so run_system.py can check none is left. SIGTERM (a
meson timeout) exits through the same cleanup."""
import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("PFC_BUILD", os.path.join(ROOT, "build"))
SWITCH = os.path.join(BUILD, "dataplane/pfcswitch/pfcswitch")
PFCCTL = os.path.join(BUILD, "dataplane/pfcctl/pfcctl")
TOPO = os.path.join(ROOT, "tools/netns-topo.sh")
PY = "/usr/bin/python3"
FABRIC = os.path.join(BUILD, "dataplane/emulator/pfcfabric")
# The fabric tests' topology (pfcfabric's inline form): two hosts at the
# ends of a line of three switches.
FABRIC_LINE3 = """topology:
  switches: [S1, S2, S3]
  hosts: [H1, H2]
  links: [[H1, S1], [S1, S2], [S2, S3], [S3, H2]]
"""


RUN_DIR = tempfile.mkdtemp(prefix="pfcsw-run-")
_namespaces = []   # made by this run, deleted at exit


def _cleanup():
    for n in reversed(_namespaces):
        subprocess.run(["ip", "netns", "del", n], capture_output=True)
    shutil.rmtree(RUN_DIR, ignore_errors=True)


atexit.register(_cleanup)
# A terminated test unwinds (context managers stop switches and captures)
# and then runs _cleanup, instead of dying where it stands.
signal.signal(signal.SIGTERM, lambda *a: sys.exit(128 + signal.SIGTERM))


def run_file(prefix, suffix):
    """A new file name in RUN_DIR (removed with it at exit)."""
    fd, path = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=RUN_DIR)
    os.close(fd)
    return path


def track_netns(*names):
    """Records namespaces this run creates, for the exit cleanup and the
    leftover check of run_system.py."""
    _namespaces.extend(names)
    manifest = os.environ.get("PFC_NETNS_MANIFEST")
    if manifest:
        with open(manifest, "a") as f:
            f.writelines(n + "\n" for n in names)


def netns_add(name):
    track_netns(name)
    sh(["ip", "netns", "add", name])


def sh(cmd, check=True, **kw):
    r = subprocess.run(cmd, shell=isinstance(cmd, str), capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        raise RuntimeError(f"command failed ({r.returncode}): {cmd}\n{r.stdout}\n{r.stderr}")
    return r


def ns(name, cmd, **kw):
    return sh(["ip", "netns", "exec", name] + cmd, **kw)


def wait_until(pred, timeout, what, interval=0.05):
    """Polls pred() until it returns something true (returned), at most
    `timeout` seconds; raises naming `what` otherwise. The way tests wait
    for a condition (a counter reached, a process ready) instead of sleeping
    for a guessed time."""
    deadline = time.time() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.time() >= deadline:
            raise RuntimeError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def pcap_count(path):
    """Complete packet records in a pcap file that may still be written."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return 0
    if len(data) < 24:
        return 0
    order = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    n, off = 0, 24
    while off + 16 <= len(data):
        incl = int.from_bytes(data[off + 8:off + 12], "little" if order == "<" else "big")
        if off + 16 + incl > len(data):
            break
        n, off = n + 1, off + 16 + incl
    return n


class Topo:
    """N hosts <-veth-> one switch namespace (see tools/netns-topo.sh)."""

    def __init__(self, n, prefix):
        self.n, self.prefix = n, prefix
        self.sw = prefix + "sw"

    def host(self, i):
        return f"{self.prefix}h{i}"

    def port_if(self, i):
        return f"{self.prefix}p{i}"

    def namespaces(self):
        return [self.sw] + [self.host(i) for i in range(self.n)]

    def __enter__(self):
        track_netns(*self.namespaces())
        try:
            sh([TOPO, "up", str(self.n), self.prefix])
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *a):
        sh([TOPO, "down", str(self.n), self.prefix], check=False)

    def mac(self, i):
        return ns(self.host(i), ["cat", "/sys/class/net/eth0/address"]).stdout.strip()


class Switch:
    """A pfcswitch process in the topology's switch namespace."""

    def __init__(self, topo, config, workers=1, extra_eal=(), mem=256, prefix=None, shared=False):
        """shared: hugepage memory and DPDK's shared config instead of
        --no-huge --no-shconf, so secondary processes (dpdk-dumpcap) attach."""
        self.topo, self.config = topo, config
        self.prefix = prefix or topo.prefix + "dp"
        vdevs = []
        for i in range(topo.n):
            # A deep AF_PACKET ring: the kernel drops silently (the 22.11 PMD
            # reports no imissed) when it overflows while the worker is not
            # scheduled, which a loaded 2-core machine does for milliseconds.
            vdevs += ["--vdev", f"net_af_packet{i},iface={topo.port_if(i)},framecnt=4096"]
        # More lcores than CPUs: map them onto the CPUs round-robin.
        lcores = ",".join(f"{c}@{c % os.cpu_count()}" for c in range(workers + 1))
        private = [] if shared else ["--no-huge", "--no-shconf"]
        self.cmd = ["ip", "netns", "exec", topo.sw, SWITCH, "--lcores", lcores, *private, "--no-pci",
                    "-m", str(mem), "--file-prefix", self.prefix,
                    "--log-level=lib.eal:error", *vdevs, *extra_eal, "--", "--config", config,
                    "--stats-json", "-"]
        self.proc = None
        self.out = ""

    def __enter__(self):
        self.log = run_file("pfcswitch-", ".log")
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen(self.cmd, stdout=out, stderr=subprocess.STDOUT, text=True)
        def started():
            with open(self.log) as f:
                txt = f.read()
            if self.proc.poll() is not None:
                os.unlink(self.log)
                raise RuntimeError(f"pfcswitch exited {self.proc.returncode}:\n{txt}")
            return "pfcswitch: forwarding" in txt
        try:
            wait_until(started, 30, "pfcswitch to print 'pfcswitch: forwarding'")
        except RuntimeError as e:
            if self.proc.poll() is None:
                with open(self.log) as f:
                    e.args = (e.args[0] + ":\n" + f.read(),)
                self.__exit__()
            raise
        return self

    def stop(self):
        """SIGINT, wait, return the final counters (JSON)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                raise RuntimeError("pfcswitch did not stop on SIGINT within 20 s")
        with open(self.log) as f:
            self.out = f.read()
        final = final_stats(self.out)
        if final is None:
            raise RuntimeError("no final stats in output:\n" + self.out[-3000:])
        return final

    def __exit__(self, *a):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if os.path.exists(self.log):
            os.unlink(self.log)

    def ctl(self, *args, check=True):
        return sh([PFCCTL, "--file-prefix", self.prefix, *args], check=check)

    def stats(self):
        return json.loads(self.ctl("stats").stdout)

    def wait_idle(self, timeout=20, rx_at_least=None):
        return wait_idle(lambda *a: self.ctl(*a).stdout, timeout, rx_at_least)


def final_stats(out):
    """The counters pfcswitch prints as it exits with `--stats-json -`
    (`pfcswitch: stats {...}`), or None when its output has none."""
    for line in out.splitlines():
        if line.startswith("pfcswitch: stats "):
            return json.loads(line[len("pfcswitch: stats "):])
    return None


def wait_idle(ctl, timeout=20, rx_at_least=None):
    """Waits until a switch (ctl(*args): pfcctl's output for it) has received
    at least rx_at_least[key] packets for each key, a port name or a (port,
    priority) pair (so nothing sent is still on its way in), and holds no
    packet: no packet received while it
    was asked, egress queues empty, every mbuf back in the pool. Returns its
    port counters then (pfcctl stats): whatever it was given has left or
    been dropped with a reason."""
    def rx(st):
        return [p["rx_packets"] for p in st["ports"]]

    def rx_of(st, key):
        return prio(st, *key)["rx_packets"] if isinstance(key, tuple) else port(st, key)["rx_packets"]

    def idle():
        before = json.loads(ctl("stats"))
        info = json.loads(ctl("info"))
        st = json.loads(ctl("stats"))
        busy = info["pool_in_use"] or any(q["queue_depth"] for p in st["ports"] for q in p["prio"])
        short = any(rx_of(st, k) < v for k, v in (rx_at_least or {}).items())
        return None if busy or short or rx(before) != rx(st) else st
    return wait_until(idle, timeout, f"the switch to drain (received {rx_at_least}, pool_in_use 0, queues empty)")


def prio(stats, port, q):
    p = next(p for p in stats["ports"] if p["name"] == port)
    return p["prio"][q]


def port(stats, name):
    return next(p for p in stats["ports"] if p["name"] == name)


class Capture:
    """tcpdump in a namespace, started before traffic, read back with scapy."""

    def __init__(self, netns, iface, bpf, direction="in"):
        self.file = run_file("cap-", ".pcap")
        self.cmd = ["ip", "netns", "exec", netns, "tcpdump", "-i", iface, "-Q", direction, "-U", "-n",
                    "-w", self.file, bpf]

    def __enter__(self):
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        # tcpdump prints "listening on" once the socket is live.
        t0 = time.time()
        while time.time() - t0 < 10:
            line = self.proc.stderr.readline()
            if "listening on" in line:
                return self
        raise RuntimeError("tcpdump did not start")

    def stop(self, expect=None, timeout=10):
        """Ends the capture and returns its packets. With `expect`, first
        waits until the capture holds that many packets (the condition the
        test is about; take the number from the switch's counters after
        Switch.wait_idle when drops are possible). Without, until nothing
        new arrived for 1 s (at most `timeout`): a weaker condition, kept
        for the tests that have no count yet."""
        if expect is not None:
            wait_until(lambda: pcap_count(self.file) >= expect, timeout,
                       f"{expect} packets in the capture ({' '.join(self.cmd[-1:])})")
        else:
            last, since = -1, time.time()
            def quiet():
                nonlocal last, since
                n = pcap_count(self.file)
                if n != last:
                    last, since = n, time.time()
                return time.time() - since >= 1.0
            wait_until(quiet, timeout, "the capture to go quiet")
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(10)
        from scapy.all import rdpcap
        return list(rdpcap(self.file)) if os.path.getsize(self.file) > 24 else []

    def __exit__(self, *a):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.unlink(self.file)


def send(netns, pkts, iface="eth0", inter=0.0, at=None):
    """Sends scapy packets from inside a namespace (a child python there).
    `at`: wall-clock time (time.time()) at which to start, so that senders in
    different namespaces can be lined up."""
    from scapy.all import wrpcap
    f = run_file("tx-", ".pcap")
    wrpcap(f, pkts)
    wait = f"import time; time.sleep(max(0, {at} - time.time())); " if at else ""
    code = ("import sys; from scapy.all import rdpcap, sendp; p = rdpcap('" + f + "'); " + wait +
            f"sendp(p, iface='{iface}', inter={inter}, verbose=0)")
    try:
        ns(netns, [PY, "-c", code])
    finally:
        os.unlink(f)


class Sender:
    """A scapy sender started ahead of time in a namespace (python and scapy
    loaded, packets read: the slow part on a loaded machine), which sends
    when fire() is called. Lines traffic from several hosts up with events
    (a counter, another sender done) instead of guessed start-up times."""

    def __init__(self, netns, pkts, iface="eth0", inter=0.0):
        from scapy.all import wrpcap
        self.file = run_file("tx-", ".pcap")
        wrpcap(self.file, pkts)
        # The socket is opened before 'ready' too: making one costs scapy
        # a large part of a second on a loaded machine.
        code = ("import sys; from scapy.all import conf, rdpcap, sendp; p = rdpcap('" + self.file + "'); "
                f"s = conf.L2socket(iface='{iface}'); "
                "print('ready', flush=True); sys.stdin.readline(); "
                f"sendp(p, socket=s, inter={inter}, verbose=0); print('sent', flush=True)")
        self.cmd = ["ip", "netns", "exec", netns, PY, "-c", code]
        self.proc = None
        self.fired = False

    def _expect(self, word):
        line = self.proc.stdout.readline().strip()
        if line != word:
            raise RuntimeError(f"sender {self.cmd[3]}: expected '{word}', got '{line}' "
                               f"(exit {self.proc.poll()})")

    def __enter__(self):
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._expect("ready")
        return self

    def fire(self):
        self.fired = True
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()

    def wait_sent(self):
        """Returns once every packet was handed to the interface (not when
        the child has exited: python with scapy takes long to exit)."""
        self._expect("sent")

    def __exit__(self, *a):
        if self.proc and self.proc.poll() is None:
            # Never fired: kill (closing stdin would make it send).
            if not self.fired:
                self.proc.kill()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        os.unlink(self.file)


def write_config(text):
    """A config file in RUN_DIR (removed at exit)."""
    path = run_file("pfcsw-", ".yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


class Results:
    """Tiny test runner: each check is recorded; the script exits non-zero on
    any failure and prints 'N passed, M failed' last."""

    def __init__(self):
        self.passed, self.failed = 0, 0

    def check(self, cond, what):
        if cond:
            self.passed += 1
            print(f"ok   {what}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL {what}", flush=True)

    def eq(self, got, want, what):
        self.check(got == want, f"{what}: got {got!r}, want {want!r}")

    def done(self):
        print(f"{self.passed} passed, {self.failed} failed", flush=True)
        sys.exit(1 if self.failed or not self.passed else 0)


def two_port_config(extra_rules="", qos=None, ports_extra="", switch_extra=""):
    qos = qos or """
  tag_map: { 24: 3, 26: 4, 10: 1 }
  lossless: [3, 4]
  lossy_priority: 0
  lossy_tag: 0"""
    return f"""
switch:
  mode: l3
  workers: 1
  idle_sleep_us: 20
{switch_extra}
ports:
  - {{ name: p0, device: net_af_packet0, ipv4: 10.0.1.1/24, speed: 10G, mac: "02:00:00:00:01:01" {ports_extra} }}
  - {{ name: p1, device: net_af_packet1, ipv4: 10.0.2.1/24, speed: 10G, mac: "02:00:00:00:02:01" {ports_extra} }}
qos:{qos}
rewrite:
  unmatched: lossy
  rules:
    - {{ tag: 24, in: [p0], out: [p1], new_tag: 26, priority: 10 }}
    - {{ tag: 26, in: "*", out: "*", new_tag: 26 }}
{extra_rules}
"""


def shaped_buffer(headroom="1M", total="6M"):
    """A buffer section that holds a burst behind a shaped port: PFC on purpose."""
    return f"""
buffer:
  total_bytes: {total}
  cell_bytes: 256
  lossy: {{ reserved: 0, limit: 16K }}
  lossless: {{ reserved: 0, xoff: 16K, headroom: {headroom}, xon_hysteresis: 8K }}
"""


def shaped_two_port_config(headroom="1M", total="6M"):
    """two_port_config with 1G ports, p1 shaped to 20 Mb/s (h0 -> h1 congests
    it at once) and shaped_buffer()."""
    return (two_port_config().replace("speed: 10G", "speed: 1G")
            .replace('mac: "02:00:00:00:02:01"', 'mac: "02:00:00:00:02:01", shaper: 20M') +
            shaped_buffer(headroom, total))


def pfc_frame(src, enable, quanta, opcode=0x0101, dst="01:80:c2:00:00:01"):
    """An 802.1Qbb frame: class-enable vector + 8 quanta, padded to 60 bytes."""
    import struct
    from scapy.all import Ether, Raw
    body = struct.pack("!HH8H", opcode, enable, *quanta)
    return Ether(dst=dst, src=src, type=0x8808) / Raw(body + bytes(60 - 14 - len(body)))


def pause_frame(src, quanta):
    """A classic IEEE 802.3x PAUSE: opcode 0x0001, one pause_time for all."""
    import struct
    from scapy.all import Ether, Raw
    body = struct.pack("!HH", 0x0001, quanta)
    return Ether(dst="01:80:c2:00:00:01", src=src, type=0x8808) / Raw(body + bytes(60 - 14 - len(body)))


def tshark_fields(pcap, fields, display_filter="macc", lua=None):
    """One dict of `fields` per frame tshark shows with `display_filter`;
    lua: a dissector script of tools/wireshark to load first (int.lua)."""
    script = ["-X", f"lua_script:{os.path.join(ROOT, 'tools', 'wireshark', lua)}"] if lua else []
    r = sh(["tshark"] + script + ["-r", pcap, "-Y", display_filter, "-T", "fields", "-E", "separator=;"] +
           sum([["-e", f] for f in fields], []), timeout=60)
    return [dict(zip(fields, line.split(";"))) for line in r.stdout.splitlines() if line.strip()]
