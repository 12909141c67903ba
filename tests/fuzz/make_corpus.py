#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the synthetic seeds of tests/fuzz/corpus (frames, PFC / PAUSE
frames, telemetry requests). The config seeds are files copied from configs/,
tests/ and pfc-tagger's output, plus the hand-written ones in corpus/config.
Run from anywhere: make_corpus.py [CORPUS_DIR]."""
import os
import struct
import sys

corpus = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'corpus')


def put(target, name, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'seed-' + name), 'wb') as f:
        f.write(data.encode() if isinstance(data, str) else data)


def csum(h):
    s = sum(struct.unpack('!%dH' % (len(h) // 2), h))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def ipv4(ihl=5, frag=0x4000, payload=26, dscp=10):
    h = bytearray(struct.pack('!BBHHHBBH4s4s', 0x40 | ihl, dscp << 2, ihl * 4 + payload, 0x1234,
                              frag, 64, 17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 1, 2])))
    h += b'\x01' * (ihl * 4 - 20)
    h[10:12] = struct.pack('!H', csum(bytes(h)))
    return bytes(h) + b'\xab' * payload


GROUP = bytes.fromhex('0180c2000001')
SRC = bytes.fromhex('020000000002')
PORT = bytes.fromhex('020000000001')  # the port MAC fuzz_pfc_frame uses
eth = PORT + SRC


def pfc(enable, quanta, dst=GROUP, fcs=False):
    f = dst + SRC + struct.pack('!HHH', 0x8808, 0x0101, enable) + struct.pack('!8H', *quanta)
    f += bytes(60 - len(f))
    return f + (b'\x12\x34\x56\x78' if fcs else b'')


def pause(quanta, dst=GROUP):
    f = dst + SRC + struct.pack('!HHH', 0x8808, 0x0001, quanta)
    return f + bytes(60 - len(f))


# Packet parser: every branch.
put('parser', 'ipv4', eth + b'\x08\x00' + ipv4())
put('parser', 'vlan_opts_frag', eth + bytes.fromhex('8100 6123 0800') + ipv4(ihl=7, frag=0x2005, payload=8))
put('parser', 'arp', b'\xff' * 6 + SRC + bytes.fromhex(
    '0806 0001 0800 06 04 0001 021122334455 0a000001 000000000000 0a0000fe'))
put('parser', 'pfc', pfc(0x18, [0, 0, 0, 0xffff, 0xffff, 0, 0, 0]))
put('parser', 'ipv6', eth + bytes.fromhex('86dd 6000000000003a40') + bytes(32))
put('parser', 'runt', bytes(5))

# PFC decoder: XOFF, XON, refresh of several priorities, all eight, with FCS,
# the reserved octet set, classic PAUSE (group and unicast), XON PAUSE, and
# near misses (tagged, wrong opcode, short, long, PFC to a unicast MAC).
put('pfc_frame', 'xoff_p3', pfc(0x08, [0, 0, 0, 0xffff, 0, 0, 0, 0]))
put('pfc_frame', 'xon_p3', pfc(0x08, [0] * 8))
put('pfc_frame', 'xoff_p3_p4_fcs', pfc(0x18, [0, 0, 0, 0x100, 0x200, 0, 0, 0], fcs=True))
put('pfc_frame', 'all_prios', pfc(0xff, [1, 2, 3, 0x7fff, 0x8000, 0xfffe, 0xffff, 0]))
put('pfc_frame', 'reserved_octet', pfc(0xff08, [0, 0, 0, 5, 0, 0, 0, 0]))
put('pfc_frame', 'pause_group', pause(0xffff))
put('pfc_frame', 'pause_port', pause(0x1000, dst=PORT))
put('pfc_frame', 'pause_xon', pause(0))
put('pfc_frame', 'vlan_tagged', GROUP + SRC + bytes.fromhex('8100 6000') + pfc(1, [9] * 8)[12:60])
put('pfc_frame', 'bad_opcode', GROUP + SRC + bytes.fromhex('8808 0002') + bytes(44))
put('pfc_frame', 'short', pfc(1, [9] * 8)[:59])
put('pfc_frame', 'long', pfc(1, [9] * 8, fcs=True) + b'\x00')
put('pfc_frame', 'pfc_unicast', pfc(1, [9] * 8, dst=PORT))

# Telemetry requests as pfcctl and dpdk-telemetry.py send them.
for name, line in {
    'info': '/pfcswitch/info',
    'ports': '/pfcswitch/ports',
    'port_stats_name': '/pfcswitch/port_stats,p0',
    'port_stats_index': '/pfcswitch/port_stats,1',
    'port_stats_dashed_name': '/pfcswitch/port_stats,uplink-1',
    'port_stats_none': '/pfcswitch/port_stats',
    'port_stats_empty': '/pfcswitch/port_stats,',
    'port_stats_comma_name': '/pfcswitch/port_stats,p0,x',
    'reload': '/pfcswitch/reload,/tmp/pfcsw/rules.yaml',
    'reload_comma': '/pfcswitch/reload,/tmp/rules,v2.yaml',
    'reload_none': '/pfcswitch/reload',
    'dpdk_list': '/',
    'dpdk_ethdev_stats': '/ethdev/stats,0',
}.items():
    put('telemetry_cmd', name, line)

# DCFIT checking messages (dataplane/dcfit/message.h): piggybacked on XOFF,
# standalone (vector 0), second pass, host trigger and middle flags, a bare
# message and a truncated one (DecodeMsg also sees the raw input), and near
# misses (bad checksum, version, field, magic).


def dcfit(flags=0, prio=3, hops=0, gen=(1, 1), seq=1, tri=(1, 1), version=1, fix=True):
    m = b'DCFT' + struct.pack('!BBBBHBBHI', version, flags, prio, hops, gen[0], gen[1], tri[1],
                              tri[0], seq)
    return m + struct.pack('!H', csum(m) if fix else 0x1234)


def with_msg(enable, quanta, msg):
    f = pfc(enable, quanta)
    return f[:34] + msg + f[34 + len(msg):]


XOFF3 = [0, 0, 0, 0xffff, 0, 0, 0, 0]
put('dcfit_msg', 'xoff_trigger', with_msg(0x08, XOFF3, dcfit()))
put('dcfit_msg', 'check_only', with_msg(0, [0] * 8, dcfit(hops=2, gen=(7, 3), seq=9, tri=(7, 3))))
put('dcfit_msg', 'second_pass', with_msg(0, [0] * 8, dcfit(flags=1, hops=3, gen=(2, 1), seq=5)))
put('dcfit_msg', 'host_middle', with_msg(0x08, XOFF3, dcfit(flags=6, gen=(2, 1), tri=(6, 0))))
put('dcfit_msg', 'own_id', with_msg(0x08, XOFF3, dcfit(gen=(2, 3), tri=(2, 3))))
put('dcfit_msg', 'bare', dcfit(seq=0xa1b2c3d4))
put('dcfit_msg', 'bare_truncated', dcfit()[:13])
put('dcfit_msg', 'bad_checksum', with_msg(0x08, XOFF3, dcfit(fix=False)))
put('dcfit_msg', 'bad_version', with_msg(0x08, XOFF3, dcfit(version=2)))
put('dcfit_msg', 'bad_prio', with_msg(0x08, XOFF3, dcfit(prio=9)))
put('dcfit_msg', 'plain_pfc', pfc(0x08, XOFF3))
