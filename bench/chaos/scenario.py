# SPDX-License-Identifier: BSD-3-Clause
"""Random fabrics and fault schedules for the chaos runs (bench/chaos/runs.py).

A scenario is plain data (a dict), drawn from one seed by draw() and turned
into a run directory by write(): the fabric file, its switch template, the
Tagger rules directories and the invalid rules files its events name. The
shrinker (bench/chaos/shrink.py) edits the scenario's `flows` and `faults`
lists and writes it again, so a fault is a group of events that undo
themselves (a link down then up, a storm then its end, a route changed then
set back), never half of one: a shrunk fabric ends as healthy as the full
one.

Time line: traffic runs from 0 to `stop_us`; faults start and end before
`faults_end_us` (at most 400 us after the traffic); the run goes on for a
drain long enough for the longest pause a lost XON can leave behind
(65535 quanta at the slowest link) to lapse twice, so a healthy fabric
ends empty."""
import json
import os
import shutil
import subprocess
from collections import deque

RATES_G = [10, 25, 40, 100]
LOSSLESS_DSCP, LOSSY_DSCP = 1, 0
# Invalid rules files, each refused at load for another reason.
BAD_RULES = {
    "unknown_field": "qos:\n  tag_map: {1: 1}\n  bogus: 3\n",
    "bad_port": "rewrite:\n  rules:\n    - { tag: 1, in: [99], out: [0], new_tag: 1 }\n",
    "yaml_syntax": "rewrite: { rules: [ { tag: 1, \n",
    "bad_tag": "rewrite:\n  rules:\n    - { tag: 77, in: [0], out: [1], new_tag: 1 }\n",
    "unknown_section": "buffer: { total_bytes: 1M }\n",
    "lossy_as_lossless": "qos:\n  tag_map: {1: 1}\n  lossless: [0]\n  lossy_priority: 0\n",
}


def topology(tagger, spec, path):
    """The topology pfc-tagger generates for spec, as (switches, hosts,
    links): the same generator the fabric file's `topology: { gen: }` runs."""
    subprocess.run([tagger, "gen-topo", spec, "-o", path], check=True, capture_output=True)
    t = json.load(open(path))
    sw = [n["name"] for n in t["nodes"] if n["kind"] == "switch"]
    hosts = [n["name"] for n in t["nodes"] if n["kind"] == "host"]
    return sw, hosts, [tuple(x) for x in t["links"]]


class Graph:
    """Neighbours and hop distances, for routes that bounce, loop and are
    set back to a shortest next hop."""

    def __init__(self, switches, hosts, links):
        # Lists, never sets, wherever a choice is drawn: a set's order of
        # strings changes with every process (hash randomisation).
        self.sw, self.hosts, self.links = sorted(switches), list(hosts), links
        self.is_sw = set(switches)
        self.nb = {n: [] for n in list(switches) + list(hosts)}
        for a, b in links:
            self.nb[a].append(b)
            self.nb[b].append(a)
        self.tor = {h: self.nb[h][0] for h in hosts}
        self._dist = {}

    def dist(self, host):
        """Switch hops from each switch to host's ToR."""
        if host not in self._dist:
            d = {self.tor[host]: 0}
            q = deque([self.tor[host]])
            while q:
                u = q.popleft()
                for v in self.nb[u]:
                    if v in self.is_sw and v not in d:
                        d[v] = d[u] + 1
                        q.append(v)
            self._dist[host] = d
        return self._dist[host]

    def shortest_via(self, rng, s, host):
        """A next hop of s on a shortest path to host."""
        if s == self.tor[host]:
            return host
        d = self.dist(host)
        return rng.choice([n for n in self.nb[s] if n in self.is_sw and d.get(n, 1 << 30) == d[s] - 1])

    def switch_nb(self, s):
        return [n for n in self.nb[s] if n in self.is_sw]


def draw_topology(rng):
    kind = rng.choice(["leafspine", "leafspine", "fattree", "jellyfish", "jellyfish"])
    if kind == "leafspine":
        return kind, f"leafspine:{rng.randint(2, 4)}:{rng.randint(2, 3)}:{rng.randint(1, 3)}"
    if kind == "fattree":
        return kind, "fattree:4"
    n = rng.randint(8, 20)
    sp = rng.choice([3, 4])
    return kind, f"jellyfish:{n}:{sp + 1}:{sp}:{rng.randrange(1, 1000)}"


