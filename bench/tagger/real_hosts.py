# SPDX-License-Identifier: BSD-3-Clause
"""The Linux hosts of bench/tagger/fig10_real.sh: in the namespaces
PREFIXh0..PREFIXh3 (tools/netns-topo.sh) H5 and H9 send N UDP frames of
1014 B in DSCP 1 (the lossless tag) at RATE to H13 and H1, which count what
arrives. Run while pfcfabric runs the fabric whose hosts.json is in OUT:

  python3 -m tagger.real_hosts drive OUT PREFIX N RATE      (RATE as 100M)

writes OUT/rx.json ({"sent", "blue_rx", "green_rx"}). The sender and the
receiver run in the namespaces as `python3 -m tagger.real_hosts send|recv`
(ip netns exec keeps PYTHONPATH)."""
import json
import os
import socket
import subprocess
import sys
import time

NAMES = ["H5", "H9", "H13", "H1"]  # on ports p0..p3
PORT = 9


def recv(seconds):
    """Counts the datagrams arriving on PORT for SECONDS; prints the count."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", PORT))
    s.settimeout(0.2)
    got, end = 0, time.time() + seconds
    while time.time() < end:
        try:
            s.recv(2048)
            got += 1
        except socket.timeout:
            pass
    print(got)


def send(dst, n, bps):
    """Sends n frames of 1014 B to dst at bps, paced, in DSCP 1."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 1 << 2)  # DSCP 1: the lossless tag
    gap, t0 = 1014 * 8 / bps, time.perf_counter()
    for i in range(n):
        d = t0 + i * gap - time.perf_counter()
        if d > 0:
            time.sleep(d)
        s.sendto(i.to_bytes(4, "big") + bytes(968), (dst, PORT))


def drive(out, pre, n, rate):
    """Addresses the hosts as hosts.json says, runs both flows, writes rx.json."""
    with open(os.path.join(out, "hosts.json")) as f:
        hosts = {h["name"]: h for h in json.load(f)["hosts"]}

    def ns(i, *cmd, **kw):
        return subprocess.run(["ip", "netns", "exec", f"{pre}h{i}", *cmd], **kw)

    def ns_self(i, *args, **kw):
        return subprocess.Popen(["ip", "netns", "exec", f"{pre}h{i}", sys.executable, "-m", "tagger.real_hosts",
                                 *args], **kw)
    for i, h in enumerate(NAMES):
        ns(i, "ip", "addr", "flush", "dev", "eth0", check=True)
        ns(i, "ip", "addr", "add", hosts[h]["ip"], "dev", "eth0", check=True)
        ns(i, "ip", "route", "add", "default", "via", hosts[h]["gateway"], check=True)
        ns(i, "ping", "-c", "1", "-W", "2", hosts[h]["gateway"], capture_output=True)  # the ToR learns it
    ip = {h: hosts[h]["ip"].split("/")[0] for h in NAMES}
    bps = float(rate[:-1]) * {"K": 1e3, "M": 1e6, "G": 1e9}[rate[-1]]
    rx = {h: ns_self(i, "recv", "3", stdout=subprocess.PIPE, text=True) for i, h in ((2, "H13"), (3, "H1"))}
    time.sleep(0.2)
    blue = ns_self(0, "send", ip["H13"], str(n), str(bps))
    time.sleep(0.02)  # green 20 ms after blue, as the paper's flows start apart
    green = ns_self(1, "send", ip["H1"], str(n), str(bps))
    blue.wait()
    green.wait()
    counts = {h: int(p.communicate()[0]) for h, p in rx.items()}
    with open(os.path.join(out, "rx.json"), "w") as f:
        json.dump({"sent": n, "blue_rx": counts["H13"], "green_rx": counts["H1"]}, f)


def main(argv):
    if len(argv) == 3 and argv[1] == "recv":
        recv(float(argv[2]))
    elif len(argv) == 5 and argv[1] == "send":
        send(argv[2], int(argv[3]), float(argv[4]))
    elif len(argv) == 6 and argv[1] == "drive":
        drive(argv[2], argv[3], int(argv[4]), argv[5])
    else:
        sys.exit("usage: python3 -m tagger.real_hosts drive OUT PREFIX N RATE | recv SECONDS | send DST N BPS")


if __name__ == "__main__":
    main(sys.argv)
