#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0687-pvmove-live: pvmove of an LV in use, in the user-space backend (the daemon's
# pvmove target mirrors the writes to both legs of the segment being moved, the
# daemon copies the segment against them, each checkpoint is followed by a reload).
#   - a 4-stripe LV with XFS mounted; fio --verify=crc32c writes and verifies files
#     on it in a loop the whole time; a reference file's checksum is kept;
#   - every PV moved to a new disk, one after another (lvs -o +move_pv,copy_percent
#     and LVM2's vgs read the VG during a move);
#   - then RUNS moves SIGKILLed at a random point (0.1-1.5 s) and resumed with
#     `pvmove` (no arguments), each run moving one stripe to the other disk set;
#   - at the end: no fio failure, the reference file and fio's last files verify
#     after a remount with caches dropped, the LV is where the moves put it (LVM2's
#     report), LVM2's vgck accepts the VG, xfs_repair -n finds nothing.
#   Run in a mount namespace of its own: the umount ends XFS (checked) before xfs_repair.
# RUNS: $LVX_PVMOVE_KILL_RUNS (default 3, what CI runs; the issue's demonstration is 10).
# Cost: about 60-90 s on an idle machine (plain build; the ASan build is slower).
source "$(dirname "$0")/../lib.sh"
own_mount_ns "$@"   # umount ends the filesystem before xfs_repair (lib.sh says why)
source "$LVX_ROOT/tests/tools/uspace-env.sh"
source "$LVX_ROOT/tests/tools/fio-loop.sh"

need_loop
need_lvx
need_cmd mkfs.xfs fio lvm mountpoint xfs_repair
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

RUNS=${LVX_PVMOVE_KILL_RUNS:-3}
VG=vgmv$$
OLD=() NEW=()
for i in 0 1 2 3; do OLD+=("$(make_loop 100M)"); done
for i in 0 1 2 3; do NEW+=("$(make_loop 100M)"); done
uspace_test_env "$VG" "${OLD[@]}" "${NEW[@]}"
MNT=$SCRATCH/us/mnt
mkdir -p "$MNT"

uspace_run_ok "pvcreate 8 disks" lvx pvcreate "${OLD[@]}" "${NEW[@]}"
uspace_run_ok "vgcreate on the 4 old disks" lvx vgcreate -s 4m "$VG" "${OLD[@]}"
uspace_run_ok "lvcreate -i 4 -I 64k 320m (active in the daemon)" \
    lvx lvcreate -Zn -n lv -i 4 -I 64k -L 320m "$VG"
uspace_run_ok "vgextend with the 4 new disks" lvx vgextend "$VG" "${NEW[@]}"
uspace_run_ok "mkfs.xfs" mkfs.xfs -f -q "$DM_DEV_DIR/$VG/lv"
uspace_run_ok "mount" mount "$DM_DEV_DIR/$VG/lv" "$MNT"
head -c 32M /dev/urandom >"$MNT/ref"
sync
ref_sum=$(md5sum <"$MNT/ref")

# fio in a loop until told to stop: each run writes 48 MiB of files and verifies them
fio_loop_start "$MNT" 48m
sleep 1

stripe_pvs() {  # the devices of the LV's stripes, in order (LVM2's report)
    lvm2 lvs --noheadings -o devices "$VG/lv" 2>/dev/null | tr -d ' ' | tr ',' '\n' |
        sed 's/(.*//' | paste -sd' '
}

