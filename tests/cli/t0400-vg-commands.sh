#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0400-vg-commands: the VG commands on loop devices, judged by the real LVM2.
#   1. the seed lines with lvx in front: pvcreate, vgcreate vg1 (4 PVs), vgcreate -s4M vg0
#      (refused: the PVs are in vg1), vgs, pvs, vgremove vg1, then vgcreate -s4M vg0;
#      after each, LVM2's own `vgs`/`pvs --reportformat json` (the fixtures' fields,
#      tests/fixtures/lvm2/README.md) equal lvx's and LVM2's vgck passes quietly;
#   2. a VG made by LVM2 changed by lvx (vgextend, vgreduce, vgrename, vgchange -x n,
#      --addtag, --vgmetadatacopies 1) reads identically in both tools;
#   3. a VG made by lvx changed by LVM2 (lvcreate, --addtag, vgreduce) reads in lvx;
#   4. repairs: vgck --updatemetadata of a stale copy and of an outdated PV,
#      vgreduce --removemissing [--force];
#   5. vgcfgrestore -l / -f with lvx's own archive files.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm "$PYTHON"
need_lvx
plan_later

DIFF="$LVX_ROOT/tests/tools/report_diff.py"
D=()
for _ in 1 2 3 4 5; do D+=("$(make_loop 64M)") || skip_all "cannot make loop devices"; done
DEVS=$(IFS=,; echo "${D[*]}")
lvm_sandbox "${D[@]}"
# lvx with the sandbox's lvm.conf (no backups) and only our devices
lx() { LVM_SYSTEM_DIR="$SCRATCH/lvm" lvx "$@" --devices "$DEVS"; }
# the same with backups and archives in a private system dir (vgcfgrestore)
mkdir -p "$SCRATCH/lvxsys"
sed 's/backup = 0/backup = 1/; s/archive = 0/archive = 1/' "$SCRATCH/lvm/lvm.conf" >"$SCRATCH/lvxsys/lvm.conf"
lxb() { LVM_SYSTEM_DIR="$SCRATCH/lvxsys" lvx "$@" --devices "$DEVS"; }

# same_reports WHAT: LVM2's and lvx's pvs and vgs JSON reports are equal.
same_reports() {
    local what=$1 r fields ok=0
    for r in vgs pvs; do
        fields=$("$PYTHON" "$DIFF" fields $r)
        lvm2 $r --reportformat json --units b --nosuffix -o "$fields" >"$SCRATCH/want.json" 2>/dev/null
        lx $r --reportformat json --units b --nosuffix -o "$fields" >"$SCRATCH/got.json" 2>"$SCRATCH/got.err"
        if "$PYTHON" "$DIFF" compare "$SCRATCH/want.json" "$SCRATCH/got.json" >"$SCRATCH/diff"; then
            _tap_result 0 "$what: $r reports equal"
        else
            _tap_result 1 "$what: $r reports equal"
            _diag_file difference "$SCRATCH/diff"
            _diag_file "lvx stderr" "$SCRATCH/got.err"
            ok=1
        fi
    done
    return $ok
}

# lvm2_vgck_clean WHAT VG: LVM2's vgck passes without warnings about the metadata.
lvm2_vgck_clean() {
    local rc=0
    lvm2 vgck "$2" >"$SCRATCH/vgck.out" 2>"$SCRATCH/vgck.err" || rc=$?
    grep -v 'Activation disabled' "$SCRATCH/vgck.err" >"$SCRATCH/vgck.warn" || true
    if [[ $rc -eq 0 && ! -s $SCRATCH/vgck.warn ]]; then
        _tap_result 0 "$1: LVM2 vgck $2 passes"
    else
        _tap_result 1 "$1: LVM2 vgck $2 passes"
        diag "exit status $rc"
        _diag_file stderr "$SCRATCH/vgck.warn"
    fi
}

lvm2_field() {  # lvm2_field REPORT FIELD SELECTOR... (one value, no heading)
    local r=$1 f=$2
    shift 2
    lvm2 "$r" --noheadings --nosuffix --units b --separator , -o "$f" "$@" 2>/dev/null | tr -d ' '
}

# ---------------------------------------------------------------- 1. seed lines

if lx pvcreate --help >/dev/null 2>&1; then
    test_ok "lvx pvcreate DEV1..DEV4" lx pvcreate "${D[0]}" "${D[1]}" "${D[2]}" "${D[3]}"
else
    test_ok "LVM2 pvcreate DEV1..DEV4 (no lvx pvcreate)" lvm2 pvcreate "${D[0]}" "${D[1]}" "${D[2]}" "${D[3]}"
