#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1081-thin-pool-sub-takeover: lvconvert --type raid10 of a pool's striped _tdata and
# --type raid1 -m1 / -m1 of its linear _tmeta, as LVM2 2.03.16's
# lvconvert-raid-takeover-thin.sh (lvx refused them all: "Can't convert logical volume
# VG/pool_tdata: it is a sub-LV (tdata)").  On the host the pool is inactive: LVM2 wants
# these LVs active, and so does lvx now, with LVM2's lines and exit code (compared with
# LVM2's own on the same devices), nothing written.  (The conversions of the live pool
# are LVM2's test, in the guest.)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later
mapfile -t D < <(make_loops 6 64M)
[[ ${#D[@]} == 6 ]] || { _tap_result 1 "6 loop devices"; done_testing; }
lvm_sandbox "${D[@]}"
VG=vgpst$$
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }

test_ok "pvcreate, vgcreate, lvcreate -L4 -i3 -T VG/pool" sh -c \
    "$LVX pvcreate -q ${D[*]} >/dev/null 2>&1 && $LVX vgcreate -q $VG ${D[*]} >/dev/null 2>&1 &&
     $LVX lvcreate -q -an -L4 -i3 -T $VG/pool >/dev/null 2>&1"
s0=$(seqno)
same_refusal "lvconvert --type raid10 -y VG/pool_tdata (striped)" \
    lvconvert --type raid10 -y "$VG/pool_tdata"
test_eq "... LVM2's 'must be active' line" "$(grep -c "pool_tdata must be active" "$SCRATCH/x.err")" 1
same_refusal "lvconvert --type raid1 -m1 -y VG/pool_tmeta (linear)" \
    lvconvert --type raid1 -m1 -y "$VG/pool_tmeta"
same_refusal "lvconvert -m1 -y VG/pool_tmeta" lvconvert -m1 -y "$VG/pool_tmeta"
test_eq "nothing written (seqno)" "$(seqno)" "$s0"
lvx vgremove -q -ff "$VG" >/dev/null 2>&1
done_testing
