#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0673-thin-errorwhenfull: `--errorwhenfull y|n` of thin pools without device-mapper,
# checked by LVM2 (activation off):
#   * lvcreate -T --errorwhenfull y writes ERROR_WHEN_FULL (LVM2's lv_when_full: error),
#     without it lvm.conf's activation/error_when_full decides (LVM2 reads both);
#   * lvchange --errorwhenfull n|y: lvx's lines and exit code equal LVM2's on the same
#     pool (a change, the "already set" warning), and LVM2 reads the flag lvx wrote;
#   * refused as LVM2: on a plain LV (its rule lines, exit 5), lvcreate --errorwhenfull
#     of a plain LV; nothing written.  Also LVM2's refusal to reduce a pool (lvreduce,
#     lvresize to less).
# The kernel side (the pool table's error_if_no_space) is t0702's (VM).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later

D1=$(make_loop 64M) || { _tap_result 1 "loop device"; done_testing; }
X() { lvx "$@" --devices "$D1"; }
sums() { sha_devs "$D1"; }
when() { "$@" lvs --noheadings -o lv_name,lv_when_full vgw 2>/dev/null | tr -s ' ' | sed 's/ *$//'; }

test_ok "lvx makes vgw, pool p1 with --errorwhenfull y, p2 without, a plain LV" sh -c \
    "'$LVX' pvcreate -q $D1 --devices $D1 && '$LVX' vgcreate -q vgw $D1 --devices $D1 &&
     '$LVX' lvcreate -q -T -L 8m --errorwhenfull y vgw/p1 --devices $D1 >/dev/null &&
     '$LVX' lvcreate -q -T -L 8m vgw/p2 --devices $D1 >/dev/null &&
     '$LVX' lvcreate -q -an -L 4m -n plain vgw --devices $D1 >/dev/null"
test_ok "lvm.conf activation/error_when_full = 1 makes p3 error when full" sh -c \
    "'$LVX' lvcreate -q -T -L 8m vgw/p3 --devices $D1 --config 'activation { error_when_full = 1 }' >/dev/null"
test_eq "LVM2 reads error/queue/error for p1/p2/p3" "$(when lvm2 | grep -E '^ p[123]')" \
    " p1 error
 p2 queue
 p3 error"
test_eq "lvx's lv_when_full equals LVM2's" "$(when X)" "$(when lvm2)"
test_ok "LVM2's vgck" lvm2 vgck vgw

# the same lvchange by lvx and then by LVM2 (it undoes lvx's first when they differ)
same() {  # same DESC ARGS...: lvx's lines/code equal LVM2's on the same pool state
    local desc=$1 xrc=0 lrc=0 xo lo pre
    shift
    pre=$(when lvm2)
    lvm2 vgcfgbackup -f "$SCRATCH/pre.vg" vgw >/dev/null 2>&1
    xo=$(X "$@" 2>&1) || xrc=$?
    local xstate
    xstate=$(when lvm2)
    lvm2 vgcfgrestore --force -f "$SCRATCH/pre.vg" vgw >/dev/null 2>&1
    lo=$(lvm2 "$@" 2>&1) || lrc=$?
    lo=$(sandbox_noise <<<"$lo")
    xo=$(sandbox_noise <<<"$xo")
    test_eq "$desc: lvx's lines and exit code equal LVM2's" "$xrc $xo" "$lrc $lo"
    test_eq "$desc: the flag lvx wrote equals LVM2's" "$xstate" "$(when lvm2)"
    [[ -n $pre ]]
}
same "lvchange --errorwhenfull n of p1" lvchange --errorwhenfull n vgw/p1
same "lvchange --errorwhenfull n of p1 again (already unset)" lvchange --errorwhenfull n vgw/p1
same "lvchange --errorwhenfull y of p2" lvchange --errorwhenfull y vgw/p2
same "lvchange --errorwhenfull y of a plain LV" lvchange --errorwhenfull y vgw/plain
same "lvreduce of a pool is refused" lvreduce -f -L -4m vgw/p1
same "lvresize of a pool to less is refused" lvresize -f -L 4m vgw/p2

before=$(sums)
rc=0
out=$(X lvcreate -an -L 4m --errorwhenfull y -n p9 vgw 2>&1) || rc=$?
lrc=0
lout=$(lvm2 lvcreate -an -L 4m --errorwhenfull y -n p9 vgw 2>&1) || lrc=$?
test_eq "lvcreate --errorwhenfull of a plain LV: refused as LVM2 (line, code)" "$rc $out" \
    "$lrc $(grep -v 'WARNING: Activation disabled' <<<"$lout")"
test_eq "lvcreate --errorwhenfull of a plain LV: nothing written" "$(sums)" "$before"
test_ok "LVM2's vgck at the end" lvm2 vgck vgw
test_ok "vgremove" X vgremove -f vgw
done_testing
