# SPDX-License-Identifier: BSD-3-Clause
# guest-lib.sh: sourced by bash scripts that run inside the rocev2-vm guest (tests/rocev2,
# bench/switch/perftest_compare.sh, tools/rocev2-demo.sh). Builds the two soft-RoCE hosts, starts and
# stops a forwarder between them, runs perftest pairs and captures what crosses the forwarder.
#
# Topology. rdma_rxe in Linux 6.1 binds its UDP socket and does its route lookups in the initial
# network namespace only (hosts in their own namespaces connect, then every work request
# completes with an error), so both hosts live in init_net and only the forwarder is namespaced:
#
#   rxeA/a0 ==veth== swA [netns sw: forwarder] swB ==veth== b0/rxeB
#
# Two address plans share the same veths, so one boot can compare forwarders:
#   l3 (pfcswitch, a router): a0 10.0.1.2/24 via 10.0.1.1, b0 10.0.2.2/24 via 10.0.2.1
#      (the gateways are the switch's port addresses in configs/demo.yaml and tests/rocev2/);
#   l2 (bridge, testpmd): a0 10.0.0.1/32, b0 10.0.0.2/32, each the other's direct neighbour.
# Policy rules for locally generated packets (iif lo) send A->B out of a0 and B->A out of b0;
# the `local` table is consulted only after them, or the kernel would short-cut the traffic.
# Client = host A, server = host B, so bulk data (write/send) flows a0 -> p0 -> p1 -> b0.
#
# Everything a run produces goes to $RV_OUT (the host's OUTDIR when run by rocev2-vm.sh).
# Functions return non-zero on failure and print why; they never exit the caller.

RV_OUT=${ROCEV2_OUT:-/tmp/rocev2-out}
RV_MTU=${RV_MTU:-1500}
RV_PERF_TIMEOUT=${RV_PERF_TIMEOUT:-60}
RV_A_L3=${RV_A_L3:-10.0.1.2} RV_A_GW=${RV_A_GW:-10.0.1.1}
RV_B_L3=${RV_B_L3:-10.0.2.2} RV_B_GW=${RV_B_GW:-10.0.2.1}
RV_A_L2=10.0.0.1 RV_B_L2=10.0.0.2
RV_FWD="" RV_FWD_PID="" RV_FWD_LOG="" RV_FWD_SEQ=0
mkdir -p "$RV_OUT"

rv_log() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*"; }
rv_now() { date +%s.%N; }
rv_since() { printf '%.1f' "$(echo "$(rv_now) - $1" | bc)"; }

# rv_require CMD... : every command exists, or print which are missing and return 1.
rv_require() {
  local c miss=""
  for c in "$@"; do command -v "$c" >/dev/null 2>&1 || miss="$miss $c"; done
  [ -z "$miss" ] && return 0
  echo "missing in the guest (i.e. on the host's /):$miss" >&2
  return 1
}

_rv_if_setup() {  # _rv_if_setup [netns] IFACE : no offloads (AF_PACKET ports need real checksums, no GSO)
  local pre=""
  [ $# -eq 2 ] && { pre="ip netns exec $1"; shift; }
  $pre ethtool -K "$1" tx off tso off gso off gro off >/dev/null 2>&1
  $pre ip link set "$1" up
}

# RV_NET: what a0 and b0 are. veth (default): veth pairs to swA/swB in netns sw, where the
# forwarders run inside the guest. vhost: the guest's two virtio-net NICs on vhost-user (MACs
# below, tools/rocev2-vm/rocev2-vhost.sh), whose far ends are ports of a switch running natively
# on the host; the rv_sw_* functions then ask the host agent to run the switches (rv_host).
RV_NET=${RV_NET:-veth}
RV_MAC_A=52:54:00:00:00:0a RV_MAC_B=52:54:00:00:00:0b

_rv_nic_by_mac() {  # _rv_nic_by_mac MAC : the interface with that address
  local d
  for d in /sys/class/net/*; do
    [ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && { echo "${d##*/}"; return 0; }
  done
  echo "no interface with MAC $1 (is the guest started with rocev2-vhost.sh?)" >&2
  return 1
}

