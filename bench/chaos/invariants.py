# SPDX-License-Identifier: BSD-3-Clause
"""The chaos runs' invariants, checked from a results directory alone
(results.json, drops.csv, ports.csv, hosts.json, switches/*.yaml).

Frames are counted where the counters count them (see
dataplane/stages/ingress.cc, egress.cc, dataplane/emulator/port/emu_port.cc,
dataplane/emulator/model/host_model.cc):

* a switch port's `rx_packets` is every frame its link delivered; the
  per-priority `rx_packets` only the frames classified (not PFC, ARP, or a
  frame refused by the parser: runt, truncated, bad_ip_header,
  bad_ip_checksum, vlan_unsupported, arp_unsupported, pfc_malformed);
  per-priority `tx_packets` the data frames the link took, and a port's
  `tx_packets` those plus the control frames (PFC, ARP, DCFIT messages);
* a frame the port hands to a down link is counted sent and
  `link_tx_down_drops` (as is what the link's FIFO held when it went
  down); a frame on the wire when the link went down is counted by the
  receiving end as `link_rx_stale_drops`;
* a host's `tx_frames` counts data, ACKs, NAKs and CNPs, its `pfc_tx` the
  storm's XOFFs, its `rx_frames` every frame delivered (PFC included);
  a host end's own link drops are not in results.json, but the verdict's
  `lost.link_down` sums every end's, hosts' included.

From these, once the fabric has drained, exactly (a link end's receive
ring overflow is reported only when it happens, as a port's
`link_ring_full_drops` and the verdict's `lost.link_ring_full`: the ring
holds a wire full of the smallest frames made here, and a frame lost there
breaks equality 2, which then fails, as it should):

1. per switch, data: sum rx_packets[prio] = sum tx_packets[prio] +
   sum drops (classified reasons) + sum queue_depth + the egress stash
   (frames the link refused, held for their priority: not reported, but
   they hold buffer, so zero when buffer_bytes is);
2. per switch-to-switch link direction P -> Q:
   tx_packets(P) = rx_packets(Q) + link_tx_down_drops(P) + link_rx_stale_drops(Q),
   and link_tx_frames(P) = rx_packets(Q) + link_rx_stale_drops(Q);
3. host links: per direction the host end's drops (host -> switch:
   tx_frames + pfc_tx - rx_packets - link_rx_stale_drops; switch -> host:
   tx_packets - link_tx_down_drops - rx_frames) are >= 0, 0 on a link
   that never went down, and their sum over the fabric equals lost.link_down
   less the switch ends' link drops;
4. the fabric's data frames: sum hosts tx_frames = sum hosts (rx_frames -
   pfc_rx) + switch drops + data lost on links, the last between 0 and
   lost.link_down (which also counts PFC frames), and 0 when it is 0;
   per flow rx_frames <= tx_frames, and for raw flows
   rx_frames + lost - reordered <= tx_frames (lost counts sequence gaps,
   reordered the late frames that filled some);
5. the reported totals agree with the counters: lossless_drops, the
   per-reason totals, the verdict's loss and drops.csv's columns.

The watchdog's `forward` action ignores the peer's pause on a port it
declared in storm: the peer's lossless buffer then overflows
(lossless_headroom_exceeded at the peer's port from this switch). Those
drops, on a (switch, port, priority) whose peer declared a storm toward it
with action forward, are the watchdog's choice, counted `forward_overflow`
and not lossless loss; any other lossless headroom drop is.

A link that goes down ends the pauses its two ends received (a real port
forgets them with its link); when it comes back, each end pauses the other
again at once if it still needs to, but a receiver already into its
headroom when the link dropped has less than a round trip's worth left for
what the sender sends before that XOFF lands: a flap can overflow it. Those
drops (lossless_headroom_exceeded at a port whose link went down during the
run) are the fault's, like the frames the dead link lost, counted
`flap_overflow` and not lossless loss (seeds 161, 179 and 370 of the
500-run schedule once link-downs ended pauses).

A run whose fabric deadlocked with nothing to prevent or break it (no
Tagger rules, no DCFIT recovery: a routing loop closed a cyclic buffer
dependency and the verdict names the cycle) keeps frames for good: it is
reported `stuck`, checked with 1, 2 and 3 as inequalities (the stash; the
XOFF refreshes its switches keep sending, one of which may be on the wire
when the run stops: seed 449 of the first 500-run schedule), and not held
to the drain invariants."""
import csv
import json
import os
import re

