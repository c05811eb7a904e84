#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0443-missing-pv: commands on a VG with a missing PV (left out by the filter), side by
# side with LVM2 2.03 from the same on-disk state (the metadata areas are put back
# before each side): exit code, stdout, stderr (LVM2 repeats "Couldn't find device"
# lines: each distinct line is compared once) and the VG afterwards (lvs, the MISSING
# flag LVM2 writes for the missing PV, its "[unknown]" device hint).
#   - lvremove removes LVs while a PV is missing, also LVs with extents on it, and a
#     whole VG with -f (shell/missing-pv-unused, metadata-old);
#   - lvchange metadata changes (tags, -p, -r, -C, --alloc) are made, --alloc on a
#     partial LV is refused with LVM2's rule lines;
#   - lvcreate, lvrename, lvextend, vgchange -x, vgrename are refused with LVM2's three
#     lines ("Cannot change VG ... while PVs are missing.", the hint, "Cannot process
#     volume group ..."), exit 5;
#   - the PV back after such a write: LVM2's warnings; unused, it is used again (the
#     next write clears the flag); with extents in use, changes stay refused until
#     vgextend --restoremissing takes it back;
#   - a PV removed by vgreduce --removemissing while missing comes back outdated: vgck
#     --updatemetadata wipes it with LVM2's lines (shell/outdated-pv).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

