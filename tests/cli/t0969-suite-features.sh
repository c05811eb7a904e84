#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0969-suite-features: differences LVM2's own test suite found in the tests of
# snapshots, thin pools, RAID and pvmove (issue 21), lvx beside the real LVM2 on the
# same loop devices (LVM2 with activation off: it stops before making a thin pool or a
# snapshot, after the lines compared here; for renames the VG is made by lvx):
#   - lvcreate -T without --chunksize: allocation/thin_pool_chunk_size (KiB) is the
#     pool's chunk size, checked against the range once the sizes are known (exit 5);
#     allocation/thin_pool_chunk_size_policy = "performance" starts at 512 KiB
#     (thin-defaults);
#   - lvrename of a COW snapshot and of its origin (snapshot-rename);
#   - lvcreate -T -l N%FREE|%VG|%PVS: the pool's data from the percentage, less room
#     for its metadata and the spare for %FREE/%PVS (select-tools-thin);
#   - lvcreate --type raid10 -l 100%FREE: the images that fit once their rmeta is
#     placed (LVM2's approximate allocation); allocation/raid_stripe_all_devices = 1:
#     as many stripes as PVs (lvcreate-raid10).  LVM2 stops before allocating a RAID
#     LV without dm: the sizes are the suite's (6 PVs of 20 MiB: 55.50m);
#   - lvchange -a of a whole VG leaves its COW LVs to their origins: no question
#     (snapshot-reactivate);
#   - activation/volume_list: LVs it does not name stay inactive, a new LV that would
#     have to be active to be wiped is refused (thin-volume-list,
#     lvcreate-raid-volume_list).  lvx alone, through its user activation backend
#     (LVM2 with activation off does not filter);
#   - lvcreate -V Size VG/POOL without -T: LVM2 infers --type thin (thin-overprovisioning);
#   - lvremove -S; removing a thin origin makes its thin snapshots plain thin LVs
#     (LVM2 drops their origin; lvx through its user backend) (select-tools-thin).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

VG=vgsf$$
side_setup 3

# ---- thin pool chunk size from lvm.conf
side_fresh_vg
n=0
for cfg in 'allocation{thin_pool_chunk_size=128}' \
    'allocation{thin_pool_chunk_size_policy="performance"}' \
    'allocation{thin_pool_chunk_size=128}|--chunksize|256k' \
    'allocation{thin_pool_chunk_size=8}' 'allocation{thin_pool_chunk_size=96}' \
    'allocation{thin_pool_chunk_size_policy="fast"}'; do
    IFS='|' read -r c o1 o2 <<<"$cfg"
    n=$((n + 1))
    # shellcheck disable=SC2086
    side lvcreate -an -T -L8m -n "p$n" --config "$c" $o1 $o2 "$VG"
    # LVM2 (activation off) stops after the chunk size checks: exit 5 for all
    test_eq "thin pool, $cfg: LVM2's note on the chunk size" \
        "$(grep 'can address' "$SCRATCH/l.out")" "$(grep 'can address' "$SCRATCH/x.out")"
    test_eq "... LVM2's errors and warnings" \
        "$(grep -v 'zeroing and wip\|not zeroed\|without using device-mapper\|NOT backed up' "$SCRATCH/l.err")" \
        "$(grep -v 'NOT backed up' "$SCRATCH/x.err")"
    if grep -q 'chunk size .* is\|must be a multiple\|unrecognised' "$SCRATCH/l.err"; then
        test_eq "... refused with LVM2's exit code" "$(cat "$SCRATCH/l.rc")" "$(cat "$SCRATCH/x.rc")"
    else
        test_eq "... lvx made it with that chunk size" \
            "$(grep -o 'chunk size [0-9.]* KiB' "$SCRATCH/l.out" | awk '{printf "%.2fk", $3}')" \
            "$(lvx lvs --noheadings -o chunk_size "$VG/p$n" 2>/dev/null | tr -d ' ')"
    fi
done
lvx lvs --noheadings -o name "$VG" >"$SCRATCH/pools" 2>&1
test_eq "the refused pools were not made" "p1 p2 p3" "$(awk '{print $1}' "$SCRATCH/pools" | xargs)"