PRE_CLASS = {"runt", "truncated", "bad_ip_header", "bad_ip_checksum", "vlan_unsupported",
             "arp_unsupported", "pfc_malformed"}
# Lossless drops that are no lossless loss (dataplane/common/types.h).
EXEMPT = {"ttl_expired", "dcfit_break", "pfcwd_storm", "dcfit_rate_limit", "dcfit_host_lossy"}
TOTALS = {"ttl_expired_drops": "ttl_expired", "dcfit_break_drops": "dcfit_break",
          "pfcwd_storm_drops": "pfcwd_storm", "dcfit_rate_limit_drops": "dcfit_rate_limit",
          "dcfit_host_lossy_drops": "dcfit_host_lossy"}
COMPARED = ["results.json", "flows.csv", "ports.csv", "drops.csv", "fct.csv"]
LINK_EVENT = re.compile(r"ms: link (\S+)-(\S+) (down|up)$")
RULES_EVENT = re.compile(r"ms: rules at (\S+) from (\S+)( FAILED)?")
ROUTE_EVENT = re.compile(r"ms: route at (\S+): ")


class Report:
    """Violations (invariant letter, where, what) and the run's numbers."""

    def __init__(self):
        self.violations = []
        self.stuck = False
        self.n = {}

    def fail(self, inv, where, what):
        self.violations.append((inv, where, what))

    def expect(self, inv, where, ok, what):
        if not ok:
            self.fail(inv, where, what)


def load(d):
    r = json.load(open(os.path.join(d, "results.json")))
    hosts = json.load(open(os.path.join(d, "hosts.json")))["hosts"]
    return r, hosts


def _protected(d, switches):
    """True when every switch has Tagger rules or DCFIT recovery (its generated config)."""
    for s in switches:
        p = os.path.join(d, "switches", s + ".yaml")
        text = open(p).read() if os.path.exists(p) else ""
        if "include:" not in text and "recovery: break" not in text:
            return False
    return True


def _forwarded(d, r):
    """(switch, port, prio) whose sender ignored its pauses: the peer's
    watchdog declared a storm toward it with action forward."""
    out = set()
    for e in r.get("pfcwd_events", []):
        p = os.path.join(d, "switches", e["switch"] + ".yaml")
        if e["kind"] == "storm" and os.path.exists(p) and "action: forward" in open(p).read():
            out.add((e["port"], e["switch"], e["prio"]))  # the peer switch is named by the port
    return out


def _peers(r, hosts):
    """(switch, port name) -> peer: ("sw", switch, port) or ("host", host)."""
    hostset = {h["name"] for h in hosts}
    peer = {}
    for s, sj in r["switches"].items():
        for p in sj["ports"]:
            n = p["name"]
            if n in hostset:
                peer[(s, n)] = ("host", n)
            else:
                peer[(s, n)] = ("sw", n, s)  # a switch port is named after its neighbour
    return peer


