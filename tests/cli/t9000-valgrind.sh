#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t9000-valgrind: the plain (unsanitized) build under valgrind: every unit test binary
# build/tests/test_* and a few `build/lvx` report commands on fixture images must run
# with no memory error and no definite leak (valgrind --error-exitcode=99).  One TAP line
# per run.  Uses $LVX_PLAIN (default build/lvx).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_cmd valgrind "$PYTHON"
PLAIN_DIR=$(dirname "$LVX_PLAIN")
[[ -x $LVX_PLAIN ]] || skip_all "$LVX_PLAIN not built (make all unit)"
plan_later

VG=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
    --track-fds=no --num-callers=30)

cd "$LVX_ROOT" || exit 1
for t in "$PLAIN_DIR"/tests/test_*; do
    [[ -x $t && -f $t ]] || continue
    test_ok "valgrind $(basename "$t")" "${VG[@]}" "$t"
done

# lvx itself on two fixture sets: striped (p02) and the segment type zoo (p08)
for scenario in p02_striped4_256k p08_segtype_zoo; do
    dir="$SCRATCH/$scenario"
    mapfile -t images < <(fixture_images "$scenario" "$dir")
    devices=$(IFS=,; echo "${images[*]}")
    vg=$(fixture_vgs "$scenario" | head -n1)
    while read -r -a cmd; do
        desc="valgrind lvx ${cmd[*]} ($scenario)"
        cmd=("${cmd[@]//FILE/$dir/backup.vg}")
        test_ok "$desc" "${VG[@]}" "$LVX_PLAIN" "${cmd[@]}" --devices "$devices"
    done <<CMDS
pvs
vgs -o +vg_uuid,vg_mda_free
lvs -a --segments -o +devices,seg_pe_ranges
pvs --segments
lvs -a --reportformat json --units b --nosuffix
pvdisplay
vgdisplay
lvdisplay -m
vgcfgbackup -f FILE $vg
CMDS
    rm -rf "$dir"
done

done_testing
