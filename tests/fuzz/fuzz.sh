#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds and runs the libFuzzer targets of tests/fuzz with clang (meson's
# compiler is g++, which has no libFuzzer), with ASan and UBSan; any sanitizer
# report aborts. Objects are cached in OUT/obj and rebuilt when their source
# or any header of the tree is newer.
#
#   fuzz.sh targets                          the target names
#   fuzz.sh build SRC OUT TARGET             build OUT/fuzz_TARGET
#   fuzz.sh run SRC OUT TARGET [ARGS...]     build, then run it on a copy of the
#                                            checked-in corpus with its dictionary;
#                                            ARGS go to libFuzzer (-max_total_time=20)
# A crash, a sanitizer report, an invariant violation, an input slower than
# -timeout or a leak makes `run` exit non-zero and leaves the input in
# OUT/TARGET-crash-* (or -timeout-, -leak-, -oom-), printed in base64 too.
set -eu
TARGETS="parser pfc_frame telemetry_cmd config dcfit_msg fabric"
CLANGXX=${CLANGXX:-clang++}

# Sources of each target besides tests/fuzz/fuzz_TARGET.cc (paths in the tree).
sources() {
  case $1 in
    parser) echo dataplane/net/parser.cc dataplane/net/ipv4_edit.cc ;;
    pfc_frame) echo dataplane/pause/pfc_frame.cc dataplane/pause/pause_timer.cc ;;
    telemetry_cmd) echo dataplane/pfcswitch/telemetry_cmd.cc ;;
    dcfit_msg) echo dataplane/dcfit/message.cc dataplane/dcfit/causality.cc \
      dataplane/dcfit/detector.cc dataplane/pause/pfc_frame.cc ;;
    # The loaders, the sections, and the pure code a config is checked with.
    config)
      (cd "$src" && ls dataplane/config/*.cc dataplane/net/*.cc dataplane/tables/*.cc \
        dataplane/buffer/*.cc dataplane/sched/*.cc dataplane/pause/*.cc) | tr '\n' ' ' ;;
    # The fabric loader, the topology generators, and what the config
    # target has (the switch config a fabric names is checked with it).
    fabric)
      (cd "$src" && ls dataplane/config/*.cc dataplane/net/*.cc dataplane/tables/*.cc \
        dataplane/buffer/*.cc dataplane/sched/*.cc dataplane/pause/*.cc \
        dataplane/emulator/spec/fabric_spec.cc dataplane/emulator/spec/nic_sections.cc \
        dataplane/emulator/spec/fabric_plan.cc dataplane/emulator/model/*.cc \
        ctrl/tagger/topology.cc ctrl/tagger/topo_gen.cc) | tr '\n' ' ' ;;
    *) echo "fuzz.sh: unknown target '$1' (expected one of: $TARGETS)" >&2; exit 2 ;;
  esac
}
libs() { case $1 in config) echo -lyaml-cpp ;; fabric) echo -lyaml-cpp -lisal ;; esac; }
# Longest input: a frame (with VLAN tags) for the parser, a frame for the PFC
# decoder, a request line, a config small enough that yaml-cpp stays fast.
max_len() {
  case $1 in parser) echo 2048 ;; pfc_frame | dcfit_msg) echo 128 ;; telemetry_cmd) echo 512 ;; config | fabric) echo 4096 ;; esac
}

build() {
  command -v "$CLANGXX" >/dev/null ||
    { echo "fuzz.sh: $CLANGXX not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
  t=$1
  mkdir -p "$out/obj"
  # The newest header: every object older than it is rebuilt.
  newest_h=$(find "$src/dataplane" "$src/tests/fuzz" \( -name '*.h' -o -name '*.txt' \) \
    -newer "$out/obj" 2>/dev/null | head -1)
  [ -n "$newest_h" ] && rm -f "$out"/obj/*.o && touch "$out/obj"
  objs=""
  for f in tests/fuzz/fuzz_$t.cc $(sources "$t"); do
    o="$out/obj/$(echo "$f" | tr / _).o"
    if [ ! -f "$o" ] || [ "$src/$f" -nt "$o" ]; then
      "$CLANGXX" -std=c++20 -g -O1 -fno-omit-frame-pointer \
        -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
        -fsanitize-coverage-ignorelist="$src/tests/fuzz/coverage_ignore.txt" \
        -I"$src" -c "$src/$f" -o "$o.tmp"
      mv "$o.tmp" "$o"
    fi
    objs="$objs $o"
  done
  bin="$out/fuzz_$t"
  # shellcheck disable=SC2086
  if [ ! -f "$bin" ] || [ -n "$(find $objs -newer "$bin" | head -1)" ]; then
    "$CLANGXX" -fsanitize=fuzzer,address,undefined $objs $(libs "$t") -o "$bin.tmp"
    mv "$bin.tmp" "$bin"
  fi
}

run() {
  t=$1
  shift
  build "$t"
  # New inputs go to the first directory (a work copy), never into the tree.
  mkdir -p "$out/corpus-$t"
  dict=""
  [ -f "$src/tests/fuzz/$t.dict" ] && dict="-dict=$src/tests/fuzz/$t.dict"
  # libFuzzer's own exit code for what it finds is 77, which meson reads as
  # "skipped": 1 instead. On a failure the input is printed (base64), so that
  # a CI log alone reproduces it.
  rm -f "$out/$t"-crash-* "$out/$t"-leak-* "$out/$t"-oom-* "$out/$t"-timeout-*
  rc=0
  # shellcheck disable=SC2086
  "$out/fuzz_$t" -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 \
    -error_exitcode=1 -print_final_stats=1 -artifact_prefix="$out/$t-" $dict "$@" \
    "$out/corpus-$t" "$src/tests/fuzz/corpus/$t" || rc=$?
  if [ "$rc" -ne 0 ]; then
    for a in "$out/$t"-crash-* "$out/$t"-leak-* "$out/$t"-oom-* "$out/$t"-timeout-*; do
      [ -f "$a" ] || continue
      echo "fuzz.sh: $a (base64; reproduce: base64 -d > in && $out/fuzz_$t in):"
      base64 "$a"
    done
    exit "$rc"
  fi
}

cmd=${1:-}
case $cmd in
  targets) echo $TARGETS ;;
  build|run)
    src=${2:?source root}; out=${3:?output dir}; target=${4:?target}
    shift 4
    src=$(cd "$src" && pwd)
    sources "$target" >/dev/null
    "$cmd" "$target" "$@" ;;
  *) echo "usage: fuzz.sh targets | build SRC OUT TARGET | run SRC OUT TARGET [LIBFUZZER ARGS]" >&2; exit 2 ;;
esac
