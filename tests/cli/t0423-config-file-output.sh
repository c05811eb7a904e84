#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0423-config-file-output: `lvmconfig -f FILE` / `dumpconfig --file FILE` (LVM2's
# shell tests write the configuration to a file this way): compared with LVM2 on the
# same sandbox lvm.conf for the whole configuration, a section and a missing node:
# same exit code and output, the same file contents and mode (an empty file when the
# node is missing).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

side_setup 1
for args in "" "devices" "global/nosuch" "devices global/nosuch"; do
    for c in lvmconfig dumpconfig; do
        rm -f "$SCRATCH/fl" "$SCRATCH/fx"
        rl=0 rx=0
        # shellcheck disable=SC2086
        lvm2 $c -f "$SCRATCH/fl" $args >"$SCRATCH/l.out" 2>"$SCRATCH/l.err" || rl=$?
        # shellcheck disable=SC2086
        lvx $c --file "$SCRATCH/fx" $args >"$SCRATCH/x.out" 2>"$SCRATCH/x.err" || rx=$?
        d="$c -f FILE $args"
        test_eq "$d: exit code" "$rl" "$rx"
        test_eq "$d: output" "$(cat "$SCRATCH/l.out" "$SCRATCH/l.err" | side_filter)" \
            "$(cat "$SCRATCH/x.out" "$SCRATCH/x.err" | side_filter)"
        test_ok "$d: file contents" cmp "$SCRATCH/fl" "$SCRATCH/fx"
        test_eq "$d: file mode" "$(stat -c %a "$SCRATCH/fl")" "$(stat -c %a "$SCRATCH/fx")"
    done
done
lvx lvmconfig -f "$SCRATCH/fx" >/dev/null 2>&1
test_eq "the file holds what stdout would" "$(lvx lvmconfig 2>/dev/null)" "$(cat "$SCRATCH/fx")"
done_testing