def check(d, r=None, hosts=None):
    """Checks one results directory; r and hosts (results.json and
    hosts.json's list) may be given instead, e.g. doctored by a test."""
    if r is None:
        r, hosts = load(d)
    rep = Report()
    sws = r["switches"]
    port = {(s, p["name"]): p for s, sj in sws.items() for p in sj["ports"]}
    peer = _peers(r, hosts)
    downed = set()
    for e in r["events"]:
        m = LINK_EVENT.search(e)
        if m and m.group(3) == "down":
            downed |= {(m.group(1), m.group(2)), (m.group(2), m.group(1))}
    deadlocked = bool(r["verdict"]["deadlocks"])
    rep.stuck = deadlocked and not _protected(d, sws)

    # Drops by (class, reason), from the switches' counters.
    drops, lossless_loss, classified, forwarded, flapped = {}, 0, 0, 0, 0
    ignored = _forwarded(d, r)
    for (s, pn), p in port.items():
        for q in p["prio"]:
            for reason, n in q["drops"].items():
                key = ("lossless" if q["lossless"] else "lossy", reason)
                drops[key] = drops.get(key, 0) + n
                if reason == "lossless_headroom_exceeded" and (s, pn, q["prio"]) in ignored:
                    forwarded += n
                elif reason == "lossless_headroom_exceeded" and (s, pn) in downed:
                    flapped += n
                elif q["lossless"] and reason not in EXEMPT:
                    lossless_loss += n
                    if n:
                        rep.fail("b", f"{s}.{pn} prio {q['prio']}", f"{n} lossless {reason} drops")
                if reason not in PRE_CLASS:
                    classified += n
    all_drops = sum(drops.values())
    rep.n.update(lossless_drops=lossless_loss, switch_drops=all_drops, forward_overflow=forwarded,
                 flap_overflow=flapped)

    # (a1) per switch, data frames.
    for s, sj in sws.items():
        rx = tx = dr = qd = 0
        for p in sj["ports"]:
            for q in p["prio"]:
                rx += q["rx_packets"]
                tx += q["tx_packets"]
                qd += q["queue_depth"]
                dr += sum(n for reason, n in q["drops"].items() if reason not in PRE_CLASS)
        held = rx - tx - dr - qd
        if rep.stuck:
            rep.expect("a", s, held >= 0, f"rx {rx} < tx {tx} + drops {dr} + queued {qd}")
        else:
            rep.expect("a", s, held == 0, f"rx {rx} != tx {tx} + drops {dr} + queued {qd} (off by {held})")

    # (a2) switch-to-switch link directions; (a3) host links.
    sw_link_down = 0
    host_side = 0
    for (s, pn), p in port.items():
        sw_link_down += p.get("link_tx_down_drops", 0) + p.get("link_rx_stale_drops", 0)
        kind = peer[(s, pn)]
        if kind[0] == "sw":
            q = port.get((kind[1], kind[2]))
            if q is None:
                rep.fail("a", f"{s}.{pn}", "no peer port in results")
                continue
            # A stuck run's switches keep refreshing their XOFFs to the end,
            # so a frame may be on the wire when the run stops: >= there.
            want = q["rx_packets"] + p["link_tx_down_drops"] + q["link_rx_stale_drops"]
            on_wire = p["tx_packets"] - want
            rep.expect("a", f"{s}->{kind[1]}", on_wire == 0 or (rep.stuck and on_wire > 0),
                       f"tx {p['tx_packets']} != peer rx {q['rx_packets']} + tx_down {p['link_tx_down_drops']}"
                       f" + peer rx_stale {q['link_rx_stale_drops']}")
            on_wire = p["link_tx_frames"] - q["rx_packets"] - q["link_rx_stale_drops"]
            rep.expect("a", f"{s}->{kind[1]} wire", on_wire == 0 or (rep.stuck and on_wire > 0),
                       f"link_tx_frames {p['link_tx_frames']} != peer rx {q['rx_packets']} + rx_stale "
                       f"{q['link_rx_stale_drops']}")
        else:
            h = r["hosts"][kind[1]]
            up = h["tx_frames"] + h["pfc_tx"] - p["rx_packets"] - p["link_rx_stale_drops"]
            down = p["tx_packets"] - p["link_tx_down_drops"] - h["rx_frames"]
            was_down = (s, kind[1]) in downed
            for what, n in (("up", up), ("down", down)):
                rep.expect("a", f"{kind[1]}<->{s} {what}", n >= 0 and (was_down or rep.stuck or n == 0),
                           f"host end's link drops {n} (link {'went' if was_down else 'never went'} down)")
            host_side += up + down
    link_down = r["verdict"]["lost"]["link_down"]
    rep.expect("a", "host links", host_side == link_down - sw_link_down or
               (rep.stuck and host_side >= link_down - sw_link_down),
               f"host ends' drops {host_side} != lost.link_down {link_down} - switch ends' {sw_link_down}")

    # (a4) fabric-wide data frames, flows.
    htx = sum(h["tx_frames"] for h in r["hosts"].values())
    hrx = sum(h["rx_frames"] - h["pfc_rx"] for h in r["hosts"].values())
    queued = sum(q["queue_depth"] for p in port.values() for q in p["prio"])
    on_links = htx - hrx - classified - queued
    rep.n.update(host_tx=htx, host_rx=hrx, link_down=link_down, accounted=hrx + classified + queued)
    if rep.stuck:
        rep.expect("a", "fabric", on_links >= 0, f"host tx {htx} < rx {hrx} + drops {classified} + queued {queued}")
    else:
        rep.expect("a", "fabric", 0 <= on_links <= link_down and (link_down > 0 or on_links == 0),
                   f"host tx {htx} - rx {hrx} - switch drops {classified} - queued {queued} = {on_links}, "
                   f"not within [0, link_down {link_down}]")
    ctl = sum(h.get("ack_tx", 0) + h.get("nak_tx", 0) + h["cnp_tx"] for h in r["hosts"].values())
    ftx = sum(f.get("tx_frames", 0) for f in r["flows"])
    rep.expect("a", "flows", ftx + ctl == htx, f"flows' tx {ftx} + ACK/NAK/CNP {ctl} != hosts' tx {htx}")
    for f in r["flows"]:
        tx, rx = f.get("tx_frames", 0), f["rx_frames"]
        rep.expect("a", f"flow {f['name']}", rx <= tx, f"rx {rx} > tx {tx}")
        if "rc" not in f and "lost" in f:
            rep.expect("a", f"flow {f['name']}", rx + f["lost"] - f["reordered"] <= tx,
                       f"rx {rx} + lost {f['lost']} - reordered {f['reordered']} > tx {tx}")

    # (a5) the reported totals against the counters.
    rep.expect("b", "results", r["lossless_drops"] == lossless_loss + forwarded + flapped,
               f"lossless_drops {r['lossless_drops']} != counters' {lossless_loss + forwarded + flapped}")
    for key, reason in TOTALS.items():
        n = drops.get(("lossless", reason), 0) + drops.get(("lossy", reason), 0)
        rep.expect("a", "results", r[key] == n, f"{key} {r[key]} != counters' {n}")
    lost = r["verdict"]["lost"]
    for cls in ("lossless", "lossy"):
        mine = {k[1]: n for k, n in drops.items() if k[0] == cls and n}
        rep.expect("a", "verdict", lost[cls + "_prios"] == mine, f"{cls}_prios {lost[cls + '_prios']} != {mine}")
    with open(os.path.join(d, "drops.csv")) as f:
        rows = list(csv.DictReader(f))
    col = {c: sum(int(x[c] or 0) for x in rows) for c in ("lossless", "lossy", "link_down")}
    want = {"lossless": sum(n for k, n in drops.items() if k[0] == "lossless"),
            "lossy": sum(n for k, n in drops.items() if k[0] == "lossy"), "link_down": link_down}
    rep.expect("a", "drops.csv", col == want, f"columns {col} != counters {want}")

    # (c) mbufs; (d) buffers and queues once traffic has stopped.
    # The pool is the process's, so every switch reports the same number;
    # a stuck run's mbufs are held by its deadlocked queues, not leaked.
    in_use = max((sj["pool_in_use"] for sj in sws.values()), default=0)
    rep.n["leaked_mbufs" if not rep.stuck else "held_mbufs"] = in_use
    if not rep.stuck:
        for s, sj in sws.items():
            rep.expect("c", s, sj["pool_in_use"] == 0, f"pool_in_use {sj['pool_in_use']}")
            rep.expect("d", s, sj["buffer_shared_used"] == 0, f"buffer_shared_used {sj['buffer_shared_used']}")
            for p in sj["ports"]:
                for q in p["prio"]:
                    for k in ("buffer_bytes", "queue_depth", "headroom_used"):
                        rep.expect("d", f"{s}.{p['name']} prio {q['prio']}", q[k] == 0, f"{k} {q[k]}")
        with open(os.path.join(d, "ports.csv")) as f:
            prow = list(csv.DictReader(f))
        if prow:
            last = prow[-1]["t_ms"]
            busy = [x for x in prow if x["t_ms"] == last and int(x["buffer_bytes"]) != 0]
            rep.expect("d", "ports.csv", not busy, f"last bin buffer_bytes not 0 at {len(busy)} queues")

    # Rules: a failed reload changes nothing (the switch's generation counts
    # the tables published: 1 at start, one per reload that took and one per
    # route event).
    took = {s: 0 for s in sws}
    for e in r["events"]:
        m = RULES_EVENT.search(e) or ROUTE_EVENT.search(e)
        if m and not (m.lastindex == 3 and m.group(3)):
            took[m.group(1)] += 1
    for s, sj in sws.items():
        rep.expect("f", s, sj["generation"] == 1 + took[s],
                   f"generation {sj['generation']} after {took[s]} route changes and reloads that took")
    return rep


def identical(a, b):
    """(e): the files that must be byte-identical between two runs of one
    file; returns the names that differ."""
    diff = []
    for name in COMPARED:
        pa, pb = os.path.join(a, name), os.path.join(b, name)
        if os.path.exists(pa) != os.path.exists(pb) or (
                os.path.exists(pa) and open(pa, "rb").read() != open(pb, "rb").read()):
            diff.append(name)
    return diff
