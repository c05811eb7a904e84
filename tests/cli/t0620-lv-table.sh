#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0620-lv-table: `lvx lvtable VG/LV` prints the device-mapper table of linear, 2/3/4-
# stripe (64k/128k/256k) and multi-segment LVs; the expected lines are built from LVM2's
# own segment and PV reports (tests/tools/dm_table_expect.py) and the devices' numbers
# (stat).  A 512 MiB 4 x 256 KiB LV on four fresh PVs gives exactly
# "0 1048576 striped 4 512 M:m 2048 ..." (lvm2-format.md §15).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

need_loop
need_cmd lvm stat "$PYTHON"
need_lvx
plan_later

EXPECT="$LVX_ROOT/tests/tools/dm_table_expect.py"
twin_setup 4 1G vg1 || { _tap_result 1 "set up the VG"; done_testing; }

C=(lvcreate -an -Zn)
test_ok "create a 512 MiB LV of 4 stripes of 256 KiB" lvx_a "${C[@]}" -i 4 -I 256k -L 512m -n s4 vg1
test_ok "create a linear LV" lvx_a "${C[@]}" -L 20m -n lin vg1
test_ok "create a 2-stripe 64 KiB LV" lvx_a "${C[@]}" -i 2 -L 40m -n s2 vg1
test_ok "create a 3-stripe 128 KiB LV" lvx_a "${C[@]}" -i 3 -I 128k -L 60m -n s3 vg1
test_ok "create a linear LV to grow" lvx_a "${C[@]}" -L 8m -n multi vg1 "${TWIN_A[0]}"
test_ok "extend it with 3 stripes" lvx_a lvextend -i 3 -I 64k -L +24m vg1/multi
test_ok "extend it linear on another PV" lvx_a lvextend -i 1 -L +8m vg1/multi "${TWIN_A[3]}"

lvm_a lvs --segments --noheadings --separator : --units s --nosuffix \
    -o lv_name,seg_start,seg_size,stripes,stripe_size,seg_pe_ranges vg1 2>/dev/null |
    sed 's/^ *//' >"$SCRATCH/segs"
lvm_a pvs --noheadings --separator : --units s --nosuffix -o pv_name,pe_start 2>/dev/null |
    sed 's/^ *//' >"$SCRATCH/pvs"
extent=$(lvm_a vgs --noheadings --units s --nosuffix -o vg_extent_size vg1 2>/dev/null | tr -d ' ')
: >"$SCRATCH/devnums"
for d in "${TWIN_A[@]}"; do
    printf '%s %d:%d\n' "$d" "0x$(stat -c %t "$d")" "0x$(stat -c %T "$d")" >>"$SCRATCH/devnums"
done

for lv in s4 lin s2 s3 multi; do
    want=$("$PYTHON" "$EXPECT" "$SCRATCH/segs" "$SCRATCH/pvs" "$extent" "$SCRATCH/devnums" "$lv")
    got=$(lvx_a lvtable "vg1/$lv" 2>&1)
    test_eq "table of $lv matches LVM2's segment report" "$got" "$want"
done
test_eq "multi has three table lines" "$(lvx_a lvtable vg1/multi | wc -l)" "3"

literal="0 1048576 striped 4 512"
for d in "${TWIN_A[@]}"; do
    literal+=" $(printf '%d:%d' "0x$(stat -c %t "$d")" "0x$(stat -c %T "$d")") 2048"
done
test_eq "512 MiB 4 x 256k LV: the literal table" "$(lvx_a lvtable vg1/s4)" "$literal"
test_ok "several LVs: dmsetup-style prefixed lines" \
    bash -c "'$LVX' lvtable vg1 --devices $(IFS=,; echo "${TWIN_A[*]}") | grep -q '^vg1-multi: 0 '"
test_fail "unknown LV: error" lvx_a lvtable vg1/nope

done_testing
