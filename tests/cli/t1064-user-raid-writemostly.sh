#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1064-user-raid-writemostly: lvchange --writemostly PV[:y|:n|:t] and --writebehind N
# of a raid1 LV served by the lvx daemon (LVM2's _lvchange_writemostly), with LVM2
# (activation off) as the oracle of the metadata.  Three 64 MiB loop devices:
#   - refusals (one line each, exit codes, nothing committed): a linear LV (LVM2's rule
#     lines, as LVM2), an inactive raid1 (not in sync, as LVM2), a PV outside the VG,
#     every image writemostly, --writebehind "invalid" and -256 (exit 3);
#   - raid1 r (2 legs): --writemostly PV1 sets rimage_0's 9th lv_attr letter 'w' and
#     health "writemostly", again and :y keep it, :n and :t clear/toggle, two
#     --writemostly at once toggle both; LVM2 reads WRITEMOSTLY and writebehind = 512
#     back (raid_write_behind 512);
#   - the daemon reads from the other leg: with rimage_0 writemostly and 1 MiB of it
#     overwritten on its PV, the LV reads leg 1's bytes (every read); after :n the
#     reads go round robin again (some from the changed leg 0).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgwm$$
uspace_test_loops "$VG" 3 64M
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
MIB=1048576

hl() { lvx lvs -a --noheadings -o lv_attr "$VG/$1" 2>/dev/null | tr -d ' ' | cut -c9; }
hs() { lvx lvs -a --noheadings -o lv_health_status "$VG/$1" 2>/dev/null | tr -d ' '; }
both_h() { echo "$(hl r_rimage_0)$(hl r_rimage_1)"; }
seqno() { lvx vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
# same_refusal: tests/lib.sh
refusal() {  # refusal DESC RC LINE ARGS...: lvx alone
    local desc=$1 rc=$2 line=$3 out got=0
    shift 3
    out=$(lvx "$@" 2>&1) || got=$?
    test_eq "$desc: exit $rc, one line" "$got|$out" "$rc|  $line"
}

uspace_run_ok "pvcreate, vgcreate" sh -c "$LVX pvcreate ${DEVS[*]} && $LVX vgcreate $VG ${DEVS[*]}"
uspace_run_ok "lvcreate -an -L 4m lin" lvx lvcreate -an -Zn -L 4m -n lin "$VG"
uspace_run_ok "lvcreate -an --type raid1 -m1 -L 8m r (on PV1, PV2)" \
    lvx lvcreate -an -Zn --type raid1 -m1 -L 8m -n r "$VG" "${DEVS[0]}" "${DEVS[1]}"
s0=$(seqno)
same_refusal "--writemostly of a linear LV" lvchange --writemostly "${DEVS[0]}" "$VG/lin"
test_eq "... exit 5" "$(cat "$SCRATCH/x.rc")" 5
same_refusal "--writemostly of an inactive raid1 (its sync state unknown)" \
    lvchange --writemostly "${DEVS[0]}" "$VG/r"
test_eq "... exit 5" "$(cat "$SCRATCH/x.rc")" 5
refusal "--writebehind invalid" 3 "Invalid argument for --writebehind: invalid" \
    lvchange --writebehind invalid "$VG/r"
refusal "--writebehind -256" 3 "Invalid argument for --writebehind: -256" \
    lvchange --writebehind -256 "$VG/r"
uspace_run_ok "activate r (the daemon)" lvx lvchange -ay "$VG/r"
test_ok "r in sync (polled)" wait_synced r
refusal "a PV outside the VG" 5 "/dev/nonexistent not found in volume group, $VG" \
    lvchange --writemostly /dev/nonexistent "$VG/r"
refusal "every image writemostly" 5 "Can't set all images of raid1 LV $VG/r to writemostly." \
    lvchange --writemostly "${DEVS[0]}" --writemostly "${DEVS[1]}" "$VG/r"
test_eq "the refusals committed nothing (seqno $s0)" "$(seqno)" "$s0"
test_eq "no image writemostly yet ('-' '-')" "$(both_h)" "--"

out=$(lvx lvchange --writemostly "${DEVS[0]}" "$VG/r" 2>&1)
test_eq "--writemostly PV1: exit 0, LVM2's line" "$?|$(grep -v 'NOT backed up' <<<"$out")" \
    "0|  Logical volume $VG/r changed."
test_eq "rimage_0 'w', rimage_1 '-'" "$(both_h)" "w-"
test_eq "rimage_0's health: writemostly" "$(hs r_rimage_0)" "writemostly"
lvx vgcfgbackup -f "$SCRATCH/md" "$VG" >/dev/null 2>&1
test_ok "the metadata: rimage_0's status has WRITEMOSTLY" \
    grep -A3 'r_rimage_0 {' "$SCRATCH/md"
test_eq "... WRITEMOSTLY on one image only" "$(grep -c WRITEMOSTLY "$SCRATCH/md")" 1

# the daemon reads from leg 1: leg 0's first MiB changed on its PV
report r_rimage_1
want=$(pv_sum r_rimage_1 0 $MIB)
report r_rimage_0
for o in 0 4096 65536 131072 262144 524288 786432; do pv_plant r_rimage_0 $o; done
test_ok "leg 0 now differs from leg 1 on the PVs" test "$(pv_sum r_rimage_0 0 $MIB)" != "$want"
same=0
for _ in 1 2 3 4 5 6; do [[ $(lv_sum "$DM_DEV_DIR/$VG/r" 0 $MIB) == "$want" ]] && same=$((same + 1)); done
test_eq "6 reads of the LV's first MiB (64 KiB requests): all leg 1's bytes" "$same" 6

uspace_run_ok "--writemostly PV1 again" lvx lvchange --writemostly "${DEVS[0]}" "$VG/r"
test_eq "... still 'w-'" "$(both_h)" "w-"
uspace_run_ok "--writemostly PV1:y" lvx lvchange --writemostly "${DEVS[0]}:y" "$VG/r"
test_eq "... still 'w-'" "$(both_h)" "w-"
uspace_run_ok "--writemostly PV1:n" lvx lvchange --writemostly "${DEVS[0]}:n" "$VG/r"
test_eq "... '--'" "$(both_h)" "--"
same=0
for _ in 1 2 3 4 5 6; do [[ $(lv_sum "$DM_DEV_DIR/$VG/r" 0 $MIB) == "$want" ]] && same=$((same + 1)); done
test_ok "after :n the reads go to both legs again (some differ: $((6 - same)) of 6)" test "$same" -lt 6
uspace_run_ok "--writemostly PV1:t" lvx lvchange --writemostly "${DEVS[0]}:t" "$VG/r"
test_eq "... 'w-'" "$(both_h)" "w-"
uspace_run_ok "--writemostly PV1:t --writemostly PV2:t" \
    lvx lvchange --writemostly "${DEVS[0]}:t" --writemostly "${DEVS[1]}:t" "$VG/r"
test_eq "... '-w'" "$(both_h)" "-w"
uspace_run_ok "--writebehind 512" lvx lvchange --writebehind 512 "$VG/r"
test_eq "raid_write_behind 512 (lvx)" \
    "$(lvx lvs --noheadings -o raid_write_behind "$VG/r" 2>/dev/null | tr -d ' ')" 512
test_eq "raid_write_behind as LVM2 reads it" \
    "$(lvm2 lvs --noheadings -o raid_write_behind "$VG/r" 2>/dev/null | tr -d ' ')" 512
lvx vgcfgbackup -f "$SCRATCH/md" "$VG" >/dev/null 2>&1
test_ok "the metadata: writebehind = 512 in r's segment" grep -q 'writebehind = 512' "$SCRATCH/md"
test_ok "LVM2's vgcfgrestore --test takes lvx's metadata" \
    lvm2 vgcfgrestore --test -f "$SCRATCH/md" "$VG"
uspace_run_ok "--writebehind 0" lvx lvchange --writebehind 0 "$VG/r"
test_eq "raid_write_behind blank again (LVM2)" \
    "$(lvm2 lvs --noheadings -o raid_write_behind "$VG/r" 2>/dev/null | tr -d ' ')" ""
uspace_run_ok "deactivate" lvx lvchange -an "$VG/r"
done_testing
