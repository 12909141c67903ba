#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""DCFIT initial-trigger handling in the fabric emulator (suite 'fabric';
bench/dcfit/fig5.py's setting, 6 ms of virtual time): a host behind t0_1
keeps pausing it, and the loop a0_0-c0-a1_0-c1 deadlocks from outside.
With recovery: break alone the deadlock is declared again and again (at
least twice); with trigger_handling it is declared once, by a0_0, whose
notice reaches t0_1 (the trigger switch, one hop away), whose port to the
host stops honouring its pause for the hold time, and the loop flows keep
moving after. Counters and events agree; no lossless drop.
Then the same place with a switch trigger (an incast into h0_1_0 instead
of the storm, 6 ms): baseline, the deadlock comes back; handled, it is
declared once, the notice reaches t0_1 (the trigger itself), which
rate-limits the heavy hitters into h0_1_0 for the hold time, and it does
not come back; lossless drops only as dcfit_rate_limit.

  dcfit_trigger_test.py BUILD_DIR SOURCE_DIR
"""
import os
import sys
import tempfile

from pfclib.checks import check, finish  # noqa: E402
from pfclib.fabric_results import results  # noqa: E402
from dcfit import fig5 as F  # noqa: E402

fabric = os.path.join(sys.argv[1], "dataplane/emulator/pfcfabric")


def port_sum(r, sw, counter, port=None):
    return sum(p[counter] for p in r["switches"][sw]["ports"] if port is None or p["name"] == port)


with tempfile.TemporaryDirectory(prefix="fabric-dcfit-trig-") as tmp:
    base, handled = F.run_both(fabric, tmp, 6)
    check("baseline: the deadlock comes back (>= 2 declared)", base["deadlocks"] >= 2, str(base["deadlocks"]))
    check("baseline: no trigger handling happens", base["holds"] == [] and base["notices"] == [])
    check("baseline: every declaration is broken", all(e["break"] for e in base["events"] if e["kind"] == "deadlock"))
    dl = [e for e in handled["events"] if e["kind"] == "deadlock"]
    check("handled: declared once", len(dl) == 1, str(len(dl)))
    if dl:
        check("handled: by the middle switch a0_0, trigger a host", dl[0]["switch"] == "a0_0" and dl[0]["trigger_host"],
              str(dl[0]))
    sent = [e for e in handled["notices"] if e["kind"] == "notice_sent"]
    check("handled: one notice sent, by a0_0 towards t0_1", len(sent) == 1 and sent[0]["switch"] == "a0_0" and
          sent[0]["port"] == "t0_1", str(handled["notices"]))
    check("handled: no notice lost", not any(e["kind"] == "notice_no_route" for e in handled["notices"]))
    check("handled: one hold: t0_1's port to the host made lossy",
          len(handled["holds"]) == 1 and handled["holds"][0]["kind"] == "host_lossy" and
          handled["holds"][0]["switch"] == "t0_1" and handled["holds"][0]["port"] == "h0_1_0",
          str(handled["holds"]))
    if dl and handled["holds"]:
        h = handled["holds"][0]
        check("handled: the hold starts right after the declaration (one link away)",
              0 < h["t_ns"] - dl[0]["t_ns"] <= 5_000, f"{h['t_ns'] - dl[0]['t_ns']} ns")
        check("handled: held for hold_time (50 ms)", h["until_ns"] - h["t_ns"] == 50_000_000)
        check("handled: the hold names the declaring episode", h["declared_by"] == dl[0]["initiator"] and
              h["trigger"] == dl[0]["trigger"] and h["seq"] == dl[0]["seq"])
    r = results(handled["dir"])
    check("handled: counters: a0_0 sent the notice on t0_1", port_sum(r, "a0_0", "dcfit_notice_tx", "t0_1") == 1)
    check("handled: counters: t0_1 received it", port_sum(r, "t0_1", "dcfit_notice_rx") == 1)
    check("handled: counters: one hold at t0_1", r["switches"]["t0_1"]["dcfit_trigger_holds"] == 1)
    if dl:
        t0 = dl[0]["t_ns"] / 1e6 + 0.5
        after = [g for fl in ("green", "blue") for t, g in handled["norm"][fl] if t >= t0]
        mean = sum(after) / len(after) if after else 0
        check("handled: the loop flows keep moving after (>= 0.8 of their rate)", mean >= 0.8, f"{mean:.3f}")
        check("handled: ... every bin", min(after, default=0) >= 0.5, f"min {min(after, default=0):.3f}")
    check("baseline: the loop flows lose most of their rate", base["tput"] < 0.5, f"{base['tput']:.3f}")
    for rec in (base, handled):
        check(f"{rec['tag']}: no lossless drop", rec["lossless_drops"] == 0, str(rec["lossless_drops"]))

    # A switch trigger: t0_1 congested by the incast pauses a0_0 itself.
    os.makedirs(os.path.join(tmp, "switch"))
    base, handled = F.run_both(fabric, os.path.join(tmp, "switch"), 6, trigger="switch")
    check("switch: baseline: the deadlock comes back (>= 2 declared)", base["deadlocks"] >= 2, str(base["deadlocks"]))
    dl = [e for e in handled["events"] if e["kind"] == "deadlock"]
    check("switch: handled: declared once, by a0_0, trigger a switch",
          len(dl) == 1 and dl[0]["switch"] == "a0_0" and not dl[0]["trigger_host"], str(dl))
    check("switch: handled: one notice, a0_0 to t0_1 directly (not round the loop)",
          [(e["kind"], e["switch"], e["port"]) for e in handled["notices"]] == [("notice_sent", "a0_0", "t0_1")],
          str(handled["notices"]))
    hold = handled["holds"]
    check("switch: handled: one rate limit, at t0_1 on its port from a0_0 (P_tri)",
          len(hold) == 1 and hold[0]["kind"] == "rate_limit" and hold[0]["switch"] == "t0_1" and
          hold[0]["port"] == "a0_0", str(hold))
    if hold:
        hh = hold[0]["hitters"]
        check("switch: handled: >= 2 heavy hitters, all into the congested host",
              len(hh) >= 2 and len({h["flow"].split(">")[1] for h in hh}) == 1, str(hh))
        check("switch: handled: held for hold_time (50 ms)", hold[0]["until_ns"] - hold[0]["t_ns"] == 50_000_000)
    check("switch: handled: the limit dropped (dcfit_rate_limit)", handled["rate_limit_drops"] > 0)
    check("switch: baseline: no rate limit", base["rate_limit_drops"] == 0 and base["holds"] == [])
    for rec in (base, handled):
        check(f"switch: {rec['tag']}: no other lossless drop", rec["lossless_drops"] == 0, str(rec["lossless_drops"]))
finish()
