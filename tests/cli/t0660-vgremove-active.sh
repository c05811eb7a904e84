#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0660-vgremove-active: `vgremove -f` of a VG with active LVs deactivates them first,
# as LVM2 does (it used to say the VG was removed and leave the LVs served: the loop
# device and the /dev/VG/LV and /dev/mapper links stayed).  With the user backend:
#   - an LV in use (held with O_EXCL, as a mount holds it) stops the removal: exit 5,
#     nothing written (LVM2 still sees the VG and both LVs), the LV still served;
#   - once closed, vgremove -f removes the VG and no loop device over the daemon's
#     files, no /dev/VG/LV link and no /dev/mapper link is left.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
need_cmd lvm
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

VG=vgrma$$
D=()
for _ in 0 1; do D+=("$(make_loop 64M)") || skip_all "cannot make loop devices"; done
uspace_test_env "$VG" "${D[@]}"

uspace_run_ok "vgcreate" lvx vgcreate "$VG" "${D[@]}"
uspace_run_ok "lvcreate lv1 (activated)" lvx lvcreate -Zn -n lv1 -L 8m "$VG"
uspace_run_ok "lvcreate lv2 (activated)" lvx lvcreate -Zn -n lv2 -L 8m "$VG"
test_ok "lv1 is served: $DM_DEV_DIR/$VG/lv1 is a block device" test -b "$DM_DEV_DIR/$VG/lv1"
before=$(sha_devs "${D[@]}")
mkfifo "$SCRATCH/hold"

# hold lv1 as a mounted filesystem does (O_EXCL) until told to let go
"$PYTHON" -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL); print("held", flush=True); sys.stdin.read()' \
    "$DM_DEV_DIR/$VG/lv1" <"$SCRATCH/hold" >"$SCRATCH/held" 2>&1 &
HOLDER=$!
exec 4>"$SCRATCH/hold"
for _ in $(seq 100); do grep -q held "$SCRATCH/held" 2>/dev/null && break; sleep 0.1; done
test_ok "lv1 held exclusively" grep -q held "$SCRATCH/held"
rc=0
lvx vgremove -f "$VG" >"$SCRATCH/o" 2>"$SCRATCH/e" || rc=$?
test_eq "vgremove -f with lv1 open: exit 5" "$rc" 5
test_ok "... says lv1 is in use" grep -q "lv1 in use" "$SCRATCH/e"
test_eq "... no device written" "$(sha_devs "${D[@]}")" "$before"
test_eq "... LVM2 still sees both LVs" "$(lvm2 lvs --noheadings -o lv_name "$VG" 2>/dev/null | xargs)" "lv1 lv2"
test_ok "... lv1 is still served" test -b "$DM_DEV_DIR/$VG/lv1"
exec 4>&-
wait "$HOLDER"

uspace_run_ok "vgremove -f once lv1 is closed" lvx vgremove -f "$VG"
test_eq "LVM2 sees no VG $VG" "$(lvm2 vgs --noheadings -o vg_name "$VG" 2>/dev/null | xargs)" ""
test_eq "no loop device over the daemon's files" "$(losetup -a 2>/dev/null | grep -cF "$LVX_RUN_DIR/vol/")" 0
test_ok "no /dev/VG directory or links left" test ! -e "$DM_DEV_DIR/$VG/lv1" -a ! -e "$DM_DEV_DIR/$VG/lv2"
test_eq "no /dev/mapper links left" "$(ls "$DM_DEV_DIR/mapper" 2>/dev/null | grep -c "^$VG-")" 0

done_testing