# ------------------------------------------------------------ every PV to a new disk
# the first move under --maxrecoveryrate 16m (about 5 s for its 80 MiB): a move at full
# speed can end between two polls of this loop (an ASan lvx takes a while to start)
seen_job=no seen_pct=no
for i in 0 1 2 3; do
    t0=$SECONDS
    rate=()
    ((i == 0)) && rate=(--maxrecoveryrate 16m)
    lvx pvmove -i 0 "${rate[@]}" "${OLD[$i]}" "${NEW[$i]}" >"$SCRATCH/mv.out" 2>&1 &
    mvpid=$!
    for _ in $(seq 200); do
        j=$(lvx jobs 2>/dev/null | awk -v vg="$VG" '$1 == vg {print $2, $3, $4}')
        r=$(lvx lvs -a --noheadings -o lv_name,move_pv,copy_percent "$VG" 2>/dev/null |
            awk '$1 ~ /pvmove/ {print $2, $3}')
        [[ -n $j ]] && last_seen+="jobs: $j; lvs: $r|"
        pat="^pvmove0 ${OLD[$i]} [0-9]+\$"
        [[ $j =~ $pat ]] && seen_job=yes
        pat="^${OLD[$i]} [0-9]+[.][0-9][0-9]\$"
        [[ $r =~ $pat ]] && seen_pct=yes
        kill -0 "$mvpid" 2>/dev/null || break
        sleep 0.05
    done
    lvm2 vgs "$VG" >/dev/null 2>&1
    lvm_ok=$?
    wait "$mvpid"
    rc=$?
    test_eq "pvmove ${OLD[$i]} -> ${NEW[$i]} while fio runs ($((SECONDS - t0)) s)" "0" "$rc"
    ((rc == 0)) || _diag_file "output" "$SCRATCH/mv.out"
    test_eq "LVM2 reads the VG during the move" "0" "$lvm_ok"
done
diag "last seen: ${last_seen:-}"
test_eq "lvx jobs showed the moves (pvmove0, source PV, copier pid)" "yes" "$seen_job"
test_eq "lvs -o move_pv,copy_percent showed the moves (source PV, percentage)" "yes" "$seen_pct"
test_eq "the stripes are on the new disks" "${NEW[*]}" "$(stripe_pvs)"
test_eq "no pvmove LV left" "" "$(lvx lvs -a --noheadings -o lv_name "$VG" | grep pvmove)"

# ------------------------------------------------------------ lvx jobs --abort
lvx pvmove -i 0 "${NEW[0]}" "${OLD[0]}" >"$SCRATCH/ab.out" 2>&1 &
mvpid=$!
for _ in $(seq 200); do
    [[ -n $(lvx jobs "$VG/pvmove0" 2>/dev/null | awk -v vg="$VG" '$1 == vg') ]] && break
    kill -0 "$mvpid" 2>/dev/null || break
    sleep 0.05
done
uspace_run_ok "lvx jobs --abort VG/pvmove0 during the move" lvx jobs --abort "$VG/pvmove0"
wait "$mvpid"
test_eq "... the copier stops, exit 0" "0" "$?"
test_eq "... no job left" "" "$(lvx jobs | awk -v vg="$VG" '$1 == vg')"
test_eq "... no pvmove LV left" "" "$(lvx lvs -a --noheadings -o lv_name "$VG" | grep pvmove)"
# the one segment stays where it was unless its checkpoint came first
after=$(stripe_pvs)
[[ $after == "${NEW[*]}" || $after == "${OLD[0]} ${NEW[*]:1}" ]]
_tap_result $? "... the stripe is on its old disk (or on the new one when copied): $after"
if [[ $after != "${NEW[*]}" ]]; then
    lvx pvmove -i 0 "${OLD[0]}" "${NEW[0]}" >/dev/null 2>&1
fi

# ------------------------------------------------------------ lvx jobs --pause / --resume
uspace_run_ok "pvmove -b (20 MiB/s) of one stripe back to its old disk" \
    "$LVX" pvmove -b --maxrecoveryrate 20m "${NEW[0]}" "${OLD[0]}"
seen=no
for _ in $(seq 200); do
    [[ $(lvx jobs "$VG/pvmove0" 2>/dev/null | awk -v vg="$VG" '$1 == vg {print $4}') =~ ^[0-9]+$ ]] &&
        { seen=yes; break; }
    sleep 0.05
done
test_eq "lvx jobs shows the running copier" "yes" "$seen"
uspace_run_ok "lvx jobs --pause VG/pvmove0" lvx jobs --pause "$VG/pvmove0"
row=$(lvx jobs 2>/dev/null | awk -v vg="$VG" '$1 == vg {print $2, $4}')
test_eq "... paused: the move is listed with no copier (pid -)" "pvmove0 -" "$row"
pct1=$(lvx jobs "$VG/pvmove0" 2>/dev/null | awk -v vg="$VG" '$1 == vg {print $5}')
sleep 1.5
pct2=$(lvx jobs "$VG/pvmove0" 2>/dev/null | awk -v vg="$VG" '$1 == vg {print $5}')
test_ok "... and it does not progress while paused ($pct1% then $pct2%, the checkpoints)" \
    test -n "$pct1" -a "$pct1" = "$pct2"
