#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1016-raid-reshape-refused: the reshapes of LVM2 2.03.16 (another layout at the same
# RAID level, --stripesize, --stripes of a raid5/raid6 LV) asked for an inactive LV:
# lvx answers as LVM2 does with activation off (exit status, stdout "Using default
# stripesize 64.00 KiB." when no -I is given, stderr "VG/LV must be active to perform
# this operation."), and nothing is written.  Then the user-space daemon refuses to
# serve a raid5 LV whose metadata carries reshape flags (segment type
# "raid5_rs+RESHAPE+RESHAPE_DATA_OFFSET", as LVM2 2.03.16 leaves it after a layout
# change, recorded in the guest by t0756) or
# whose images hold reshape space (reshape_count, data_offset) while no superblock says
# where its data is (never activated: the daemon serves a reshaped LV by its
# superblocks, t1091): exit 5, one line naming the LV and the reason, no device
# written; an ordinary raid5 LV beside them is served (the refusal is not a blanket one).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/uspace-env.sh
source "$LVX_ROOT/tests/tools/uspace-env.sh"
# shellcheck source=tests/tools/side.sh
source "$LVX_ROOT/tests/tools/side.sh"

VG=vgrsh$$
uspace_test_loops "$VG" 5 64M
plan_later
uspace_run_ok "pvcreate, vgcreate; raid5 r5 (-i3) and raid6 r6 (-i3), inactive" sh -c \
    "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]} &&
     $LVX lvcreate -q -y -an -Zn --type raid5 -i3 -L 12m -n r5 $VG &&
     $LVX lvcreate -q -y -an -Zn --type raid6 -i3 -L 12m -n r6 $VG"

sum=$(sha_devs "${DEVS[@]}")
same "inactive raid5 --type raid5_rs: as LVM2" lvconvert -y --type raid5_rs "$VG/r5"
test_eq "... exit 5, LVM2's line" "$(cat "$SCRATCH/x.rc") $(sed 's/^ *//' "$SCRATCH/x.err")" \
    "5 $VG/r5 must be active to perform this operation."
same "inactive raid5 --type raid5_la: as LVM2" lvconvert -y --type raid5_la "$VG/r5"
same "inactive raid5 --type raid5_n: as LVM2" lvconvert -y --type raid5_n "$VG/r5"
same "inactive raid5 --stripesize 128k: as LVM2" lvconvert -y --stripesize 128k "$VG/r5"
same "inactive raid5 --stripes 4: as LVM2" lvconvert -y --stripes 4 "$VG/r5"
same "inactive raid6 --type raid6_nr: as LVM2" lvconvert -y --type raid6_nr "$VG/r6"
same "inactive raid6 --stripesize 32k: as LVM2" lvconvert -y --stripesize 32k "$VG/r6"
test_eq "... exit 5, LVM2's line" "$(cat "$SCRATCH/x.rc") $(sed 's/^ *//' "$SCRATCH/x.err")" \
    "5 $VG/r6 must be active to perform this operation."
test_eq "nothing written by the refusals" "$(sha_devs "${DEVS[@]}")" "$sum"

# crafted metadata: LV c as LVM2 leaves it mid-reshape / with reshape space
# shellcheck disable=SC2317  # called through test_ok
craft() {        # craft LV EDIT: lvx lvcreate -an raid5 LV, its segment edited by EDIT (python)
    "$LVX" lvcreate -q -y -an -Zn --type raid5 -i3 -L 12m -n "$1" "$VG" >/dev/null 2>&1 &&
        "$LVX" vgcfgbackup -q -f "$SCRATCH/vg.txt" "$VG" >/dev/null 2>&1 &&
        "$PYTHON" - "$SCRATCH/vg.txt" "$1" "$2" <<'PY' &&
import re, sys
path, lv, edit = sys.argv[1:]
text = open(path).read()
start = text.index("\n\t\t" + lv + " {")
seg = text.index("segment1 {", start)
end = text.index("}", seg)
body = text[seg:end]
if edit == "flag":
    body = body.replace('type = "raid5"', 'type = "raid5_rs+RESHAPE+RESHAPE_DATA_OFFSET"')
elif edit == "space":
    body = body.replace("extent_count", "reshape_count = 1\n\t\t\t\textent_count", 1)
else:
    body = body.replace("stripe_size", "data_offset = 2048\n\t\t\t\tstripe_size", 1)
assert body != text[seg:end]
open(path, "w").write(text[:seg] + body + text[end:])
PY
        "$LVX" vgcfgrestore -q -f "$SCRATCH/vg.txt" "$VG" >/dev/null 2>&1
}
: "${PYTHON:=python3}"
need_cmd "$PYTHON"
refused() {      # refused LV WHY DESC
    local out rc=0 before
    before=$(sha_devs "${DEVS[@]}")
    out=$("$LVX" lvchange -ay "$VG/$1" 2>&1) || rc=$?
    test_eq "$3: activation refused (exit 5), one line naming the reason" \
        "$rc $(grep -c . <<<"$out") $(grep -cF "RAID LV $VG/$1: $2" <<<"$out")" \
        "5 1 1"
    [[ $rc == 5 ]] || diag "$out"
    test_eq "... nothing written" "$(sha_devs "${DEVS[@]}")" "$before"
    test_eq "... not active" "$("$LVX" lvs --noheadings -o lv_active "$VG/$1" 2>/dev/null | tr -d ' ')" ""
}
test_ok "c: segment type raid5_rs+RESHAPE+RESHAPE_DATA_OFFSET (as LVM2 leaves a layout change)" craft c flag
refused c "reshape flags in its metadata (raid5_rs+RESHAPE+RESHAPE_DATA_OFFSET) and no dm-raid superblock that says where its data is: not served." "c, mid-reshape"
test_eq "... LVM2 reads the type as lvx wrote it" \
    "$(lvm2 lvs --noheadings -o segtype "$VG/c" 2>/dev/null | tr -d ' ')" "raid5_rs"
test_ok "d: reshape_count = 1 (reshape space)" craft d space
refused d "reshape space of 1 extents in images of 1." "d, reshape space (the whole image)"
test_ok "e: data_offset = 2048" craft e offset
refused e "its data at an offset in its images (data_offset 2048) and no dm-raid superblock that says where its data is: not served." "e, data offset"
uspace_run_ok "an ordinary raid5 LV beside them is served" lvx lvchange -ay "$VG/r5"
uspace_run_ok "... and deactivated" lvx lvchange -an "$VG/r5"
done_testing
