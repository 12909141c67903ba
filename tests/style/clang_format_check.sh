#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every C++ file of the tree follows the checked-in .clang-format (suite
# 'style'). Prints each file that differs and how to fix it; exits 77 (a
# skip, a failure under CI=true) when clang-format is not installed.
set -uo pipefail
cd "${1:?usage: clang_format_check.sh SOURCE_DIR}"
command -v clang-format >/dev/null || { echo "clang-format not installed"; exit 77; }
mapfile -t files < <(find dataplane ctrl tests bench tools -name '*.cc' -o -name '*.h' | sort)
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -ne 0 ]; then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "fix with: clang-format -i ${bad[*]}"
  exit 1
fi
echo "${#files[@]} files formatted as .clang-format says"
