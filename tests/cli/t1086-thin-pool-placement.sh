#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1086-thin-pool-placement: where lvcreate -T puts a new pool's _tdata, _tmeta and
# spare on PVs of different sizes (40, 64, 48, 56, 44 MiB: 9, 15, 11, 13, 10 extents),
# -i1 to -i4, with and without --poolmetadatasize, as LVM2 2.03.16.  LVM2 allocates the
# metadata as the "log" area of the data's first allocation: the stripes take the PVs
# offering most for a stripe's piece (the earlier on a tie), the metadata the smallest
# offer left that holds it (the later on a tie), else a place right after the data on
# one of its PVs (again the later on a tie).  lvx put a striped pool's _tmeta on the
# first PV the data left, whatever its size.
#
# LVM2 makes no thin pool without device-mapper (the host has none), so its layouts
# here were recorded in a kvm-dm-test guest (LVM2 2.03.16, 64 MiB disks, the same
# pvcreate --setphysicalvolumesize, lvcreate -q -an ARGS VG/pool), read by
# `lvs -a -o name,devices,seg_pe_ranges` with the PVs named D0..D4; lvx's are read the
# same way by LVM2's lvs on the host.  Also: lvcreate --type raid1 -m1 -T is refused
# (and -m1 -T, --type striped -T,
# --type raid1 --thinpool) as LVM2 refuses them.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later
mapfile -t D < <(make_loops 5 64M)
[[ ${#D[@]} == 5 ]] || { _tap_result 1 "5 loop devices"; done_testing; }
lvm_sandbox "${D[@]}"
VG=vgtpp$$
SIZES=(40M 64M 48M 56M 44M)
ok=0
for i in 0 1 2 3 4; do
    lvm2 pvcreate -q -y --setphysicalvolumesize "${SIZES[$i]}" "${D[$i]}" >/dev/null 2>&1 || ok=1
done
_tap_result $ok "pvcreate --setphysicalvolumesize 40M 64M 48M 56M 44M"

# The layout with the PVs named D0..D4 (their position in D), rows joined by "|".
layout() {
    local sed=() i
    for i in 4 3 2 1 0; do sed+=(-e "s|${D[$i]}\\b|D$i|g"); done
    lvm2 lvs -a --noheadings -o name,devices,seg_pe_ranges "$VG" 2>/dev/null |
        sed -e 's/^ *//' -e 's/ *$//' -e 's/  */ /g' "${sed[@]}" | paste -sd'|'
}

# expect N ARGS LAYOUT: the VG over the first N PVs, lvx's lvcreate -q -an ARGS VG/pool,
# its layout LVM2's (LAYOUT).
expect() {
    local n=$1 args=$2 want=$3 x
    # shellcheck disable=SC2086  # ARGS split on purpose
    if lvm2 vgcreate -q "$VG" "${D[@]:0:n}" >/dev/null 2>&1 &&
        lvx lvcreate -q -an $args "$VG/pool" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err"; then
        x=$(layout)
    else
        x="failed: $(cat "$SCRATCH/x.err")"
    fi
    lvm2 vgremove -q -ff "$VG" >/dev/null 2>&1
    test_eq "lvcreate $args over $n PVs: layout as LVM2's" "$x" "$want"
}

expect 5 "-T -L16m" \
    "[lvol0_pmspare] D0(0) D0:0-0|pool pool_tdata(0) pool_tdata:0-3|[pool_tdata] D0(1) D0:1-4|[pool_tmeta] D4(0) D4:0-0"
expect 5 "-T -i2 -L16m" \
    "[lvol0_pmspare] D0(0) D0:0-0|pool pool_tdata(0) pool_tdata:0-3|[pool_tdata] D0(1),D1(0) D0:1-2 D1:0-1|[pool_tmeta] D4(0) D4:0-0"
test_eq "... its first line LVM2's (the default stripe size named)" "$(head -n1 "$SCRATCH/x.out")" \
    "  Using default stripesize 64.00 KiB."
expect 5 "-T -i3 -L24m" \
    "[lvol0_pmspare] D0(0) D0:0-0|pool pool_tdata(0) pool_tdata:0-5|[pool_tdata] D0(1),D1(0),D2(0) D0:1-2 D1:0-1 D2:0-1|[pool_tmeta] D4(0) D4:0-0"
expect 5 "-T -i2 -L16m --poolmetadatasize 8m" \
    "[lvol0_pmspare] D0(0) D0:0-1|pool pool_tdata(0) pool_tdata:0-3|[pool_tdata] D0(2),D1(0) D0:2-3 D1:0-1|[pool_tmeta] D4(0) D4:0-1"
expect 5 "-T -i3 -L36m --poolmetadatasize 12m" \
    "[lvol0_pmspare] D0(0) D0:0-2|pool pool_tdata(0) pool_tdata:0-8|[pool_tdata] D0(3),D1(0),D2(0) D0:3-5 D1:0-2 D2:0-2|[pool_tmeta] D4(0) D4:0-2"
expect 5 "-T -i2 -L100m" \
    "[lvol0_pmspare] D0(0) D0:0-0|pool pool_tdata(0) pool_tdata:0-25|[pool_tdata] D0(1),D1(0) D0:1-13 D1:0-12|[pool_tmeta] D4(0) D4:0-0"
expect 3 "-T -i2 -L16m" \
    "[lvol0_pmspare] D0(0) D0:0-0|pool pool_tdata(0) pool_tdata:0-3|[pool_tdata] D0(1),D1(0) D0:1-2 D1:0-1|[pool_tmeta] D2(0) D2:0-0"
expect 4 "-T -i3 -L24m" \
    "[lvol0_pmspare] D0(0) D0:0-0|pool pool_tdata(0) pool_tdata:0-5|[pool_tdata] D0(1),D1(0),D2(0) D0:1-2 D1:0-1 D2:0-1|[pool_tmeta] D3(0) D3:0-0"
expect 4 "-T -i2 -L16m --poolmetadataspare n" \
    "pool pool_tdata(0) pool_tdata:0-3|[pool_tdata] D0(0),D1(0) D0:0-1 D1:0-1|[pool_tmeta] D3(0) D3:0-0"
expect 2 "-T -i2 -L16m" \
    "[lvol0_pmspare] D0(0) D0:0-0|pool pool_tdata(0) pool_tdata:0-3|[pool_tdata] D0(1),D1(0) D0:1-2 D1:0-1|[pool_tmeta] D1(2) D1:2-2"
expect 5 "-T -i2 -L60m --poolmetadatasize 12m" \
    "[lvol0_pmspare] D0(0) D0:0-2|pool pool_tdata(0) pool_tdata:0-15|[pool_tdata] D0(3),D1(0) D0:3-10 D1:0-7|[pool_tmeta] D4(0) D4:0-2"
expect 5 "-T -i4 -L32m" \
    "[lvol0_pmspare] D0(0) D0:0-0|pool pool_tdata(0) pool_tdata:0-7|[pool_tdata] D0(1),D1(0),D2(0),D3(0) D0:1-2 D1:0-1 D2:0-1 D3:0-1|[pool_tmeta] D4(0) D4:0-0"
expect 3 "-T -i3 -L24m" \
    "[lvol0_pmspare] D0(0) D0:0-0|pool pool_tdata(0) pool_tdata:0-5|[pool_tdata] D0(1),D1(0),D2(0) D0:1-2 D1:0-1 D2:0-1|[pool_tmeta] D2(2) D2:2-2"
expect 5 "-T -L100m" \
    "[lvol0_pmspare] D0(0) D0:0-0|pool pool_tdata(0) pool_tdata:0-24|[pool_tdata] D1(0) D1:0-14|[pool_tdata] D0(2) D0:2-11|[pool_tmeta] D0(1) D0:1-1"

lvm2 vgcreate -q "$VG" "${D[@]}" >/dev/null 2>&1
s0=$(lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' ')
same_refusal "lvcreate --type raid1 -m1 -T -L16m VG/pool" lvcreate --type raid1 -m1 -T -L16m "$VG/pool"
same_refusal "lvcreate --type striped -i2 -T -L16m VG/pool" lvcreate --type striped -i2 -T -L16m "$VG/pool"
same_refusal "lvcreate -m1 -T -L16m VG/pool" lvcreate -m1 -T -L16m "$VG/pool"
same_refusal "lvcreate --type raid1 --thinpool pool -L16m VG" lvcreate --type raid1 --thinpool pool -L16m "$VG"
test_eq "... nothing written (seqno)" "$(lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' ')" "$s0"
lvm2 vgremove -q -ff "$VG" >/dev/null 2>&1
done_testing