side_setup 5
VG=vgmp$$
VU=vgmu$$
lvm2 vgcreate -q "$VG" "${D[0]}" "${D[1]}" "${D[2]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -n lv1 -L 8m "$VG" "${D[1]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -n lv2 -L 8m "$VG" "${D[2]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -n lv5 -l 3 "$VG" "${D[0]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -n span -L 100m "$VG" >/dev/null 2>&1
lvm2 vgcreate -q "$VU" "${D[3]}" "${D[4]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -n u1 -L 8m "$VU" "${D[4]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -n u2 -L 8m "$VU" "${D[4]}" >/dev/null 2>&1
test_eq "LVM2 made the LVs" "6" "$(lvm2 lvs --noheadings "$VG" "$VU" 2>/dev/null | wc -l)"

# the metadata areas (and labels) of every device, to start each side from the same state
save() { local d; for d in "${D[@]}"; do dd if="$d" of="$SCRATCH/${d##*/}.mda" bs=1M count=1 status=none; done; }
restore() {
    local d
    for d in "${D[@]}"; do
        dd if="$SCRATCH/${d##*/}.mda" of="$d" bs=1M count=1 oflag=direct conv=notrunc status=none
    done
}
save

# what a side leaves: the LVs, and the missing PV's entry in the metadata of PV 1
state() {  # state VG DEV
    lvm2 lvs -a --noheadings -o lv_name,lv_attr,lv_tags,lv_read_ahead,lv_allocation_policy,devices \
        "$1" 2>/dev/null
    lvm2 pvck --dump metadata "$2" 2>/dev/null | grep -E -c '"MISSING"|"\[unknown\]"'
}
one() {  # one TOOL ARGS...: $SCRATCH/TOOL.{rc,out,err}
    local t=$1 rc=0
    shift
    "$t" "$@" >"$SCRATCH/$t.out" 2>"$SCRATCH/$t.eraw" || rc=$?
    echo "$rc" >"$SCRATCH/$t.rc"
    # LVM2 names the newest copy's device in its device order, lvx in its scan order;
    # LVM2 skips the zeroing without device-mapper, lvx does it (README)
    sandbox_noise <"$SCRATCH/$t.eraw" | awk '!seen[$0]++' |
        sed -E 's/(for seqno [0-9]+ on )[^ ]+ (for VG)/\1DEV \2/' |
        grep -v -e 'Skipping zeroing and wipping' -e 'not zeroed\.$' >"$SCRATCH/$t.err"
}
# check DESC VG DEV ARGS...: each tool runs ARGS from the saved state (the sandbox as it
# is); compared: exit code, stdout, stderr, state VG DEV afterwards
check() {
    local d=$1 vg=$2 dev=$3
    shift 3
    restore; one lvm2 "$@"; state "$vg" "$dev" >"$SCRATCH/lvm2.state"
    restore; one lvx "$@"; state "$vg" "$dev" >"$SCRATCH/lvx.state"
    local f ok=0
    for f in rc out err state; do cmp -s "$SCRATCH/lvm2.$f" "$SCRATCH/lvx.$f" || ok=1; done
    sanitizer_report "$SCRATCH/lvx.eraw" && ok=1
    _tap_result "$ok" "$d"
    if [[ $ok != 0 ]]; then
        diag "exit LVM2 $(cat "$SCRATCH/lvm2.rc") lvx $(cat "$SCRATCH/lvx.rc")"
        for f in out err state; do diag "$f:" "$(diff "$SCRATCH/lvm2.$f" "$SCRATCH/lvx.$f")"; done
    fi
}

# ---- D0 missing (lvx warns about every VG it assembles, LVM2 only about the VG it
# reads: VU stays whole here) ------------------------------------------------------------
lvm_sandbox "${D[1]}" "${D[2]}" "${D[3]}" "${D[4]}"
V=("$VG" "${D[1]}")
check "lvs with a PV missing" "${V[@]}" lvs -a -o+devices "$VG"
check "lvremove of an LV not on the missing PV" "${V[@]}" lvremove "$VG/lv1"
check "lvremove -y of an LV on the missing PV only" "${V[@]}" lvremove -y "$VG/lv5"
check "lvremove of an LV partly on the missing PV" "${V[@]}" lvremove "$VG/span"
check "lvremove -f of the whole VG" "${V[@]}" lvremove -f "$VG"
check "lvchange --addtag (partial LV)" "${V[@]}" lvchange --addtag t1 "$VG/span"
check "lvchange -p r (partial LV)" "${V[@]}" lvchange -p r "$VG/span"
check "lvchange -r 256 (partial LV)" "${V[@]}" lvchange -r 256 "$VG/span"
check "lvchange -C y" "${V[@]}" lvchange -C y "$VG/lv1"
check "lvchange --alloc anywhere" "${V[@]}" lvchange --alloc anywhere "$VG/lv1"
check "lvchange --alloc anywhere refused on a partial LV" "${V[@]}" lvchange --alloc anywhere "$VG/span"
check "lvcreate refused (LVM2's three lines)" "${V[@]}" lvcreate -l1 -n new "$VG"
check "lvrename refused" "${V[@]}" lvrename "$VG/lv1" lvz
check "lvextend refused" "${V[@]}" lvextend -l+1 "$VG/lv1"
check "vgchange -x n refused" "${V[@]}" vgchange -x n "$VG"
check "vgrename refused" "${V[@]}" vgrename "$VG" "${VG}x"
check "vgreduce --removemissing (partial LVs left)" "${V[@]}" vgreduce --removemissing "$VG"
check "vgreduce --removemissing --force" "${V[@]}" vgreduce --removemissing --force "$VG"

# ---- the PV comes back after a write made without it ----------------------------------------
back() {  # back TOOL VG LV: from the saved state, TOOL removes LV with the VG's first PV gone
    restore
    lvm_sandbox "${D[1]}" "${D[2]}" "${D[4]}"
    "$1" lvremove -y "$2/$3" >/dev/null 2>&1
    lvm_sandbox "${D[@]}"
}
for tool in lvm2 lvx; do
    back "$tool" "$VG" lv1      # D0 gone while lv1 goes
    test_eq "$tool: the missing PV is written MISSING with device [unknown]" \
        "$(lvm2 pvck --dump metadata "${D[1]}" 2>/dev/null | grep -E -c '"MISSING"|"\[unknown\]"')" 2
done
# each side's commands from the state its own lvremove left (they are equal: checked above)
back_check() {  # back_check DESC VG LV DEV ARGS...: DEV a PV of VG that was never missing
    local d=$1 vg=$2 lv=$3 dev=$4
    shift 4
    local t f ok=0
    for t in lvm2 lvx; do
        back "$t" "$vg" "$lv"
        one "$t" "$@"
        state "$vg" "$dev" >"$SCRATCH/$t.state"
    done
    for f in rc out err state; do cmp -s "$SCRATCH/lvm2.$f" "$SCRATCH/lvx.$f" || ok=1; done
    _tap_result "$ok" "$d"
    if [[ $ok != 0 ]]; then
        diag "exit LVM2 $(cat "$SCRATCH/lvm2.rc") lvx $(cat "$SCRATCH/lvx.rc")"
        for f in out err state; do diag "$f:" "$(diff "$SCRATCH/lvm2.$f" "$SCRATCH/lvx.$f")"; done
    fi
}
back_check "PV back with extents in use: lvs warns as LVM2" "$VG" lv1 "${D[1]}" lvs "$VG"
back_check "PV back with extents in use: lvcreate refused" "$VG" lv1 "${D[1]}" \
    lvcreate -l1 -n new "$VG"
back_check "PV back with extents in use: lvremove still works" "$VG" lv1 "${D[1]}" \
    lvremove -y "$VG/lv2"
back_check "PV back with extents in use: vgextend --restoremissing takes it back" "$VG" lv1 \
    "${D[1]}" vgextend --restoremissing "$VG" "${D[0]}"
back_check "vgextend --restoremissing of a PV that was not missing: refused" "$VG" lv1 \
    "${D[1]}" vgextend --restoremissing "$VG" "${D[2]}"
# VU: its missing PV (D3) holds no extent
back_check "unused PV back: lvs warns as LVM2" "$VU" u2 "${D[4]}" lvs "$VU"
back_check "unused PV back: lvcreate works and clears the flag" "$VU" u2 "${D[4]}" \
    lvcreate -l1 -n new "$VU"
back_check "unused PV back: vgextend --restoremissing" "$VU" u2 "${D[4]}" \
    vgextend --restoremissing "$VU" "${D[3]}"

# ---- a PV removed while missing comes back outdated: vgck --updatemetadata wipes it
# (shell/outdated-pv)
for t in lvm2 lvx; do
    restore
    lvm_sandbox "${D[3]}"                     # VU's D4 missing: u1, u2 go
    lvm2 vgreduce --removemissing --force "$VU" >/dev/null 2>&1
    lvm_sandbox "${D[@]}"
    test_eq "$t: the removed PV is reported outdated" \
        "$("$t" pvs 2>&1 | grep -c "WARNING: outdated PV ${D[4]}")" 1
    one "$t" vgck --updatemetadata "$VU"
    test_eq "$t vgck --updatemetadata: exit 0" "$(cat "$SCRATCH/$t.rc")" 0
    test_eq "$t: ... no outdated PV left (read by LVM2)" "$(lvm2 pvs 2>&1 | grep -c outdated)" 0
done
test_ok "vgck --updatemetadata: LVM2's messages" cmp "$SCRATCH/lvm2.err" "$SCRATCH/lvx.err"

lvm2 vgremove -q -f "$VG" "$VU" >/dev/null 2>&1
done_testing