fi
same_reports "after pvcreate"

test_ok "lvx vgcreate vg1 DEV1..DEV4" lx vgcreate vg1 "${D[0]}" "${D[1]}" "${D[2]}" "${D[3]}"
test_eq "vgcreate prints LVM2's message" "$(cat "$SCRATCH/.out")" '  Volume group "vg1" successfully created'
same_reports "after vgcreate vg1"
lvm2_vgck_clean "after vgcreate vg1" vg1
test_eq "LVM2 sees seqno 1, 4 PVs, 4 MiB extents, attr wz--n-" \
    "$(lvm2_field vgs vg_seqno,pv_count,vg_extent_size,vg_attr vg1)" "1,4,4194304,wz--n-"

sha_devs "${D[@]}" >"$SCRATCH/sha.before"
test_fail "lvx vgcreate -s4M vg0 DEV1 DEV2 DEV3 is refused (PVs are in vg1)" \
    lx vgcreate -s4M vg0 "${D[0]}" "${D[1]}" "${D[2]}"
test_eq "the refusal names the VG of the PV" "$(cat "$SCRATCH/.err")" \
    "  Physical volume '${D[0]}' is already in volume group 'vg1'"
sha_devs "${D[@]}" >"$SCRATCH/sha.after"
test_eq "refused vgcreate changed nothing" "$(cat "$SCRATCH/sha.after")" "$(cat "$SCRATCH/sha.before")"

test_ok "lvx vgs" lx vgs
test_ok "lvx pvs" lx pvs
test_ok "lvx vgremove vg1" lx vgremove vg1
same_reports "after vgremove vg1"
test_eq "LVM2 sees no VG after vgremove" "$(lvm2 vgs --noheadings -o vg_name 2>/dev/null | tr -d ' ')" ""

test_ok "lvx vgcreate -s4M vg0 DEV1 DEV2 DEV3" lx vgcreate -s4M vg0 "${D[0]}" "${D[1]}" "${D[2]}"
same_reports "after vgcreate -s4M vg0"
lvm2_vgck_clean "after vgcreate -s4M vg0" vg0
test_ok "lvx vgremove vg0" lx vgremove vg0

test_ok "lvx vgcreate with options" lx vgcreate -s 1536k -l 7 -p 9 --alloc cling \
    --addtag a --addtag b --vgmetadatacopies 2 vg2 "${D[0]}" "${D[1]}" "${D[2]}"
same_reports "after vgcreate with options"
lvm2_vgck_clean "after vgcreate with options" vg2
test_eq "LVM2 sees the options" \
    "$(lvm2_field vgs vg_extent_size,max_lv,max_pv,vg_allocation_policy,vg_tags,vg_mda_copies,vg_mda_used_count vg2)" \
    "1572864,7,9,cling,a,b,2,2"
test_ok "lvx vgremove vg2" lx vgremove vg2

# ---------------------------------------------------------------- 2. LVM2 VG changed by lvx

lvm2 vgcreate vgA "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 lvcreate -Zn -l 5 -n lv1 vgA >/dev/null 2>&1
step() {  # step DESCRIPTION VG lvx-args...
    local what=$1 vg=$2
    shift 2
    test_ok "LVM2 VG, lvx $what" lx "$@"
    same_reports "LVM2 VG after lvx $what"
    lvm2_vgck_clean "LVM2 VG after lvx $what" "$vg"
}
step "vgextend" vgA vgextend vgA "${D[2]}" "${D[3]}"
step "vgreduce" vgA vgreduce vgA "${D[3]}"
step "vgrename" vgB vgrename vgA vgB
step "vgchange -x n" vgB vgchange -x n vgB
test_eq "LVM2 sees the VG not resizeable" "$(lvm2_field vgs vg_attr vgB)" "w---n-"
step "vgchange --addtag" vgB vgchange --addtag t1 --addtag t2 vgB
step "vgchange --vgmetadatacopies 1" vgB vgchange --vgmetadatacopies 1 vgB
test_eq "LVM2 sees one metadata copy in use" "$(lvm2_field vgs vg_mda_copies,vg_mda_used_count vgB)" "1,1"
step "vgchange --vgmetadatacopies all -x y --deltag t1" vgB \
    vgchange --vgmetadatacopies all -x y --deltag t1 vgB
test_eq "LVM2 sees every copy in use, tag t2" "$(lvm2_field vgs vg_mda_copies,vg_mda_used_count,vg_tags vgB)" \
    "unmanaged,3,t2"
