#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# End-to-end: pfc-tagger gen-topo -> gen-elp -> tag (files) -> verify ->
# analyze, and clear errors for bad input. $1 = the pfc-tagger binary.
set -eu
T="$1"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$T" gen-topo leafspine:4:2:1 -o "$D/topo.json" >/dev/null
"$T" gen-elp --topo "$D/topo.json" --kind clos --bounces 1 -o "$D/elp.json" >/dev/null
"$T" tag --topo "$D/topo.json" --elp "$D/elp.json" --algo clos --clos-bounces 1 -o "$D/rules" >"$D/out" ||
  fail "tag clos: $(cat "$D/out")"
grep -q "summary: priorities=2 " "$D/out" || fail "clos 1-bounce should need 2 priorities: $(cat "$D/out")"
[ -f "$D/rules/t0.yaml" ] || fail "no rules file for t0"
grep -q "port_names: \[h0_0, sp0, sp1\]" "$D/rules/t0.yaml" || fail "port_names"
"$T" verify --topo "$D/topo.json" --elp "$D/elp.json" --rules "$D/rules" --allow-extra >"$D/v" ||
  fail "verify: $(cat "$D/v")"
grep -q "verify: OK" "$D/v" || fail "verify output"
# Strict verification against up-down-only paths rejects the Clos scheme's
# bounce transitions: they are beyond that ELP.
"$T" gen-elp --topo "$D/topo.json" --kind clos --bounces 0 -o "$D/elp0.json" >/dev/null
if "$T" verify --topo "$D/topo.json" --elp "$D/elp0.json" --rules "$D/rules" >"$D/v2"; then
  fail "strict verify should flag extra transitions"
fi
grep -q "not used by any ELP path" "$D/v2" || fail "extra transitions message"
# Clos scheme on FatTree(8) with 2 bounces, verified against every 2-bounce
# walk without enumerating them (more than 5,000,000 paths), then the files
# re-verified; rules for 1 bounce fail against 2-bounce walks (exit 2).
"$T" tag --topo-gen fattree:8 --algo clos --clos-bounces 2 --elp-gen clos --bounces 2 -o "$D/ft" >"$D/ft.out" ||
  fail "fattree:8 clos 2 bounces: $(cat "$D/ft.out")"
