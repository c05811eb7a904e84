#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0614-raid-resize: lvextend/lvreduce/lvresize of RAID LVs, host side, on twin VGs
# (tests/tools/lv_twin.sh: side A changed by lvx, side B by LVM2):
#   * raid0 (LVM2 makes and resizes it without device-mapper): after each lvextend,
#     lvreduce, lvresize (with -L, -l, PV lists) lvx's exit status, messages, layout
#     and metadata text equal LVM2's;
#   * raid1/raid4/raid5/raid6/raid10 made by lvx on side A and copied to side B
#     (twin_resync): the same resizes by both tools when LVM2 can do them here;
#     otherwise lvx's result is checked for LVM2's rules: every rimage grew by its
#     share (data stripes), the rmeta sub-LVs unchanged, images on distinct PVs, and
#     LVM2's vgck accepts it (the VM test t0713 compares them with LVM2 itself).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 5 128M vg1

meta() {  # the VG's metadata text without ids, times, hosts, seqno, devices
    "lvm_$1" vgcfgbackup -f "$SCRATCH/meta_$1.vg" vg1 >/dev/null 2>&1
    sed -n '/^vg1 {/,$p' "$SCRATCH/meta_$1.vg" |
        sed -E '/^\t*(id|creation_time|creation_host|seqno|device|dev_size) = /d'
}
# both DESC CMD ARGS...: lvx on side A, LVM2 on side B; exit status, messages, layout
# and metadata text equal ("%N": disk N of the side)
both() {
    local desc=$1 rca=0 rcb=0 oa ob
    shift
    local -a aa ab
    mapfile -d '' aa < <(twin_args a "$@")
    mapfile -d '' ab < <(twin_args b "$@")
    # the backup warning (both print it: t0949 checks where) is left out on both sides
    # the sandbox's own lines (activation off) are LVM2's alone
    oa=$(lvx_a "${aa[@]}" 2>&1 </dev/null | sandbox_noise; exit "${PIPESTATUS[0]}") || rca=$?
    ob=$(lvm_b "${ab[@]}" 2>&1 </dev/null | sandbox_noise; exit "${PIPESTATUS[0]}") || rcb=$?
    test_eq "$desc: lvx exits as LVM2 and says what it says" "$rca $oa" "$rcb $ob"
    test_eq "$desc: layout equals LVM2's" "$(diff <(twin_lvs a) <(twin_lvs b))" ""
    test_eq "$desc: metadata text equals LVM2's" "$(diff <(meta a) <(meta b))" ""
}

both "raid0 -i2 -L 8m" lvcreate -an -Zn --type raid0 -i2 -L 8m -n z vg1
both "raid0 -i3 -I64k -L 12m" lvcreate -an -Zn --type raid0 -i3 -I64k -L 12m -n y vg1
both "lvextend -L +4m raid0 -i2 (rounded up to the stripes)" lvextend -L +4m vg1/z
both "lvextend -l +3 raid0 -i3" lvextend -l +3 vg1/y
both "lvextend -L +8m raid0 onto disks 3 and 4" lvextend -L +8m vg1/z %3 %4
both "lvextend -L +8m raid0 onto one disk: refused" lvextend -L +8m vg1/y %4
both "lvreduce -y -L -8m raid0" lvreduce -y -L -8m vg1/z
both "lvresize -y -l 3 raid0 -i3" lvresize -y -l 3 vg1/y
both "lvreduce without -y: not reduced" lvreduce -L -4m vg1/y
both "lvextend of a raid0 image directly: refused" lvextend -L +4m vg1/z_rimage_0

