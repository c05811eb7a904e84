#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1077-mirror-resync: lvchange --resync of old-style mirrors (LVM2's command takes
# LV_raid_mirror; LVM2's lvconvert-repair-mirror starts with it), against LVM2 2.03.16
# on twin VGs (tests/tools/lv_twin.sh: side A changed by lvx, side B by LVM2,
# activation off):
#   - a core-log mirror, a NOTSYNCED core-log mirror (--nosync): exit code, output and
#     metadata equal LVM2's;
#   - a disk-log mirror (lvx alone: LVM2 needs device-mapper to wipe the log): exit 0,
#     silent, two commits, the metadata as before, the log's first 4 KiB zeroed (an old
#     header written there before);
#   - a linear LV: LVM2's refusal, exit code and no write; --rebuild of a mirror still
#     refused (LVM2's LV_raid).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 3 32M vg1
C=(--config "global/activation=1")
for side in a b; do
    for a in "--type mirror -m1 -L 4m -n d" "--type mirror -m1 --corelog -L 4m -n c" \
        "--type mirror -m1 --corelog --nosync -L 4m -n n" "-L 4m -n lin"; do
        # shellcheck disable=SC2086
        "lvx_$side" lvcreate "${C[@]}" -an -Zn $a vg1 >/dev/null 2>&1
    done
done
test_eq "the same LVs made on both sides" "$(twin_meta a)" "$(twin_meta b)"
test_eq "side A has them" "$(lvm_a lvs -a --noheadings -o lv_name vg1 2>/dev/null | wc -l)" 11

# an old log header at the start of d_mlog on side A (where lvx's map puts it)
mlog_dev_off() {  # prints "DEV BYTE-OFFSET" of vg1/d_mlog's first extent on side A
    lvm_a lvs --noheadings --units b --nosuffix -a -o seg_pe_ranges,vg_extent_size \
        vg1/d_mlog 2>/dev/null | awk '{ split($1, r, ":"); split(r[2], e, "-");
            print r[1], e[1] * $2 }'
}
read -r mdev mext < <(mlog_dev_off)
pe_start=$(lvm_a pvs --noheadings --units b --nosuffix -o pe_start "$mdev" 2>/dev/null | tr -d ' ')
off=$((pe_start + mext))
printf 'MiRr-old-header' | dd of="$mdev" bs=1 seek="$off" conv=notrunc status=none
test_eq "side A's d_mlog starts with the old header" \
    "$(dd if="$mdev" bs=1 skip="$off" count=15 status=none)" "MiRr-old-header"

# LVM2 without device-mapper stops after its intermediate commit (it cannot activate
# the detached log to wipe it): lvx's side alone, against the metadata before
seq() { lvm_a vgs --noheadings -o vg_seqno vg1 2>/dev/null | tr -d ' '; }
before=$(twin_meta a) s0=$(seq)
test_eq "--resync of a disk-log mirror: exit 0, nothing printed" \
    "$(lvx_a lvchange -y --resync vg1/d 2>&1 | grep -v "NOT backed up"; echo "rc=${PIPESTATUS[0]}")" "rc=0"
test_eq "--resync of a disk-log mirror: the metadata as before (log attached, hidden)" \
    "$(twin_meta a)" "$before"
test_eq "--resync of a disk-log mirror: two commits (LVM2's intermediate one and the last)" \
    "$(seq)" "$((s0 + 2))"
lvx_b lvchange -y --resync vg1/d >/dev/null 2>&1 || true
test_eq "lvx zeroed d_mlog's first 4 KiB" \
    "$(dd if="$mdev" bs=4096 iflag=skip_bytes skip="$off" count=1 status=none | od -An -v -tx1 |
        tr -s ' \n' '\n' | grep -c .) $(dd if="$mdev" bs=4096 iflag=skip_bytes skip="$off" \
        count=1 status=none | tr -d '\0' | wc -c)" "4096 0"
twin_step "--resync of a core-log mirror" lvchange -y --resync vg1/c
twin_step "--resync of a NOTSYNCED core-log mirror" lvchange -y --resync vg1/n
twin_step "--resync of a linear LV: refused" lvchange -y --resync vg1/lin
twin_step "--rebuild of a mirror: refused" lvchange -y --rebuild "${TWIN_A[0]}" vg1/d
test_ok "LVM2's vgck accepts lvx's side" lvm_a vgck vg1

lvx_a vgremove -ff vg1 >/dev/null 2>&1
lvm_b vgremove -ff vg1 >/dev/null 2>&1
done_testing