# ---- lvrename of a COW snapshot and its origin (made by lvx: LVM2 cannot without dm)
for who in lvm2 lvx; do
    side_fresh_vg
    lvx lvcreate -an -Zn -q -L4m -n o1 "$VG" >/dev/null 2>&1
    lvx lvcreate -q -s -L4m -n s1 "$VG/o1" >/dev/null 2>&1
    lvx lvcreate -q -s -L4m -n s2 "$VG/o1" >/dev/null 2>&1
    r=""
    for a in "$VG/s1 $VG/s3" "$VG/o1 o2" "$VG/s2 s4"; do
        rc=0
        # shellcheck disable=SC2086
        $who lvrename $a >"$SCRATCH/o" 2>"$SCRATCH/e" || rc=$?
        r+="$a:$rc:$(grep -v 'Activation disabled\|NOT backed up' "$SCRATCH/o" "$SCRATCH/e" |
            tr '\n' '|') "
    done
    echo "$r" >"$SCRATCH/$who.r"
    lvm2 lvs -a --noheadings -o name,origin,attr,lv_size,snap_percent "$VG" 2>&1 |
        sort >"$SCRATCH/$who.lvs"
    lvx vgcfgbackup -f "$SCRATCH/$who.vgc" "$VG" >/dev/null 2>&1
done
test_eq "lvrename of snapshots and their origin: LVM2's exit codes and messages" \
    "$(cat "$SCRATCH/lvm2.r")" "$(cat "$SCRATCH/lvx.r")"
test_ok "... lvx renamed all three" grep -q "s2 s4:0:" "$SCRATCH/lvx.r"
test_eq "... the LVs afterwards as with LVM2" "$(cat "$SCRATCH/lvm2.lvs")" "$(cat "$SCRATCH/lvx.lvs")"
test_eq "... the snapshot segments name the new LVs" \
    "$(grep -E 'origin =|cow_store =' "$SCRATCH/lvm2.vgc" | tr -d ' \t' | sort)" \
    "$(grep -E 'origin =|cow_store =' "$SCRATCH/lvx.vgc" | tr -d ' \t' | sort)"
test_eq "... which are o2, s3, s4" '"o2" "o2" "s3" "s4"' \
    "$(grep -E 'origin =|cow_store =' "$SCRATCH/lvx.vgc" | awk '{print $3}' | sort | xargs -0 printf %s | tr '\n' ' ' | sed 's/ $//')"

# ---- lvchange -a VG with a snapshot: no question; the snapshot named: asked
side_fresh_vg
lvx lvcreate -an -Zn -q -L4m -n o1 "$VG" >/dev/null 2>&1
lvx lvcreate -q -s -L4m -n s1 "$VG/o1" >/dev/null 2>&1
for a in "-an $VG" "-ay $VG"; do
    # shellcheck disable=SC2086
    same "lvchange $a (a VG with a snapshot, no answer on stdin)" lvchange $a </dev/null
done
side lvchange -an "$VG/s1" </dev/null
test_eq "lvchange -an of the snapshot: asked, LVM2's exit code and error" \
    "$(cat "$SCRATCH/l.rc") $(grep -v Proceed "$SCRATCH/l.err")" \
    "$(cat "$SCRATCH/x.rc") $(grep -v Proceed "$SCRATCH/x.err")"
test_eq "... both asked, on stderr (LVM2's yes_no_prompt)" \
    "$(grep -c Proceed "$SCRATCH/l.err") $(grep -c Proceed "$SCRATCH/x.err")" "1 1"

# ---- lvcreate -V VG/POOL infers a thin LV in POOL
side_fresh_vg
lvm2 lvcreate -q -an -Zn -L4m -n lin "$VG" >/dev/null 2>&1
same "lvcreate -V VG/LV of a linear LV: LVM2's refusal" lvcreate -an -V10m -n t1 "$VG/lin"
same "lvcreate -V VG/POOL of no such pool: LVM2's refusal" lvcreate -an -V10m -n t1 "$VG/nopool"

# ---- lvremove -S
for who in lvm2 lvx; do
    side_fresh_vg
    for n in orig other; do lvm2 lvcreate -q -an -Zn -L4m -n "$n" "$VG" >/dev/null 2>&1; done
    lvx lvcreate -q -s -L4m -n snap1 "$VG/orig" >/dev/null 2>&1
    r=""
    for sel in 'lv_name=nothing' 'lv_name=other || origin=nothing' \
        'lv_name=orig || origin=orig'; do
        rc=0
        $who lvremove -ff -S "$sel" >"$SCRATCH/o" 2>"$SCRATCH/e" || rc=$?
        r+="$sel:$rc:$(grep -v 'Activation disabled\|NOT backed up' "$SCRATCH/o" "$SCRATCH/e" |
            tr '\n' '|') "
    done
    echo "$r $(lvm2 lvs --noheadings -o name "$VG" 2>/dev/null | xargs)" >"$SCRATCH/$who.r"