grep -q "summary: priorities=3 .*verified=yes" "$D/ft.out" || fail "fattree:8 summary: $(cat "$D/ft.out")"
"$T" verify --topo-gen fattree:8 --elp-gen clos --bounces 2 --rules "$D/ft" >"$D/ftv" || fail "re-verify fattree: $(cat "$D/ftv")"
grep -q "verify: OK" "$D/ftv" || fail "fattree verify output"
set +e
"$T" tag --topo-gen fattree:8 --algo clos --clos-bounces 1 --elp-gen clos --bounces 2 >"$D/ft1"
rc=$?
set -e
[ $rc -eq 2 ] || fail "1-bounce rules against 2-bounce walks should fail verification (rc $rc)"
grep -q "Clos walk (<= 2 bounces): at .* becomes lossy" "$D/ft1" || fail "walk failure message: $(cat "$D/ft1")"
# The greedy still needs the paths: enumeration stays bounded, with a hint.
if "$T" tag --topo-gen fattree:8 --elp-gen clos --bounces 2 --max-paths 1000 2>"$D/e"; then fail "greedy enumerated"; fi
grep -q "more than 1000 paths.*without enumerating" "$D/e" || fail "max-paths message: $(cat "$D/e")"
# Greedy on a Jellyfish with trees + random paths, verified after writing.
"$T" tag --topo-gen jellyfish:30:8:4:3 --elp-gen trees --extra 20 -o "$D/jf" >"$D/jo" || fail "greedy: $(cat "$D/jo")"
grep -q "verified=yes" "$D/jo" || fail "greedy not verified"
"$T" verify --topo-gen jellyfish:30:8:4:3 --elp-gen trees --extra 20 --rules "$D/jf" >/dev/null || fail "re-verify from files"
# Corrupt one file: a tag-1 rule now lowers tag 2 -> verify must fail.
# The generator is deterministic for this topology: a file with a tag-2
# rule must exist, and the edit must change it, or the check tests nothing.
f=$(grep -l "tag: 2," "$D/jf"/*.yaml | head -1)
[ -n "$f" ] || fail "no rules file with a tag-2 rule to corrupt"
cp "$f" "$D/before"
sed -i '0,/tag: 2, \(.*\)new_tag: 2/s//tag: 2, \1new_tag: 1/' "$f"
cmp -s "$f" "$D/before" && fail "corrupting $f changed nothing"
if "$T" verify --topo-gen jellyfish:30:8:4:3 --elp-gen trees --extra 20 --rules "$D/jf" >"$D/bad"; then
  fail "corrupted rules accepted"
fi
# Analysis: 1-bounce routes have a cyclic buffer dependency (exit 2).
set +e
"$T" analyze --topo "$D/topo.json" --elp "$D/elp.json" >"$D/a"
rc=$?
set -e
[ $rc -eq 2 ] || fail "analyze should report a cycle (rc $rc)"
grep -q "cyclic buffer dependency" "$D/a" || fail "analyze output"
# Bad input: clear errors, non-zero exit, no crash.
echo '{"nodes": [{"name": "a"}], "links": [["a", "b"]]}' >"$D/bad.json"
if "$T" tag --topo "$D/bad.json" --elp-gen trees 2>"$D/e"; then fail "bad topology accepted"; fi
grep -q "bad.json: links\[0\]\[1\]: unknown node 'b'" "$D/e" || fail "bad topology message: $(cat "$D/e")"
echo '{"paths": [{"nodes": ["h0_0", "t0", "t1"]}]}' >"$D/badelp.json"
if "$T" tag --topo "$D/topo.json" --elp "$D/badelp.json" 2>"$D/e"; then fail "bad ELP accepted"; fi
grep -q "badelp.json: paths\[0\].nodes\[2\]: no link between 't0' and 't1'" "$D/e" || fail "bad ELP message: $(cat "$D/e")"
if "$T" tag --topo-gen fattree:3 --elp-gen trees 2>"$D/e"; then fail "odd fattree accepted"; fi
grep -q "even" "$D/e" || fail "fattree message"
if "$T" tag --topo-gen nosuch:1 --elp-gen trees 2>/dev/null; then fail "bad spec accepted"; fi
# An unsigned option given a negative number, and an option the algorithm
# would ignore, are usage errors (exit 2), not silently taken.
set +e
"$T" tag --topo-gen leafspine:4:2:1 --elp-gen trees --search-budget -1 >/dev/null 2>"$D/e"
rc=$?
set -e
[ $rc -eq 2 ] || fail "--search-budget -1: rc $rc"
grep -q "search-budget: expected a number of edges >= 0" "$D/e" || fail "budget message: $(cat "$D/e")"
set +e
"$T" tag --topo-gen leafspine:4:2:1 --algo clos --search-budget 5 >/dev/null 2>"$D/e"
rc=$?
set -e
[ $rc -eq 2 ] || fail "--search-budget with clos: rc $rc"
grep -q "applies to --algo greedy only (got --algo clos)" "$D/e" || fail "budget/clos message: $(cat "$D/e")"
# Rules written with a DSCP plan and verified without it fail, with a hint
# naming the plan in the files' header.
printf 'tags:\n  - { dscp: 26, priority: 3 }\n  - { dscp: 27, priority: 4 }\npass:\n  - { dscp: 48, priority: 6 }\nlossy: { dscp: 0, priority: 0 }\n' >"$D/plan.yaml"
"$T" tag --topo "$D/topo.json" --elp-gen clos --bounces 1 --algo clos --plan "$D/plan.yaml" -o "$D/planned" >/dev/null ||
  fail "tag with a plan"
"$T" verify --topo "$D/topo.json" --elp-gen clos --bounces 1 --rules "$D/planned" --plan "$D/plan.yaml" >/dev/null ||
  fail "verify with the plan"
if "$T" verify --topo "$D/topo.json" --elp-gen clos --bounces 1 --rules "$D/planned" >"$D/np"; then
  fail "planned rules verified without the plan"
fi
grep -q "verify: hint: .*planned/t0.yaml was written with a DSCP plan.*--plan FILE" "$D/np" ||
  fail "no plan hint: $(tail -3 "$D/np")"
echo "cli ok"
