#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/tools/tap-exec.sh FILE - how prove runs one test (prove --exec): shell tests
# through bash (no need for the executable bit), anything else directly.  With
# LVX_TAP_LOG_DIR set, the test's TAP output is also kept there as <file name>.tap
# (tests/run-all.sh prints the failed checks and diagnostics of failed files from it),
# with a last line "# tap-exec: exit N" (the test's exit status) added to the copy only.
case $1 in
*.sh) cmd=(bash "$1") ;;
*) cmd=("$1") ;;
esac
[[ -n ${LVX_TAP_LOG_DIR:-} ]] || exec "${cmd[@]}"
log=$LVX_TAP_LOG_DIR/$(basename "$1").tap
"${cmd[@]}" | tee "$log"
st=${PIPESTATUS[0]}
echo "# tap-exec: exit $st" >>"$log"
exit "$st"