# ---------------------------------------------------------------- other types (lvx)
test_ok "lvx lvremove of the raid0 LVs" lvx_a lvremove -y vg1/z vg1/y
for def in "r1:--type raid1 -m1 -L 8m" "r5:--type raid5 -i2 -L 8m" "r6:--type raid6 -i3 -L 12m" \
           "r10:--type raid10 -i2 -m1 -L 8m" "r4:--type raid4 -i2 -L 8m"; do
    n=${def%%:*}
    # shellcheck disable=SC2086
    test_ok "lvx lvcreate ${def#*:} -n $n" lvx_a lvcreate -an -Zn ${def#*:} -n "$n" vg1
done
test_ok "side B gets side A's metadata" twin_resync
# per LV: images (rimage PEs), rmeta PEs; a report of the sub-LVs
subs() { lvm_a lvs -a --noheadings --separator ' ' -o lv_name,seg_pe_ranges vg1 2>/dev/null | sed 's/^ *//; s/[][]//g'; }
for step in "r1:+4m:1" "r5:+4m:1" "r6:+12m:1" "r10:+4m:1" "r4:+8m:1"; do
    IFS=: read -r n size per <<<"$step"
    before=$(subs)
    out=$(lvx_a lvextend -L "$size" "vg1/$n" 2>&1); rc=$?
    test_eq "lvx lvextend -L $size vg1/$n: exit 0" "$rc" 0
    [[ $rc == 0 ]] || diag "$out"
    test_eq "$n: the rmeta sub-LVs unchanged" "$(subs | grep "_rmeta_")" "$(grep "_rmeta_" <<<"$before")"
    imgs=$(lvm_a lvs -a --noheadings -o lv_name,seg_le_ranges,devices vg1 2>/dev/null | grep -c "${n}_rimage_")
    test_ok "$n: every rimage has LVM2's size share (lv size / data stripes)" "$PYTHON" - "$(
        lvm_a lvs -a --noheadings --units s --nosuffix -o lv_name,lv_size,segtype,stripes vg1 2>/dev/null)" "$n" <<'PY'
import sys
rows = [l.split() for l in sys.argv[1].splitlines() if l.split()]
n = sys.argv[2]
top = [r for r in rows if r[0] == n][0]
size, seg, images = int(top[1]), top[2], int(top[3])
ds = {"raid1": 1, "raid10": images // 2, "raid6": images - 2}.get(seg, images - 1)
sizes = {}
for r in rows:
    if r[0].strip("[]").startswith(n + "_rimage_"):
        sizes[r[0]] = int(r[1])
assert len(sizes) == images, sizes
assert all(v == size // ds for v in sizes.values()), (size, ds, sizes)
PY
    test_eq "$n: $imgs rimage segment lines" "$((imgs > 0))" 1
    pvsets=$(lvm_a lvs -a --noheadings -o lv_name,devices vg1 2>/dev/null | awk -v p="${n}_rimage_" 'index($1, p) { sub(/\(.*/, "", $2); print $1, $2 }' | sort -u)
    test_eq "$n: images on distinct PVs" "$(awk '{ print $2 }' <<<"$pvsets" | sort | uniq -d)" ""
done
test_ok "LVM2's vgck accepts lvx's resized RAID LVs" lvm_a vgck vg1
out=$(lvx_a lvreduce -y -L -4m vg1/r1 2>&1); rc=$?
test_eq "lvx lvreduce of raid1 without device-mapper: LVM2's refusal" "$rc $out" \
    "5   RAID module does not support shrinking."
out=$(lvx_a lvresize -y -L 8m vg1/r1 2>&1); rc=$?
test_eq "lvx lvresize -y -L 8m vg1/r1 (lvresize does not ask the kernel): exit 0" "$rc" 0
test_eq "r1 back to 8 MiB, each image 2 extents" \
    "$(lvm_a lvs -a --noheadings --units m --nosuffix -o lv_name,lv_size vg1 2>/dev/null | awk '$1 ~ /r1(\]|$)|r1_rimage/ { print $2 }' | sort -u)" "8.00"
test_ok "LVM2's vgck accepts the reduced LV" lvm_a vgck vg1
done_testing