done
test_eq "lvremove -S: LVM2's exit codes, messages and LVs left" "$(cat "$SCRATCH/lvm2.r")" \
    "$(cat "$SCRATCH/lvx.r")"
test_ok "... lvx removed the snapshot and its origin" grep -q '"orig" successfully removed' \
    "$SCRATCH/lvx.r"

# ---- thin pools of a percentage size
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
lvm2 vgcreate -q -s 4m "$VG" "${D[0]}" >/dev/null 2>&1
for l in 1%FREE 1%VG 200%VG 100%FREE 50%PVS 10%LV; do
    side lvcreate -an -T -l "$l" -n pool "$VG"
    test_eq "lvcreate -T -l $l: LVM2's notes" "$(grep -v 'created' "$SCRATCH/l.out")" \
        "$(grep -v 'created' "$SCRATCH/x.out")"
    test_eq "... LVM2's errors" \
        "$(grep -v 'zeroing and wip\|not zeroed\|without using device-mapper\|NOT backed up' "$SCRATCH/l.err")" \
        "$(grep -v 'NOT backed up\|has insufficient free space' "$SCRATCH/x.err")"
    lvx lvs --noheadings -o lv_size,seg_size --units m "$VG/pool_tdata" "$VG/pool_tmeta" \
        2>/dev/null | awk '{print $1}' | xargs >"$SCRATCH/sz.$l"
    lvx lvremove -ff "$VG" >/dev/null 2>&1
done
# 15 extents of 4 MiB: 100% less twice the 1 extent of metadata; 50%PVS: 7 less 2
test_eq "... 100%FREE: data and metadata of the pool" "52.00m 4.00m" "$(cat "$SCRATCH/sz.100%FREE")"
test_eq "... 50%PVS" "20.00m 4.00m" "$(cat "$SCRATCH/sz.50%PVS")"
test_eq "... 1%FREE refused, nothing made" "" "$(cat "$SCRATCH/sz.1%FREE")"

# ---- raid10 of 100%FREE, raid_stripe_all_devices
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
for i in 0 1 2; do D+=("$(make_loop 24M)"); done
lvm_sandbox "${D[@]}"
lvm2 pvcreate -ff -y -q "${D[@]:3:3}" >/dev/null 2>&1
lvm2 vgcreate -q -s 512k "$VG" "${D[@]}" >/dev/null 2>&1
# the suite's PVs: 20 MiB, 38 free extents of 512 KiB each
for pv in "${D[@]}"; do lvx lvcreate -an -Zn -q -l "$(($(lvm2 pvs --noheadings -o pv_pe_count "$pv" 2>/dev/null) - 38))" \
    -n "fill$((n++))" "$VG" "$pv" >/dev/null 2>&1; done
test_eq "six PVs of 38 free extents" "228" "$(lvm2 vgs --noheadings -o vg_free_count "$VG" 2>/dev/null | tr -d ' ')"
rc=0
lvx lvcreate --type raid10 -i 3 -l 100%FREE -an -Zn -n r10 "$VG" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvcreate --type raid10 -i 3 -l 100%FREE: made" "0" "$rc"
test_eq "... of the suite's size (37 extents an image, 1 of rmeta)" "55.50m" \
    "$(lvm2 lvs --noheadings -o lv_size "$VG/r10" 2>/dev/null | tr -d ' ')"
lvx lvremove -ff "$VG/r10" >/dev/null 2>&1
for devs in "4:${D[*]:0:4}" "6:" "3:${D[*]:0:3}"; do
    rc=0
    # shellcheck disable=SC2086
    lvx lvcreate --config 'allocation/raid_stripe_all_devices = 1' --type raid10 -l2 -an -Zn \
        -n "s${devs%%:*}" "$VG" ${devs#*:} >"$SCRATCH/o" 2>&1 || rc=$?
    echo "$rc $(lvm2 lvs --noheadings -o devices "$VG/s${devs%%:*}" 2>/dev/null | tr ',' '\n' |
        grep -c rimage) $(grep -o 'Unable.*' "$SCRATCH/o")" >"$SCRATCH/all.${devs%%:*}"
done
test_eq "raid_stripe_all_devices = 1, raid10 on 4 PVs: 4 images" "0 4 " "$(cat "$SCRATCH/all.4")"
test_eq "... on the VG's 6 PVs: 6 images" "0 6 " "$(cat "$SCRATCH/all.6")"
test_eq "... on 3 PVs: refused as LVM2" \
    "5 0 Unable to create RAID(1)0 LV: insufficient number of devices." "$(cat "$SCRATCH/all.3")"

