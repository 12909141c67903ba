# SPDX-License-Identifier: BSD-3-Clause
"""The input files of the RDMA simulator built on ns-3 for the HPCC work
(public repository alibaba-edu/High-Precision-Congestion-Control, its
mix/ folder), read as that simulator reads them, and turned into a
pfcfabric fabric file and switch template:

  topology.txt  "<nodes> <switches> <links>", the switch node IDs, then one
                "<src> <dst> <rate> <delay> <error_rate>" a link (rate like
                100Gbps, delay like 0.001ms); anything after the declared
                links is ignored, as the simulator ignores it
  flow.txt      "<flows>", then one "<src> <dst> <pg> <dport> <size>
                <start_s>" a flow (pg: the priority group; size in bytes;
                start in seconds); lines after the declared flows ignored
  config.txt    "KEY value ..." lines (mix/config_doc.txt): the
                congestion-control keys are carried over (CC_MODE 1 is
                DCQCN: its RATE_AI, RATE_HAI, MIN_RATE, EWMA_GAIN,
                ALPHA_RESUME_INTERVAL, RATE_DECREASE_INTERVAL, RP_TIMER,
                FAST_RECOVERY_TIMES, CLAMP_TARGET_RATE; ENABLE_QCN and
                KMIN_MAP / KMAX_MAP / PMAX_MAP for ECN marking; BUFFER_SIZE;
                PACKET_PAYLOAD_SIZE, L2_ACK_INTERVAL for the RC transport,
                ACK_HIGH_PRIO read (the simulator's switches ignore it:
                ACKs in their flow's group); SIMULATOR_STOP_TIME; HPCC (3),
                HPCC-PINT (10, with PINT_LOG_BASE and PINT_PROB), TIMELY (7)
                and DCTCP (8) with their keys), the file and
                tracing keys are noted and left, anything else is an error

Every error names the file, the line and what was expected (HpccError).
Python 3 standard library only.
"""
import itertools
import math
import re

# Keys of the simulator's config that name its own files or traces: read,
# not needed here.
IGNORED_KEYS = {
    "TOPOLOGY_FILE", "FLOW_FILE", "TRACE_FILE", "TRACE_OUTPUT_FILE", "FCT_OUTPUT_FILE",
    "PFC_OUTPUT_FILE", "ENABLE_TRACE", "QLEN_MON_FILE",
 "L2_CHUNK_SIZE"}
# The ACK-driven modes' keys: simulator key -> (fabric key, kind), by the
# fabric section that takes them. run.py writes every one of them for every
# mode: a mode reads its own (and GLOBAL_T, HAS_WIN, VAR_WIN: the window).
HPCC_KEYS = {
    "U_TARGET": ("u_target", "real"), "MI_THRESH": ("mi_thresh", "int"),
    "FAST_REACT": ("fast_react", "bool"), "MULTI_RATE": ("multi_rate", "bool"),
    "SAMPLE_FEEDBACK": ("sample_feedback", "bool"), "RATE_AI": ("rate_ai", "rate"),
    "MIN_RATE": ("min_rate", "rate"), "HAS_WIN": ("has_win", "bool"),
    "VAR_WIN": ("var_win", "bool"), "RATE_BOUND": ("rate_bound", "bool"),
    "GLOBAL_T": ("global_t", "bool"), "INT_MULTI": ("int_multi", "int")}
# HPCC-PINT's own (CC_MODE 10): run.py writes them for every mode; read
# with the HPCC keys for a PINT run (the switches' int.pint gets the base).
PINT_KEYS = {"PINT_LOG_BASE": ("pint_log_base", "real"), "PINT_PROB": ("pint_prob", "real")}
TIMELY_KEYS = {
    "RATE_AI": ("rate_ai", "rate"), "RATE_HAI": ("rate_hai", "rate"),
    "MIN_RATE": ("min_rate", "rate"), "HAS_WIN": ("has_win", "bool"), "VAR_WIN": ("var_win", "bool")}
DCTCP_KEYS = {
    "DCTCP_RATE_AI": ("rate_ai", "rate"), "MIN_RATE": ("min_rate", "rate"),
    "EWMA_GAIN": ("ewma_gain", "real"), "HAS_WIN": ("has_win", "bool"), "VAR_WIN": ("var_win", "bool")}
WINDOW_KEYS = {"HAS_WIN", "VAR_WIN", "GLOBAL_T", "FAST_REACT", "U_TARGET", "MI_THRESH",
               "INT_MULTI", "MULTI_RATE", "SAMPLE_FEEDBACK", "RATE_BOUND", "DCTCP_RATE_AI"}
DCQCN_KEYS = {  # simulator key -> (fabric dcqcn key, kind)
    "RATE_AI": ("rate_ai", "rate"), "RATE_HAI": ("rate_hai", "rate"),
    "MIN_RATE": ("min_rate", "rate"), "EWMA_GAIN": ("ewma_gain", "real"),
    "ALPHA_RESUME_INTERVAL": ("alpha_resume_interval", "us"),
    "RATE_DECREASE_INTERVAL": ("rate_decrease_interval", "us"), "RP_TIMER": ("rp_timer", "us"),
    "FAST_RECOVERY_TIMES": ("fast_recovery_times", "int"),
    "CLAMP_TARGET_RATE": ("clamp_target_rate", "bool")}
