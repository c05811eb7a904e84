#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1111-pvchange-commits-startpoll: two small parities with LVM2 2.03.16 (activation off,
# its own sandbox), each tool on the same three loop devices:
#   1. pvchange and pvresize of several PVs of one VG write the VG once per PV changed
#      (LVM2's vg_write/vg_commit in _pvchange_single and pv_resize_single): vg_seqno
#      +1 a PV (lvx had committed once a VG), each PV's "changed" line right after its
#      write (a PV refused after two changed ones in its place, not before them), an
#      archive before each write.
#   2. lvconvert --startpoll takes no -i (its command definition: OO_LVCONVERT only)
#      and no option choosing a conversion: exit 3 with LVM2's line, nothing written
#      (lvx had taken both).
source "$(dirname "$0")/../lib.sh"
need_loop
need_cmd lvm
need_lvx
plan_later
D1=$(make_loop 64M) && D2=$(make_loop 64M) && D3=$(make_loop 64M) ||
    { _tap_result 1 "loop devices"; done_testing; }
lvm_sandbox "$D1" "$D2" "$D3"
export LVX_ACTIVATION_BACKEND=none
VG=vgpc$$
ARCH=$SCRATCH/arch
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
narch() { find "$ARCH" -name "${VG}_*.vg" 2>/dev/null | wc -l; }
mkvg() {   # the VG made again from fresh PVs (a PV keeps its ignored areas after vgremove)
    lvm2 vgremove -q -f -y "$VG" >/dev/null 2>&1
    lvm2 pvcreate -q -ff -y "$D1" "$D2" "$D3" >/dev/null 2>&1
    lvm2 vgcreate -q "$VG" "$D1" "$D2" "$D3" >/dev/null 2>&1
}
# run TOOL ARGS...: TOOL (lvx or lvm2) with archives on in $ARCH; "rc=N +S A" then the
# output (both streams, the sandbox's warnings left out, VG name as VG): S the seqno
# step, A the archive files written
run() {
    local tool=$1 s a rc=0 out
    shift
    s=$(seqno) a=$(narch)
    out=$("$tool" "$@" --config "backup { archive = 1 archive_dir = \"$ARCH\" }" 2>&1) || rc=$?
    printf 'rc=%s +%s %s\n' "$rc" "$(($(seqno) - s))" "$(($(narch) - a))"
    printf '%s\n' "$out" | sandbox_noise | sed "s/$VG/VG/g"
}
# same DESC ARGS...: ARGS by LVM2 and then by lvx, each on the VG made afresh by LVM2
# (PRE: an LVM2 command line run first)
same() {
    local desc=$1 l x
    shift
    mkvg
    # shellcheck disable=SC2086
    [[ -n ${PRE:-} ]] && lvm2 $PRE >/dev/null 2>&1
    l=$(run lvm2 "$@")
    mkvg
    # shellcheck disable=SC2086
    [[ -n ${PRE:-} ]] && lvm2 $PRE >/dev/null 2>&1
    x=$(run lvx "$@")
    test_eq "$desc: exit, seqno step, archives and lines as LVM2's" "$x" "$l"
}

# ---- 1. one write per PV
same "pvchange -x n of two PVs" pvchange -x n "$D1" "$D2"
same "pvchange --addtag -a" pvchange --addtag t1 -a
same "pvchange --addtag --deltag of three PVs" pvchange --addtag t2 --deltag t1 "$D1" "$D2" "$D3"
same "pvchange -u of two PVs" pvchange -u "$D1" "$D2"
PRE="pvchange -q -x n $D1" same "pvchange -x n, the first PV already unallocatable" \
    pvchange -x n "$D1" "$D2" "$D3"
same "pvchange --metadataignore y of all three (the last refused)" \
    pvchange --metadataignore y "$D1" "$D2" "$D3"
same "pvresize of two PVs" pvresize "$D1" "$D2"
test_ok "LVM2's vgck passes after lvx's pvresize" lvm2 vgck "$VG"
l=$(lvm2 pvs --noheadings -o pv_name,pv_tags,pv_attr "$D1" "$D2" "$D3" 2>/dev/null)
mkvg
lvx pvchange -q --addtag a -a >/dev/null 2>&1
test_eq "lvx's tags on all three PVs, as LVM2 reads them" \
    "$(lvm2 pvs --noheadings -o pv_tags "$D1" "$D2" "$D3" 2>/dev/null | tr -d ' ' | tr '\n' ' ')" "a a a "

# ---- 2. lvconvert --startpoll
lvx lvcreate -q -an -Zn -L 8m -n lv "$VG" >/dev/null 2>&1
s=$(seqno)
for args in "--startpoll -i 5" "--startpoll -b -i +60" "--startpoll -i 5 -y" \
    "--startpoll -m 1" "--startpoll -R 1m" "--startpoll --stripesize 64k"; do
    # shellcheck disable=SC2086
    same_refusal "lvconvert $args VG/lv" lvconvert $args "$VG/lv"
done
test_eq "the refusals wrote nothing" "$(seqno)" "$s"
# -b alone is taken (the LV is not converting: LVM2's and lvx's own refusal)
both lvconvert --startpoll -b "$VG/lv"
test_eq "lvconvert --startpoll -b VG/lv: not a usage error, for both" \
    "$(cat "$SCRATCH/x.rc") $(cat "$SCRATCH/l.rc")" "5 5"
lvm2 vgremove -q -f -y "$VG" >/dev/null 2>&1
done_testing
