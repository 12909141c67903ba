#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test (issue 29 item 3): the switch's telemetry socket under
abuse, while numbered lossless packets cross the switch. At once: 100
clients asking for counters concurrently, clients that leave in the middle
of a reply, slow readers, malformed, binary and oversized commands, and a
thousand reloads of a rules file. Then: every packet arrived exactly once
with no drop (no lossless loss from any of it), a failed reload's long
message arrives whole in pieces, valid JSON, its UTF-8 sent as \\uXXXX
escapes that pfcctl decodes (it was cut at 127 bytes, and DPDK 22.11's
escaper mangles bytes above 0x7f: telemetry_cmd.h), the switch still answers and exits cleanly,
and another user than the switch's owner cannot connect (the socket is the
owner's, mode 0755: connecting needs write permission)."""
import json
import os
import re
import socket
import stat
import subprocess
import threading
import time

from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Capture, Results, Switch, Topo, ns

r = Results()
N = 1500
RELOADS = int(os.environ.get("RELOADS", 1000))
RULES = swlib.write_config("""
rewrite:
  unmatched: lossy
  rules:
    - { tag: 24, in: [p0], out: [p1], new_tag: 26, priority: 10 }
    - { tag: 26, in: "*", out: "*", new_tag: 26 }
""")
# A value the loader quotes back in its error, long and multibyte.
BAD = swlib.write_config("""
rewrite:
  rules:
    - { tag: 24, in: [p0], out: "*", new_tag: "%s" }
""" % ("é€" * 80))


def connect(path, tries=1):
    """A connected client past the greeting. With tries > 1, a full listen
    queue (EAGAIN) is waited out, as a patient client would."""
    for k in range(tries):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(20)
        try:
            s.connect(path)
            # The greeting (version, pid, max_output_len); none when DPDK
            # turns the client away (it serves a bounded number at once).
            if not s.recv(16384):
                raise ConnectionRefusedError("turned away")
            return s
        except (BlockingIOError, ConnectionRefusedError, ConnectionResetError):
            s.close()
            if k == tries - 1:
                raise
            time.sleep(0.01)


def decode(safe):
    """pfcctl's TelemetryText: the switch sends text as ASCII (telemetry_cmd.h)."""
    def one(m):
        return {"\\\\": "\\"}.get(m.group(0)) or chr(int(m.group(0)[2:], 16))
    text = re.sub(r"\\\\|\\u[0-9a-f]{4}", one, safe)
    return text.encode("utf-16", "surrogatepass").decode("utf-16")  # pairs -> characters


def ask(path, cmd, tries=1):
    """The reply to one command as bytes (b"" when the server closed)."""
    s = connect(path, tries)
    try:
        s.send(cmd if isinstance(cmd, bytes) else cmd.encode())
        return s.recv(65536)
    finally:
        s.close()


