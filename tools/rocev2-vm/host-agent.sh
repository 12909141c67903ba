# SPDX-License-Identifier: BSD-3-Clause
# host-agent.sh: sourced by rocev2-vhost.sh (bash, on the HOST). The switches the guest's
# soft-RoCE hosts reach over vhost-user run here, natively; the guest asks for them through a
# mailbox in the shared output directory, because only the host can start host processes:
#
#   guest (guest-lib.sh rv_host): writes  $OUT/hostq/<id>.req   one line: hv_FUNCTION ARGS...
#   host  (hv_serve, below):      runs it, writes <id>.out (its output), then <id>.rc
#
# Only functions named hv_* defined here are run. Arguments are words without spaces; a path
# under /rocev2-out (the guest's view of $OUT) is translated to $OUT.
#
# Ports. A switch's port i is given as vhost:NAME (DPDK net_vhost<i> serving the socket
# $OUT/vhu/NAME, which a guest NIC reaches: rocev2-vm.sh -n) or afp:IFACE (net_af_packet<i> on
# a host interface in this run's namespace, see hv_link_setup). Configs name their port i
# device net_af_packet<i>; hv_sw_launch rewrites it for vhost ports. A vhost socket is served by
# one switch at a time: launching a switch on it stops the one that held it, and qemu (the
# client) reconnects within a second.
#
# Owns: every process it started (switches, samplers, testpmd, Open vSwitch) and the namespace;
# hv_cleanup stops them all.

HV_OUT=${HV_OUT:?} HV_VHU=$HV_OUT/vhu HV_Q=$HV_OUT/hostq
HV_NS=rvh$$ HV_NS_UP=0
HV_NICE=${HV_NICE:--10}   # the switch is the packet path: it must not wait behind qemu's vCPUs
HV_EAL="--no-huge --no-pci --no-shconf -m 256 --log-level=lib.eal:error"
declare -A HV_PID HV_ARGS HV_PREFIX HV_HOLD HV_SAMPLER
HV_TP_PID=""

hv_log() { echo "[host $(date +%T)] $*" >> "$HV_OUT/host-agent.log"; }

# hv_sw_launch ID CONFIG PORT0 PORT1 : start pfcswitch ($HV_PFCSWITCH) as switch ID and wait
# until it forwards. An instance with the same ID and arguments that is still running is kept.
hv_sw_launch() {
  local id=$1 cfg=$2 i spec vdevs="" sed="" ns="" pfx log
  shift 2
  if [ -n "${HV_PID[$id]:-}" ] && kill -0 "${HV_PID[$id]}" 2>/dev/null; then
    [ "${HV_ARGS[$id]}" = "$cfg $*" ] && { echo "pfcswitch $id already running"; return 0; }
    hv_sw_stop "$id" || return 1
  fi
  [ -f "$cfg" ] || { echo "hv_sw_launch: no config $cfg"; return 1; }
  i=0
  for spec in "$@"; do
    case $spec in
      vhost:*)
        hv_release "${spec#vhost:}" "$id" || return 1
        vdevs+=" --vdev net_vhost$i,iface=$HV_VHU/${spec#vhost:},queues=1"
        sed+="s/net_af_packet$i\\b/net_vhost$i/;" ;;
      afp:*)
        [ $HV_NS_UP = 1 ] || { echo "hv_sw_launch: $spec needs hv_link_setup first"; return 1; }
        ns="ip netns exec $HV_NS"
        vdevs+=" --vdev net_af_packet$i,iface=${spec#afp:}" ;;
      *) echo "hv_sw_launch: port $i: expected vhost:NAME or afp:IFACE, got '$spec'"; return 1 ;;
    esac
    i=$((i + 1))
  done
  sed "$sed" "$cfg" > "$HV_OUT/pfcswitch.$id.yaml"
  pfx=rvh$$_$id log=$HV_OUT/pfcswitch.$id.log
  rm -f "$HV_OUT/pfcswitch.$id.stats.json"
  # shellcheck disable=SC2086 # word lists on purpose
  $ns nice -n "$HV_NICE" "$HV_PFCSWITCH" -l 0,1 $HV_EAL --file-prefix "$pfx" $vdevs -- \
    --config "$HV_OUT/pfcswitch.$id.yaml" --stats-json "$HV_OUT/pfcswitch.$id.stats.json" > "$log" 2>&1 &
  HV_PID[$id]=$! HV_ARGS[$id]="$cfg $*" HV_PREFIX[$id]=$pfx
  hv_log "pfcswitch $id: pid ${HV_PID[$id]}, ports $*, config $cfg"
  for i in $(seq 300); do
    grep -q '^pfcswitch: forwarding' "$log" && { echo "pfcswitch $id forwarding after $((i / 5)) s"; return 0; }
    kill -0 "${HV_PID[$id]}" 2>/dev/null || break
    sleep 0.2
  done
  kill -9 "${HV_PID[$id]}" 2>/dev/null; wait "${HV_PID[$id]}" 2>/dev/null
  echo "pfcswitch $id did not start (exit $?); its log ends with:"; tail -n 15 "$log"
  HV_PID[$id]=""
  return 1
}

