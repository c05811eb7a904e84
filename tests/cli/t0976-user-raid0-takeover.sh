#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0976-user-raid0-takeover: lvconvert --type raid0|raid0_meta|striped with the lvx
# daemon (user-space activation), which serves striped LVs but not raid0 ones; three
# 64 MiB loop devices, LVM2 (activation off) reading the layout:
#   - a striped LV (-i3) written with 12 MiB while active: --type raid0_meta is
#     refused (exit 5, the LV untouched and still served, metadata unchanged);
#   - deactivated, converted to raid0_meta (lvx converts inactive LVs), LVM2's vgck
#     passes; its activation refused as for any raid0 LV of this backend;
#   - back to striped and activated: the daemon reads the same 12 MiB (the data never
#     moved), each stripe's extents those it had.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgur0$$
uspace_test_loops "$VG" 3 64M
MIB=1048576
S=$DM_DEV_DIR/$VG/s
ranges() { lvm2 lvs --segments --noheadings -o seg_pe_ranges "$VG/s" 2>/dev/null | tr -s ' '; }
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"
uspace_run_ok "striped s (-i3 -L 12m), active" lvx lvcreate -q -Zn -i3 -L 12m -n s "$VG"
head -c $((12 * MIB)) /dev/urandom >"$SCRATCH/d1"
uspace_run_ok "12 MiB written" dd if="$SCRATCH/d1" of="$S" bs=1M oflag=direct conv=fsync status=none
start=$(ranges)
seq0=$(seqno)

out=$(lvx lvconvert -y --type raid0_meta "$VG/s" 2>&1); rc=$?
test_eq "active in the user backend: refused, exit 5" "$rc $(tail -n1 <<<"$out" | sed 's/^ *//')" \
    "5 Can't convert active LV $VG/s to raid0_meta: the user backend does not serve raid0 LVs (deactivate it first)."
test_eq "... metadata unchanged (seqno), still striped" "$(seqno) $(lvm2 lvs --noheadings -o segtype "$VG/s" | tr -d ' ')" \
    "$seq0 striped"
test_eq "... still served: the data" "$(lv_sum "$VG/s")" "$(fsum "$SCRATCH/d1")"

uspace_run_ok "deactivate s" lvx lvchange -an "$VG/s"
out=$(lvx lvconvert -y --type raid0_meta "$VG/s" 2>&1 | grep -v WARNING)
test_eq "inactive: converted to raid0_meta, LVM2's line" "$(tail -n1 <<<"$out" | sed 's/^ *//')" \
    "Logical volume $VG/s successfully converted."
test_eq "... LVM2 reads a raid0_meta LV" "$(lvm2 lvs --noheadings -o segtype,stripes "$VG/s" | tr -s ' ')" " raid0_meta 3"
test_ok "... LVM2's vgck passes" lvm2 vgck "$VG"
test_fail "... its activation refused by the user backend (raid0)" lvx lvchange -ay "$VG/s"
out=$(lvx lvconvert -y --type striped "$VG/s" 2>&1 | grep -v WARNING)
test_eq "back to striped, LVM2's line" "$(tail -n1 <<<"$out" | sed 's/^ *//')" "Logical volume $VG/s successfully converted."
test_eq "... its extents those it had" "$(ranges)" "$start"
uspace_run_ok "activate s" lvx lvchange -ay "$VG/s"
test_eq "... the daemon reads the same 12 MiB" "$(lv_sum "$VG/s")" "$(fsum "$SCRATCH/d1")"
uspace_run_ok "deactivate s" lvx lvchange -an "$VG/s"
done_testing