def draw_template(rng, tagger):
    """Switch template options: Tagger rules or a plain lossless class,
    DCFIT with recovery, the pause-storm watchdog, ECN marking."""
    # 4M holds the reserved space and the worst-case headroom (headroom:
    # auto, every frame small) of 8 ports at the fastest links drawn.
    t = {"tagger": tagger, "buffer": rng.choice(["4M", "8M"]),
         "xoff": rng.choice(["32K", "64K", "dynamic"]), "ecn": rng.random() < 0.4}
    if rng.random() < 0.35:
        t["dcfit"] = {"trigger_handling": rng.random() < 0.5, "hold_time_us": rng.choice([500, 1000, 2000]),
                      "check_timeout_us": rng.choice([500, 1000])}
    if rng.random() < 0.4:
        t["pfcwd"] = {"detect_us": rng.choice([100, 200, 500]), "restore_us": rng.choice([500, 1000, 2000]),
                      "action": rng.choice(["drop", "drop", "forward"])}
    return t


def draw_flows(rng, g, t, stop_us, link_g):
    flows = []
    for i in range(rng.randint(3, min(14, 2 * len(g.hosts)))):
        a, b = rng.sample(g.hosts, 2)
        lossless = rng.random() < 0.65
        f = {"name": f"f{i}", "from": a, "to": b, "dscp": LOSSLESS_DSCP if lossless else LOSSY_DSCP,
             "prio": 1 if lossless else 0, "start_us": rng.randrange(0, stop_us // 2)}
        f["stop_us"] = max(f["start_us"] + 100, stop_us - rng.randrange(0, 200))
        if rng.random() < 0.4:
            f["bytes"] = rng.choice([16, 64, 256, 1024]) * 1024
        if rng.random() < 0.2 and "bytes" in f:
            f["transport"] = "rc"
        if rng.random() < 0.4:
            f["rate_m"] = rng.randrange(500, max(1000, link_g * 600), 250)
        if t["ecn"] and lossless and rng.random() < 0.5:
            f["dcqcn"] = True
        if rng.random() < 0.3:
            f["ttl"] = rng.choice([8, 16, 32])
        if f.get("transport") != "rc" and rng.random() < 0.3:
            f["frame"] = rng.choice([128, 512, 1500])
        flows.append(f)
    return flows


def ev(at_us, **kw):
    kw["at_us"] = int(at_us)
    return kw


def draw_faults(rng, g, t, stop_us, variants):
    """Fault groups between 50 us and stop_us + 400 us, each undone by its end."""
    end = stop_us + 400
    sw_links = [lk for lk in g.links if lk[0] in g.is_sw and lk[1] in g.is_sw]
    host_links = [lk for lk in g.links if lk not in sw_links]
    kinds = ["link", "flap", "loop", "bounce", "storm", "badrules"] + (["rules"] if variants else [])
    faults = []
    for _ in range(rng.randint(2, 12)):
        kind = rng.choice(kinds)
        at = rng.randrange(50, stop_us)
        dur = rng.randrange(20, min(800, end - at))
        if kind == "link":
            lk = rng.choice(sw_links if rng.random() < 0.8 or not host_links else host_links)
            evs = [ev(at, link=list(lk), state="down"), ev(at + dur, link=list(lk), state="up")]
        elif kind == "flap":
            # Down and up faster than a pause lasts: XOFF, XON and refreshes
            # lost on the way, the link back before the pause could lapse.
            lk = rng.choice(sw_links)
            evs, t0 = [], at
            for _ in range(rng.randint(3, 8)):
                down, up = rng.randrange(1, 40), rng.randrange(1, 40)
                if t0 + down + up >= end:
                    break
                evs += [ev(t0, link=list(lk), state="down"), ev(t0 + down, link=list(lk), state="up")]
                t0 += down + up
            if not evs:
                continue
        elif kind in ("loop", "bounce"):
            h = rng.choice(g.hosts)
            d = g.dist(h)
            s = rng.choice([x for x in g.sw if x in d])
            nbs = g.switch_nb(s)
            if kind == "bounce":
                nbs = [n for n in nbs if d.get(n, -1) >= d[s]] or nbs
            n = rng.choice(nbs)
            evs = [ev(at, route={"switch": s, "to": h, "via": n})]
            if kind == "loop":
                evs.append(ev(at, route={"switch": n, "to": h, "via": s}))
            evs.append(ev(at + dur, route={"switch": s, "to": h, "via": g.shortest_via(rng, s, h)}))
            if kind == "loop":
                evs.append(ev(at + dur, route={"switch": n, "to": h, "via": g.shortest_via(rng, n, h)}))
        elif kind == "storm":
            h = rng.choice(g.hosts)
            prios = [1, 2] if t["tagger"] and rng.random() < 0.5 else [1]
            evs = [ev(at, host=h, storm=prios), ev(at + dur, host=h, storm=[])]
        elif kind == "rules":
            s = rng.choice(sorted(g.sw))
            evs = [ev(at, rules={"switch": s, "file": f"rules/alt/{s}.yaml"})]
            if rng.random() < 0.6:
                evs.append(ev(at + dur, rules={"switch": s, "file": f"rules/base/{s}.yaml"}))
        else:
            s = rng.choice(sorted(g.sw))
            evs = [ev(at, rules={"switch": s, "file": f"bad/{rng.choice(sorted(BAD_RULES))}.yaml"})]
        faults.append({"kind": kind, "events": evs})
    return faults


def draw(rng, seed, tagger_bin, work):
    """One scenario from rng (seeded by the caller with `seed`); work is a
    scratch directory for the generated topology."""
    kind, spec = draw_topology(rng)
    sw, hosts, links = topology(tagger_bin, spec, os.path.join(work, "topo.json"))
    g = Graph(sw, hosts, links)
    rate = rng.choice(RATES_G)
    overrides = []
    for lk in rng.sample(links, min(len(links), rng.randint(0, 4))):
        overrides.append({"between": list(lk), "rate_g": rng.choice(RATES_G), "delay_ns": rng.randrange(500, 5000, 100)})
    tagger = rng.random() < 0.5
    t = draw_template(rng, tagger)
    stop_us = rng.randrange(800, 2500, 100)
    min_g = min([rate] + [o["rate_g"] for o in overrides])
    pause_us = 65535 * 512 / (min_g * 1e3)
    sc = {"seed": seed, "kind": kind, "topo": spec, "rate_g": rate, "delay_ns": rng.randrange(500, 5000, 100),
          "overrides": overrides, "template": t, "fabric_seed": rng.randrange(1, 1 << 16), "stop_us": stop_us,
          "flows": draw_flows(rng, g, t, stop_us, min_g),
          "storm_hosts": {h: {"quanta": rng.choice([500, 4000, 65535]), "interval_us": rng.choice([0, 5, 50])}
                          for h in hosts}}
    sc["faults"] = draw_faults(rng, g, t, stop_us, tagger)
    sc["duration_us"] = stop_us + 400 + int(2 * pause_us) + 2500
    return sc


def _time(us):
    return f"{us}us"


def template_yaml(t):
    lines = ["# Chaos run switch template (bench/chaos/scenario.py).", "switch: { idle_sleep_us: 0 }"]
    prios = "[1, 2]" if t["tagger"] else "[1]"
    if not t["tagger"]:
        lines += ["qos:", "  tag_map: { 1: 1 }", "  lossless: [1]", "  lossy_priority: 0", "  lossy_tag: 0"]
    lines += ["buffer:", f"  total_bytes: {t['buffer']}", "  cell_bytes: 128",
              f"  lossless: {{ reserved: 16K, xoff: {t['xoff']}, headroom: auto, xon_hysteresis: 44K }}"]
    if "dcfit" in t:
        d = t["dcfit"]
        lines.append(f"dcfit: {{ enabled: true, recovery: break, check_timeout: {_time(d['check_timeout_us'])}, "
                     f"trigger_handling: {str(d['trigger_handling']).lower()}, hold_time: {_time(d['hold_time_us'])} }}")
    if "pfcwd" in t:
        w = t["pfcwd"]
        lines.append(f"pfc_watchdog: {{ enabled: true, detect_time: {_time(w['detect_us'])}, "
                     f"restore_time: {_time(w['restore_us'])}, action: {w['action']} }}")
    if t["ecn"]:
        lines += ["ecn:", "  profiles:",
                  "    CHAOS: { green_min_threshold: 20K, green_max_threshold: 100K, green_drop_probability: 10 }",
                  f"  queues: [ {{ priorities: {prios}, profile: CHAOS }} ]"]
    return "\n".join(lines) + "\n"


def _flow_yaml(f):
    parts = [f"name: {f['name']}", f"from: {f['from']}", f"to: {f['to']}", f"dscp: {f['dscp']}", f"prio: {f['prio']}"]
    if "rate_m" in f:
        parts.append(f"rate: {f['rate_m']}M")
    if "bytes" in f:
        parts.append(f"bytes: {f['bytes']}")
    if f.get("transport") == "rc":
        parts.append("transport: rc")
    if "frame" in f:
        parts.append(f"frame: {f['frame']}")
    if "ttl" in f:
        parts.append(f"ttl: {f['ttl']}")
    if f.get("dcqcn"):
        parts += ["ecn: ect0", "cc: dcqcn"]
    parts += [f"start: {_time(f['start_us'])}", f"stop: {_time(f['stop_us'])}"]
    return "  - { " + ", ".join(parts) + " }"


def _event_yaml(e):
    at = f"at: {_time(e['at_us'])}"
    if "link" in e:
        return f"  - {{ {at}, link: [{e['link'][0]}, {e['link'][1]}], state: {e['state']} }}"
    if "route" in e:
        r = e["route"]
        return f"  - {{ {at}, route: {{ switch: {r['switch']}, to: {r['to']}, via: {r['via']} }} }}"
    if "host" in e:
        return f"  - {{ {at}, host: {e['host']}, storm: [{', '.join(map(str, e['storm']))}] }}"
    r = e["rules"]
    return f"  - {{ {at}, rules: {{ switch: {r['switch']}, file: {r['file']} }} }}"


def fabric_yaml(sc):
    t = sc["template"]
    out = [f"# Chaos run, seed {sc['seed']} ({sc['kind']}): bench/chaos/runs.py.",
           f"fabric: {{ clock: virtual, duration: {_time(sc['duration_us'])}, bin: 100us, seed: {sc['fabric_seed']} }}",
           f"topology: {{ gen: \"{sc['topo']}\" }}",
           f"links: {{ rate: {sc['rate_g']}G, delay: {sc['delay_ns']}ns, overrides: ["]
    out += [f"    {{ between: [{o['between'][0]}, {o['between'][1]}], rate: {o['rate_g']}G, delay: {o['delay_ns']}ns }},"
            for o in sc["overrides"]]
    out.append("  ] }")
    out.append("switch: { config: switch.yaml" + (", rules: rules/base" if t["tagger"] else "") + " }")
    stormers = sorted({e["host"] for f in sc["faults"] for e in f["events"] if "host" in e})
    if stormers:
        out.append("hosts:")
        for h in stormers:
            o = sc["storm_hosts"][h]
            iv = f", storm_interval: {o['interval_us']}us" if o["interval_us"] else ""
            out.append(f"  - {{ name: {h}, storm_quanta: {o['quanta']}{iv} }}")
    if sc["flows"]:
        out.append("flows:")
        out += [_flow_yaml(f) for f in sc["flows"]]
    evs = sorted((e for f in sc["faults"] for e in f["events"]), key=lambda e: e["at_us"])
    if evs:
        out.append("events:")
        out += [_event_yaml(e) for e in evs]
    return "\n".join(out) + "\n"


def _qos(path):
    text = open(path).read()
    return text[text.index("qos:"):text.index("rewrite:")] if "qos:" in text and "rewrite:" in text else text


def rules_dirs(tagger_bin, sc, d):
    """pfc-tagger rules for the run: rules/base (the fabric's) and rules/alt
    (another valid set, reloaded by `rules` faults). A reload may not change
    the lossless priorities (they size the buffers), so alt is the first
    candidate whose qos section is base's: Clos rules made by the greedy
    algorithm, or with no bounce, for leaf-spine and fat-tree; greedy over
    shortest-path trees, or over more paths, for Jellyfish; else base again."""
    topo = os.path.join(d, "topology.json")
    subprocess.run([tagger_bin, "gen-topo", sc["topo"], "-o", topo], check=True, capture_output=True)
    if sc["kind"] == "jellyfish":
        base = ["--elp-gen", "shortest", "--algo", "greedy"]
        alts = [["--elp-gen", "trees", "--seed", "2", "--algo", "greedy"],
                ["--elp-gen", "shortest", "--extra", "8", "--algo", "greedy"]]
    else:
        base = ["--elp-gen", "clos", "--bounces", "1", "--algo", "clos"]
        alts = [["--elp-gen", "clos", "--bounces", "1", "--algo", "greedy"],
                ["--elp-gen", "clos", "--bounces", "0", "--algo", "clos"]]
    rules = os.path.join(d, "rules")

    def tag(name, args):
        subprocess.run([tagger_bin, "tag", "--topo", topo, *args, "-o", os.path.join(rules, name)],
                       check=True, capture_output=True)

    tag("base", base)
    for args in alts:
        shutil.rmtree(os.path.join(rules, "alt"), ignore_errors=True)
        tag("alt", args)
        if all(_qos(os.path.join(rules, "alt", f)) == _qos(os.path.join(rules, "base", f))
               for f in os.listdir(os.path.join(rules, "base"))):
            return
    shutil.rmtree(os.path.join(rules, "alt"))
    shutil.copytree(os.path.join(rules, "base"), os.path.join(rules, "alt"))


def write(sc, d, tagger_bin):
    """The run directory d for scenario sc; returns the fabric file's path."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "switch.yaml"), "w") as f:
        f.write(template_yaml(sc["template"]))
    if sc["template"]["tagger"] and not os.path.isdir(os.path.join(d, "rules", "base")):
        rules_dirs(tagger_bin, sc, d)
    os.makedirs(os.path.join(d, "bad"), exist_ok=True)
    for name, text in BAD_RULES.items():
        with open(os.path.join(d, "bad", name + ".yaml"), "w") as f:
            f.write(text)
    with open(os.path.join(d, "scenario.json"), "w") as f:
        json.dump(sc, f, indent=1, sort_keys=True)
    path = os.path.join(d, "fabric.yaml")
    with open(path, "w") as f:
        f.write(fabric_yaml(sc))
    return path
