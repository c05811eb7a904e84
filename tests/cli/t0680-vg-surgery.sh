#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0680-vg-surgery: vgsplit, vgmerge, vgexport, vgimport, vgimportclone, vgchange -u,
# pvchange -u and vgreduce --removemissing [--force [--mirrorsonly]] (D3 hidden from
# both tools) on twin setups (tests/tools/lv_twin.sh): side A changed by lvx, side B by
# LVM2, the same command line on both.  Every step starts from the same layout (VG vgsa
# on D0..D3, extent size 1 MiB: l1 on D0, l2 striped over D0+D1, l3 on D2, l4 on D3; made
# by LVM2 on both sides) and checks:
#   * the exit codes are equal, and so are the messages (device names as D<n>; LVM2's
#     lines about disabled activation and backups dropped);
#   * LVM2's reports of both sides are equal: vgs/pvs/lvs -a with every field but the
#     UUIDs (devices as D<n>, rows sorted);
#   * for every VG: the metadata LVM2's vgcfgbackup writes is the same on both sides
#     except for ids, times, hosts; LVM2's vgck accepts lvx's VG (an exported VG: the
#     exit code equals side B's);
#   * a refused command wrote nothing to side A (sha256 of the devices unchanged).
# Then LVM2 reads back what lvx split (vgmerge by LVM2 of lvx's halves) and lvx merges
# what LVM2 split; vgimportclone of a dd copy of the VG's disks (the original still
# attached) on both sides; new UUIDs of vgchange -u / pvchange -u differ from the old ones.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

need_loop
need_cmd lvm "$PYTHON"
need_lvx
plan_later

twin_setup 4 16M vgsa -s 1m || { _tap_result 1 "set up twin VGs"; done_testing; }

# remove every VG and PV of a side, then build the common starting layout with LVM2
reset_side() {  # reset_side a|b
    local s=$1 vg d args
    for vg in $("lvm_$s" vgs --noheadings -o vg_name 2>/dev/null); do
        "lvm_$s" vgimport "$vg" >/dev/null 2>&1
        "lvm_$s" vgremove -ff "$vg" >/dev/null 2>&1
    done
    mapfile -d '' args < <(twin_args "$s" %0 %1 %2 %3)
    for d in "${args[@]}"; do "lvm_$s" pvremove -ff -y "$d" >/dev/null 2>&1; done
    "lvm_$s" vgcreate -s 1m vgsa "${args[@]}" >/dev/null 2>&1 || return 1
    "lvm_$s" lvcreate -an -Zn -n l1 -l 4 vgsa "${args[0]}" >/dev/null 2>&1 &&
    "lvm_$s" lvcreate -an -Zn -n l2 -l 4 -i 2 vgsa "${args[0]}" "${args[1]}" >/dev/null 2>&1 &&
    "lvm_$s" lvcreate -an -Zn -n l3 -l 4 vgsa "${args[2]}" >/dev/null 2>&1 &&
    "lvm_$s" lvcreate -an -Zn -n l4 -l 4 vgsa "${args[3]}" >/dev/null 2>&1
}
# the starting layout is made once; later resets copy the saved images back
reset() {
    local i
    if [[ ! -e $SCRATCH/img.b3 ]]; then
        reset_side a && reset_side b || return 1
        for i in 0 1 2 3; do
            dd if="${TWIN_A[$i]}" of="$SCRATCH/img.a$i" bs=1M status=none
            dd if="${TWIN_B[$i]}" of="$SCRATCH/img.b$i" bs=1M status=none
        done
        return 0
    fi
    for i in 0 1 2 3; do
        dd if="$SCRATCH/img.a$i" of="${TWIN_A[$i]}" bs=1M status=none conv=fsync
        dd if="$SCRATCH/img.b$i" of="${TWIN_B[$i]}" bs=1M status=none conv=fsync
    done
}

# LVM2's lines that only one side prints (no activation, no backups in the sandbox)
filter_msgs() {
    sandbox_noise | grep -v -e 'WARNING: updating old metadata' -e "Couldn't find device with uuid" \
        -e 'is missing PV' -e 'memory leak' -e '^ *\[0x' -e 'Unreleased memory pool' |
        sed "$1" | if [[ -n ${SORT_MSGS:-} ]]; then sort; else cat; fi
}