step "vgchange -u" vgB vgchange -u vgB

# ---------------------------------------------------------------- 3. lvx VG changed by LVM2

test_ok "lvx vgcreate vgC" lx vgcreate vgC "${D[3]}" "${D[4]}"
test_ok "LVM2 lvcreate in lvx's VG" lvm2 lvcreate -Zn -l 3 -n lvc vgC "${D[3]}"
test_ok "LVM2 vgchange --addtag on lvx's VG" lvm2 vgchange --addtag t3 vgC
test_ok "LVM2 vgextend/vgreduce on lvx's VG" lvm2 vgreduce vgC "${D[4]}"
same_reports "lvx VG after LVM2 changes"
test_ok "lvx vgck vgC passes" lx vgck vgC
test_eq "lvx vgck vgC is quiet" "$(cat "$SCRATCH/.err")" ""

# ---------------------------------------------------------------- 4. repairs

# a stale copy: put back an old mda header of the first PV of vgB
mda0=$((4096 / 512))
dd if="${D[0]}" of="$SCRATCH/hdr" bs=512 skip=$mda0 count=1 status=none
lx vgchange --addtag t9 vgB >/dev/null 2>&1
dd if="$SCRATCH/hdr" of="${D[0]}" bs=512 seek=$mda0 count=1 conv=notrunc status=none
lvm2 vgck vgB >/dev/null 2>"$SCRATCH/stale.err"
test_ok "control: LVM2 reports the stale copy" grep -q "Inconsistent metadata" "$SCRATCH/stale.err"
test_ok "lvx vgck warns about the stale copy" \
    bash -c "LVM_SYSTEM_DIR='$SCRATCH/lvm' '$LVX' vgck vgB --devices '$DEVS' 2>&1 | grep -q 'ignoring metadata seqno'"
test_ok "lvx vgck --updatemetadata vgB" lx vgck --updatemetadata vgB
lvm2_vgck_clean "after vgck --updatemetadata (stale copy)" vgB
same_reports "after vgck --updatemetadata (stale copy)"

# an outdated PV: a PV removed from vgB gets its old metadata back
dd if="${D[2]}" of="$SCRATCH/head" bs=64k count=16 status=none
test_ok "lvx vgreduce vgB DEV3" lx vgreduce vgB "${D[2]}"
dd if="$SCRATCH/head" of="${D[2]}" bs=64k count=16 conv=notrunc status=none
lvm2 vgck vgB >/dev/null 2>"$SCRATCH/outdated.err"
test_ok "control: LVM2 reports the outdated PV" grep -q "outdated PV" "$SCRATCH/outdated.err"
test_ok "lvx vgck --updatemetadata vgB wipes the outdated PV" lx vgck --updatemetadata vgB
lvm2_vgck_clean "after vgck --updatemetadata (outdated PV)" vgB
same_reports "after vgck --updatemetadata (outdated PV)"

# a missing PV: lvx is shown only DEV4 of vgC (DEV5 went back to vgC with an LV on it)
lvm2 vgextend vgC "${D[4]}" >/dev/null 2>&1
lvm2 lvcreate -Zn -l 2 -n lvm vgC "${D[4]}" >/dev/null 2>&1
lxm() { LVM_SYSTEM_DIR="$SCRATCH/lvm" lvx "$@" --devices "${D[3]}"; }
test_fail "vgreduce --removemissing refuses with an LV on the missing PV" lxm vgreduce --removemissing vgC
test_ok "vgreduce --removemissing --force" lxm vgreduce --removemissing --force vgC
test_eq "lvx sees vgC with one PV and one LV" \
    "$(lxm vgs --noheadings -o pv_count,lv_count vgC 2>/dev/null | tr -s ' ')" " 1 1"
test_ok "lvx vgck --updatemetadata vgC (DEV5 back, outdated)" lx vgck --updatemetadata vgC
same_reports "after vgreduce --removemissing and the repair"
lvm2_vgck_clean "after vgreduce --removemissing and the repair" vgC

# ---------------------------------------------------------------- 5. vgcfgrestore

