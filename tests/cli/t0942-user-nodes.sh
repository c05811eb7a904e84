#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0942-user-nodes: the /dev entries and activation options of issue 15 with user-space
# activation (the lvx daemon; a private DM_DEV_DIR):
#   - -K/--ignoreactivationskip: an LV LVM2 flagged to be skipped (lvcreate -ky) is not
#     activated by vgchange -ay or lvchange -ay (exit 0), and is with -K;
#   - lvscan says ACTIVE / inactive as the daemon has it;
#   - vgmknodes makes a removed /dev/VG/LV and /dev/mapper link again (pointing at the
#     LV's loop device) and removes the links of an inactive LV;
#   - `lvx daemon stop -f` with active LVs removes their /dev/VG/LV and /dev/mapper
#     links (and /dev/VG), leaves no loop device, mount or daemon behind.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
need_cmd lvm
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

VG=vgnodes$$
D=()
for i in 0 1; do D+=("$(make_loop 64M)"); done
uspace_test_env "$VG" "${D[@]}"
DEV=$DM_DEV_DIR

lvm2 pvcreate -q "${D[@]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[@]}" >/dev/null 2>&1
lvm2 lvcreate -q -n plain -L 8m "$VG" >/dev/null 2>&1
lvm2 lvcreate -q -ky -n skipped -L 8m "$VG" >/dev/null 2>&1
test_eq "LVM2 flagged 'skipped' for activation skip" "k" \
    "$(lvm2 lvs --noheadings -o lv_attr "$VG/skipped" 2>/dev/null | tr -d ' ' | cut -c10)"

uspace_run_ok "vgchange -ay" "$LVX" vgchange -ay "$VG"
test_ok "... activates plain" test -L "$DEV/$VG/plain"
test_ok "... not skipped" test ! -e "$DEV/$VG/skipped"
uspace_run_ok "lvchange -ay of the skipped LV: exit 0" "$LVX" lvchange -ay "$VG/skipped"
test_ok "... still not active" test ! -e "$DEV/$VG/skipped"
uspace_run_ok "lvchange -ay -K" "$LVX" lvchange -ay -K "$VG/skipped"
test_ok "... activates it" test -L "$DEV/$VG/skipped"
uspace_run_ok "lvchange -an of it" "$LVX" lvchange -an "$VG/skipped"
uspace_run_ok "vgchange -ay --ignoreactivationskip" "$LVX" vgchange -ay --ignoreactivationskip "$VG"
test_ok "... activates it too" test -L "$DEV/$VG/skipped"
uspace_run_ok "lvchange -an of it again" "$LVX" lvchange -an "$VG/skipped"

"$LVX" lvscan >"$SCRATCH/scan" 2>&1
grep -q "^  ACTIVE            '$DEV/$VG/plain' \[8.00 MiB\] inherit$" "$SCRATCH/scan"
_tap_result $? "lvscan: plain ACTIVE"
grep -q "^  inactive          '$DEV/$VG/skipped' \[8.00 MiB\] inherit$" "$SCRATCH/scan"
_tap_result $? "lvscan: skipped inactive"
[[ $_T_FAILED -gt 0 ]] && _diag_file lvscan "$SCRATCH/scan"

# ---- vgmknodes
loop=$(readlink "$DEV/$VG/plain")
rm -f "$DEV/$VG/plain" "$DEV/mapper/$VG-plain"
ln -s /dev/loop-control "$DEV/$VG/skipped"       # a stale link of an inactive LV
ln -s /dev/loop-control "$DEV/mapper/$VG-skipped"
uspace_run_ok "vgmknodes" "$LVX" vgmknodes "$VG"
test_eq "... /dev/VG/LV made again, to the LV's loop device" "$loop" "$(readlink "$DEV/$VG/plain")"
test_eq "... /dev/mapper link too" "$loop" "$(readlink "$DEV/mapper/$VG-plain")"
test_ok "... the inactive LV's stale links are gone" \
    test ! -e "$DEV/$VG/skipped" -a ! -L "$DEV/$VG/skipped" -a ! -L "$DEV/mapper/$VG-skipped"
rm -f "$DEV/$VG/plain"
uspace_run_ok "vgscan --mknodes" "$LVX" vgscan --mknodes
test_eq "... made the link again" "$loop" "$(readlink "$DEV/$VG/plain")"

# ---- daemon stop -f with an active LV
uspace_run_ok "lvx daemon stop -f with active LVs" "$LVX" daemon stop -f
for _ in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
test_ok "... /dev/VG/LV is gone" test ! -L "$DEV/$VG/plain"
test_ok "... /dev/mapper/VG-LV is gone" test ! -L "$DEV/mapper/$VG-plain"
test_ok "... /dev/VG is gone" test ! -d "$DEV/$VG"
test_eq "... no daemon, loop device or mount left" "" "$(uspace_leftovers)"

done_testing