OTHER_KEYS = {"ENABLE_QCN", "CC_MODE", "KMAX_MAP", "KMIN_MAP", "PMAX_MAP", "BUFFER_SIZE",
              "PACKET_PAYLOAD_SIZE", "SIMULATOR_STOP_TIME", "L2_ACK_INTERVAL", "L2_BACK_TO_ZERO",
              "ACK_HIGH_PRIO", "USE_DYNAMIC_PFC_THRESHOLD", "ERROR_RATE_PER_LINK",
              "LINK_DOWN", "QLEN_MON_START", "QLEN_MON_END"} | WINDOW_KEYS | set(PINT_KEYS)
CC_MODES = {1: "DCQCN", 3: "HPCC", 7: "TIMELY", 8: "DCTCP", 10: "HPCC-PINT"}
CC_NAMES = {1: "dcqcn", 3: "hpcc", 7: "timely", 8: "dctcp", 10: "hpcc_pint"}
ROCE_HEADERS = 14 + 20 + 8 + 12 + 4  # Ethernet, IPv4, UDP, BTH, ICRC (and a RETH of 16 on a first packet)
# The simulator's data packet around its payload: Ethernet 14, IPv4 20,
# UDP 8, its SeqTs header's pg 2 and seq 4 (custom-header.cc
# GetStaticWholeHeaderSize), then its INT header, whose size its CC_MODE
# sets (int-header.cc GetStaticSize): HPCC's 5 hops of 8 bytes and a
# count of 2, TIMELY's 8-byte timestamp, HPCC-PINT's bytes for its log
# base (below), none for the others.
SIM_HEADERS = 14 + 20 + 8 + 2 + 4
SIM_INT_BYTES = {3: 5 * 8 + 2, 7: 8}
# The emulated NICs' trailer on data frames by congestion control
# (dataplane/net/int_trailer.h): hop records 46, a timestamp 12, PINT 6.
EMU_TRAILER_BYTES = {"hpcc": 46, "timely": 12, "hpcc_pint": 6}


def pint_bytes(log_base):
    """The simulator's PINT header bytes (pint.cc get_n_bytes): enough bits
    for log(512^2) / log(base), rounded up to whole bytes."""
    bits = math.ceil(math.log2(math.log(512 * 512) / math.log(log_base)))
    return 0 if bits <= 0 else (bits - 1) // 8 + 1


def wire_offset(mode, cc, pint_log_base=1.05):
    """links.wire_overhead that gives a data frame the wire time of the
    simulator's packet of the same payload: its packet (under CC_MODE mode)
    less the RoCEv2 frame (under the emulator's cc); -10 without INT, -14
    with it. At 400G a whole nanosecond: ns-3's truncation gives the
    simulator's 1,048-byte packet 20 ns, the 1,058-byte frame 21."""
    sim = SIM_HEADERS + (pint_bytes(pint_log_base) if mode == 10 else SIM_INT_BYTES.get(mode, 0))
    return sim - (ROCE_HEADERS + EMU_TRAILER_BYTES.get(cc, 0))


class HpccError(Exception):
    pass


# --- Paths: where the simulator sends each flow, and the UDP source port
# that makes the emulated switches send it the same way. The simulator
# (third.cc, switch-node.cc) gives node i the address 11.(i/256).(i%256).1,
# the k-th flow of a host pair source port 10000 + k and the flow file's
# dport, lists a switch's next hops towards a host in the order a
# breadth-first search from the host finds them (only switches queued), and
# picks one by MurmurHash3 (x86, 32-bit) of the words sip, dip,
# sport | dport << 16, seeded with the switch's node id. The search visits
# a node's neighbours in the order of their objects' addresses (third.cc's
# nbr2if is a map keyed by Ptr<Node>): see sim_neighbour_order. The
# emulated switches (switch.ecmp_hash_algorithm: hpcc) hash alike over
# their next hops by node id, and RoCEv2 frames go to UDP port 4791: a
# flow's source port is chosen so that every switch on its way picks the
# node the simulator picks.
ROCE_PORT = 4791