VGF=vg_name,vg_attr,vg_fmt,vg_extent_size,vg_extent_count,vg_free_count,vg_size,vg_free,vg_seqno,pv_count,lv_count,snap_count,vg_mda_count,vg_mda_used_count,vg_mda_copies,max_lv,max_pv,vg_allocation_policy,vg_systemid,vg_tags,vg_exported
PVF=pv_name,vg_name,pv_fmt,pv_size,pe_start,pv_pe_count,pv_pe_alloc_count,pv_mda_count,pv_mda_used_count,pv_attr,pv_allocatable,pv_exported,pv_tags
LVF=lv_name,vg_name,lv_attr,lv_size,seg_count,devices,lv_tags

report() {  # report a|b: every report without UUIDs, devices as D<n>, sorted
    local s=$1
    {
        "lvm_$s" vgs --noheadings --separator '|' -o "$VGF" 2>/dev/null | sed 's/^/vg /'
        "lvm_$s" pvs --noheadings --separator '|' -o "$PVF" 2>/dev/null | sed 's/^/pv /'
        "lvm_$s" lvs -a --noheadings --separator '|' -o "$LVF" 2>/dev/null | sed 's/^/lv /'
    } | tr -s ' ' | sed "$(_twin_sed "$s")" | sort     # sorted after the names are D<n>
}

# the metadata of VG on side s as LVM2 backs it up, without ids, times, hosts
meta() {  # meta a|b VG
    "lvm_$1" vgcfgbackup -f "$SCRATCH/meta.$1" "$2" >/dev/null 2>&1 || { echo "no backup of $2"; return; }
    sed -E 's/id = "[^"]*"/id = ID/; /^(description|contents|version|creation_host|creation_time)/d;
            s/creation_time = [0-9]+.*/creation_time = T/; s/creation_host = "[^"]*"/creation_host = H/;
            /^# Generated/d' "$SCRATCH/meta.$1" | sed "$(_twin_sed "$1")"
}

sides_equal() {
    local va vb vg rc=0 ra rb ma mb
    ra=$(report a)
    rb=$(report b)
    if [[ $ra != "$rb" ]]; then
        diff <(echo "$ra") <(echo "$rb") | head -20 >&2
        rc=1
    fi
    va=$(lvm_a vgs --noheadings -o vg_name 2>/dev/null | tr -d ' ' | sort | tr '\n' ' ')
    vb=$(lvm_b vgs --noheadings -o vg_name 2>/dev/null | tr -d ' ' | sort | tr '\n' ' ')
    [[ $va == "$vb" ]] || { echo "VGs: A=$va B=$vb" >&2; return 1; }
    for vg in $va; do
        ma=$(meta a "$vg")
        mb=$(meta b "$vg")
        if [[ $ma != "$mb" ]]; then
            diff <(echo "$ma") <(echo "$mb") | head -20 >&2
            rc=1
        fi
    done
    return $rc
}

vgck_all() {  # LVM2's vgck on side A: as side B's result for the same VG
    local vg ra rb
    for vg in $(lvm_a vgs --noheadings -o vg_name 2>/dev/null); do
        ra=0; rb=0
        lvm_a vgck "$vg" >"$SCRATCH/vgck.out" 2>&1 || ra=$?
        lvm_b vgck "$vg" >/dev/null 2>&1 || rb=$?
        [[ $ra == "$rb" ]] || { echo "vgck $vg: lvx side $ra, LVM2 side $rb" >&2; cat "$SCRATCH/vgck.out" >&2; return 1; }
        if [[ $ra == 0 ]] && grep -v 'Activation disabled' "$SCRATCH/vgck.out" | grep -q WARNING; then cat "$SCRATCH/vgck.out" >&2; return 1; fi
    done
}

sha_a() { sha_devs "${TWIN_A[@]}"; }