uspace_run_ok "lvx jobs --resume" lvx jobs --resume
for _ in $(seq 600); do
    lvx lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | grep -q pvmove || break
    sleep 0.1
done
test_eq "... the resumed copy finishes the move (no pvmove LV left)" "" \
    "$(lvx lvs -a --noheadings -o lv_name "$VG" | grep pvmove)"
test_eq "... the stripe is on its old disk" "${OLD[0]} ${NEW[*]:1}" "$(stripe_pvs)"
uspace_run_ok "move it back" lvx pvmove -i 0 "${OLD[0]}" "${NEW[0]}"

# ------------------------------------------------------------ SIGKILL and resume
cur=("${NEW[@]}") oth=("${OLD[@]}")
kills=0 resumed=0
for ((r = 0; r < RUNS; r++)); do
    k=$((r % 4))
    # the binary itself, not the lvx shell function: $! must be the copier
    # (40 MiB/s: the 80 MiB stripe takes about 2 s, so most kills land mid-copy)
    "$LVX" pvmove -i 0 --maxrecoveryrate 40m "${cur[$k]}" "${oth[$k]}" >"$SCRATCH/kmv.out" 2>&1 &
    mvpid=$!
    sleep "$(awk -v s=$RANDOM 'BEGIN { srand(s); printf "%.2f", 0.1 + rand() * 1.4 }')"
    kill -9 "$mvpid" 2>/dev/null && kills=$((kills + 1))
    wait "$mvpid" 2>/dev/null
    lvx pvmove -i 0 >"$SCRATCH/resume.out" 2>&1 && resumed=$((resumed + 1))
    if lvx lvs -a --noheadings -o lv_name "$VG" | grep -q pvmove; then
        # killed before the setup commit: nothing to resume, start it again
        lvx pvmove -i 0 "${cur[$k]}" "${oth[$k]}" >>"$SCRATCH/resume.out" 2>&1
    elif [[ $(stripe_pvs | cut -d' ' -f$((k + 1))) != "${oth[$k]}" ]]; then
        lvx pvmove -i 0 "${cur[$k]}" "${oth[$k]}" >>"$SCRATCH/resume.out" 2>&1
    fi
    t=${cur[$k]}
    cur[k]=${oth[$k]}
    oth[k]=$t
done
diag "$RUNS moves, $kills SIGKILLed while running, $resumed resumed by 'pvmove'"
test_eq "after $RUNS killed and resumed moves the stripes are where the moves put them" \
    "${cur[*]}" "$(stripe_pvs)"
test_eq "no pvmove LV left after the resumes" "" "$(lvx lvs -a --noheadings -o lv_name "$VG" | grep pvmove)"

# ------------------------------------------------------------ the data
fio_loop_stop
diag "fio runs: $(cat "$SCRATCH/fio.runs" 2>/dev/null)"
test_ok "fio ran on the mounted LV" mountpoint -q "$MNT"
test_eq "fio --verify=crc32c found no error during the moves" "" "$(head -c 2000 "$SCRATCH/fio.fail")"
uspace_run_ok "umount" umount "$MNT"
fs_gone "$VG/lv"
echo 3 >/proc/sys/vm/drop_caches
uspace_run_ok "xfs_repair -n finds nothing" xfs_repair -n "$DM_DEV_DIR/$VG/lv"
uspace_run_ok "mount again" mount "$DM_DEV_DIR/$VG/lv" "$MNT"
test_eq "the reference file reads back" "$ref_sum" "$(md5sum <"$MNT/ref")"
uspace_run_ok "fio --verify_only of the last run's files" fio_verify_only "$MNT" 48m
uspace_run_ok "umount" umount "$MNT"
uspace_run_ok "LVM2's vgck accepts the VG" lvm2 vgck "$VG"
for d in "${oth[@]}"; do
    test_eq "$d holds no extent" "0" "$(lvx pvs --noheadings -o pv_used --units b --nosuffix "$d" | tr -d ' ')"
done
done_testing