with Topo(2, "ta") as t, Switch(t, swlib.write_config(swlib.two_port_config())) as sw:
    sock = f"/var/run/dpdk/{sw.prefix}/dpdk_telemetry.v2"
    for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1")):
        ns(t.host(h), ["ping", "-c", "1", "-W", "2", gw], check=False)
    mode = os.stat(sock).st_mode
    r.check(not mode & stat.S_IWOTH and not mode & stat.S_IWGRP,
            f"the socket is writable by its owner only ({stat.filemode(mode)})")
    pkts = [Ether(src=t.mac(0), dst="02:00:00:00:01:01") / IP(src="10.0.1.2", dst="10.0.2.2", tos=0x60) /
            UDP(sport=9, dport=9) / Raw(i.to_bytes(4, "big") + b"q" * 60) for i in range(N)]
    results = {"ok": 0, "refused": 0, "bad": 0, "reloads": 0, "reload_fail": []}
    lock = threading.Lock()

    def client(i):
        try:
            rep = ask(sock, "/pfcswitch/port_stats,p%d" % (i % 2))
            ok = rep and "rx_packets" in json.loads(rep.decode())["/pfcswitch/port_stats"]
            key = "ok" if ok else "refused"
        except (ConnectionError, socket.timeout, OSError):
            key = "refused"  # DPDK serves a bounded number of clients at once
        except ValueError:
            key = "bad"
        with lock:
            results[key] += 1

    def leaver():
        for _ in range(50):
            try:
                s = connect(sock)
                s.send(b"/pfcswitch/port_stats,p0")
                s.close()  # before the reply
            except OSError:
                pass

    def slow_reader():
        try:
            # Patient at the door (the 100 clients may fill the listen queue
            # or DPDK's client slots): what is tested is the reply it waits for.
            s = connect(sock, 1000)
            s.send(b"/pfcswitch/info")
            time.sleep(2)
            with lock:
                results["slow_ok"] = b"generation" in s.recv(65536)
            s.close()
        except OSError as e:
            with lock:
                results["slow_ok"] = str(e)

    def garbage():
        for cmd in [b"", b"/", b"/pfcswitch", b"\x00\xff\xfe" * 100, b"/pfcswitch/reload," + b"a" * 4000,
                    b"/pfcswitch/port_stats," + b"9" * 1000, "/pfcswitch/port_stats,é€".encode(),
                    b"/" + b"x" * 60000]:
            try:
                rep = ask(sock, cmd, 1000)
                json.loads(rep.decode()) if rep else None
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server closed on it: no reply is an answer too
            except (OSError, ValueError) as e:
                with lock:
                    results["garbage_err"] = f"{cmd[:30]!r}: {e}"

    def reloader():
        for i in range(RELOADS):
            rep = json.loads(ask(sock, f"/pfcswitch/reload,{RULES}", 1000).decode())["/pfcswitch/reload"]
            with lock:
                if rep.get("status") == "ok":
                    results["reloads"] += 1
                elif len(results["reload_fail"]) < 3:
                    results["reload_fail"].append(rep)

    gen0 = json.loads(ask(sock, "/pfcswitch/info").decode())["/pfcswitch/info"]["generation"]
    with Capture(t.host(1), "eth0", "udp port 9") as cap:
        threads = [threading.Thread(target=f) for f in (reloader, leaver, slow_reader, garbage)]
        threads += [threading.Thread(target=client, args=(i,)) for i in range(100)]
        sender = threading.Thread(target=swlib.send, args=(t.host(0), pkts), kwargs={"inter": 0.002})
        sender.start()
        for th in threads:
            th.start()
        for th in threads:
            th.join(300)
        sender.join(300)
        time.sleep(0.5)
        got = cap.stop()
    seqs = sorted(int.from_bytes(bytes(p[Raw])[:4], "big") for p in got)
    r.check(seqs == list(range(N)), f"every lossless packet arrived once ({len(seqs)} of {N})")
    r.eq(results["reloads"], RELOADS, f"every reload took ({results['reload_fail']})")
    info = json.loads(ask(sock, "/pfcswitch/info", 1000).decode())["/pfcswitch/info"]
    r.eq(info["generation"], gen0 + RELOADS, "one table generation per reload")
    r.check(results["ok"] > 0 and results["ok"] + results["refused"] == 100 and results["bad"] == 0,
            f"100 concurrent clients: each answered whole or refused at the door ({results})")
    r.check(results.get("slow_ok") is True, f"a slow reader gets its reply ({results.get('slow_ok')})")
    r.check("garbage_err" not in results, f"garbage gets an error reply or none ({results.get('garbage_err')})")

    # A failed reload's message: whole, valid UTF-8, the file unchanged.
    raw = ask(sock, f"/pfcswitch/reload,{BAD}", 1000)
    try:
        rep = json.loads(raw.decode("utf-8"))["/pfcswitch/reload"]
        text = decode(rep["error"] + "".join(rep.get("error_more", [])))
    except (UnicodeDecodeError, ValueError, KeyError) as e:
        rep, text = {}, f"not JSON in UTF-8: {e}: {raw[150:330]!r}"
    r.check(BAD in text and "é€" * 80 in text, f"the long refusal arrives whole ({len(text)} chars): {text[:160]}")
    r.check(len(rep.get("error_more", [])) >= 1, "in pieces (error, error_more)")
    load = sw.ctl("load", BAD, check=False)
    r.check(load.returncode != 0 and "é€" * 80 in load.stderr, "pfcctl load prints it whole too")
    info = json.loads(ask(sock, "/pfcswitch/info", 1000).decode())["/pfcswitch/info"]
    r.eq(info["generation"], gen0 + RELOADS, "the refused file changed nothing")

    # Another user cannot connect, so cannot reload.
    code = ("import socket; s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); "
            f"s.connect('{sock}')")
    other = subprocess.run(["runuser", "-u", "nobody", "--", "/usr/bin/python3", "-c", code],
                           capture_output=True, text=True, timeout=30)
    r.check(other.returncode != 0 and "PermissionError" in other.stderr,
            f"user nobody cannot connect ({other.stderr.strip().splitlines()[-1:]})")
    final = sw.stop()
    r.eq(sw.proc.returncode, 0, "exit status 0 after all that")
r.eq(final["drops_total"], 0, "no drop at all")
r.eq(final["pool_in_use"], 0, "every mbuf back in the pool")
r.done()