_rv_links_up() {  # the a0 and b0 links for RV_NET
  if [ "$RV_NET" = vhost ]; then
    local a b
    a=$(_rv_nic_by_mac $RV_MAC_A) && b=$(_rv_nic_by_mac $RV_MAC_B) || return 1
    ip link set "$a" down && ip link set "$a" name a0 mtu "$RV_MTU" || return 1
    ip link set "$b" down && ip link set "$b" name b0 mtu "$RV_MTU" || return 1
    return 0
  fi
  ip netns add sw && ip netns exec sw ip link set lo up || return 1
  ip link add a0 mtu "$RV_MTU" type veth peer name swA mtu "$RV_MTU" netns sw || return 1
  ip link add b0 mtu "$RV_MTU" type veth peer name swB mtu "$RV_MTU" netns sw || return 1
  _rv_if_setup sw swA && _rv_if_setup sw swB
}

# rv_net_setup: a0/b0 (RV_NET), both address plans, policy routing, rxeA/rxeB. Once per boot,
# or again after rv_net_teardown (e.g. with the other RV_NET).
rv_net_setup() {
  sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
    net.ipv4.conf.all.accept_local=1 net.ipv4.conf.default.accept_local=1 \
    net.ipv4.conf.all.arp_ignore=1 net.ipv6.conf.all.disable_ipv6=1 \
    net.ipv6.conf.default.disable_ipv6=1 || return 1
  _rv_links_up || return 1
  local i
  for i in a0 b0; do
    # rp_filter would drop packets whose source is our own other address; accept_local lets
    # a0's packets (a local source) in at b0; arp_ignore=1 answers ARP on the right veth only.
    sysctl -qw net.ipv4.conf.$i.rp_filter=0 net.ipv4.conf.$i.accept_local=1 net.ipv4.conf.$i.arp_ignore=1
    _rv_if_setup $i
  done
  ip addr add $RV_A_L3/24 dev a0 && ip addr add $RV_B_L3/24 dev b0 || return 1
  ip addr add $RV_A_L2/32 dev a0 && ip addr add $RV_B_L2/32 dev b0 || return 1
  ip route add $RV_B_L3/32 via $RV_A_GW dev a0 src $RV_A_L3 onlink table 10 &&
  ip route add $RV_A_L3/32 via $RV_B_GW dev b0 src $RV_B_L3 onlink table 11 &&
  ip route add $RV_B_L2/32 dev a0 src $RV_A_L2 table 20 &&
  ip route add $RV_A_L2/32 dev b0 src $RV_B_L2 table 21 || return 1
  ip rule add pref 10 iif lo to $RV_B_L3 lookup 10 && ip rule add pref 11 iif lo to $RV_A_L3 lookup 11 &&
  ip rule add pref 20 iif lo to $RV_B_L2 lookup 20 && ip rule add pref 21 iif lo to $RV_A_L2 lookup 21 || return 1
  ip rule add pref 100 lookup local && ip rule del pref 0 || return 1
  rdma link add rxeA type rxe netdev a0 && rdma link add rxeB type rxe netdev b0 || return 1
  rv_log "net ($RV_NET): a0=$RV_A_L3/24 (gw $RV_A_GW), $RV_A_L2/32  b0=$RV_B_L3/24 (gw $RV_B_GW), $RV_B_L2/32, MTU $RV_MTU"
}
# rv_net_teardown : undo rv_net_setup (the virtio NICs get their MAC-derived names vha/vhb).
rv_net_teardown() {
  local p
  rdma link del rxeA; rdma link del rxeB
  ip rule add pref 0 lookup local; ip rule del pref 100
  for p in 10 11 20 21; do ip rule del pref $p; ip route flush table $p; done
  if [ "$RV_NET" = vhost ]; then
    ip addr flush dev a0; ip addr flush dev b0
    ip link set a0 down && ip link set a0 name vha; ip link set b0 down && ip link set b0 name vhb
  else
    ip link del a0; ip link del b0; ip netns del sw
  fi
}

# rv_host hv_FUNCTION ARGS... : run that function of tools/rocev2-vm/host-agent.sh on the host
# (RV_NET=vhost), print its output, return its status. Paths under $RV_OUT are the host's
# output directory there. Waits up to RV_HOST_TIMEOUT (120) seconds.
RV_HOST_SEQ=0
rv_host() {
  local q=$RV_OUT/hostq n
  RV_HOST_SEQ=$((RV_HOST_SEQ + 1))
  n=$q/g$$.$RV_HOST_SEQ
  [ -d "$q" ] || { echo "rv_host: no $q: the guest was not started by rocev2-vhost.sh" >&2; return 1; }
  echo "$*" > "$n.tmp" && mv "$n.tmp" "$n.req" || return 1
  for _ in $(seq $((${RV_HOST_TIMEOUT:-120} * 10))); do
    if [ -f "$n.rc" ]; then
      cat "$n.out"; return "$(cat "$n.rc")"
    fi
    sleep 0.1
  done
  echo "rv_host: no answer to '$*' within ${RV_HOST_TIMEOUT:-120} s" >&2
  return 1
}

