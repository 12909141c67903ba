#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The Clos bounce scheme at scale (issue 12 item 7): FatTree(K) with B
# bounces, rules generated from the layers, compressed, written to files and
# verified against every B-bounce walk without enumerating paths (before,
# FatTree(8) with 2 bounces was refused for exceeding 5,000,000 paths).
# Usage: bench/ctrl/clos_fattree.sh [BUILD_DIR] [K ...]   (default K: 16 32)
# BOUNCES overrides B (default 2). Each K runs twice: exact rules (hairpins
# kept lossy) and --hairpin-drop rules; both are verified. Prints per K the
# wall time, CPU time, peak memory, priorities and max rules per switch; the
# last line is
#   RESULT bounces=<B> fattree<K>_s=<s> fattree<K>_peak_mb=<m> ... priorities=<p>
#          max_rules=<exact, largest K> max_rules_hp=<hairpin drop> verified=<yes|NO>
set -eu
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD="${1:-$REPO/build}"
[ $# -ge 1 ] && shift
KS="${*:-16 32}"
B="${BOUNCES:-2}"
source "$REPO/bench/lib.sh"
pfc_build_target "$BUILD" ctrl/tagger/pfc-tagger
T="$BUILD/ctrl/tagger/pfc-tagger"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT

field() { sed -n "s/^summary:.* $1=\([^ ]*\).*/\1/p" "$2"; }
# run NAME [options]: one tag run under /usr/bin/time; sets s cpu mb.
run() {
  name=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$D/time" "$T" tag --topo-gen "fattree:$k" --algo clos \
    --clos-bounces "$B" --elp-gen clos --bounces "$B" -o "$D/rules-$name" "$@" >"$D/$name" 2>&1 ||
    { echo "FatTree($k) $name failed:"; tail -5 "$D/$name"; exit 1; }
  read -r s u sy kb <"$D/time"
  cpu=$(awk "BEGIN { print $u + $sy }")
  mb=$((kb / 1024))
}

printf '%-12s | %-8s | %-7s | %-7s | %-10s | %-10s | %s\n' case switches "wall s" "cpu s" "peak MB" \
  priorities "max rules exact / hairpin-drop, verified"
result="RESULT bounces=$B"
verified=yes
for k in $KS; do
  run exact
  s_ex=$s cpu_ex=$cpu mb_ex=$mb
  run hp --hairpin-drop
  sw=$(sed -n 's/^  topology *\([0-9]*\) switches.*/\1/p' "$D/exact")
  p=$(field priorities "$D/exact")
  r=$(field max_rules "$D/exact")
  rh=$(field max_rules "$D/hp")
  v1=$(field verified "$D/exact")
  v2=$(field verified "$D/hp")
  [ "$v1" = yes ] && [ "$v2" = yes ] || verified=NO
  printf '%-12s | %-8s | %-7s | %-7s | %-10s | %-10s | %s / %s (%s, %s)\n' "FatTree($k)" "$sw" "$s_ex" \
    "$cpu_ex" "$mb_ex" "$p" "$r" "$rh" "$v1" "$v2"
  grep '^  seconds' "$D/exact" | sed 's/^  seconds */    exact run seconds: /'
  result="$result fattree${k}_s=$s_ex fattree${k}_peak_mb=$mb_ex"
done
echo "$result priorities=$p max_rules=$r max_rules_hp=$rh verified=$verified"