def sim_ip(n):
    return 0x0b000001 + (n // 256) * 0x10000 + (n % 256) * 0x100


def _ip_text(a):
    return ".".join(str(a >> s & 0xff) for s in (24, 16, 8, 0))


def murmur3_words(words, seed):
    """MurmurHash3_x86_32 of 32-bit words laid out little-endian."""
    m = 0xffffffff
    h = seed & m
    for k in words:
        k = (k * 0xcc9e2d51) & m
        k = ((k << 15) | (k >> 17)) & m
        k = (k * 0x1b873593) & m
        h ^= k
        h = ((h << 13) | (h >> 19)) & m
        h = (h * 5 + 0xe6546b64) & m
    h ^= 4 * len(words)
    h ^= h >> 16
    h = (h * 0x85ebca6b) & m
    h ^= h >> 13
    h = (h * 0xc2b2ae35) & m
    return h ^ (h >> 16)


def sim_neighbour_order(nbrs, switches):
    """Each node's neighbours in the order the simulator's route search
    visits them: by the address of the node object. A host is a small Node,
    allocated on the heap in creation (id) order; a switch is a SwitchNode
    of over 2 MB (its m_bytes[257][257][8] counters), which glibc serves
    with an mmap of its own, each below the one before. So hosts come first
    by id, then switches by descending id. Seen in the simulator's own
    pauses (bench/hpcc/cases/fat320-incast8-none: in this order both
    sides pause the same 14 links; by id, 4 of them)."""
    def key(n):
        return (1, -n) if n in switches else (0, n)
    return {n: sorted(v, key=key) for n, v in nbrs.items()}


def next_hops_to(nbrs, switches, host):
    """{switch: [neighbours one hop closer to host, in BFS order]}."""
    dist = {host: 0}
    toward = {}
    q = [host]
    for now in q:
        for nxt in nbrs[now]:
            if nxt not in dist:
                dist[nxt] = dist[now] + 1
                if nxt in switches:
                    q.append(nxt)
            if dist[nxt] == dist[now] + 1 and nxt in switches:
                toward.setdefault(nxt, []).append(now)
    return toward


def _steer(nbrs, toward, first, last, sip, dip, key):
    """The simulator's path from host `first` to host `last` for a packet
    hashed on (sip, dip, key), as the choices an emulated switch must make
    on it: [(switch, number of next hops, index of the one taken)]."""
    choices, cur = [], nbrs[first][0]
    while cur != last and cur in toward:
        nh = toward[cur]
        nxt = nh[murmur3_words((sip, dip, key), cur) % len(nh)]
        if len(nh) > 1:  # the emulated switch's index of that node
            choices.append((cur, len(nh), sorted(nh).index(nxt)))
        cur = nxt
    return choices


def _port_for(choices, sip, dip, what):
    """A UDP source port that makes the emulated switches' hash of (sip,
    dip, port | ROCE_PORT << 16) make every choice (None: no choice)."""
    if not choices:
        return None
    for p in itertools.chain(range(49152, 65536), range(1024, 49152)):  # ephemeral first
        w = p | ROCE_PORT << 16
        if all(murmur3_words((sip, dip, w), s) % n == i for s, n, i in choices):
            return p
    raise HpccError(f"no UDP source port sends {what} along the simulator's path")


def steer_ports(topo, flows):
    """Each flow's UDP source ports for the emulator, (data, ACK): the
    first sends its data along the simulator's path, the second its
    responder's ACKs (and CNPs) along the simulator's path back, which
    hashes the ACK's ports swapped (rdma-hw.cc ReceiveUdp: the ACK's sport
    is the data's dport and the other way round). None: no choice on the
    way."""
    nbrs = {n: set() for n in range(topo["nodes"])}
    for a, b, _, _ in topo["links"]:
        nbrs[a].add(b)
        nbrs[b].add(a)
    sw = topo["switches"]
    nbrs = sim_neighbour_order(nbrs, sw)
    towards, pair_count, ports = {}, {}, []
    for src, dst, _pg, dport, _size, _start in flows:
        for h in (src, dst):
            if h not in towards:
                towards[h] = next_hops_to(nbrs, sw, h)
        k = pair_count.get((src, dst), 0)
        pair_count[(src, dst)] = k + 1
        sip, dip, sport = sim_ip(src), sim_ip(dst), 10000 + k
        data = _steer(nbrs, towards[dst], src, dst, sip, dip, sport | dport << 16)
        ack = _steer(nbrs, towards[src], dst, src, dip, sip, dport | sport << 16)
        ports.append((_port_for(data, sip, dip, f"flow {len(ports)}"),
                      _port_for(ack, dip, sip, f"flow {len(ports)}'s ACKs")))
    return ports


def _lines(path):
    """(line number, fields) of the file's lines, blank ones included."""
    try:
        with open(path) as f:
            return [(i + 1, ln.split()) for i, ln in enumerate(f)]
    except OSError as e:
        raise HpccError(f"{path}: cannot read: {e.strerror}")


def _ints(path, ln, fields, n, what):
    if len(fields) < n:
        raise HpccError(f"{path}:{ln}: expected {what} (got {' '.join(fields) or 'an empty line'})")
    try:
        return [int(x) for x in fields[:n]]
    except ValueError:
        raise HpccError(f"{path}:{ln}: expected {what} (got {' '.join(fields)})")


def _records(path, content, first, n, noun, form):
    """The n records declared by a file's header, from content[first] on
    (non-blank lines), each with at least as many fields as `form` names."""
    for k in range(n):
        if first + k >= len(content):
            raise HpccError(f"{path}:{content[-1][0] + 1}: expected {n} {noun} (found {k})")
        ln, f = content[first + k]
        if len(f) < len(form.split()):
            raise HpccError(f"{path}:{ln}: expected '{form}' (got {' '.join(f)})")
        yield ln, f


def _rate_bps(path, ln, s):
    # ns-3's DataRate spellings the simulator's files use: 100Gbps, 50Mb/s.
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(G|M|K)?(?:bps|b/s)", s)
    if not m:
        raise HpccError(f"{path}:{ln}: rate: expected a rate such as 100Gbps or 50Mb/s (got {s})")
    return int(float(m.group(1)) * {"G": 1e9, "M": 1e6, "K": 1e3, None: 1}[m.group(2)])


def _delay_ns(path, ln, s):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|us|ns|s)", s)
    if not m:
        raise HpccError(f"{path}:{ln}: delay: expected a delay such as 0.001ms (got {s})")
    return round(float(m.group(1)) * {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1}[m.group(2)])


