#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0965-suite-select-percent: selection on percent fields (issue 21, LVM2's
# select-report): `lvs --select 'snap_percent=0'` and its kin compare the value the
# report prints (an active COW snapshot's usage, here through the user backend: no
# device-mapper needed), a percent over 100 is refused with LVM2's line (exit 5).  The
# expected rows are those LVM2's select-report wants: a fresh snapshot at 0, one with
# 1 MiB of 4 written below 50, an overflowed (invalid) one at 100.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

uspace_need_host

VG=vgsp$$
D=("$(make_loop 64M)")
uspace_test_env "$VG" "${D[@]}"

sel() {     # sel SELECTION: the LV names lvx selects, on one line
    lvx lvs --noheadings -o lv_name --select "$1" "$VG" 2>&1 | xargs
}

lvx pvcreate -q "${D[0]}" >/dev/null 2>&1
lvx vgcreate -q "$VG" "${D[0]}" >/dev/null 2>&1
uspace_run_ok "lvcreate orig (active)" lvx lvcreate -q -L8m -n orig "$VG"
uspace_run_ok "lvcreate -s snap of it (active)" lvx lvcreate -q -L4m -s "$VG/orig" -n snap
test_eq "snap_percent=0: the fresh snapshot" "snap" "$(sel 'snap_percent=0')"
test_eq "snap_percent<50: it" "snap" "$(sel 'snap_percent<50')"
test_eq "snap_percent>50: none" "" "$(sel 'snap_percent>50')"
rc=0; lvx lvs --noheadings -o lv_name --select 'snap_percent=101%' "$VG" >/dev/null \
    2>"$SCRATCH/e" || rc=$?
test_eq "snap_percent=101%: exit 5, as LVM2" "5" "$rc"
test_eq "... LVM2's line" "  Field selection value 101 out of supported range for field snap_percent." \
    "$(cat "$SCRATCH/e")"
dd if=/dev/zero of="$DM_DEV_DIR/$VG/snap" bs=1M count=1 oflag=direct status=none
test_eq "1 MiB written: snap_percent=0 none" "" "$(sel 'snap_percent=0')"
test_eq "... snap_percent<50 the snapshot" "snap" "$(sel 'snap_percent<50')"
test_eq "... snap_percent>50 none" "" "$(sel 'snap_percent>50')"
dd if=/dev/zero of="$DM_DEV_DIR/$VG/snap" bs=1M count=4 oflag=direct status=none 2>/dev/null
test_eq "overflowed: snap_percent=100" "snap" "$(sel 'snap_percent=100')"
test_eq "... snap_percent=100% (a % suffix)" "snap" "$(sel 'snap_percent=100%')"
lvx vgchange -q -an "$VG" >/dev/null 2>&1

done_testing