# step "description" ARGS...: one command line (%N = device N of the side) on both sides
step() {
    local desc=$1 xa xb before
    shift
    mapfile -d '' A < <(twin_args a "$@")
    mapfile -d '' B < <(twin_args b "$@")
    before=$(sha_a)
    xa=0; xb=0
    lvx_a "${A[@]}" >"$SCRATCH/a.out" 2>"$SCRATCH/a.err" || xa=$?
    lvm_b "${B[@]}" >"$SCRATCH/b.out" 2>"$SCRATCH/b.err" || xb=$?
    test_eq "$desc: exit code" "$xa" "$xb"
    test_eq "$desc: messages" "$(cat "$SCRATCH/a.out" "$SCRATCH/a.err" | filter_msgs "$(_twin_sed a)")" \
        "$(cat "$SCRATCH/b.out" "$SCRATCH/b.err" | filter_msgs "$(_twin_sed b)")"
    # STEP_WRITES: LVM2 fails but writes (vgreduce --removemissing with partial LVs,
    # vgimport -a with a VG not exported)
    if [[ $xb != 0 && -z ${STEP_WRITES:-} ]]; then
        test_eq "$desc: refused, nothing written" "$(sha_a)" "$before"
    else
        test_ok "$desc: reports and metadata equal" sides_equal
        test_ok "$desc: LVM2's vgck on lvx's VGs" vgck_all
    fi
}

# ---- vgsplit -----------------------------------------------------------------------
reset || { _tap_result 1 "reset"; done_testing; }
step "vgsplit by PVs" vgsplit vgsa vgsb %2 %3
reset; step "vgsplit -n LV" vgsplit -n l2 vgsa vgsb
reset; step "vgsplit -n VG/LV" vgsplit -n vgsa/l3 vgsa vgsb
reset; step "vgsplit every PV" vgsplit vgsa vgsb %3 %2 %1 %0
reset; step "vgsplit -l -p --alloc" vgsplit -l 5 -p 7 --alloc contiguous vgsa vgsb %2
reset; lvm_a vgsplit vgsa vgsb %3 >/dev/null 2>&1; lvm_a vgsplit vgsa vgsb "${TWIN_A[3]}" >/dev/null 2>&1
lvm_b vgsplit vgsa vgsb "${TWIN_B[3]}" >/dev/null 2>&1
step "vgsplit into an existing VG" vgsplit vgsa vgsb %2
step "vgsplit back into the existing VG" vgsplit vgsb vgsa %2
# refusals
reset
step "vgsplit: LV on both sides" vgsplit vgsa vgsb %1
step "vgsplit: PV of another VG" vgsplit vgsa vgsb /dev/nosuchdev
step "vgsplit: same VG" vgsplit vgsa vgsa %2
step "vgsplit: no PV" vgsplit vgsa vgsb
step "vgsplit: -n with PVs" vgsplit -n l2 vgsa vgsb %2
step "vgsplit: unknown LV" vgsplit -n nope vgsa vgsb
step "vgsplit: bad VG name" vgsplit vgsa bad/name %2
step "vgsplit: unknown source" vgsplit nosuch vgsb %2
lvm_a vgsplit vgsa vgsb "${TWIN_A[3]}" >/dev/null 2>&1; lvm_b vgsplit vgsa vgsb "${TWIN_B[3]}" >/dev/null 2>&1
step "vgsplit: new-VG option for an existing VG" vgsplit -l 9 vgsa vgsb %2
lvm_a vgcreate -s 2m vgsc "${TWIN_A[3]}" >/dev/null 2>&1 || true
lvm_a vgremove -ff vgsb >/dev/null 2>&1; lvm_a vgcreate -s 2m vgsb "${TWIN_A[3]}" >/dev/null 2>&1
lvm_b vgremove -ff vgsb >/dev/null 2>&1; lvm_b vgcreate -s 2m vgsb "${TWIN_B[3]}" >/dev/null 2>&1
step "vgsplit: extent sizes differ" vgsplit vgsa vgsb %2
reset; lvm_a vgexport vgsa >/dev/null 2>&1; lvm_b vgexport vgsa >/dev/null 2>&1
step "vgsplit: exported source" vgsplit vgsa vgsb %2

# ---- vgmerge -----------------------------------------------------------------------
split_both() { lvm_a vgsplit vgsa vgsb "${TWIN_A[2]}" "${TWIN_A[3]}" >/dev/null 2>&1 &&
               lvm_b vgsplit vgsa vgsb "${TWIN_B[2]}" "${TWIN_B[3]}" >/dev/null 2>&1; }
