#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Soak: the real pfcswitch under mixed traffic for a while, then checks it
is back where it started. Run through bench/switch/soak.sh MINUTES (as root).

  h0 --\\  lossless (DSCP 24), on/off bursts   /-- h2: receiver, counts
        p0    p1                            p2      what arrives; sends a
  h1 --/         pfcswitch   (p2 shaped)  -/        storm of PFC/PAUSE
  h3 ---- p3: lossy overload to h2 + malformed frames
The two lossless senders together burst above p2's shaper (incast), h3's
lossy stream alone exceeds it (lossy overload), and h2's pause frames stop
p2 at random; rewrite rules are swapped (pfcctl load) every few seconds.
Veth hosts ignore the switch's XOFF, so lossless packets beyond the headroom
are dropped and counted as lossless_headroom_exceeded: the check is that no
lossless packet is lost beyond that count.

At the end: the switch did not crash and exits cleanly; the mbuf pool is
full again and every buffer counter is back to zero once traffic stops;
lossless sent = received + lossless_headroom_exceeded; the switch's resident
memory (sampled each second) did not grow after the warm-up. Last line:
  RESULT minutes=<m> lossless_drops=<n> pool_ok=<0|1> rss_growth_kb=<k> swaps=<s>
Exit status 0 only if every check passed.