# rv_find_gid RDMADEV IPV4 : print the index of the RoCE v2 GID for IPV4 (it appears a little
# after the address is added, so poll for up to 5 s). The table has hundreds of mostly empty
# entries: one grep reads them all, a loop of `cat`s would take seconds under TCG.
rv_find_gid() {
  local want g n
  want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${2//./ })
  for n in $(seq 50); do
    for g in $(grep -lx "$want" /sys/class/infiniband/$1/ports/1/gids/* 2>/dev/null); do
      [ "$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/${g##*/}" 2>/dev/null)" = "RoCE v2" ] || continue
      echo "${g##*/}"; return 0
    done
    sleep 0.1
  done
  echo "rv_find_gid: $1 has no RoCE v2 GID for $2" >&2
  return 1
}

# rv_use_plan l2|l3 : select the endpoint addresses and GIDs for rv_perf, with fresh ARP state
# (the other plan's forwarder answered with different MACs).
rv_use_plan() {
  case $1 in
    l3) RV_IPA=$RV_A_L3 RV_IPB=$RV_B_L3 ;;
    l2) RV_IPA=$RV_A_L2 RV_IPB=$RV_B_L2 ;;
    *) echo "rv_use_plan: unknown plan $1" >&2; return 1 ;;
  esac
  ip neigh flush dev a0; ip neigh flush dev b0
  RV_GIDA=$(rv_find_gid rxeA $RV_IPA) && RV_GIDB=$(rv_find_gid rxeB $RV_IPB) || return 1
  rv_log "plan $1: client rxeA gid[$RV_GIDA] $RV_IPA -> server rxeB gid[$RV_GIDB] $RV_IPB"
}

# rv_perf NAME BINARY ARGS... : one perftest pair (server on rxeB, client on rxeA -> RV_IPB).
# Sets RV_PERF_LINE (the client's last result row) and appends "NAME rc line" to
# $RV_OUT/perf.txt. Under TCG perftest sometimes cannot calibrate its cycle counter; only that
# failure is retried, up to RV_PERF_TRIES (6) tries with a growing pause between them: the
# calibration times usleep() against the TSC, and a guest whose vCPUs share the host with a
# busy-polling switch fails it in runs (CI once failed three tries in a row within 9 s).
# Returns 0 iff both sides exit 0 with a finite result row.
rv_perf() {
  local name=$1 bin=$2 try tries=${RV_PERF_TRIES:-6}
  shift 2
  RV_PERF_LINE="" RV_PERF_CLI="$RV_OUT/$name.cli.txt"
  for try in $(seq "$tries"); do
    _rv_perf_once "$name" "$bin" "$@" && return 0
    grep -qE 'Correlation coefficient|Unable to calibrate' "$RV_OUT/$name".{cli,srv}.txt 2>/dev/null || break
    [ "$try" -lt "$tries" ] || break
    rv_log "$name: perftest clock calibration failed under TCG, retry $try after ${try}s"
    sleep "$try"
  done
  echo "$name FAIL $RV_PERF_LINE" >> "$RV_OUT/perf.txt"
  rv_log "$name FAILED; end of client and server output:"
  tail -n 6 "$RV_OUT/$name.cli.txt" "$RV_OUT/$name.srv.txt" | sed 's/^/    /'
  return 1
}
_rv_perf_once() {
  local name=$1 bin=$2 port=$((18000 + RANDOM % 2000)) spid crc src t0 n
  shift 2
  timeout "$RV_PERF_TIMEOUT" stdbuf -oL -eL "$bin" -d rxeB -x "$RV_GIDB" -p $port "$@" > "$RV_OUT/$name.srv.txt" 2>&1 &
  spid=$!
  for n in $(seq 100); do ss -ltn | grep -q ":$port " && break; sleep 0.1; done
  t0=$(rv_now)
  timeout "$RV_PERF_TIMEOUT" stdbuf -oL -eL "$bin" -d rxeA -x "$RV_GIDA" -p $port "$@" "$RV_IPB" > "$RV_OUT/$name.cli.txt" 2>&1
  crc=$?
  wait $spid; src=$?
  # Result rows start with the message size and iteration count.
  RV_PERF_LINE=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ {l = $0} END {print l}' "$RV_OUT/$name.cli.txt" | tr -s ' ' | sed 's/^ //')
  if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ -n "$RV_PERF_LINE" ] && ! echo "$RV_PERF_LINE" | grep -q inf; then
    echo "$name OK $RV_PERF_LINE" >> "$RV_OUT/perf.txt"
    rv_log "$name OK in $(rv_since $t0)s :: $RV_PERF_LINE"
    return 0
  fi
  [ $crc -eq 124 ] || [ $src -eq 124 ] && rv_log "$name: timed out after ${RV_PERF_TIMEOUT}s"
  rv_log "$name: client rc=$crc server rc=$src"
  return 1
}
# rv_perf_metric : from RV_PERF_LINE, the BW average (Gb/s with --report_gbits) of a bandwidth
# test or t_typical (usec) of a latency test (the 3rd-from-1 column layouts differ).
rv_perf_metric() {
  case $1 in
    bw) echo "$RV_PERF_LINE" | awk '{print $4}' ;;
    lat) echo "$RV_PERF_LINE" | awk '{print $5}' ;;
  esac
}

