#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0948-autoactivation-list: autoactivation (-aay) of vgchange, lvchange, lvcreate and
# pvscan --cache as LVM2 (issue 15): lvm.conf activation/auto_activation_volume_list
# ("VG", "VG/LV", "@tag" of the LV or its VG; an empty list activates nothing; unset:
# everything), the LV and VG NOAUTOACTIVATE flags (set by LVM2's --setautoactivation n),
# -ay ignoring all of them.  lvx activates through its daemon (user backend); LVM2,
# sandboxed without device-mapper, is the oracle for which LVs the list lets through
# (its -v lines) and for the output of a VG flagged NOAUTOACTIVATE (none, exit 0).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

[[ -c /dev/fuse ]] || skip_all "no /dev/fuse (user activation backend)"
VG=vgaa$$
side_setup 2
mkdir -p "$SCRATCH/dev"
ON='global { activation = 1 }'
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user lvx "$@"; }
active() {      # the active LVs of the VG, one line
    U lvs --config "$ON" --noheadings -o lv_name,lv_active "$VG" 2>/dev/null |
        awk '$2 == "active" { printf "%s ", $1 }'
}
off() { U vgchange -an --config "$ON" "$VG" >/dev/null 2>&1; }
list() { printf 'activation { auto_activation_volume_list = [ %s ] }' "$1"; }

lvm2 vgcreate -q "$VG" "${D[@]}" >/dev/null 2>&1
for n in a b c; do lvm2 lvcreate -q -an -Zn -n "$n" -L 4m "$VG" >/dev/null 2>&1; done
lvm2 lvchange -q --addtag t1 "$VG/b" >/dev/null 2>&1
test_eq "LVM2 made a VG with three LVs, b tagged t1" "a b t1 c" \
    "$(lvm2 lvs --noheadings -o lv_name,lv_tags "$VG" 2>/dev/null | xargs)"

# LVM2's verdict on each LV for a list (its -v lines): the LVs it lets through
lvm2_passes() {
    lvm2 vgchange -aay -v --config "$(list "$1")" "$VG" 2>&1 |
        sed -n 's/.*Checking the list to match [^/]*\/\([a-z]*\)\./\1/p; s/.*No item supplied .* matches [^/]*\/\([a-z]*\)\./-\1/p' |
        awk '/^-/ { no[substr($0, 2)] = 1; next } { seen[++n] = $0 }
             END { for (i = 1; i <= n; i++) if (!no[seen[i]]) printf "%s ", seen[i] }'
}

L1="\"$VG/a\", \"@t1\""
off
test_ok "vgchange -aay, list [VG/a, @t1]" U vgchange -aay --config "$ON $(list "$L1")" "$VG"
test_eq "... a and b active, c not" "a b " "$(active)"
test_eq "... the LVs LVM2's list check lets through" "$(lvm2_passes "$L1")" "$(active)"
off
test_ok "vgchange -aay, empty list" U vgchange -aay --config "$ON $(list "")" "$VG"
test_eq "... nothing active (LVM2: none passes)" "$(lvm2_passes "")|" "$(active)|"
off
test_ok "vgchange -aay, list [VG]" U vgchange -aay --config "$ON $(list "\"$VG\"")" "$VG"
test_eq "... all active (as LVM2)" "$(lvm2_passes "\"$VG\"")" "$(active)"
off
test_ok "vgchange -ay ignores the list" U vgchange -ay --config "$ON $(list "")" "$VG"
test_eq "... all active" "a b c " "$(active)"
off
test_ok "lvchange -aay of an LV not in the list: exit 0" \
    U lvchange -aay --config "$ON $(list "\"$VG/a\"")" "$VG/c"
test_eq "... left inactive" "" "$(active)"
test_ok "lvchange -aay of an LV in the list" \
    U lvchange -aay --config "$ON $(list "\"$VG/a\"")" "$VG/a"
test_eq "... active" "a " "$(active)"
off
cp "$SCRATCH/lvm/lvm.conf" "$SCRATCH/lvm.conf.plain"
list "\"$VG/b\"" >>"$SCRATCH/lvm/lvm.conf"
test_eq "lvm.conf now holds the list" "1" "$(grep -c auto_activation_volume_list "$SCRATCH/lvm/lvm.conf")"
rm -rf "$LVX_RUN_DIR/pvs_online" "$LVX_RUN_DIR/vgs_online"
U pvscan --cache -aay --config "$ON" "${D[0]}" >/dev/null 2>&1
test_ok "pvscan --cache -aay completing the VG" U pvscan --cache -aay --config "$ON" "${D[1]}"
grep -q "VG $VG run autoactivation" "$SCRATCH/.out"
_tap_result $? "... ran the autoactivation"
test_eq "... only b (lvm.conf's list) active" "b " "$(active)"
cp "$SCRATCH/lvm.conf.plain" "$SCRATCH/lvm/lvm.conf"
off

# lvcreate -aay: the new LV is activated only when the list lets it through; it is
# created either way (exit 0)
test_ok "lvcreate -aay of an LV not in the list: created" \
    U lvcreate -aay -Zn --config "$ON $(list "\"$VG/a\"")" -n d -L 4m "$VG"
test_eq "... left inactive" "" "$(active)"
test_ok "lvcreate -aay of an LV in the list" \
    U lvcreate -aay -Zn --config "$ON $(list "\"$VG/e\"")" -n e -L 4m "$VG"
test_eq "... active" "e " "$(active)"
test_ok "lvcreate -ay ignores the list" \
    U lvcreate -ay -Zn --config "$ON $(list "\"$VG/a\"")" -n f -L 4m "$VG"
test_eq "... active" "e f " "$(active)"
off
U lvremove -f --config "$ON" "$VG/d" "$VG/e" "$VG/f" >/dev/null 2>&1
test_eq "... removed again" "a b c" "$(lvm2 lvs --noheadings -o lv_name "$VG" 2>/dev/null | xargs)"

# the flags LVM2's --setautoactivation n sets
lvm2 lvchange -q --setautoactivation n "$VG/c" >/dev/null 2>&1
test_ok "vgchange -aay, LV c flagged NOAUTOACTIVATE" U vgchange -aay --config "$ON" "$VG"
test_eq "... a and b active" "a b " "$(active)"
test_ok "lvchange -aay of c: exit 0" U lvchange -aay --config "$ON" "$VG/c"
test_eq "... c still inactive" "a b " "$(active)"
off
lvm2 vgchange -q --setautoactivation n "$VG" >/dev/null 2>&1
side vgchange -aay "$VG"
test_eq "VG flagged NOAUTOACTIVATE: vgchange -aay as LVM2 (exit, stdout, stderr)" \
    "$(cat "$SCRATCH/l.rc" "$SCRATCH/l.out" "$SCRATCH/l.err")" \
    "$(cat "$SCRATCH/x.rc" "$SCRATCH/x.out" "$SCRATCH/x.err")"
test_ok "... with activation on" U vgchange -aay --config "$ON" "$VG"
test_eq "... nothing active, nothing printed" "|" "$(active)|$(cat "$SCRATCH/.out" "$SCRATCH/.err")"
test_ok "vgchange -ay still activates all" U vgchange -ay --config "$ON" "$VG"
test_eq "... a b c" "a b c " "$(active)"
off
U daemon stop >/dev/null 2>&1

done_testing