# ---- activation/volume_list (lvx's user backend: activation on)
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
if [[ -c /dev/fuse ]]; then
    mkdir -p "$SCRATCH/dev"
    U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user lvx "$@"; }
    ON="global { activation = 1 } activation { volume_list = [ \"$VG/a\", \"@t1\" ] }"
    lvm2 vgcreate -q "$VG" "${D[@]:0:3}" >/dev/null 2>&1
    for n in a b c; do lvm2 lvcreate -q -an -Zn -n "$n" -L 4m "$VG" >/dev/null 2>&1; done
    lvm2 lvchange -q --addtag t1 "$VG/c" >/dev/null 2>&1
    U vgchange -ay --config "$ON" "$VG" >"$SCRATCH/o" 2>&1
    test_eq "vgchange -ay: only the LVs volume_list names (by name, by tag) come up" "a c" \
        "$(U lvs --config "$ON" --noheadings -o lv_name,lv_active "$VG" 2>/dev/null |
            awk '$2 == "active" { print $1 }' | xargs)"
    rc=0
    U lvcreate --config "$ON" -L 4m -n d "$VG" >"$SCRATCH/o" 2>&1 || rc=$?
    test_eq "lvcreate of an LV to zero that volume_list leaves out: refused (LVM2's words)" \
        "5 Volume $VG/d is not active locally (volume_list activation filter?).|Aborting. Failed to wipe start of new LV.|" \
        "$rc $(grep -v 'backed up' "$SCRATCH/o" | sed 's/^ *//' | tr '\n' '|')"
    test_eq "... nothing made" "a b c" "$(lvm2 lvs --noheadings -o lv_name "$VG" 2>/dev/null | xargs)"
    rc=0
    U lvcreate --config "$ON" -Zn -L 4m -n e "$VG" >"$SCRATCH/o" 2>&1 || rc=$?
    test_eq "... with -Zn made, left inactive" "0 e" \
        "$rc $(U lvs --config "$ON" --noheadings -o lv_name,lv_active "$VG" 2>/dev/null |
            awk '$1 == "e" && $2 != "active" { print $1 }')"
    rc=0
    U lvcreate --config "$ON" --type raid1 -m1 -L 4m -n f "$VG" >"$SCRATCH/o" 2>&1 || rc=$?
    test_eq "raid1 that volume_list leaves out: refused, nothing made" "5 a b c e" \
        "$rc $(lvm2 lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | xargs)"
    U vgchange -an --config "$ON" "$VG" >/dev/null 2>&1
else
    for i in 1 2 3 4 5; do test_skip "activation/volume_list $i" "no /dev/fuse (user activation backend)"; done
fi

# ---- lvremove of a thin origin (lvx's user backend makes thin LVs on the host)
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
if [[ -c /dev/fuse ]]; then
    mkdir -p "$SCRATCH/dev"
    UT() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user lvx "$@" --config 'global { activation = 1 }'; }
    lvm2 vgcreate -q "$VG" "${D[0]}" "${D[1]}" >/dev/null 2>&1
    UT lvcreate -q -T -L 16m "$VG/pool" >/dev/null 2>&1
    UT lvcreate -q -V 8m -T "$VG/pool" -n o >/dev/null 2>&1
    UT lvcreate -q -s "$VG/o" -n s >/dev/null 2>&1
    UT lvcreate -q -s "$VG/s" -n s2 >/dev/null 2>&1
    test_eq "thin LV o, its snapshot s, s's snapshot s2" "o s o s2 s" \
        "$(lvm2 lvs --noheadings -o name,origin -S 'name=o || name=s || name=s2' "$VG" 2>/dev/null | xargs)"
    rc=0
    UT lvremove -ff -S 'lv_name=o || origin=o' >"$SCRATCH/o" 2>&1 || rc=$?
    test_eq "lvremove -S of a thin origin and its snapshot: both removed" \
        "0 o s" "$rc $(sed -n 's/.*Logical volume "\(.*\)" successfully removed.*/\1/p' "$SCRATCH/o" | sort | xargs)"
    test_eq "... s2, the snapshot of the removed s, a plain thin LV for LVM2" "s2" \
        "$(lvm2 lvs --noheadings -o name,origin -S 'name=o || name=s || name=s2' "$VG" 2>/dev/null | xargs)"
    UT vgchange -an "$VG" >/dev/null 2>&1
else
    for i in 1 2 3; do test_skip "thin origin removal $i" "no /dev/fuse (user activation backend)"; done
fi

lvm2 vgremove -ff "$VG" >/dev/null 2>&1
done_testing
