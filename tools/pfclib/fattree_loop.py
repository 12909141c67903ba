# SPDX-License-Identifier: BSD-3-Clause
"""A deadlock-prone moment of a k-ary fat-tree (pfc-tagger's fattree:K
names: ToR tP_I, aggregation aP_J, core cN, host hP_I_M), drawn at random:
two links fail and the routes around them are stale, as while routing
converges (DCFIT §5's setting, and what Tagger's bounce rules are for).

Each draw picks two pods P and Q, an aggregation index j, two of agg j's
cores X and Y, and a ToR in each pod; links aP_j-tP and aQ_j-tQ fail at a
random time. Traffic for tQ that reaches aQ_j then goes back up to Y, down
to aP_j, through another ToR of pod P (a second bounce) and another
aggregation, and round to tQ; traffic for tP the same way through X and
aQ_j. Two flows from other pods (green into tQ, blue into tP) share the
loop aP_j -> X -> aQ_j -> Y -> aP_j. Drawn too: the loop flows' rates
(line rate deadlocks; 10-15 Gb/s leaves the loop uncongested), their
start times, and background flows between random hosts, some into the
detour ToRs (congestion that reaches the loop from outside).

Used by bench/dcfit/fattree8.py (DCFIT detection at k=8) and
bench/fabric/tagger_loop.py (Tagger's rules at k=16)."""

UNLIMITED = 0


def flow(name, a, b, rate=UNLIMITED, start_us=0, nbytes=0):
    lim = f", rate: {rate}G" if rate else ""
    size = f", bytes: {nbytes}" if nbytes else ""
    return f"  - {{ name: {name}, from: {a}, to: {b}, dscp: 1, prio: 1{lim}{size}, start: {start_us}us }}\n"


def route(sw, host, via, at_us=0):
    return f"  - {{ at: {at_us}us, route: {{ switch: {sw}, to: {host}, via: {via} }} }}\n"


def pin(host, path, at_us=0):
    """Routes toward host along path (switches, then the host's ToR last)."""
    return "".join(route(a, host, b, at_us) for a, b in zip(path, path[1:]))


def host(p, t, m):
    """The fat-tree's host name."""
    return f"h{p}_{t}_{m}"


def draw(rng, K, rates=(10, 15, UNLIMITED, UNLIMITED, UNLIMITED), background=(4, 17)):
    """One draw for a fattree:K: (flows, events) as fabric-file list items,
    a one-line description, and a class for plots (how many loop flows run
    at line rate). rates: the loop flows' choices (Gb/s, UNLIMITED = line
    rate); background: how many background flows, a range."""
    HALF = K // 2
    p, q = rng.sample(range(K), 2)
    j = rng.randrange(HALF)
    x, y = (j * HALF + c for c in rng.sample(range(HALF), 2))
    tp, tq = rng.randrange(HALF), rng.randrange(HALF)
    # The detour legs: another ToR of the pod and another aggregation.
    tp2 = rng.choice([t for t in range(HALF) if t != tp])
    tq2 = rng.choice([t for t in range(HALF) if t != tq])
    jp, jq = rng.choice([a for a in range(HALF) if a != j]), rng.choice([a for a in range(HALF) if a != j])
    cp, cq = jp * HALF + rng.randrange(HALF), jq * HALF + rng.randrange(HALF)
    others = [r for r in range(K) if r not in (p, q)]
    gr, br = rng.sample(others, 2)
    gt, bt = rng.randrange(HALF), rng.randrange(HALF)
    green_src, green_dst = host(gr, gt, rng.randrange(HALF)), host(q, tq, 0)
    blue_src, blue_dst = host(br, bt, rng.randrange(HALF)), host(p, tp, 0)
    fail_us = rng.randrange(50, 600)
    green_rate, blue_rate = rng.choice(rates), rng.choice(rates)
    f = (flow("green", green_src, green_dst, green_rate, rng.randrange(0, 300)) +
         flow("blue", blue_src, blue_dst, blue_rate, rng.randrange(0, 800)))
    # Before the failures: the direct up-down paths through X and Y.
    e = (pin(green_dst, [f"t{gr}_{gt}", f"a{gr}_{j}", f"c{x}", f"a{q}_{j}", f"t{q}_{tq}"]) +
         pin(blue_dst, [f"t{br}_{bt}", f"a{br}_{j}", f"c{y}", f"a{p}_{j}", f"t{p}_{tp}"]))
    e += (f"  - {{ at: {fail_us}us, link: [a{p}_{j}, t{p}_{tp}], state: down }}\n"
          f"  - {{ at: {fail_us}us, link: [a{q}_{j}, t{q}_{tq}], state: down }}\n")
    # Stale rerouting at the failure: aQ_j bounces green up to Y, and so on.
    e += pin(green_dst, [f"a{q}_{j}", f"c{y}", f"a{p}_{j}", f"t{p}_{tp2}", f"a{p}_{jp}", f"c{cp}",
                         f"a{q}_{jp}", f"t{q}_{tq}"], fail_us)
    e += pin(blue_dst, [f"a{p}_{j}", f"c{x}", f"a{q}_{j}", f"t{q}_{tq2}", f"a{q}_{jq}", f"c{cq}",
                        f"a{p}_{jq}", f"t{p}_{tp}"], fail_us)
    # Background: random pairs (shortest routes), a few into the loop's
    # detour ToRs, whose congestion reaches the loop from outside. Not
    # under tP or tQ: their routes over the failed links are not repaired.
    all_hosts = [host(a, b, c) for a in range(K) for b in range(HALF) for c in range(HALF)
                 if (a, b) not in ((p, tp), (q, tq))]
    busy = {green_src, blue_src}
    for i in range(rng.randrange(*background)):
        s, d = rng.sample([h for h in all_hosts if h not in busy], 2)
        if i < 3 and rng.random() < 0.4:
            d = host(p, tp2, rng.randrange(1, HALF)) if i % 2 == 0 else host(q, tq2, rng.randrange(1, HALF))
            if d == s:
                continue
        f += flow(f"bg{i}", s, d, rng.choice([5, 10, 20, UNLIMITED]), rng.randrange(0, 1500))
    what = (f"loop a{p}_{j} c{x} a{q}_{j} c{y}; fail at {fail_us} us; green {green_rate or 'line'} "
            f"blue {blue_rate or 'line'} Gb/s")
    line = (green_rate == UNLIMITED) + (blue_rate == UNLIMITED)
    return f, e, what, ["loop flows\nbelow line rate", "one loop flow\nat line rate",
                        "both loop flows\nat line rate"][line]
