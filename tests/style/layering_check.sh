#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The layering the README's layout section promises (suite 'style'): the
# switch knows no emulator. No C++ file of dataplane/ outside
# dataplane/emulator/ (nor of ctrl/) includes one of the emulator's headers
# or names its namespace, and no meson.build outside it builds one of its
# files. And the switch knows no mechanism: dataplane/switch/ includes
# neither the stages above it nor a mechanism's algorithms (dataplane/dcfit/);
# a mechanism's state lives in its own module, in the switch's slots
# (switch/mechanism_state.h). Prints each offending line.
set -uo pipefail
cd "${1:?usage: layering_check.sh SOURCE_DIR}"
bad=0
report() {  # what, then grep's output (file:line:text), if any
  [ -z "$2" ] && return
  echo "$1:"
  echo "$2" | sed 's/^/  /'
  bad=1
}
mapfile -t code < <(find dataplane ctrl \( -name '*.cc' -o -name '*.h' \) \
  -not -path 'dataplane/emulator/*' | sort)
report "includes from the switch into dataplane/emulator/" \
  "$(grep -nE '#include "dataplane/emulator/' "${code[@]}")"
report "emulator types named by the switch" \
  "$(grep -nE '\bemulator::' "${code[@]}")"
mapfile -t switch_code < <(find dataplane/switch \( -name '*.cc' -o -name '*.h' \) | sort)
report "includes from the switch into the stages or a mechanism" \
  "$(grep -nE '#include "dataplane/(stages|dcfit)/' "${switch_code[@]}")"
mapfile -t builds < <(find dataplane ctrl -name meson.build -not -path 'dataplane/emulator/*' | sort)
report "emulator files built by another folder's library" \
  "$(grep -nE '^[^#]*(emulator/|emu_(port|model))' "${builds[@]}")"
if [ $bad -ne 0 ]; then
  echo "the emulator is a library over the switch (dataplane/emulator/meson.build):"
  echo "give the switch an interface it owns (e.g. switch/port_io.h) instead;"
  echo "a mechanism's state goes in its module (stages/mechanism.h: make_state)"
  exit 1
fi
echo "${#code[@]} switch and ctrl files, ${#builds[@]} meson.build files: no emulator in the switch"