# hv_release NAME NEWHOLDER : stop whatever serves vhost socket NAME (a switch or OVS).
hv_release() {
  local holder=${HV_HOLD[$1]:-}
  if [ "$holder" = ovs ]; then hv_ovs_stop > /dev/null
  elif [ "$holder" = testpmd ]; then hv_testpmd_stop > /dev/null
  elif [ -n "$holder" ] && [ -n "${HV_PID[$holder]:-}" ]; then hv_sw_stop "$holder" || return 1; fi
  HV_HOLD[$1]=$2
}

# hv_sw_stop ID : SIGINT; it must exit 0 within 20 s and leave its --stats-json counters.
hv_sw_stop() {
  local id=$1 pid=${HV_PID[$1]:-} n rc=0
  [ -n "$pid" ] || { echo "pfcswitch $id is not running"; return 1; }
  hv_sample_stop "$id"
  kill -INT "$pid" 2>/dev/null
  for n in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && { echo "pfcswitch $id ignored SIGINT for 20 s"; kill -9 "$pid"; }
  wait "$pid" || rc=$?
  HV_PID[$id]=""
  hv_log "pfcswitch $id stopped (exit $rc)"
  [ $rc = 0 ] || { echo "pfcswitch $id exited with status $rc; its log ends with:"; tail -n 10 "$HV_OUT/pfcswitch.$id.log"; return 1; }
  [ -s "$HV_OUT/pfcswitch.$id.stats.json" ] || { echo "pfcswitch $id wrote no counters"; return 1; }
}

# hv_testpmd_start / hv_testpmd_stop : dpdk-testpmd in io mode on vhua and vhub, busy-polling a
# core: the I/O floor, what a host switch that did no work and never slept would give the guest
# (bench/switch/perftest_compare.sh's reference for how much of the gap to the in-guest bridge any host
# switch could close). testpmd 22.11 gives vhost-user backends no checksum offloads either.
hv_testpmd_start() {
  local name log=$HV_OUT/testpmd.host.log
  [ -n "$HV_TP_PID" ] && hv_testpmd_stop > /dev/null
  for name in vhua vhub; do hv_release $name testpmd || return 1; done
  # Without a terminal testpmd stops at EOF on stdin unless it prints statistics periodically.
  # shellcheck disable=SC2086 # word list on purpose
  nice -n "$HV_NICE" dpdk-testpmd -l 0,1 $HV_EAL --file-prefix "rvh$$_tp" \
    --vdev "net_vhost0,iface=$HV_VHU/vhua,queues=1" --vdev "net_vhost1,iface=$HV_VHU/vhub,queues=1" -- \
    --forward-mode=io --nb-cores=1 --total-num-mbufs=8192 --stats-period 3600 < /dev/null > "$log" 2>&1 &
  HV_TP_PID=$!
  for _ in $(seq 150); do
    grep -q 'io packet forwarding' "$log" && { hv_log "testpmd: pid $HV_TP_PID"; echo "testpmd io on vhua, vhub"; return 0; }
    kill -0 "$HV_TP_PID" 2>/dev/null || break
    sleep 0.2
  done
  echo "testpmd did not start; its log ends with:"; tail -n 15 "$log"
  kill -9 "$HV_TP_PID" 2>/dev/null; wait "$HV_TP_PID" 2>/dev/null
  HV_TP_PID="" HV_HOLD[vhua]="" HV_HOLD[vhub]=""
  return 1
}
hv_testpmd_stop() {
  [ -n "$HV_TP_PID" ] || return 0
  local rc=0
  kill -INT "$HV_TP_PID" 2>/dev/null
  for _ in $(seq 100); do kill -0 "$HV_TP_PID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$HV_TP_PID" 2>/dev/null && { echo "testpmd ignored SIGINT for 10 s"; kill -9 "$HV_TP_PID"; rc=1; }
  wait "$HV_TP_PID" 2>/dev/null
  hv_log "testpmd stopped"
  grep -A8 'Accumulated forward statistics' "$HV_OUT/testpmd.host.log" | grep -E 'RX-packets|TX-packets' | tr -s ' ' | head -n 2
  HV_TP_PID="" HV_HOLD[vhua]="" HV_HOLD[vhub]=""
  return $rc
}

