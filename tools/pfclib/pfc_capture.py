# SPDX-License-Identifier: BSD-3-Clause
"""PFC frames read back from a pfcfabric link capture (`captures:` in a
fabric file), for the watchdog experiments (bench/rdma_at_scale/pfcwd_storm.py): when a
host's storm began and ended on the wire, and how long the pauses a switch
sent under congestion held its peer. Python 3 standard library only.

The capture is what pcapng_writer.h writes: one section, one Ethernet
interface with nanosecond timestamps, an Enhanced Packet Block per frame
stamped when the frame starts on the emulated wire (FCS not included).
"""
import struct
from dataclasses import dataclass

PFC_ETHERTYPE = 0x8808
PFC_OPCODE = 0x0101
QUANTUM_BITS = 512  # one pause quantum is 512 bit times at the link's rate
WIRE_OVERHEAD = 24  # FCS, preamble and inter-frame gap, as the emulated wire counts


@dataclass
class PfcFrame:
    t_ns: int  # start on the wire
    src: str  # source MAC, aa:bb:..
    length: int  # bytes without FCS
    quanta: dict  # priority -> quanta, for the priorities the class vector enables


def read_pcapng(path):
    """Yields (t_ns, frame bytes) of every Enhanced Packet Block. The
    timestamps are taken as nanoseconds: the emulator's files declare
    if_tsresol 9, and a file that does not is refused."""
    with open(path, "rb") as f:
        data = f.read()
    off, tsresol_ok = 0, False
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        if blen < 12 or off + blen > len(data):
            raise ValueError(f"{path}: block at byte {off}: length {blen} runs past the file")
        body = data[off + 8:off + blen - 4]
        if btype == 0x00000001:  # Interface Description: look for if_tsresol = 9
            opt = 8
            while opt + 4 <= len(body):
                code, olen = struct.unpack_from("<HH", body, opt)
                if code == 0:
                    break
                if code == 9 and olen == 1 and body[opt + 4] == 9:
                    tsresol_ok = True
                opt += 4 + (olen + 3) // 4 * 4
        elif btype == 0x00000006:  # Enhanced Packet
            if not tsresol_ok:
                raise ValueError(f"{path}: byte {off}: packet before an interface with "
                                 "nanosecond timestamps (if_tsresol 9)")
            _, hi, lo, caplen, _ = struct.unpack_from("<IIIII", body, 0)
            yield (hi << 32) | lo, body[20:20 + caplen]
        off += blen


def pfc_frames(path):
    """The 802.1Qbb frames of a capture, in time order."""
    out = []
    for t, fr in read_pcapng(path):
        if len(fr) < 34 or struct.unpack_from(">HH", fr, 12) != (PFC_ETHERTYPE, PFC_OPCODE):
            continue
        vec = struct.unpack_from(">H", fr, 16)[0]
        q = {p: struct.unpack_from(">H", fr, 18 + 2 * p)[0] for p in range(8) if vec >> p & 1}
        out.append(PfcFrame(t, ":".join(f"{b:02x}" for b in fr[6:12]), len(fr), q))
    return out


def arrival_ns(fr, rate_bps, delay_ns):
    """When the frame's last bit reaches the peer: its start, its time on
    the wire, the propagation delay."""
    return fr.t_ns + (fr.length + WIRE_OVERHEAD) * 8 * 1e9 / rate_bps + delay_ns


def quanta_ns(quanta, rate_bps):
    return quanta * QUANTUM_BITS * 1e9 / rate_bps


def pause_spans(frames, src, prio, rate_bps, delay_ns, until_ns=None):
    """The continuous periods (start_ns, end_ns) for which the frames `src`
    sent kept priority `prio` of their peer paused: an XOFF pauses from its
    arrival for its quanta, a later frame (a refresh, or an XON with quanta
    0) replaces the running pause; spans that touch are merged. until_ns
    (the end of the run) cuts a pause still running then."""
    spans = []
    for fr in frames:
        if fr.src != src or prio not in fr.quanta:
            continue
        a = arrival_ns(fr, rate_bps, delay_ns)
        end = a + quanta_ns(fr.quanta[prio], rate_bps)
        if spans and a <= spans[-1][1]:
            spans[-1][1] = end  # the new frame replaces the pause in force
        elif end > a:
            spans.append([a, end])
    if until_ns is not None:
        spans = [[a, min(b, until_ns)] for a, b in spans if a < until_ns]
    return [tuple(s) for s in spans]