def read_topology(path):
    """{"nodes": n, "switches": set, "links": [(a, b, bps, delay_ns)]}."""
    lines = [x for x in _lines(path)]
    content = [(ln, f) for ln, f in lines if f]
    if not content:
        raise HpccError(f"{path}:1: expected '<nodes> <switches> <links>' (got an empty file)")
    ln, f = content[0]
    nodes, nsw, nlinks = _ints(path, ln, f, 3, "'<nodes> <switches> <links>'")
    if nsw < 1 or nodes <= nsw:
        raise HpccError(f"{path}:{ln}: expected at least one switch and one host (got {nodes} nodes, "
                        f"{nsw} switches)")
    if len(content) < 2:
        raise HpccError(f"{path}:{ln + 1}: expected the {nsw} switch node IDs (missing)")
    ln, f = content[1]
    sw = _ints(path, ln, f, nsw, f"the {nsw} switch node IDs")
    for s in sw:
        if not 0 <= s < nodes:
            raise HpccError(f"{path}:{ln}: switch ID {s}: expected a node 0..{nodes - 1}")
    links, seen = [], set()
    for ln, f in _records(path, content, 2, nlinks, "links", "<src> <dst> <rate> <delay> <error_rate>"):
        a, b = _ints(path, ln, f, 2, "two node IDs")
        for x in (a, b):
            if not 0 <= x < nodes:
                raise HpccError(f"{path}:{ln}: node {x}: expected a node 0..{nodes - 1}")
        if a == b or (min(a, b), max(a, b)) in seen:
            raise HpccError(f"{path}:{ln}: link {a}-{b}: expected two different nodes, one link "
                            f"between them (parallel links are not emulated)")
        if a not in sw and b not in sw:
            raise HpccError(f"{path}:{ln}: link {a}-{b}: expected a switch at one end at least")
        seen.add((min(a, b), max(a, b)))
        bps = _rate_bps(path, ln, f[2])
        delay = _delay_ns(path, ln, f[3])
        try:
            err = float(f[4])
        except ValueError:
            raise HpccError(f"{path}:{ln}: error_rate: expected a number (got {f[4]})")
        if err != 0:
            raise HpccError(f"{path}:{ln}: error_rate {f[4]}: expected 0 (emulated links do not "
                            f"corrupt frames)")
        links.append((a, b, bps, delay))
    return {"nodes": nodes, "switches": set(sw), "links": links}


def read_flows(path, topo):
    """[(src, dst, pg, dport, size, start_ns)]."""
    content = [(ln, f) for ln, f in _lines(path) if f]
    if not content:
        raise HpccError(f"{path}:1: expected '<flows>' (got an empty file)")
    ln, f = content[0]
    (n,) = _ints(path, ln, f, 1, "'<flows>'")
    hosts = set(range(topo["nodes"])) - topo["switches"]
    flows = []
    for ln, f in _records(path, content, 1, n, "flows", "<src> <dst> <pg> <dport> <size> <start_s>"):
        src, dst, pg, dport, size = _ints(path, ln, f, 5, "'<src> <dst> <pg> <dport> <size>'")
        try:
            start = float(f[5])
        except ValueError:
            raise HpccError(f"{path}:{ln}: start: expected seconds (got {f[5]})")
        for x in (src, dst):
            if x not in hosts:
                raise HpccError(f"{path}:{ln}: node {x}: expected a host (not a switch) of the topology")
        if src == dst:
            raise HpccError(f"{path}:{ln}: expected a destination other than the source")
        if not 0 <= pg <= 7:
            raise HpccError(f"{path}:{ln}: pg {pg}: expected a priority 0..7")
        if size <= 0 or start < 0:
            raise HpccError(f"{path}:{ln}: expected a size > 0 and a start >= 0")
        flows.append((src, dst, pg, dport, size, round(start * 1e9)))
    return flows


def read_config(path):
    """{KEY: [values]} and the keys left aside, with the line of each."""
    conf, ignored = {}, []
    for ln, f in _lines(path):
        if not f:
            continue
        key = f[0]
        if key in IGNORED_KEYS:
            ignored.append(key)
        elif key in DCQCN_KEYS or key in OTHER_KEYS:
            if len(f) < 2:
                raise HpccError(f"{path}:{ln}: {key}: expected a value (missing)")
            conf[key] = (ln, f[1:])
        elif key.startswith("{") or key.startswith("#"):
            continue
        else:
            raise HpccError(f"{path}:{ln}: {key}: expected a key of the simulator's config "
                            f"(mix/config_doc.txt)")
    return conf, ignored


