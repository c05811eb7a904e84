#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/thin_meta_check.sh VG POOL DIR - thin_check (thin-provisioning-tools) of
# the metadata of thin pool VG/POOL as the PVs hold it: LVM2's report places the
# _tmeta LV's extents (lvm from PATH, with the caller's LVM_SYSTEM_DIR), lv_pvread.py
# reads them with O_DIRECT into DIR/tmeta.bin, thin_check reads that.  Exit status:
# thin_check's (2 when the LV cannot be read); its output on stdout.
set -u
vg=$1 pool=$2 dir=$3
here=$(dirname "$0")
lvm lvs -a --segments -o lv_name,seg_start,seg_size,stripes,stripe_size,seg_pe_ranges \
    --units s --nosuffix --reportformat json "$vg/${pool}_tmeta" >"$dir/tmeta-segs.json" 2>/dev/null &&
    lvm pvs -o pv_name,pe_start --units s --nosuffix --reportformat json >"$dir/tmeta-pvs.json" 2>/dev/null &&
    lvm vgs -o vg_extent_size --units s --nosuffix --reportformat json "$vg" >"$dir/tmeta-vgs.json" 2>/dev/null || exit 2
size=$(lvm lvs -a --noheadings --units b --nosuffix -o lv_size "$vg/${pool}_tmeta" 2>/dev/null | tr -d ' ')
python3 "$here/lv_pvread.py" "$dir/tmeta-segs.json" "$dir/tmeta-pvs.json" "$dir/tmeta-vgs.json" \
    0 "$size" "$dir/tmeta.bin" >/dev/null || exit 2
thin_check "$dir/tmeta.bin" 2>&1