reset; split_both; step "vgmerge" vgmerge vgsa vgsb
reset; split_both; step "vgmerge -l, the other way" vgmerge -l vgsb vgsa
reset; split_both
step "vgmerge: same VG" vgmerge vgsa vgsa
step "vgmerge: unknown VG" vgmerge vgsa nosuch
step "vgmerge: one VG" vgmerge vgsa
step "vgmerge: three VGs" vgmerge vgsa vgsb vgsc
lvm_a lvrename vgsb l3 l1 >/dev/null 2>&1; lvm_b lvrename vgsb l3 l1 >/dev/null 2>&1
step "vgmerge: LV name in both" vgmerge vgsa vgsb
lvm_a lvrename vgsb l1 l3 >/dev/null 2>&1; lvm_b lvrename vgsb l1 l3 >/dev/null 2>&1
lvm_a vgchange -p 3 vgsa >/dev/null 2>&1; lvm_b vgchange -p 3 vgsa >/dev/null 2>&1
step "vgmerge: max PVs" vgmerge vgsa vgsb
lvm_a vgchange -p 0 -l 5 vgsa >/dev/null 2>&1; lvm_b vgchange -p 0 -l 5 vgsa >/dev/null 2>&1
step "vgmerge: max LVs" vgmerge vgsa vgsb
lvm_a vgchange -l 0 vgsa >/dev/null 2>&1; lvm_b vgchange -l 0 vgsa >/dev/null 2>&1
lvm_a vgexport vgsb >/dev/null 2>&1; lvm_b vgexport vgsb >/dev/null 2>&1
step "vgmerge: exported VG" vgmerge vgsa vgsb
reset
lvm_a vgsplit vgsa vgsb "${TWIN_A[3]}" >/dev/null 2>&1; lvm_a vgremove -ff vgsb >/dev/null 2>&1
lvm_a vgcreate -s 2m vgsb "${TWIN_A[3]}" >/dev/null 2>&1
lvm_b vgsplit vgsa vgsb "${TWIN_B[3]}" >/dev/null 2>&1; lvm_b vgremove -ff vgsb >/dev/null 2>&1
lvm_b vgcreate -s 2m vgsb "${TWIN_B[3]}" >/dev/null 2>&1
step "vgmerge: extent sizes differ" vgmerge vgsa vgsb

# ---- vgexport / vgimport -----------------------------------------------------------
reset; split_both
step "vgexport" vgexport vgsb
step "vgexport: exported again" vgexport vgsb
step "vgimport: not exported" vgimport vgsa
step "vgimport" vgimport vgsb
step "vgexport: no argument" vgexport
step "vgimport: -a with a VG" vgimport -a vgsa
reset; split_both
lvm_a vgexport vgsa >/dev/null 2>&1; lvm_b vgexport vgsa >/dev/null 2>&1
STEP_WRITES=1 SORT_MSGS=1 step "vgimport -a (one exported, one not)" vgimport -a
lvm_a vgexport -a >/dev/null 2>&1; lvm_b vgexport -a >/dev/null 2>&1
# LVM2 walks the VGs in the reverse order of its scan: the lines are compared sorted
SORT_MSGS=1 step "vgimport -a" vgimport -a
SORT_MSGS=1 step "vgexport -a" vgexport -a

# ---- LVM2 reads lvx's split, lvx merges LVM2's --------------------------------------
reset
lvx_a vgsplit vgsa vgsb "${TWIN_A[1]}" "${TWIN_A[0]}" >/dev/null 2>&1
test_ok "LVM2 merges what lvx split" lvm_a vgmerge vgsb vgsa
test_ok "LVM2's vgck after the merge" lvm_a vgck vgsb
lvm_a vgsplit vgsb vgsa "${TWIN_A[2]}" >/dev/null 2>&1
test_ok "lvx merges what LVM2 split" lvx_a vgmerge vgsa vgsb
test_eq "lvx's merge: 4 PVs, 4 LVs" "$(lvm_a vgs --noheadings -o pv_count,lv_count vgsa 2>/dev/null | tr -s ' ')" " 4 4"

# ---- vgchange -u / pvchange -u -----------------------------------------------------
reset
old_vg=$(lvm_a vgs --noheadings -o vg_uuid vgsa 2>/dev/null | tr -d ' ')
old_pv=$(lvm_a pvs --noheadings -o pv_uuid "${TWIN_A[2]}" 2>/dev/null | tr -d ' ')
step "vgchange -u" vgchange -u vgsa
new_vg=$(lvm_a vgs --noheadings -o vg_uuid vgsa 2>/dev/null | tr -d ' ')
test_ok "vgchange -u: a new VG UUID" test -n "$new_vg" -a "$new_vg" != "$old_vg"
step "pvchange -u" pvchange -u %2
new_pv=$(lvm_a pvs --noheadings -o pv_uuid "${TWIN_A[2]}" 2>/dev/null | tr -d ' ')
test_ok "pvchange -u: a new PV UUID" test -n "$new_pv" -a "$new_pv" != "$old_pv"