# rv_perf_unit bw|lat : the unit perftest printed in the header of the column rv_perf_metric
# reads ("Gb/sec" with --report_gbits, "MB/sec" without; "usec"), from the last run's client log.
rv_perf_unit() {
  local col
  case $1 in bw) col='BW average' ;; lat) col='t_typical' ;; esac
  grep -o "$col\[[^]]*\]" "$RV_PERF_CLI" 2>/dev/null | tail -n 1 | sed 's/.*\[\(.*\)\]/\1/'
}

# ---- captures -------------------------------------------------------------------------------
# rv_cap_start NAME IFACE FILTER... : record what arrives at IFACE (i.e. what the forwarder sent).
rv_cap_start() {
  local name=$1 ifc=$2 n
  shift 2
  rm -f "$RV_OUT/$name.pcap"
  tcpdump -i "$ifc" -Q in -nn -U -w "$RV_OUT/$name.pcap" "$@" > "$RV_OUT/$name.tcpdump.txt" 2>&1 &
  eval "RV_CAP_${name//[^a-zA-Z0-9]/_}=$!"
  for n in $(seq 50); do grep -q 'listening on' "$RV_OUT/$name.tcpdump.txt" && return 0; sleep 0.1; done
  rv_log "tcpdump on $ifc did not start:"; cat "$RV_OUT/$name.tcpdump.txt"
  return 1
}
rv_cap_stop() {
  local var="RV_CAP_${1//[^a-zA-Z0-9]/_}"
  sleep 0.3
  [ -n "${!var:-}" ] && { kill -INT "${!var}" 2>/dev/null; wait "${!var}" 2>/dev/null; }
  eval "$var="
}
# rv_dscp_summary PCAP : "dscp26:123 dscp24:2" for the RoCEv2 (UDP 4791) packets in PCAP.
rv_dscp_summary() {
  local cnt tos hex
  tcpdump -nn -v -r "$1" 'udp dst port 4791' 2>/dev/null | grep -o 'tos 0x[0-9a-f]*' | sort | uniq -c |
    while read -r cnt tos hex; do printf 'dscp%d:%d\n' $((hex >> 2)) "$cnt"; done | sort -t: -k2 -rn | tr '\n' ' ' | sed 's/ $//'
}
# rv_ttl_summary PCAP : "ttl63:123" (a router decrements the TTL; a bridge does not).
rv_ttl_summary() {
  tcpdump -nn -v -r "$1" 'udp dst port 4791' 2>/dev/null | grep -o 'ttl [0-9]*' | sort | uniq -c |
    awk '{printf "ttl%s:%s ", $3, $1}' | sed 's/ $//'
}
# rv_pfc_decode PCAP : one line per PFC frame (MAC control opcode 0x0101) as tshark decodes it:
# source MAC, class-enable vector, then the pause time of classes 0..7 (in 512-bit quanta).
rv_pfc_decode() {
  local f=(-e eth.src -e macc.cbfc.enbv) c
  for c in 0 1 2 3 4 5 6 7; do f+=(-e macc.cbfc.pause_time.c$c); done
  tshark -r "$1" -Y 'macc.opcode == 0x0101' -T fields -E separator=' ' "${f[@]}" 2>/dev/null
}