test_ok "lvx vgremove -f vgB vgC" lx vgremove -f vgB vgC
test_ok "lvx vgcreate vgR (backups on)" lxb vgcreate vgR "${D[0]}" "${D[1]}"
test_ok "lvx vgchange --addtag r1 vgR" lxb vgchange --addtag r1 vgR
test_ok "lvx vgextend vgR DEV3" lxb vgextend vgR "${D[2]}"
test_ok "lvx vgcfgrestore -l vgR" lxb vgcfgrestore -l vgR
cp "$SCRATCH/.out" "$SCRATCH/list"
test_eq "vgcfgrestore -l lists two archives and the backup" "$(grep -c '^  File:' "$SCRATCH/list")" 3
test_ok "the listing shows the descriptions" grep -q "Created \*before\* executing 'vgextend vgR" "$SCRATCH/list"
archive=$(ls "$SCRATCH"/lvxsys/archive/vgR_00001-*.vg)
seq_before=$(lvm2_field vgs vg_seqno vgR)
test_ok "lvx vgcfgrestore -f ARCHIVE vgR" lxb vgcfgrestore -f "$archive" vgR
same_reports "after vgcfgrestore"
lvm2_vgck_clean "after vgcfgrestore" vgR
test_eq "restored: 2 PVs, tag r1, seqno above the old one" \
    "$(lvm2_field vgs pv_count,vg_tags vgR),$(( $(lvm2_field vgs vg_seqno vgR) > seq_before ))" "2,r1,1"
test_eq "the PV left out is an orphan again for LVM2" "$(lvm2_field pvs vg_name "${D[2]}")" ""
test_ok "lvx vgremove vgR" lxb vgremove vgR
test_ok "vgremove removed the backup file" test ! -e "$SCRATCH/lvxsys/backup/vgR"

# vgremove -f of a VG with LVs archives it first (as LVM2), so vgcfgrestore brings the
# LVs back; vgremove of an empty VG archives nothing
test_ok "lvx vgcreate vgA" lxb vgcreate -q vgA "${D[0]}" "${D[1]}"
test_ok "lvx lvcreate vgA/keep" lxb lvcreate -an -Zn -L 8m -n keep vgA
rm -f "$SCRATCH"/lvxsys/archive/vgA_*.vg
test_ok "lvx vgremove -f vgA (one LV)" lxb vgremove -f vgA
archive=$(ls "$SCRATCH"/lvxsys/archive/vgA_*.vg 2>/dev/null)
test_eq "vgremove -f left one archive" "$(echo "$archive" | grep -c .)" 1
test_ok "the archive says it was made before vgremove" \
    grep -q "Created \*before\* executing 'vgremove -f vgA" "$archive"
test_ok "vgcfgrestore -f ARCHIVE brings vgA back" lxb vgcfgrestore -f "$archive" vgA
test_eq "LVM2 sees the LV again" "$(lvm2_field lvs lv_name vgA)" "keep"
test_ok "lvx lvremove vgA/keep" lxb lvremove -f vgA/keep
rm -f "$SCRATCH"/lvxsys/archive/vgA_*.vg
test_ok "lvx vgremove vgA (no LVs)" lxb vgremove vgA
test_eq "vgremove of an empty VG archives nothing" "$(ls "$SCRATCH"/lvxsys/archive/vgA_*.vg 2>/dev/null | wc -l)" 0
test_ok "lvx pvremove of vgA's PVs" lxb pvremove -q "${D[0]}" "${D[1]}"

# a VG with a thin pool (fixture p08, image files): --force needed, as LVM2
mapfile -t imgs < <(fixture_images p08_segtype_zoo "$SCRATCH/p08")
if [[ ${#imgs[@]} -gt 0 ]]; then
    lxf() { LVM_SYSTEM_DIR="$SCRATCH/lvm" lvx "$@" --devices "$(IFS=,; echo "${imgs[*]}")"; }
    backup="$LVX_ROOT/tests/fixtures/lvm2/p08_segtype_zoo/backup-vg08.vg"
    seq_before=$(lxf vgs --noheadings -o vg_seqno vg08 2>/dev/null | tr -d ' ')
    test_fail "vgcfgrestore of a VG with a thin pool without --force is refused" \
        lxf vgcfgrestore -f "$backup" vg08
    cp "$SCRATCH/.err" "$SCRATCH/thin.err"
    test_ok "the refusal asks for --force" grep -q -- "--force" "$SCRATCH/thin.err"
    test_ok "vgcfgrestore --force -f BACKUP vg08" lxf vgcfgrestore --force -f "$backup" vg08
    test_eq "vg08 restored as the next version" "$(lxf vgs --noheadings -o vg_seqno vg08 2>/dev/null | tr -d ' ')" \
        "$((seq_before + 1))"
    test_ok "lvx vgck vg08 after the restore" lxf vgck vg08
else
    test_skip "vgcfgrestore of a VG with a thin pool" "fixture images could not be rebuilt"
fi

done_testing
