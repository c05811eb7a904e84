#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0010-license-headers: every source file names its license in an SPDX tag, the one
# LICENSES.md gives its part: liblvx (everything under src/ but src/lvx.c, and the
# public headers under include/) LGPL-2.1-or-later; the lvx program (src/lvx.c),
# tests, tools, fuzz harnesses, benchmarks and the build scripts GPL-2.0-or-later.
# No devices.
source "$(dirname "$0")/../lib.sh"
cd "$LVX_ROOT" || exit 1
plan_later

spdx() { head -n 3 "$1" | grep -o 'SPDX-License-Identifier: [A-Za-z0-9.+-]*' | head -n 1 | cut -d' ' -f2; }
wrong() {  # wrong LICENSE FILE...: the files whose tag is another (or none)
    local want=$1 f
    shift
    for f in "$@"; do
        [[ $(spdx "$f") == "$want" ]] || echo "$f: $(spdx "$f")"
    done
}
mapfile -t LIB < <(git ls-files 'src/*.c' 'src/*.h' 'include/*.h' | grep -vx src/lvx.c)
mapfile -t TOOLS < <(git ls-files src/lvx.c 'tests/*.c' 'tests/*.h' 'tests/*.sh' 'tests/*.py' \
    'tools/*.c' 'tools/*.sh' 'fuzz/*.c' 'bench/*.sh' 'bench/*.py' .ci/run Makefile)
test_ok "there are liblvx sources (${#LIB[@]}) and tool sources (${#TOOLS[@]})" \
    test "${#LIB[@]}" -gt 100 -a "${#TOOLS[@]}" -gt 100
test_eq "every liblvx source is LGPL-2.1-or-later" "$(wrong LGPL-2.1-or-later "${LIB[@]}")" ""
test_eq "every tool, test, fuzz, bench and build source is GPL-2.0-or-later" \
    "$(wrong GPL-2.0-or-later "${TOOLS[@]}")" ""
done_testing
