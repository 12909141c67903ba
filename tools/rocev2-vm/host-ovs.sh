# SPDX-License-Identifier: BSD-3-Clause
# host-ovs.sh: sourced by rocev2-vhost.sh after host-agent.sh. Open vSwitch with DPDK (Debian's
# openvswitch-switch-dpdk) attached to the guest's two NICs the way pfcswitch is: dpdkvhostuser
# ports (OVS is the vhost-user server) on the same sockets, vhua and vhub, so that
# bench/switch/perftest_compare.sh compares the two switches on the same guest in the same run.
# OVS runs from this run's directories as its own ovsdb-server and ovs-vswitchd (the DPDK build,
# called by path), never touching an OVS the host may run; hv_ovs_stop stops both.
#
# The work OVS does per packet, close to pfcswitch with tests/rocev2/rocev2.yaml: IPv4 with DSCP
# 24 (tos 96) from a0 leaves towards b0 rewritten to DSCP 26 (tos 104), other IPv4 keeps its
# DSCP in the other direction, every IPv4 packet has its TTL decremented; anything else (ARP)
# crosses unchanged. It switches at layer 2 (the guest uses its l2 address plan), so there is
# no routing lookup or MAC rewrite: that part of pfcswitch's work has no counterpart here.

HV_OVS_BIN=/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk
HV_OVS_DIR="" HV_OVSDB_PID="" HV_OVS_PID=""
# OVS_MAXSLEEP: pmd-maxsleep (us). OVS's PMD busy-polls by default; on two cores shared with
# qemu's vCPU threads that takes a whole core from the guest. pfcswitch sleeps when idle
# (idle_sleep_us), so OVS gets its own power-saving sleep too; OVS_MAXSLEEP=0 busy-polls.
HV_OVS_MAXSLEEP=${OVS_MAXSLEEP:-50}

hv_ovs_start() {
  local name
  [ -x "$HV_OVS_BIN" ] || { echo "hv_ovs_start: $HV_OVS_BIN missing (apt-get install openvswitch-switch-dpdk)"; return 1; }
  [ -n "$HV_OVS_PID" ] && hv_ovs_stop > /dev/null
  for name in vhua vhub; do hv_release $name ovs || return 1; done  # the sockets are OVS's now
  HV_OVS_DIR=$HV_OUT/ovs
  rm -rf "$HV_OVS_DIR"; mkdir -p "$HV_OVS_DIR"
  # OVS_RUNDIR holds the control sockets and, with vhost-sock-dir, the vhost-user sockets.
  local db=unix:$HV_OVS_DIR/db.sock
  export OVS_RUNDIR=$HV_VHU OVS_LOGDIR=$HV_OVS_DIR OVS_DBDIR=$HV_OVS_DIR OVS_SYSCONFDIR=$HV_OVS_DIR
  ovsdb-tool create "$HV_OVS_DIR/conf.db" /usr/share/openvswitch/vswitch.ovsschema || return 1
  ovsdb-server "$HV_OVS_DIR/conf.db" --remote="punix:$HV_OVS_DIR/db.sock" --unixctl="$HV_OVS_DIR/ovsdb.ctl" \
    --log-file="$HV_OVS_DIR/ovsdb.log" > /dev/null 2>&1 &
  HV_OVSDB_PID=$!
  for _ in $(seq 100); do [ -S "$HV_OVS_DIR/db.sock" ] && break; sleep 0.1; done
  local vsctl=(ovs-vsctl --db="$db" --timeout=60)
  # --no-huge needs --legacy-mem (OVS adds --in-memory otherwise); 1 GB for its mbuf pool.
  "${vsctl[@]}" --no-wait init &&
  "${vsctl[@]}" --no-wait set Open_vSwitch . other_config:dpdk-init=true \
    other_config:dpdk-lcore-mask=0x1 other_config:pmd-cpu-mask=0x2 \
    "other_config:pmd-maxsleep=$HV_OVS_MAXSLEEP" other_config:per-port-memory=true \
    "other_config:dpdk-extra=--no-huge --legacy-mem -m 1024 --no-shconf --no-pci --file-prefix rvh$$_ovs --log-level=lib.eal:error" ||
    return 1
  nice -n "$HV_NICE" "$HV_OVS_BIN" "$db" --unixctl="$HV_OVS_DIR/vswitchd.ctl" \
    --log-file="$HV_OVS_DIR/vswitchd.log" > "$HV_OVS_DIR/vswitchd.out" 2>&1 &
  HV_OVS_PID=$!
  "${vsctl[@]}" add-br br0 -- set bridge br0 datapath_type=netdev fail_mode=secure ||
    { tail -n 15 "$HV_OVS_DIR/vswitchd.log"; return 1; }
  local k=1
  for name in vhua vhub; do
    rm -f "$HV_VHU/$name"
    "${vsctl[@]}" add-port br0 $name -- set Interface $name type=dpdkvhostuser ofport_request=$k || return 1
    k=$((k + 1))
  done
  local br=unix:$HV_VHU/br0.mgmt
  ovs-ofctl del-flows "$br" && ovs-ofctl add-flows "$br" - <<'EOF' || return 1
priority=20,in_port=1,ip,nw_tos=96,actions=mod_nw_tos:104,dec_ttl,output:2
priority=10,in_port=1,ip,actions=dec_ttl,output:2
priority=10,in_port=2,ip,actions=dec_ttl,output:1
priority=5,in_port=1,actions=output:2
priority=5,in_port=2,actions=output:1
EOF
  for name in vhua vhub; do
    for _ in $(seq 100); do [ -S "$HV_VHU/$name" ] && break; sleep 0.1; done
    [ -S "$HV_VHU/$name" ] || { echo "OVS made no socket $HV_VHU/$name"; tail -n 15 "$HV_OVS_DIR/vswitchd.log"; return 1; }
  done
  hv_log "OVS-DPDK: pid $HV_OVS_PID, dpdkvhostuser vhua vhub, pmd-maxsleep $HV_OVS_MAXSLEEP"
  echo "OVS-DPDK forwarding on dpdkvhostuser vhua, vhub"
}

# hv_ovs_flows : the rules with their packet counts (shows which rule the traffic took).
hv_ovs_flows() { ovs-ofctl dump-flows "unix:$HV_VHU/br0.mgmt" | sed 's/cookie=[^ ]* //'; }

hv_ovs_stop() {
  [ -n "$HV_OVS_DIR" ] || return 0
  [ -n "$HV_OVS_PID" ] && { hv_ovs_flows > "$HV_OVS_DIR/flows.final.txt" 2>&1; cat "$HV_OVS_DIR/flows.final.txt"; }
  [ -n "$HV_OVS_PID" ] && { ovs-appctl -t "$HV_OVS_DIR/vswitchd.ctl" --timeout=10 exit > /dev/null 2>&1 || kill "$HV_OVS_PID"; }
  [ -n "$HV_OVSDB_PID" ] && { ovs-appctl -t "$HV_OVS_DIR/ovsdb.ctl" --timeout=5 exit > /dev/null 2>&1 || kill "$HV_OVSDB_PID"; }
  local pid
  for pid in $HV_OVS_PID $HV_OVSDB_PID; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  done
  hv_log "OVS-DPDK stopped"
  HV_OVS_PID="" HV_OVSDB_PID="" HV_HOLD[vhua]="" HV_HOLD[vhub]=""
}
