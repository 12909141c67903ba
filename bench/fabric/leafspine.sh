# SPDX-License-Identifier: BSD-3-Clause
# Sourced by bench/fabric/cost.sh: the steady leaf-spine fabric it measures.
# leafspine_switch FILE : writes the switches' template (tag 1 lossless on priority 1).
# With CC=dcqcn in the environment, ECN marking on priority 1 too (and the
# flows of leafspine_body ECN-capable under DCQCN): what having them on costs.
# With TRANSPORT=rc, the flows are RC queue pairs writing 64 KB messages
# without end (1,000-byte payloads, an ACK a packet).
leafspine_switch() {
  cat > "$1" <<'Y'
switch: { idle_sleep_us: 0 }
qos: { tag_map: { 1: 1, 48: 6 }, lossless: [1], lossy_priority: 0, lossy_tag: 0 }
buffer: { total_bytes: 3M, cell_bytes: 512, lossless: { reserved: 8K, xoff: 32K, headroom: auto } }
Y
  if [[ ${CC:-none} == dcqcn ]]; then
    cat >> "$1" <<'Y'
ecn:
  profiles: { P: { green_min_threshold: 5K, green_max_threshold: 20K, green_drop_probability: 10 } }
  queues: [ { priorities: [1], profile: P } ]
Y
  fi
}
# leafspine_body TORS SWITCH_CONFIG : prints the fabric file's sections after `fabric:` for a
# leaf-spine of TORS ToRs, 2 spines and 2 hosts a ToR (40 Gb/s, 1 us links), every host sending
# 10 Gb/s of lossless traffic (tag 1, priority 1) to its twin under the next ToR.
leafspine_body() {
  local t=$1 i j cc=""
  [[ ${CC:-none} == dcqcn ]] && cc=", ecn: ect0, cc: dcqcn"
  [[ ${TRANSPORT:-raw} == rc ]] && cc+=", transport: rc, message: 64K"
  echo "topology: { gen: 'leafspine:$t:2:2' }"
  echo "links: { rate: 40G, delay: 1us }"
  echo "switch: { config: $2 }"
  echo "flows:"
  # leafspine names: ToR t<i>, hosts h<i>_<j> (see ctrl/tagger/topo_gen.cc)
  for ((i = 0; i < t; i++)); do
    for j in 0 1; do
      echo "  - { name: f${i}_$j, from: h${i}_$j, to: h$(((i + 1) % t))_$j, dscp: 1, prio: 1, rate: 10G$cc }"
    done
  done
}