# ---- forwarders -----------------------------------------------------------------------------
RV_EAL_COMMON="--no-huge --no-pci --no-shconf -m 256 --log-level=lib.eal:error"
# RV_FWD_NICE: nice value for the DPDK forwarders (0 = as is). Under TCG a forwarder that sleeps
# when idle waits up to a scheduler period (~12 ms on 2 vCPUs) behind two busy-polling perftest
# processes before it runs again; a negative nice lets it preempt them at once, as a dedicated
# core would. The Linux bridge runs in softirq context and needs nothing of the kind.
RV_FWD_NICE=${RV_FWD_NICE:-0}
# RV_PMD: how DPDK forwarders attach to the veths: af_packet (default) or af_xdp. Configs name
# their ports' devices net_af_packet0/1; for af_xdp a copy with net_af_xdp0/1 is used.
RV_PMD=${RV_PMD:-af_packet}
declare -A RV_SW_PID RV_SW_LOG RV_SW_PREFIX RV_SW_STATS RV_SW_NS

# rv_sw_start ID NETNS IFACE0 IFACE1 CONFIG : start a pfcswitch instance (binary $RV_PFCSWITCH)
# in NETNS with net_af_packet0 on IFACE0 and net_af_packet1 on IFACE1 (the names CONFIG's ports
# use) and wait until it forwards. Its log is $RV_OUT/pfcswitch.ID.log, its exit counters
# ${RV_SW_STATS[ID]}. rv_sw_launch + rv_sw_wait do the same in two steps, so that several
# instances can initialise at once (EAL start-up takes seconds under TCG).
rv_sw_start() { rv_sw_launch "$@" && rv_sw_wait "$1"; }
_rv_vdevs() {  # _rv_vdevs IFACE0 IFACE1 : EAL --vdev arguments for the two ports
  case $RV_PMD in
    af_packet) echo "--vdev net_af_packet0,iface=$1 --vdev net_af_packet1,iface=$2" ;;
    af_xdp) echo "--vdev net_af_xdp0,iface=$1,start_queue=0,queue_count=1 --vdev net_af_xdp1,iface=$2,start_queue=0,queue_count=1" ;;
    *) echo "unknown RV_PMD $RV_PMD" >&2; return 1 ;;
  esac
}
# With RV_NET=vhost the switch runs on the host (host-agent.sh hv_sw_launch, which returns once
# it forwards); the guest's interface names stand for the host's ports: swA and swB for the
# vhost-user sockets of a0 and b0, x1/x2 for the host's veth pair (rv_chain_setup). NETNS and
# RV_PFCSWITCH do not apply: the host runs its own native build.
_rv_host_port() {
  case $1 in swA) echo vhost:vhua ;; swB) echo vhost:vhub ;; x1|x2) echo afp:$1 ;;
    *) echo "no host port for guest interface $1" >&2; return 1 ;; esac
}
rv_sw_launch() {
  local id=$1 ns=$2 if0=$3 if1=$4 cfg=$5 vdevs
  RV_SW_LOG[$id]="$RV_OUT/pfcswitch.$id.log" RV_SW_STATS[$id]="$RV_OUT/pfcswitch.$id.stats.json"
  if [ "$RV_NET" = vhost ]; then
    local p0 p1
    p0=$(_rv_host_port "$if0") && p1=$(_rv_host_port "$if1") || return 1
    rv_host hv_sw_launch "$id" "$(readlink -f "$cfg")" "$p0" "$p1" > "$RV_OUT/host.$id.launch.txt" ||
      { rv_log "pfcswitch $id did not start on the host:"; sed 's/^/    /' "$RV_OUT/host.$id.launch.txt"; return 1; }
    RV_SW_PID[$id]=host
    return 0
  fi
  [ -x "${RV_PFCSWITCH:-}" ] || { echo "rv_sw_start: no pfcswitch binary at '${RV_PFCSWITCH:-}'" >&2; return 1; }
  [ -f "$cfg" ] || { echo "rv_sw_start: no config '$cfg'" >&2; return 1; }
  vdevs=$(_rv_vdevs "$if0" "$if1") || return 1
  if [ "$RV_PMD" != af_packet ]; then
    sed "s/net_af_packet\([0-9]\)/net_${RV_PMD}\1/g" "$cfg" > "$RV_OUT/pfcswitch.$id.$RV_PMD.yaml"
    cfg="$RV_OUT/pfcswitch.$id.$RV_PMD.yaml"
  fi
  RV_FWD_SEQ=$((RV_FWD_SEQ + 1))
  RV_SW_NS[$id]=$ns RV_SW_PREFIX[$id]="rv$$_$RV_FWD_SEQ"
  rm -f "${RV_SW_STATS[$id]}"
  ip netns exec "$ns" nice -n "$RV_FWD_NICE" "$RV_PFCSWITCH" -l 0,1 $RV_EAL_COMMON --file-prefix "${RV_SW_PREFIX[$id]}" \
    $vdevs -- \
    --config "$cfg" --stats-json "${RV_SW_STATS[$id]}" > "${RV_SW_LOG[$id]}" 2>&1 &
  RV_SW_PID[$id]=$!
}
rv_sw_wait() {
  if [ "$RV_NET" = vhost ]; then  # qemu reconnects to a restarted switch within a second
    local n
    for n in $(seq 100); do
      [ "$(cat /sys/class/net/a0/carrier /sys/class/net/b0/carrier 2>/dev/null)" = "1
1" ] && { rv_log "switch $1 up on the host, a0 and b0 have carrier"; return 0; }
      sleep 0.2
    done
    rv_log "a0/b0 have no carrier 20 s after switch $1 started: qemu did not reconnect?"
    return 1
  fi
  _rv_wait_ready "pfcswitch $1" ${RV_SW_PID[$1]} "${RV_SW_LOG[$1]}" '^pfcswitch: forwarding' || { RV_SW_PID[$1]=""; return 1; }
}
# rv_sw_stop ID : SIGINT, then the exit status must be 0 and the counters file must exist.
rv_sw_stop() {
  local id=$1 rc=0
  if [ "$RV_NET" = vhost ]; then
    rv_host hv_sw_stop "$id" > "$RV_OUT/host.$id.stop.txt" || rc=1
    [ $rc = 0 ] || sed 's/^/    /' "$RV_OUT/host.$id.stop.txt"
    RV_SW_PID[$id]=""
    return $rc
  fi
  _rv_stop_pid "pfcswitch $id" "${RV_SW_PID[$id]:-}" "${RV_SW_LOG[$id]}" || rc=1
  RV_SW_PID[$id]=""
  [ $rc = 0 ] || return 1
  [ -s "${RV_SW_STATS[$id]}" ] || { rv_log "pfcswitch $id wrote no ${RV_SW_STATS[$id]}"; return 1; }
}
# rv_sw_stats_live ID FILE : the running instance's counters via pfcctl (DPDK telemetry).
rv_sw_stats_live() {
  if [ "$RV_NET" = vhost ]; then
    rv_host hv_sw_stats "$1" "$2" > "$2.err" && return 0
    echo "pfcctl stats for pfcswitch $1 failed on the host: $(head -c 400 "$2.err")" >&2
    return 1
  fi
  [ -x "${RV_PFCCTL:-}" ] || { echo "rv_sw_stats_live: no pfcctl at '${RV_PFCCTL:-}'" >&2; return 1; }
  ip netns exec "${RV_SW_NS[$1]}" "$RV_PFCCTL" --file-prefix "${RV_SW_PREFIX[$1]}" stats > "$2" 2> "$2.err" && return 0
  echo "pfcctl stats for pfcswitch $1 failed: $(head -c 400 "$2.err")" >&2
  return 1
}

# rv_sw_sample_start ID / rv_sw_sample_stop ID : the running instance's counters (pfcctl stats)
# about once a second into $RV_OUT/samples/ID/<unix time>.json, for a plot over the run
# (tools/rocev2-vm/demo_plot.py). The telemetry socket is a path: no need to enter the netns.
declare -A RV_SAMPLER
rv_sw_sample_start() {
  local id=$1 dir=$RV_OUT/samples/$1 prefix=${RV_SW_PREFIX[$1]:-}
  if [ "$RV_NET" = vhost ]; then rv_host hv_sample_start "$id"; return; fi
  [ -x "${RV_PFCCTL:-}" ] || { echo "rv_sw_sample_start: no pfcctl at '${RV_PFCCTL:-}'" >&2; return 1; }
  mkdir -p "$dir"
  ( while :; do
      f=$dir/$(rv_now).json
      "$RV_PFCCTL" --file-prefix "$prefix" stats > "$f" 2>/dev/null || rm -f "$f"
      sleep 1
    done ) &
  RV_SAMPLER[$id]=$!
}
rv_sw_sample_stop() {
  if [ "$RV_NET" = vhost ]; then rv_host hv_sample_stop "$1"; return; fi
  [ -n "${RV_SAMPLER[$1]:-}" ] || return 0
  kill "${RV_SAMPLER[$1]}" 2>/dev/null; wait "${RV_SAMPLER[$1]}" 2>/dev/null
  RV_SAMPLER[$1]=""
}

_rv_wait_ready() {  # NAME PID LOG PATTERN: up to 90 s (EAL init under TCG takes several seconds)
  local t0 st
  t0=$(rv_now)
  while [ "$(echo "$(rv_now) - $t0 < 90" | bc)" = 1 ]; do
    grep -q "$4" "$3" 2>/dev/null && { rv_log "$1 up after $(rv_since $t0)s (log $3)"; return 0; }
    kill -0 $2 2>/dev/null || break
    sleep 0.2
  done
  kill -9 $2 2>/dev/null; wait $2 2>/dev/null
  st=$?
  rv_log "$1 did not start (exit status $st); its log ends with:"; tail -n 20 "$3" | sed 's/^/    /'
  # 132 = SIGILL: typically a -march=native build using AVX-512, which TCG cannot emulate.
  [ $st = 132 ] && rv_log "$1 died of an illegal instruction: build it for a CPU qemu/TCG emulates (AVX2 at most: -march=x86-64-v3, or add -mno-avx512f)"
  return 1
}
_rv_stop_pid() {  # NAME PID LOG: SIGINT, at most 20 s to exit, exit status 0
  local n rc=0
  [ -n "$2" ] || { rv_log "$1 is not running"; return 1; }
  kill -INT $2 2>/dev/null
  for n in $(seq 200); do kill -0 $2 2>/dev/null || break; sleep 0.1; done
  if kill -0 $2 2>/dev/null; then
    rv_log "$1 ignored SIGINT for 20 s; killing it"; kill -9 $2; wait $2 2>/dev/null; return 1
  fi
  wait $2 || { rc=$?; rv_log "$1 exited with status $rc; its log ends with:"; tail -n 10 "$3" | sed 's/^/    /'; }
  return $rc
}

# rv_fwd_start bridge|testpmd|pfcswitch|ovs [CONFIG] : one forwarder between a0 and b0 (in netns
# sw between swA and swB, or on the host for RV_NET=vhost: pfcswitch, ovs), and the address plan
# it needs (pfcswitch routes: l3; the others forward frames: l2).
rv_fwd_start() {
  RV_FWD=$1
  case $1 in
    bridge)
      ip netns exec sw sh -c 'ip link add br0 type bridge && ip link set swA master br0 &&
        ip link set swB master br0 && ip link set br0 up' || return 1
      rv_use_plan l2 ;;
    testpmd)
      if [ "$RV_NET" = vhost ]; then  # on the host (host-agent.sh), the I/O floor
        rv_host hv_testpmd_start > "$RV_OUT/host.testpmd.start.txt" ||
          { rv_log "testpmd did not start on the host:"; sed 's/^/    /' "$RV_OUT/host.testpmd.start.txt"; return 1; }
        rv_sw_wait testpmd && rv_use_plan l2
        return
      fi
      RV_FWD_SEQ=$((RV_FWD_SEQ + 1))
      RV_FWD_LOG="$RV_OUT/testpmd.$RV_FWD_SEQ.log"
      # Without a terminal testpmd stops at EOF on stdin unless it prints statistics periodically.
      ip netns exec sw nice -n "$RV_FWD_NICE" dpdk-testpmd -l 0,1 $RV_EAL_COMMON --file-prefix "rv$$_$RV_FWD_SEQ" \
        $(_rv_vdevs swA swB) -- \
        --forward-mode=io --nb-cores=1 --total-num-mbufs=8192 --stats-period 3600 > "$RV_FWD_LOG" 2>&1 &
      RV_FWD_PID=$!
      _rv_wait_ready testpmd $RV_FWD_PID "$RV_FWD_LOG" 'io packet forwarding' || return 1
      rv_use_plan l2 ;;
    pfcswitch)
      rv_sw_start main sw swA swB "${2:-}" || return 1
      rv_use_plan l3 || return 1
      rv_warm_l3 ;;
    ovs)  # Open vSwitch-DPDK on the host (RV_NET=vhost; tools/rocev2-vm/host-ovs.sh)
      [ "$RV_NET" = vhost ] || { echo "rv_fwd_start: ovs needs RV_NET=vhost" >&2; return 1; }
      rv_host hv_ovs_start > "$RV_OUT/host.ovs.start.txt" ||
        { rv_log "OVS-DPDK did not start on the host:"; sed 's/^/    /' "$RV_OUT/host.ovs.start.txt"; return 1; }
      rv_sw_wait ovs && rv_use_plan l2 ;;
    *) echo "rv_fwd_start: unknown forwarder $1" >&2; return 1 ;;
  esac
}
# rv_warm_l3 : a few pings both ways so the switch has resolved both hosts by ARP before
# measured traffic starts (its first packet to an unresolved host is dropped as neighbor_miss).
rv_warm_l3() {
  ping -c 2 -i 0.3 -W 2 -q $RV_B_L3 >/dev/null 2>&1
  if ! ping -c 2 -i 0.3 -W 2 -q $RV_B_L3 >/dev/null 2>&1; then
    rv_log "ping $RV_A_L3 -> $RV_B_L3 through the switch fails"; return 1
  fi
  ping -c 1 -W 2 -q $RV_A_L3 >/dev/null 2>&1
  return 0
}
# rv_fwd_alive : the forwarder process is still running; if not, say how it ended.
rv_fwd_alive() {
  local pid log st
  case $RV_FWD in
    testpmd) pid=$RV_FWD_PID log=$RV_FWD_LOG ;;
    pfcswitch) pid=${RV_SW_PID[main]:-} log=${RV_SW_LOG[main]:-} ;;
    *) return 0 ;;
  esac
  if [ "$pid" = host ]; then
    rv_host hv_sw_alive main > "$RV_OUT/host.alive.txt" && return 0
    rv_log "pfcswitch on the host is gone:"; sed 's/^/    /' "$RV_OUT/host.alive.txt"
    RV_SW_PID[main]=""
    return 1
  fi
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && return 0
  wait "$pid" 2>/dev/null; st=$?
  rv_log "$RV_FWD is gone (exit status $st); its log ends with:"; tail -n 5 "$log" | sed 's/^/    /'
  dmesg | grep -E 'segfault|trap|general protection' | tail -n 3 | sed 's/^/    kernel: /'
  RV_FWD_PID="" RV_SW_PID[main]=""
  return 1
}
rv_fwd_stop() {
  local rc=0
  case $RV_FWD in
    bridge) ip netns exec sw ip link del br0 || rc=1 ;;
    testpmd)
      [ "$RV_NET" = vhost ] && { rv_host hv_testpmd_stop || rc=1; RV_FWD="" RV_FWD_PID=""; return $rc; }
      _rv_stop_pid testpmd "$RV_FWD_PID" "$RV_FWD_LOG" || rc=1
      grep -A8 'Accumulated forward statistics' "$RV_FWD_LOG" | grep -E 'RX-packets|TX-packets' | tr -s ' ' | head -n 2 ;;
    pfcswitch) rv_sw_stop main || rc=1 ;;
    ovs) RV_FWD_SEQ=$((RV_FWD_SEQ + 1))
      rv_host hv_ovs_stop > "$RV_OUT/ovs.flows.$RV_FWD_SEQ.txt" || rc=1 ;;
  esac
  RV_FWD="" RV_FWD_PID=""
  return $rc
}

# ---- two switches in a row (for PFC between switch instances) -------------------------------
# rv_chain_setup : swB moves to a second switch namespace sw2, and a veth x1 (in sw) <-> x2 (in
# sw2) links the two switches:  a0 = swA [sw] x1 ==== x2 [sw2] swB = b0.
# rv_chain_teardown restores the single-switch topology.
rv_chain_setup() {
  [ "$RV_NET" = vhost ] && { rv_host hv_link_setup; return; }
  ip netns add sw2 && ip -n sw2 link set lo up || return 1
  ip -n sw link set swB netns sw2 || return 1
  ip link add x1 mtu "$RV_MTU" netns sw type veth peer name x2 mtu "$RV_MTU" netns sw2 || return 1
  _rv_if_setup sw x1 && _rv_if_setup sw2 x2 && _rv_if_setup sw2 swB
}
rv_chain_teardown() {
  [ "$RV_NET" = vhost ] && { rv_host hv_link_teardown; return; }
  ip -n sw2 link set swB netns sw
  ip -n sw link del x1 2>/dev/null
  ip netns del sw2
  _rv_if_setup sw swB
}
