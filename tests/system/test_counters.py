#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""System test: the counters the README documents are the counters the
switch shows. Reads the counter table of README "Counters and control" and
checks every name in it is in each live view (telemetry /pfcswitch/port_stats
and /pfcswitch/info through pfcctl raw, `pfcctl stats`) and in the exit line,
and that the views have no per-port counter the table does not name; then
that the lossless-only values (XOFF/XON thresholds, headroom) sit at the
lossless priority's index in the telemetry arrays."""
import json
import os
import re

from scapy.all import IP, UDP, Ether, Raw

import swlib
from swlib import Results, Switch, Topo, ns

r = Results()


def reference_counters():
    """{scope row title: [names]} from the counter table of docs/reference/counters.md."""
    with open(os.path.join(swlib.ROOT, "docs/reference/counters.md")) as f:
        text = f.read()
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\| ([^|]+?) \| (.*) \|$", line)
        if m and m.group(1) not in ("scope", "---"):
            rows[m.group(1)] = re.findall(r"`([a-z0-9_]+)`", m.group(2))
    return rows


rows = reference_counters()
port_names = rows.get("per port", [])
prio_names = rows.get("per port and priority", [])
drop_names = rows.get("drops, per port and priority, by ingress priority", [])
switch_names = next((v for k, v in rows.items() if k.startswith("switch")), [])
r.check(len(port_names) > 10 and len(prio_names) > 20 and len(drop_names) > 10 and len(switch_names) > 3,
        f"README counter table parsed: {len(port_names)} per port, {len(prio_names)} per priority, "
        f"{len(drop_names)} drop reasons, {len(switch_names)} switch-wide")
r.check(all(n in prio_names for n in ("xoff_threshold", "xon_threshold", "headroom_used", "headroom_watermark")),
        "README names the threshold and headroom counters")


def missing(names, have):
    return [n for n in names if n not in have]


with Topo(2, "tc") as t, Switch(t, swlib.write_config(swlib.two_port_config())) as sw:
    for h, gw in ((0, "10.0.1.1"), (1, "10.0.2.1")):
        ns(t.host(h), ["ping", "-c", "1", "-W", "2", gw], check=False)
    swlib.send(t.host(0), [Ether(src=t.mac(0), dst="02:00:00:00:01:01") /
                           IP(src="10.0.1.2", dst="10.0.2.2", tos=0x60) / UDP(sport=9, dport=9) / Raw(bytes(100))])

    flat = json.loads(sw.ctl("raw", "/pfcswitch/port_stats,p0").stdout)
    arrays = {k for k, v in flat.items() if isinstance(v, list)}
    scalars = {k for k, v in flat.items() if not isinstance(v, list)} - {"name"}
    r.eq(missing(port_names, scalars), [], "telemetry port_stats: per-port counters missing")
    r.eq(missing(["prio_" + n for n in prio_names], arrays), [], "telemetry port_stats: per-priority counters missing")
    r.eq(missing(["prio_drop_" + n for n in drop_names], arrays), [], "telemetry port_stats: drop reasons missing")
    documented = set(port_names) | {"prio_" + n for n in prio_names} | {"prio_drop_" + n for n in drop_names}
    r.eq(sorted((scalars | arrays) - documented), [], "telemetry port_stats: counters the README does not name")
    r.check(all(len(flat["prio_" + n]) == 8 for n in prio_names if "prio_" + n in flat),
            "every per-priority counter is an array of 8")
    info = json.loads(sw.ctl("raw", "/pfcswitch/info").stdout)
    r.eq(missing(switch_names, info), [], "telemetry info: switch-wide counters missing")
    r.check(info.get("pool_size", 0) > 0, f"info reports the mbuf pool: {info.get('pool_in_use')} of "
            f"{info.get('pool_size')} in use")

    stats = swlib.port(sw.stats(), "p0")
    r.eq(missing(port_names, stats), [], "pfcctl stats: per-port counters missing")
    r.eq(sorted({n for q in stats["prio"] for n in missing(prio_names, q)}), [],
         "pfcctl stats: per-priority counters missing")
    r.eq(sorted({n for q in stats["prio"] for n in missing(drop_names, q["drops"])}), [],
         "pfcctl stats: drop reasons missing")

    # Priorities 3 and 4 are lossless in two_port_config, 0 is not.
    for n in ("xoff_threshold", "xon_threshold"):
        v = flat.get("prio_" + n, [0] * 8)
        r.check(v[3] > 0 and v[4] > 0 and v[0] == 0, f"{n} at the lossless priorities only: {v}")
    final = sw.stop()

exit_port = swlib.port(final, "p0")
r.eq(missing(port_names, exit_port), [], "exit line: per-port counters missing")
r.eq(sorted({n for q in exit_port["prio"] for n in missing(prio_names, q)}), [],
     "exit line: per-priority counters missing (on any priority)")
r.eq(sorted({n for q in exit_port["prio"] for n in missing(drop_names, q["drops"])}), [],
     "exit line: drop reasons missing")
r.eq(missing(switch_names, final), [], "exit line: switch-wide counters missing")
xoff = exit_port["prio"][3].get("xoff_threshold")
r.eq(xoff, flat.get("prio_xoff_threshold", [None] * 8)[3], "exit line and telemetry agree on priority 3's XOFF threshold")
r.check(bool(xoff), "it is not zero")
r.done()