Each traffic source is this script again (`soak.py gen ...`) inside a host
namespace, writing raw frames on an AF_PACKET socket at a paced rate."""
import json
import os
import random
import signal
import socket
import struct
import sys
import time

LOSSLESS_PORT, LOSSY_PORT = 7000, 7001
SW_MAC = ["02:00:00:00:0%d:01" % (i + 1) for i in range(4)]


# ---- traffic sources and the receiver (run inside a host namespace) ----

def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def udp_frame(src_mac, dst_mac, src_ip, dst_ip, tos, dport, payload, ttl=64):
    udp = struct.pack("!HHHH", 4000, dport, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(udp), 0, 0, ttl, 17, 0,
                     socket.inet_aton(src_ip), socket.inet_aton(dst_ip))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return dst_mac + src_mac + b"\x08\x00" + ip + udp


def malformed_frames(src, dst, src_ip):
    good = udp_frame(src, dst, src_ip, "10.0.3.2", 0, LOSSY_PORT + 1, bytes(40))
    bad_csum = bytearray(good)
    bad_csum[24] ^= 0xff
    short_ihl = bytearray(good)
    short_ihl[14] = 0x43
    too_long = bytearray(good)
    too_long[16:18] = struct.pack("!H", 1400)
    pfc_bad_opcode = dst[:0] + mac("01:80:c2:00:00:01") + src + b"\x88\x08" + struct.pack("!HH", 0x0202, 0xff) + bytes(42)
    return [good[:20],                                                                  # runt
            bytes(too_long),                                                            # truncated
            bytes(short_ihl),                                                           # bad header
            bytes(bad_csum),                                                            # bad checksum
            udp_frame(src, dst, src_ip, "10.0.3.2", 0, LOSSY_PORT + 1, bytes(40), ttl=1),   # ttl
            udp_frame(src, dst, src_ip, "192.168.77.1", 0, LOSSY_PORT + 1, bytes(40)),      # no route
            pfc_bad_opcode,
            dst + src + b"\x12\x34" + bytes(46)]                                       # not IP


def pause_frame(src, prio_mask, quanta):
    body = struct.pack("!HH8H", 0x0101, prio_mask, *([quanta] * 8))
    return mac("01:80:c2:00:00:01") + src + b"\x88\x08" + body + bytes(60 - 14 - len(body))


def gen(kind, seconds, net, sw_mac):
    """Sends for `seconds`, prints {"sent": n} (lossless/lossy: frames sent)."""
    iface = "eth0"
    src = mac(open(f"/sys/class/net/{iface}/address").read().strip())
    dst = mac(sw_mac)
    src_ip = f"10.0.{net}.2"
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    rnd = random.Random(net * 7919 + len(kind))
    sent, seq = 0, 0
    t0 = time.monotonic()
    end = t0 + seconds
    tick = 0.005
    next_t = t0
    while True:
        now = time.monotonic()
        if now >= end:
            break
        if now < next_t:
            time.sleep(next_t - now)
            continue
        next_t += tick
        phase = (now - t0) % 0.5
        if kind == "lossless":
            # 2000 frames/s of 1000 B for 200 ms in every 500 ms: two senders
            # burst at 32 Mb/s into p2's 20 Mb/s and average under it.
            n = 10 if phase < 0.2 else 0
            for _ in range(n):
                s.send(udp_frame(src, dst, src_ip, "10.0.3.2", 0x60, LOSSLESS_PORT,
                                 seq.to_bytes(4, "big") + bytes(954)))
                seq += 1
                sent += 1
        elif kind == "lossy":
            for _ in range(15):   # 3000 frames/s of 1000 B: above p2's shaper alone
                s.send(udp_frame(src, dst, src_ip, "10.0.3.2", 0x00, LOSSY_PORT, bytes(958)))
                sent += 1
        elif kind == "malformed":
            if rnd.random() < 0.5:   # about 100 frames/s
                frames = malformed_frames(src, dst, src_ip)
                s.send(rnd.choice(frames) + (bytes(rnd.randrange(0, 60)) if rnd.random() < 0.3 else b""))
                sent += 1
        elif kind == "pause":
            if rnd.random() < 0.05:   # about 10 frames/s, each up to 2000 quanta
                if rnd.random() < 0.1:
                    body = struct.pack("!HH", 0x0001, rnd.randrange(0, 500))   # classic PAUSE
                    f = mac("01:80:c2:00:00:01") + src + b"\x88\x08" + body + bytes(42)
                else:
                    f = pause_frame(src, rnd.choice([0x10, 0x18, 0x01, 0xff]), rnd.randrange(0, 2000))
                s.send(f)
                sent += 1
    if kind == "pause":
        s.send(pause_frame(src, 0xff, 0))   # XON everything: the switch may drain
    print(json.dumps({"sent": sent}), flush=True)


def recv(seconds_max):
    """Counts lossless/lossy UDP frames arriving on eth0 until SIGTERM."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
    s.setsockopt(socket.SOL_SOCKET, 33, 32 << 20)   # SO_RCVBUFFORCE: room for bursts
    s.bind(("eth0", 0))
    s.settimeout(0.2)
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    got = {LOSSLESS_PORT: 0, LOSSY_PORT: 0}
    seqs = set()
    print("ready", flush=True)
    end = time.monotonic() + seconds_max
    while time.monotonic() < end:
        try:
            f = s.recv(2048)
        except socket.timeout:
            if stop:
                break
            continue
        except InterruptedError:
            continue
        if len(f) < 42 or f[23] != 17:
            continue
        dport = struct.unpack("!H", f[36:38])[0]
        if dport in got:
            got[dport] += 1
            if dport == LOSSLESS_PORT:
                seqs.add((f[26:30], f[42:46]))   # (source address, sequence number)
    stats = s.getsockopt(263, 6, 8)   # SOL_PACKET, PACKET_STATISTICS
    _, drops = struct.unpack("II", stats)
    print(json.dumps({"lossless": got[LOSSLESS_PORT], "lossless_unique": len(seqs), "lossy": got[LOSSY_PORT],
                      "socket_drops": drops}), flush=True)


# ---- the soak itself (root namespace) ----