# ---- vgreduce --removemissing -------------------------------------------------------
# D3 (l4's PV) disappears: both sandboxes and lvx's --devices stop seeing it
FULL_A=("${TWIN_A[@]}") FULL_B=("${TWIN_B[@]}")
hide_d3() {
    TWIN_A=("${FULL_A[@]:0:3}") TWIN_B=("${FULL_B[@]:0:3}")
    _twin_sandbox "$SCRATCH/twin_a" "${TWIN_A[@]}"
    _twin_sandbox "$SCRATCH/twin_b" "${TWIN_B[@]}"
}
show_all() {
    TWIN_A=("${FULL_A[@]}") TWIN_B=("${FULL_B[@]}")
    _twin_sandbox "$SCRATCH/twin_a" "${TWIN_A[@]}"
    _twin_sandbox "$SCRATCH/twin_b" "${TWIN_B[@]}"
}
reset; hide_d3
STEP_WRITES=1 step "vgreduce --removemissing with a partial LV" vgreduce --removemissing vgsa
step "vgreduce --removemissing --mirrorsonly --force" vgreduce --removemissing --mirrorsonly --force vgsa
step "vgreduce --removemissing --force" vgreduce --removemissing --force vgsa
step "vgreduce --removemissing, consistent" vgreduce --removemissing vgsa
show_all; reset
lvm_a lvremove -y vgsa/l4 >/dev/null 2>&1; lvm_b lvremove -y vgsa/l4 >/dev/null 2>&1; hide_d3
step "vgreduce --removemissing, empty missing PV" vgreduce --removemissing vgsa
step "vgreduce --mirrorsonly alone" vgreduce --mirrorsonly vgsa
show_all

# ---- vgimportclone -----------------------------------------------------------------
# a dd copy of side s's D0..D3 on four more loop devices (C0..C3), the original attached
CLONE_A=() CLONE_B=()
for _ in 0 1 2 3; do CLONE_A+=("$(make_loop 16M)"); CLONE_B+=("$(make_loop 16M)"); done
_twin_sandbox "$SCRATCH/twin_a" "${TWIN_A[@]}" "${CLONE_A[@]}"
_twin_sandbox "$SCRATCH/twin_b" "${TWIN_B[@]}" "${CLONE_B[@]}"
TWIN_A+=("${CLONE_A[@]}")
TWIN_B+=("${CLONE_B[@]}")
clone() {
    local i
    for i in 0 1 2 3; do
        dd if="${TWIN_A[$i]}" of="${CLONE_A[$i]}" bs=1M status=none conv=fsync
        dd if="${TWIN_B[$i]}" of="${CLONE_B[$i]}" bs=1M status=none conv=fsync
    done
}
reset; clone
step "vgimportclone" vgimportclone %4 %5 %6 %7
reset; clone
step "vgimportclone --basevgname" vgimportclone --basevgname vgsa %4 %5 %6 %7
reset; clone
step "vgimportclone: missing PV" vgimportclone %4 %5 %6
step "vgimportclone: a device of no VG" vgimportclone /dev/nosuchdev
reset; clone
lvm_a vgexport vgsa >/dev/null 2>&1; lvm_b vgexport vgsa >/dev/null 2>&1; clone
step "vgimportclone: exported" vgimportclone -n vgx %4 %5 %6 %7
# (not again on the VG just imported as vgx: LVM2 2.03.16 then locks V_vgx twice and hangs)
reset; lvm_a vgexport vgsa >/dev/null 2>&1; lvm_b vgexport vgsa >/dev/null 2>&1; clone
step "vgimportclone -i -n" vgimportclone -i -n vgx %4 %5 %6 %7
test_ok "the clone's PV UUIDs differ from the original's" \
    test "$(lvm_a pvs --noheadings -o pv_uuid "${TWIN_A[0]}" 2>/dev/null)" != \
         "$(lvm_a pvs --noheadings -o pv_uuid "${CLONE_A[0]}" 2>/dev/null)"

done_testing
