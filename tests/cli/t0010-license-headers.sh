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

# wrong LICENSE FILE...: the files whose tag (the first SPDX-License-Identifier in their
# first 3 lines) is another, or none: "FILE: TAG".  One awk for all the files (a pipeline
# of four commands per file took about a minute of CI).
wrong() {
    local want=$1
    shift
    awk -v want="$want" 'BEGIN {
        for (i = 1; i < ARGC; i++) {
            f = ARGV[i]; tag = ""; found = 0; n = 0
            while (n < 3 && (getline line < f) > 0) {
                n++
                if (!found && match(line, /SPDX-License-Identifier: [A-Za-z0-9.+-]*/)) {
                    tag = substr(line, RSTART + 25, RLENGTH - 25); found = 1
                }
            }
            close(f)
            if (tag != want) print f ": " tag
        }
    }' "$@"
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