# hv_sw_alive ID : the switch is running; if not, how it ended.
hv_sw_alive() {
  local pid=${HV_PID[$1]:-}
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && return 0
  [ -n "$pid" ] && { wait "$pid"; echo "pfcswitch $1 is gone (exit status $?)"; HV_PID[$1]=""; }
  tail -n 5 "$HV_OUT/pfcswitch.$1.log" 2>/dev/null
  return 1
}

# hv_sw_stats ID FILE : the running switch's counters (pfcctl stats, DPDK telemetry) into FILE.
hv_sw_stats() {
  [ -x "${HV_PFCCTL:-}" ] || { echo "hv_sw_stats: no pfcctl"; return 1; }
  "$HV_PFCCTL" --file-prefix "${HV_PREFIX[$1]}" stats > "$2"
}

# hv_sample_start ID / hv_sample_stop ID : counters about once a second into
# $OUT/samples/ID/<unix time>.json (tools/rocev2-vm/demo_plot.py plots them).
hv_sample_start() {
  local dir=$HV_OUT/samples/$1 pfx=${HV_PREFIX[$1]:-}
  [ -x "${HV_PFCCTL:-}" ] && [ -n "$pfx" ] || { echo "hv_sample_start: no pfcctl or no switch $1"; return 1; }
  mkdir -p "$dir"
  ( while :; do
      f=$dir/$(date +%s.%N).json
      "$HV_PFCCTL" --file-prefix "$pfx" stats > "$f" 2>/dev/null || rm -f "$f"
      sleep 1
    done ) > /dev/null 2>&1 &
  HV_SAMPLER[$1]=$!
}
hv_sample_stop() {
  [ -n "${HV_SAMPLER[$1]:-}" ] || return 0
  kill "${HV_SAMPLER[$1]}" 2>/dev/null; wait "${HV_SAMPLER[$1]}" 2>/dev/null
  HV_SAMPLER[$1]=""
}

# hv_link_setup / hv_link_teardown : a veth pair x1 <-> x2 in this run's namespace, to link two
# switches (afp:x1, afp:x2) for PFC between them.
hv_link_setup() {
  [ $HV_NS_UP = 1 ] && return 0
  ip netns add "$HV_NS" && ip -n "$HV_NS" link set lo up &&
    ip -n "$HV_NS" link add x1 mtu 1500 type veth peer name x2 mtu 1500 || return 1
  local i
  # No IPv6 (router solicitations and MLD reports would reach the switches as lossy noise).
  ip netns exec "$HV_NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  for i in x1 x2; do
    ip netns exec "$HV_NS" ethtool -K $i tx off tso off gso off gro off > /dev/null 2>&1
    ip -n "$HV_NS" link set $i up || return 1
  done
  HV_NS_UP=1
}
hv_link_teardown() {
  [ $HV_NS_UP = 1 ] || return 0
  ip netns del "$HV_NS" && HV_NS_UP=0
}

# hv_cleanup : stop everything this agent started.
hv_cleanup() {
  local id
  for id in "${!HV_SAMPLER[@]}"; do hv_sample_stop "$id"; done
  for id in "${!HV_PID[@]}"; do [ -n "${HV_PID[$id]}" ] && hv_sw_stop "$id" > /dev/null; done
  declare -F hv_ovs_stop > /dev/null && hv_ovs_stop > /dev/null
  hv_testpmd_stop > /dev/null
  hv_link_teardown
}

# hv_serve : answer requests until $HV_Q/.stop appears, then clean up.
hv_serve() {
  local req base line args f
  mkdir -p "$HV_Q"
  while [ ! -e "$HV_Q/.stop" ]; do
    for req in $(ls -tr "$HV_Q"/*.req 2>/dev/null); do
      base=${req%.req}
      read -r line < "$req"; rm -f "$req"
      read -ra args <<< "$line"
      for f in "${!args[@]}"; do
        case ${args[$f]} in /rocev2-out/*|/rocev2-out) args[$f]=$HV_OUT${args[$f]#/rocev2-out} ;; esac
      done
      hv_log "request: ${args[*]}"
      if [[ ${args[0]:-} =~ ^hv_[a-z_]+$ ]] && declare -F "${args[0]}" > /dev/null; then
        "${args[@]}" > "$base.out" 2>&1
        echo $? > "$base.rc.tmp"
      else
        echo "host agent: unknown request '${args[0]:-}'" > "$base.out"; echo 2 > "$base.rc.tmp"
      fi
      hv_log "done (rc $(cat "$base.rc.tmp")): $(tail -n 1 "$base.out")"
      mv "$base.rc.tmp" "$base.rc"
    done
    sleep 0.1
  done
  hv_cleanup
}