def soak(seconds, rss_limit_kb):
    import subprocess  # swlib: on PYTHONPATH (bench/switch/soak.sh)
    import swlib
    from swlib import Switch, Topo, ns

    me = os.path.abspath(__file__)
    cfg = f"""
switch: {{ mode: l3, workers: 1, idle_sleep_us: 20 }}
ports:
  - {{ name: p0, device: net_af_packet0, ipv4: 10.0.1.1/24, speed: 1G, mac: "{SW_MAC[0]}" }}
  - {{ name: p1, device: net_af_packet1, ipv4: 10.0.2.1/24, speed: 1G, mac: "{SW_MAC[1]}" }}
  - {{ name: p2, device: net_af_packet2, ipv4: 10.0.3.1/24, speed: 1G, shaper: 20M, mac: "{SW_MAC[2]}" }}
  - {{ name: p3, device: net_af_packet3, ipv4: 10.0.4.1/24, speed: 1G, mac: "{SW_MAC[3]}" }}
qos: {{ tag_map: {{ 24: 3, 26: 4, 28: 4 }}, lossless: [3, 4], lossy_priority: 0, lossy_tag: 0 }}
buffer: {{ total_bytes: 4M, lossless: {{ xoff: 64K }} }}
rewrite:
  unmatched: lossy
  rules: [ {{ tag: 24, in: [p0, p1], out: [p2], new_tag: 26 }} ]
"""
    rules = [swlib.write_config("rewrite:\n  unmatched: lossy\n  rules:\n"
                                f"    - {{ tag: 24, in: [p0, p1], out: [p2], new_tag: {tag} }}\n")
             for tag in (28, 26)]
    failures = []
    rss = []
    swaps = 0
    with Topo(4, "sk") as t, Switch(t, swlib.write_config(cfg)) as sw:
        for h in range(4):
            ns(t.host(h), ["ping", "-c", "1", "-W", "2", f"10.0.{h + 1}.1"], check=False)

        def start(h, *args):
            return subprocess.Popen(["ip", "netns", "exec", t.host(h), sys.executable, me, *args],
                                    stdout=subprocess.PIPE, text=True)
        receiver = start(2, "recv", str(seconds + 120))
        if receiver.stdout.readline().strip() != "ready":
            raise RuntimeError("receiver did not start")
        gens = {"lossless0": start(0, "gen", "lossless", str(seconds), "1", SW_MAC[0]),
                "lossless1": start(1, "gen", "lossless", str(seconds), "2", SW_MAC[1]),
                "lossy": start(3, "gen", "lossy", str(seconds), "4", SW_MAC[3]),
                "malformed": start(3, "gen", "malformed", str(seconds), "4", SW_MAC[3]),
                "pause": start(2, "gen", "pause", str(seconds), "3", SW_MAC[2])}
        t0 = time.monotonic()
        next_swap = t0 + 3
        while any(g.poll() is None for g in gens.values()):
            now = time.monotonic()
            if sw.proc.poll() is not None:
                failures.append(f"switch died with status {sw.proc.returncode}")
                break
            try:
                with open(f"/proc/{sw.proc.pid}/status") as f:
                    rss.append((now - t0, next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))))
            except (OSError, StopIteration):
                pass
            if now >= next_swap:
                res = sw.ctl("load", rules[swaps % 2], check=False)
                if res.returncode != 0:
                    failures.append(f"rule swap {swaps + 1} refused: {res.stderr.strip()}")
                swaps += 1
                next_swap = now + 3
            time.sleep(1.0)
        sent = {k: json.loads(g.communicate(timeout=60)[0] or "{}").get("sent", 0) for k, g in gens.items()}

        # Traffic has stopped: whatever is queued drains through the shaper.
        deadline = time.monotonic() + 30
        info = {}
        while time.monotonic() < deadline and sw.proc.poll() is None:
            info = json.loads(sw.ctl("raw", "/pfcswitch/info").stdout)
            if info.get("pool_in_use") == 0 and info.get("buffer_shared_used") == 0:
                break
            time.sleep(0.2)
        pool_ok = info.get("pool_in_use") == 0
        live = sw.stats() if sw.proc.poll() is None else {"ports": []}
        time.sleep(0.5)   # the last frames the switch sent reach the receiver's socket
        receiver.send_signal(signal.SIGTERM)
        got = json.loads(receiver.communicate(timeout=30)[0].strip().splitlines()[-1])
        try:
            final = sw.stop()
        except RuntimeError as e:
            failures.append(f"switch did not exit cleanly: {e}")
            final = {"ports": [], "pool_in_use": -1}
        if sw.proc.returncode != 0:
            failures.append(f"switch exit status {sw.proc.returncode}")

    lossless_prios = [q for q in range(8) if final["ports"] and final["ports"][0]["prio"][q]["lossless"]]
    busy = [(p["name"], q["prio"], k, q[k]) for p in live["ports"] for q in p["prio"]
            for k in ("buffer_bytes", "headroom_used", "queue_depth") if q[k]]
    if busy:
        failures.append(f"buffer not empty after the drain: {busy[:6]}")
    if not pool_ok or final.get("pool_in_use") != 0:
        failures.append(f"mbufs not returned: {info.get('pool_in_use')} in use after the drain, "
                        f"{final.get('pool_in_use')} at exit")
    headroom = sum(q["drops"]["lossless_headroom_exceeded"] for p in final["ports"] for q in p["prio"]
                   if q["prio"] in lossless_prios)
    other = {(p["name"], q["prio"], r): v for p in final["ports"] for q in p["prio"] if q["prio"] in lossless_prios
             for r, v in q["drops"].items() if v and r != "lossless_headroom_exceeded"}
    sent_ll = sent["lossless0"] + sent["lossless1"]
    # Sent, not received and not counted as a headroom drop: lost without
    # that excuse (another drop reason at a lossless priority, or silently).
    lossless_drops = sent_ll - got["lossless"] - headroom
    if got["lossless"] != got["lossless_unique"]:
        failures.append(f"{got['lossless'] - got['lossless_unique']} lossless packets arrived twice")
    if lossless_drops or other:
        failures.append(f"lossless: sent {sent_ll}, received {got['lossless']}, headroom drops {headroom}, "
                        f"other drops at lossless priorities {other}, receiver socket drops {got['socket_drops']}")
    # Warm-up: the first quarter (at least 5 s) touches the mbufs and
    # buffers the traffic pattern needs; after that RSS must stay flat.
    warm = [kb for at, kb in rss if at >= max(5.0, seconds / 4)]
    growth = warm[-1] - warm[0] if len(warm) >= 2 else 0
    if len(warm) < 2:
        failures.append("too few RSS samples after the warm-up")
    if growth > rss_limit_kb:
        failures.append(f"RSS grew {growth} kB after the warm-up (limit {rss_limit_kb}): {rss}")
    if swaps < 1:
        failures.append("no rule swap happened")
    pfc_rx = sum(p["pfc_frames_rx"] + p["pause_8023x_rx"] for p in final["ports"])
    malformed = sum(q["drops"][r] for p in final["ports"] for q in p["prio"]
                    for r in ("runt", "truncated", "bad_ip_header", "bad_ip_checksum", "ttl_expired", "no_route"))
    lossy_drops = sum(q["drops"]["lossy_buffer_full"] for p in final["ports"] for q in p["prio"])
    if not (pfc_rx and malformed and lossy_drops):
        failures.append(f"some traffic did not happen: pause frames {pfc_rx}, malformed drops {malformed}, "
                        f"lossy drops {lossy_drops}")
    for f in failures:
        print("FAIL " + f, flush=True)
    print(f"soak: sent {sent}; received {got}; lossless_headroom_exceeded {headroom}; lossy_buffer_full "
          f"{lossy_drops}; malformed drops {malformed}; pause frames received {pfc_rx}; "
          f"RSS kB by second {[(int(at), kb) for at, kb in rss[::max(1, len(rss) // 8)]]}", flush=True)
    print(f"RESULT minutes={seconds / 60:g} lossless_drops={lossless_drops} pool_ok={int(pool_ok)} "
          f"rss_growth_kb={growth} swaps={swaps}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "gen":
        gen(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif len(sys.argv) >= 2 and sys.argv[1] == "recv":
        recv(float(sys.argv[2]))
    else:
        import argparse
        ap = argparse.ArgumentParser(description="pfcswitch soak (see the module docstring)")
        ap.add_argument("seconds", type=float)
        ap.add_argument("--rss-limit-kb", type=int, default=int(os.environ.get("SOAK_RSS_LIMIT_KB", "2048")))
        a = ap.parse_args()
        sys.exit(soak(a.seconds, a.rss_limit_kb))