def _rate_text(bps):
    return f"{bps / 1e9:g}G" if bps % 1_000_000_000 == 0 else f"{bps / 1e6:g}M"


def _map_at(path, conf, key, rate_bps):
    """The value of a '<n> <rate> <v> ...' map at a link rate: like the
    simulator (third.cc: "must set kmin for each link speed"), a rate the
    map does not list is an error."""
    ln, v = conf[key]
    try:
        n = int(v[0])
        pairs = dict((int(v[1 + 2 * i]), float(v[2 + 2 * i])) for i in range(n))
    except (ValueError, IndexError):
        raise HpccError(f"{path}:{ln}: {key}: expected '<n> <rate> <value> ...' with n pairs")
    if rate_bps not in pairs:
        raise HpccError(f"{path}:{ln}: {key}: expected a value for every link rate of the "
                        f"topology (no {rate_bps} for its {_rate_text(rate_bps)} links)")
    return pairs[rate_bps]


def convert(topo_path, flow_path, config_path=None, duration_ms=None, cc=None):
    """(fabric file text, switch template text, notes)."""
    topo = read_topology(topo_path)
    flows = read_flows(flow_path, topo)
    conf, ignored = read_config(config_path) if config_path else ({}, [])
    notes = [f"{config_path}: left aside: {', '.join(sorted(set(ignored)))}"] if ignored else []

    def val(key, kind, default=None):
        if key not in conf:
            return default
        ln, v = conf[key]
        s = v[0]
        try:
            if kind == "rate":
                return _rate_text(_rate_bps(config_path, ln, s))
            if kind == "us":
                return f"{float(s):g}us"
            if kind == "int":
                # run.py under Python 3 writes its integers as 32.0.
                f = float(s)
                if not f.is_integer():
                    raise ValueError
                return int(f)
            if kind == "bool":
                if s not in ("0", "1"):
                    raise ValueError
                return "true" if s == "1" else "false"  # as YAML spells them
            return float(s)
        except ValueError:
            what = {"us": "number of microseconds", "int": "whole number", "bool": "0 or 1",
                    "real": "number"}.get(kind, kind)
            raise HpccError(f"{config_path}:{ln}: {key}: expected a {what} (got {s})")

    mode = val("CC_MODE", "int", 1 if conf else 0)
    if cc is None:
        if mode not in (0,) + tuple(CC_NAMES):
            ln = conf["CC_MODE"][0]
            raise HpccError(f"{config_path}:{ln}: CC_MODE {mode} ({CC_MODES.get(mode, 'unknown')}): "
                            f"expected 1 (DCQCN), 3 (HPCC), 7 (TIMELY), 8 (DCTCP) or 10 "
                            f"(HPCC-PINT), the ones the "
                            f"emulator has; convert with --cc none to run the flows without "
                            f"congestion control")
        cc = CC_NAMES.get(mode, "none")
    if cc == "dcqcn" and val("HAS_WIN", "int", 0) == 1:
        raise HpccError(f"{config_path}:{conf['HAS_WIN'][0]}: HAS_WIN 1 with DCQCN (run.py's "
                        f"dcqcn_vwin): expected 0, the emulated DCQCN flows have no window")
    ecn = val("ENABLE_QCN", "int", 1 if cc in ("dcqcn", "dctcp") else 0) == 1
    # The simulator's flows are RC queue pairs: transport rc, its payload
    # size as rc.mtu (jumbo switch ports above 1,456 bytes), its ACK
    # interval (bytes there: an ACK each time that many more arrived) in packets.
    payload = val("PACKET_PAYLOAD_SIZE", "int", 1000)
    if not 256 <= payload <= 4096:
        ln = conf["PACKET_PAYLOAD_SIZE"][0]
        raise HpccError(f"{config_path}:{ln}: PACKET_PAYLOAD_SIZE {payload}: expected 256..4096 "
                        f"(an RC MTU)")
    ack_bytes = val("L2_ACK_INTERVAL", "int", 1)
    if ack_bytes < 1:
        raise HpccError(f"{config_path}:{conf['L2_ACK_INTERVAL'][0]}: L2_ACK_INTERVAL {ack_bytes}: "
                        f"expected bytes >= 1")
    ack_interval = max(1, -(-ack_bytes // payload))
    if val("L2_BACK_TO_ZERO", "int", 0) != 0:
        notes.append(f"{config_path}:{conf['L2_BACK_TO_ZERO'][0]}: L2_BACK_TO_ZERO 1 (go back to "
                     f"the message's start): the emulated NICs go back N (to the NAKed PSN)")
    if "ERROR_RATE_PER_LINK" in conf and val("ERROR_RATE_PER_LINK", "real") != 0:
        raise HpccError(f"{config_path}:{conf['ERROR_RATE_PER_LINK'][0]}: ERROR_RATE_PER_LINK: "
                        f"expected 0 (the emulated links lose no frame at random)")
    # LINK_DOWN <us> <a> <b>: the link goes down that long after 2 s (0: never).
    link_down = None
    if "LINK_DOWN" in conf:
        ln, v = conf["LINK_DOWN"]
        try:
            t_us, a, b = int(float(v[0])), int(v[1]), int(v[2])
        except (ValueError, IndexError):
            raise HpccError(f"{config_path}:{ln}: LINK_DOWN: expected '<microseconds> <node> <node>'")
        if t_us > 0:
            if not any({a, b} == {x, y} for x, y, _, _ in topo["links"]):
                raise HpccError(f"{config_path}:{ln}: LINK_DOWN: expected a link of the topology "
                                f"(no link {a}-{b})")
            link_down = (2_000_000 + t_us, a, b)
            notes.append(f"{config_path}:{ln}: LINK_DOWN: the link goes down at the same time, but "
                         f"the routes stay: the simulator recomputes every route at once, the "
                         f"emulated switches keep theirs (flows over that link stop)")
    if duration_ms is None:
        stop = val("SIMULATOR_STOP_TIME", "real")
        if stop is None:
            raise HpccError(f"{config_path or flow_path}: expected SIMULATOR_STOP_TIME in the config, "
                            f"or a duration (--duration-ms)")
        duration_ms = stop * 1e3
    if any(f[5] >= duration_ms * 1e6 for f in flows):
        late = next(i for i, f in enumerate(flows) if f[5] >= duration_ms * 1e6)
        raise HpccError(f"{flow_path}: flow {late}: starts at {flows[late][5] / 1e9:g} s, after the "
                        f"run's end ({duration_ms / 1e3:g} s)")
    # The time series from the first flow's start, down to a whole bin (the
    # simulator's flows start at 2 s: no rows for the idle time before),
    # about 500 samples over what is left, at least 10us each.
    first_ns = min((f[5] for f in flows), default=0)
    bin_us = max(10, round((duration_ms * 1e6 - first_ns) / 1000 / 500))
    series_ns = first_ns // (bin_us * 1000) * bin_us * 1000
    name = {n: (f"S{n}" if n in topo["switches"] else f"H{n}") for n in range(topo["nodes"])}
    used = {n for a, b, _, _ in topo["links"] for n in (a, b)}
    rates = sorted({bps for _, _, bps, _ in topo["links"]})
    base_rate = max(rates, key=lambda r: sum(1 for *_, bps, _ in topo["links"] if bps == r))
    delays = sorted({d for *_, d in topo["links"]})
    out = [f"# Converted by tools/hpcc_import.py from {topo_path}, {flow_path}"
           + (f" and {config_path}" if config_path else "") + "; node i is S<i> or H<i>.",
           f"fabric: {{ clock: virtual, duration: {duration_ms:g}ms, bin: {bin_us}us"
           + (f", series_start: {series_ns // 1000}us" if series_ns else "") + ", seed: 1 }",
           "topology:",
           f"  switches: [{', '.join(name[n] for n in sorted(topo['switches']) if n in used)}]",
           f"  hosts: [{', '.join(name[n] for n in range(topo['nodes']) if n not in topo['switches'] and n in used)}]",
           "  links: [" + ", ".join(f"[{name[a]}, {name[b]}]" for a, b, _, _ in topo["links"]) + "]",
           # The simulator's links carry a packet's bytes alone (no preamble,
           # FCS or inter-frame gap), and its packet is shorter than the
           # RoCEv2 frame of the same payload: wire_overhead takes the
           # difference off (wire_offset); and they take the time its Time
           # makes of a double (truncated): wire_time ns3.
           f"links: {{ rate: {_rate_text(base_rate)}, delay: {delays[0]}ns, "
           f"wire_overhead: {wire_offset(mode, cc, val('PINT_LOG_BASE', 'real', 1.05))}, wire_time: ns3"]
    overrides = [f"{{ between: [{name[a]}, {name[b]}], rate: {_rate_text(bps)}, delay: {d}ns }}"
                 for a, b, bps, d in topo["links"] if bps != base_rate or d != delays[0]]
    out[-1] += (", overrides: [ " + ", ".join(overrides) + " ] }") if overrides else " }"
    jumbo = payload + ROCE_HEADERS + 16 > 1514
    # The simulator's seeds are its node IDs, which the fabric numbers
    # otherwise (switches first): given per switch.
    seeds = ", ".join(f"{name[n]}: {n}" for n in sorted(topo["switches"]) if n in used)
    out.append("switch: { config: switch.yaml" + (", mtu: 9000" if jumbo else "")
               + f", ecmp_seeds: {{ {seeds} }} }}")
    # Every host at the simulator's address (the flows hash on it).
    out.append("hosts:")
    for n in range(topo["nodes"]):
        if n in used and n not in topo["switches"]:
            a = sim_ip(n)
            out.append(f"  - {{ name: {name[n]}, address: {_ip_text(a)}/24, gateway: {_ip_text(a + 1)} }}")
    # The simulator NACKs a lasting gap again every 500 us (its "NACK
    # Generation Interval", fixed: no config key), and its NIC has no
    # retransmission timer (rdma-hw.cc: only a NACK makes it go back):
    # rc.timeout 0, none, as verbs reads 0. With the verbs default of
    # 1.05 ms, a packet queued longer than that behind PFC pauses (the
    # WebSearch 50% case without congestion control) had its window sent
    # again while it still waited: 1.3 million packets more on a fabric
    # already paused.
    # ACK_HIGH_PRIO only picks the pause class that holds the simulator's
    # NIC's ACK queue (RdmaEgressQueue::ack_q_idx: 0 or 3), a queue its NIC
    # sends ahead of data either way, as the emulated NIC does. With 1 it is
    # queue 0, which no PFC frame of the data's class stops: the ACKs go on
    # through a pause (rc.ack_pausable off). Its switches never read it
    # (third.cc leaves SwitchNode's AckHighPrio at 0): ACKs and NAKs carry
    # their flow's priority group (rdma-hw.cc ReceiveUdp) and queue behind
    # its data at every hop. Here too: rc.ack_high_prio off.
    # The simulator's rate limiter puts a QP's next packet a whole slot of
    # its rate after this one left (rdma-hw.cc UpdateNextAvail), never
    # sooner when the NIC was busy: rc.pace_catch_up off.
    pausable = "" if val("ACK_HIGH_PRIO", "int", 0) == 0 else ", ack_pausable: false"
    out.append(f"rc: {{ mtu: {payload}, ack_interval: {ack_interval}, nak_interval: 500us, timeout: 0{pausable}, "
               "pace_catch_up: false }")
    pgs = sorted({f[2] for f in flows}) or [3]
    if cc == "dcqcn":
        d = [f"{dk}: {val(k, kind)}" for k, (dk, kind) in DCQCN_KEYS.items() if k in conf]
        # The simulator's receiver flags every ACK of a marked packet as a
        # CNP (rdma-hw.cc ReceiveUdp): no interval between CNPs of a flow,
        # and a CNP goes where the ACK goes, in the flow's priority group
        # (here when the flows share one; else DSCP 48, priority 6).
        d.append("cnp_interval: 1ns")
        if len(pgs) == 1:
            d += [f"cnp_dscp: {pgs[0]}", f"cnp_prio: {pgs[0]}"]
        out.append("dcqcn: { " + ", ".join(d) + " }")
    # The ACK-driven modes: their keys in their section; GLOBAL_T (every
    # flow's base RTT and window the fabric's largest) is read from hpcc's.
    # HPCC-PINT reads HPCC's section and its own two keys.
    for section, keys in (("hpcc", HPCC_KEYS), ("timely", TIMELY_KEYS), ("dctcp", DCTCP_KEYS)):
        if cc == "hpcc_pint" and section == "hpcc":
            keys = {**HPCC_KEYS, **PINT_KEYS}
        elif cc != section:
            continue
        d = [f"{dk}: {val(k, kind)}" for k, (dk, kind) in keys.items() if k in conf]
        if cc == "hpcc_pint" and "PINT_LOG_BASE" not in conf:
            d.append("pint_log_base: 1.05")  # the simulator's own default (third.cc)
        out.append(f"{section}: {{ " + ", ".join(d) + " }")
        if section != "hpcc" and "GLOBAL_T" in conf:
            out.append(f"hpcc: {{ global_t: {val('GLOBAL_T', 'bool')} }}")
    if link_down:
        t_us, a, b = link_down
        out.append(f"events:\n  - {{ at: {t_us}us, link: [{name[a]}, {name[b]}], state: down }}")
    out.append("flows:")
    ports = steer_ports(topo, flows)
    for i, (src, dst, pg, dport, size, start) in enumerate(flows):
        out.append(f"  - {{ name: f{i}, from: {name[src]}, to: {name[dst]}, dscp: {pg}, prio: {pg}, "
                   f"transport: rc, bytes: {size}, start: {start}ns"
                   + (", ecn: ect0" if ecn else "") + f", cc: {cc}"
                   + (f", src_port: {ports[i][0]}" if ports[i][0] else "")
                   + (f", ack_src_port: {ports[i][1]}" if ports[i][1] else "") + " }")
    # The simulator's queue monitor (QLEN_MON_START to QLEN_MON_END, every
    # 100 ns, each switch port's egress bytes) when it spans some time.
    mon_start, mon_end = val("QLEN_MON_START", "int", 0), val("QLEN_MON_END", "int", 0)
    monitor = mon_end > mon_start
    if monitor:
        out.append(f"monitor: {{ qlen: {{ start: {mon_start}ns, end: {mon_end}ns, interval: 100ns }} }}")
    # HPCC: every switch writes its hop record into the data frames' INT
    # trailer (the sending NICs add it, as the simulator's do). With the
    # monitor, the other modes too: no record is written (their NICs send
    # no trailer), but the switches then keep every queue's depth, which the
    # monitor reads (the simulator counts every queue of a port).
    # HPCC-PINT: each switch raises the one utilisation value of the data
    # frames' PINT trailer, with the NICs' log base (pfcfabric gives its
    # estimate the flows' base RTT, as the simulator gives maxRtt).
    pint = (f", pint: {{ log_base: {val('PINT_LOG_BASE', 'real', 1.05)} }}"
            if cc == "hpcc_pint" else "")
    telemetry = ([f"int: {{ priorities: [{', '.join(str(p) for p in pgs)}], insert: false, "
                  f"multi: {val('INT_MULTI', 'int', 1)}{pint} }}"]
                 if cc in ("hpcc", "hpcc_pint") or monitor else [])
    tmpl = ["# Converted by tools/hpcc_import.py: the flows' priority groups lossless,",
            "# tag = priority group; CNPs in the flows' group when they share one, else",
            "# DSCP 48 on priority 6.",
            "# Equal-cost next hops chosen by the simulator's own hash.",
            "switch: { idle_sleep_us: 0, ecmp_hash_algorithm: hpcc }",
            "qos:",
            "  tag_map: { " + ", ".join(f"{p}: {p}" for p in pgs) + (", 48: 6" if 6 not in pgs else "") + " }",
            f"  lossless: [{', '.join(str(p) for p in pgs)}]",
            "  lossy_priority: 0",
            "  lossy_tag: 0",
            "# The simulator's MMU decides XOFF at an enqueue and XON at a dequeue of the group.",
            "pfc: { decide: on_change }",
            "buffer:",
            f"  total_bytes: {val('BUFFER_SIZE', 'int', 32)}M",
            "  # Its MMU counts a packet's own bytes, not cells (a 64-byte ACK is 64).",
            "  cell_bytes: 1",
            "  # The simulator's MMU (switch-mmu.cc): 4 KB reserved per ingress queue, XOFF when",
            "  # the shared use reaches (free shared buffer) >> 3 at the hosts' rate, XON 3 KB below;",
            "  # headroom 3 x rate x delay of the link, and what finds it full is dropped.",
            "  lossless: { reserved: 4K, xoff: dynamic, alpha: 0.125, headroom: auto, xon_hysteresis: 3K }"]
    # Its switches use that dynamic threshold whatever USE_DYNAMIC_PFC_THRESHOLD
    # says (the key only sets an attribute nothing reads), and shift one less
    # per doubling of a port's rate over the hosts' (third.cc, pfc_a_shift).
    nic_rate = next(bps for a, b, bps, _ in topo["links"] if a not in topo["switches"]
                    or b not in topo["switches"])
    # Its headroom is 3 x rate x delay of the port's link (third.cc), per
    # port: given per speed when the links of a speed share one delay.
    delays = {}
    for _a, _b, bps, delay in topo["links"]:
        delays.setdefault(bps, set()).add(delay)
    by_speed = []
    for r in rates:
        shift, x = 3, r
        while x > nic_rate and shift > 0:
            shift, x = shift - 1, x // 2
        keys = [f"alpha: {1 / (1 << shift):g}"] if shift != 3 else []
        if len(delays[r]) == 1:
            keys.append(f"headroom: {r * next(iter(delays[r])) // 8 // 10**9 * 3}")
        else:
            notes.append(f"links of {_rate_text(r)} with different delays: their headroom is "
                         "the switch's own (headroom: auto), not 3 x rate x delay per port")
        if keys:
            by_speed.append(f"{_rate_text(r)}: {{ {', '.join(keys)} }}")
    if by_speed:
        tmpl.append("  lossless_by_speed: { " + ", ".join(by_speed) + " }")
    if ecn and all(k in conf for k in ("KMIN_MAP", "KMAX_MAP", "PMAX_MAP")):
        # One WRED profile per link rate of the topology, on the ports of
        # that speed, as the simulator sets KMIN/KMAX/PMAX per port by rate.
        tmpl += ["ecn:", "  profiles:"]
        queues = []
        for r in rates:
            kmin = _map_at(config_path, conf, "KMIN_MAP", r)
            kmax = _map_at(config_path, conf, "KMAX_MAP", r)
            pmax = _map_at(config_path, conf, "PMAX_MAP", r)
            tmpl += [f"    SIM_{_rate_text(r)}: {{ green_min_threshold: {round(kmin * 1000)}, "
                     f"green_max_threshold: {round(kmax * 1000)}, green_drop_probability: {pmax * 100:g},",
                     "           mark_at: dequeue }  # as the simulator: on the bytes left behind"]
            queues.append(f"    - {{ speed: {_rate_text(r)}, priorities: [{', '.join(str(p) for p in pgs)}], "
                          f"profile: SIM_{_rate_text(r)} }}")
        tmpl += ["  queues:"] + queues
    elif ecn:
        notes.append("ENABLE_QCN without KMIN_MAP/KMAX_MAP/PMAX_MAP: no ECN profile, nothing is marked")
    tmpl += telemetry
    return "\n".join(out) + "\n", "\n".join(tmpl) + "\n", notes
