#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0937-user-raid5: raid4, raid5 and raid6 LVs served by the lvx daemon
# (daemon/target_parity.c), user-space activation over five 64 MiB loop devices, LVM2 (activation off) as the
# oracle of where each rimage/rmeta lives (tests/tools/raid-pvread.sh), md's layouts
# computed independently by tests/tools/parity_check.py:
#   - raid5 -i3 -I 64k (raid5_ls): data written through the LV (1 MiB requests: full
#     stripes and partial ones) reads back; each rimage, read from its PV, holds the
#     data chunks where md's left-symmetric layout puts them and the parity chunk of
#     every stripe is the XOR of its data; small random writes (read-modify-write)
#     keep both true; the rmeta holds a dm-raid superblock (level 5, layout 2, chunk
#     128, 4 devices) and a clean md bitmap over the leg size;
#   - degraded: a leg's PV hidden (--devices, --activationmode degraded): every byte
#     reads back (chunks of the missing leg rebuilt from the others; requests of 64k,
#     1M, 96k and 20k), writes land
#     (reconstruct-write); with the PV back the leg is rebuilt (data and parity right);
#   - SIGKILL of the daemon during random writes: the next start resyncs the dirty
#     regions (parity recomputed): every stripe's parity is the XOR of its data;
#   - a leg failing while in use (LVX_TEST_DP_FAULT: EIO on every write to its PV):
#     fio --verify=crc32c with partial-stripe writes verifies, the daemon logs the
#     failed leg, lv_health_status says "refresh needed"; the next activation rebuilds
#     it (fio verifies, parity right);
#   - raid5_la, raid5_rs, raid5_ra, raid5_n and raid4 (-i2): data and parity placed as
#     md's layout says;
#   - raid6 (raid6_zr) -i3: data, P and Q (GF(2^8)) placed as md's layout says, after
#     full-stripe and read-modify-write writes; degraded (one PV hidden, then two:
#     data rebuilt from P and Q) reads and writes; the legs rebuilt when the PVs are
#     back;
#   - raid6_nc (Q before P, rotating) and raid6_n_6 (P and Q on the last two legs)
#     -i3: the same placement checks after full-stripe and read-modify-write writes,
#     and with two legs gone: reads, writes, and the rebuild of both legs;
#   - raid6_ls_6, la_6, rs_6, ra_6 (raid5's layout, Q last: LVM2's raid5 -> raid6
#     takeover; made here by a metadata edit): Q over the data legs only (md's non-DDF
#     numbering), placement checked; ra_6 with a data leg and P gone.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
need_cmd lvm dd sha256sum fio
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

VG=vgur5$$
DEVS=()
for i in 0 1 2 3 4; do DEVS+=("$(make_loop 64M)"); done
uspace_test_env "$VG" "${DEVS[@]}"
source "$LVX_ROOT/tests/tools/raid-pvread.sh"
MIB=1048576
LOG=$LVX_RUN_DIR/lvxd.log

# layout_ok DESC LV LAYOUT LEGS LEG_BYTES DATA: the rimages read from the PVs hold DATA
# as md's LAYOUT puts it, parity included
layout_ok() {
    local i imgs=()
    for ((i = 0; i < $4; i++)); do
        report "$2_rimage_$i"
        pv_get "$2_rimage_$i" 0 "$5" "$SCRATCH/img$i"
        imgs+=("$SCRATCH/img$i")
    done
    "$PYTHON" "$LVX_ROOT/tests/tools/parity_check.py" "$3" 65536 "$6" "${imgs[@]}" >"$SCRATCH/pc.out" 2>&1
    _tap_result $? "$1 ($(cat "$SCRATCH/pc.out"))"
}
# small_writes DEV COPY COUNT SPAN: COUNT random writes of 4-24 KiB at 4 KiB-aligned
# offsets below SPAN, through DEV (direct) and into the file COPY alike
small_writes() {
    local i off len
    for ((i = 0; i < $3; i++)); do
        off=$((RANDOM % ($4 / 4096) * 4096)) len=$(((RANDOM % 6 + 1) * 4096))
        ((off + len > $4)) && off=$(($4 - len))
        head -c "$len" /dev/urandom >"$SCRATCH/piece"
        dd if="$SCRATCH/piece" of="$1" bs="$len" seek="$off" oflag=direct,seek_bytes conv=notrunc status=none || return 1
        dd if="$SCRATCH/piece" of="$2" bs="$len" seek="$off" oflag=seek_bytes conv=notrunc status=none
    done
}
stop_daemon() {
    lvx vgchange -an "$VG" >"$SCRATCH/stop.out" 2>&1
    lvx daemon stop >>"$SCRATCH/stop.out" 2>&1
    for _ in $(seq 100); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
}

uspace_run_ok "pvcreate" lvx pvcreate "${DEVS[@]}"
uspace_run_ok "vgcreate $VG" lvx vgcreate "$VG" "${DEVS[@]}"
uspace_run_ok "lvcreate --type raid5 -i3 -I 64k -L 24m (first use: parity computed)" \
    lvx lvcreate -Zn --type raid5 -i3 -I 64k -L 24m -n r5 "$VG" "${DEVS[@]:0:4}"
R5=$DM_DEV_DIR/$VG/r5
test_ok "$R5 is a block device" test -b "$R5"
test_ok "the daemon made the new set in sync" grep -q "r5: new RAID set: full initial sync" "$LOG"

head -c $((24 * MIB)) /dev/urandom >"$SCRATCH/exp"
uspace_run_ok "write 24 MiB to r5 (1 MiB requests, direct, fsync)" \
    dd if="$SCRATCH/exp" of="$R5" bs=1M oflag=direct conv=fsync status=none
test_eq "r5 reads back what was written" "$(lv_sum "$R5" 0 $((24 * MIB)))" "$(fsum "$SCRATCH/exp")"
layout_ok "rimages hold raid5_ls data chunks and XOR parity (read from the PVs)" \
    r5 raid5_ls 4 $((8 * MIB)) "$SCRATCH/exp"
uspace_run_ok "40 small random writes (read-modify-write)" \
    small_writes "$R5" "$SCRATCH/exp" 40 $((24 * MIB))
sync
test_eq "r5 reads back the small writes" "$(lv_sum "$R5" 0 $((24 * MIB)))" "$(fsum "$SCRATCH/exp")"
layout_ok "after read-modify-write: data and parity still right on the PVs" \
    r5 raid5_ls 4 $((8 * MIB)) "$SCRATCH/exp"
uspace_run_ok "deactivate" lvx lvchange -an "$VG/r5"
for i in 0 3; do
    m=r5_rmeta_$i
    report "$m"
    test_eq "$m: DmRd, level 5, layout 2 (left-symmetric), chunk 128, 4 devices, position $i" \
        "$(sb_field $m magic) $(sb_field $m level) $(sb_field $m layout) $(sb_field $m stripe) $(sb_field $m devices) $(sb_field $m position)" \
        "DmRd 5 2 128 4 $i"
    test_eq "$m: in sync, array size, bitmap over the leg (8 MiB), clean" \
        "$(sb_field $m resync) $(sb_field $m array_sectors) $(sb_field $m bm_sync_size) $(sb_field $m dirty) $(sb_field $m bm_cleared)" \
        "ffffffffffffffff 49152 16384 0 $(sb_field $m events)"
done

# ---- degraded: the second PV hidden
HIDE="--devices=${DEVS[0]},${DEVS[2]},${DEVS[3]},${DEVS[4]}"
uspace_run_ok "activate r5 with ${DEVS[1]} missing (--activationmode degraded)" \
    lvx lvchange -ay --activationmode degraded "$HIDE" "$VG/r5"
test_eq "the degraded r5 reads every byte (missing chunks rebuilt from parity)" \
    "$(lv_sum "$R5" 0 $((24 * MIB)))" "$(fsum "$SCRATCH/exp")"
# requests of several stripes and of parts of stripes: the missing chunks rebuilt in
# the request's batch, from the other data it reads in place or from scratch reads
for bs in 1M 96k 20k; do
    test_eq "the degraded r5 reads every byte in $bs requests" \
        "$(dd if="$R5" iflag=direct,count_bytes bs=$bs count=$((24 * MIB)) status=none | sha256sum | cut -d' ' -f1)" \
        "$(fsum "$SCRATCH/exp")"
done
head -c $((3 * MIB)) /dev/urandom >"$SCRATCH/d2"
dd if="$SCRATCH/d2" of="$SCRATCH/exp" bs=1M seek=5 conv=notrunc status=none
uspace_run_ok "write 3 MiB to the degraded r5" \
    dd if="$SCRATCH/d2" of="$R5" bs=1M seek=5 oflag=direct conv=fsync status=none
uspace_run_ok "20 small random writes to the degraded r5 (reconstruct-write)" \
    small_writes "$R5" "$SCRATCH/exp" 20 $((24 * MIB))
sync
test_eq "the degraded r5 reads back its writes" "$(lv_sum "$R5" 0 $((24 * MIB)))" "$(fsum "$SCRATCH/exp")"
udevadm settle >/dev/null 2>&1
uspace_run_ok "deactivate" lvx lvchange -an "$HIDE" "$VG/r5"
test_eq "leg 0's superblock marks leg 1 failed (missing)" "$(sb_field r5_rmeta_0 failed)" "2"
: >"$LOG"
uspace_run_ok "activate r5 with the PV back" lvx lvchange -ay "$VG/r5"
test_ok "r5: in sync (polled: the daemon resyncs in the background)" wait_synced r5
test_ok "the daemon rebuilt leg 1" grep -q "RAID leg 1 is rebuilt from the others" "$LOG"
test_eq "r5 reads back everything" "$(lv_sum "$R5" 0 $((24 * MIB)))" "$(fsum "$SCRATCH/exp")"
layout_ok "after the rebuild: data and parity right on every leg" \
    r5 raid5_ls 4 $((8 * MIB)) "$SCRATCH/exp"

# ---- SIGKILL of the daemon during writes, then bitmap-driven resync (parity)
udevadm settle >/dev/null 2>&1
fio --name=kill --filename="$R5" --direct=1 --ioengine=libaio --iodepth=8 --rw=randwrite \
    --bs=4k --size=24m --time_based --runtime=30 --output="$SCRATCH/fio.out" >/dev/null 2>&1 &
FIO=$!
for _ in $(seq 60); do
    sleep 0.5
    [[ $(sb_field r5_rmeta_0 dirty) -gt 0 ]] && break
done
read -r sup worker <<<"$(uspace_daemon_pids)"
kill -9 "$sup" "$worker"
for _ in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
wait "$FIO"
DIRTY=$(sb_field r5_rmeta_0 dirty)
test_ok "the bitmap on disk has dirty regions ($DIRTY)" test "$DIRTY" -gt 0
: >"$LOG"
uspace_run_ok "lvx daemon start (serves r5 again)" lvx daemon start
test_ok "r5: in sync (polled: the daemon resyncs in the background)" wait_synced r5
test_ok "the daemon resynced the dirty regions" grep -q "dirty regions of the bitmap to resync" "$LOG"
dd if="$R5" of="$SCRATCH/now" bs=1M iflag=direct status=none
layout_ok "after the resync: every stripe's parity is the XOR of its data" \
    r5 raid5_ls 4 $((8 * MIB)) "$SCRATCH/now"
stop_daemon
report r5_rmeta_1
test_eq "no dirty region after the clean stop" "$(sb_field r5_rmeta_1 dirty)" "0"

# ---- a leg failing while in use: every write to the third PV fails from now on
LVX_TEST_DP_FAULT="pv=${DEVS[2]},op=write,kind=eio,after=6" lvx lvchange -ay "$VG/r5" >"$SCRATCH/o" 2>&1
_tap_result $? "activate r5 with writes to ${DEVS[2]} failing after 6"
fio --name=leg --filename="$R5" --direct=1 --ioengine=psync --rw=randwrite --bs=16k \
    --size=24m --verify=crc32c --do_verify=1 --verify_fatal=1 --randseed=37 \
    --output="$SCRATCH/fio2.out" >/dev/null 2>&1
_tap_result $? "fio --verify=crc32c (16 KiB: partial stripes) over r5 verifies while leg 2 fails"
[[ $? == 0 ]] || _diag_file fio "$SCRATCH/fio2.out"
test_ok "the daemon logged the failed leg" grep -q "RAID leg 2 failed (write error)" "$LOG"
test_eq "lvs -o lv_health_status says so" \
    "$(lvx lvs --noheadings -o lv_health_status "$VG/r5" 2>/dev/null | tr -d ' ')" "refreshneeded"
stop_daemon
: >"$LOG"
uspace_run_ok "activate r5 with every PV healthy" lvx lvchange -ay "$VG/r5"
test_ok "r5: in sync (polled: the daemon resyncs in the background)" wait_synced r5
test_ok "the daemon rebuilt leg 2" grep -q "RAID leg 2 is rebuilt from the others" "$LOG"
test_ok "fio verifies the data after the rebuild" fio --name=leg --filename="$R5" --direct=1 \
    --ioengine=psync --rw=randwrite --bs=16k --size=24m --verify=crc32c --verify_only \
    --randseed=37 --output="$SCRATCH/fio3.out"
dd if="$R5" of="$SCRATCH/now" bs=1M iflag=direct status=none
layout_ok "after the rebuild: data and parity right on every leg" \
    r5 raid5_ls 4 $((8 * MIB)) "$SCRATCH/now"
stop_daemon
uspace_run_ok "lvremove r5" lvx lvremove -f "$VG/r5"

# ---- the other layouts, three legs
for t in raid5_la raid5_rs raid5_ra raid5_n raid4; do
    uspace_run_ok "lvcreate --type $t -i2 -I 64k -L 8m" \
        lvx lvcreate -Zn --type $t -i2 -I 64k -L 8m -n p "$VG" "${DEVS[@]:0:3}"
    head -c $((8 * MIB)) /dev/urandom >"$SCRATCH/exp"
    dd if="$SCRATCH/exp" of="$DM_DEV_DIR/$VG/p" bs=1M oflag=direct conv=fsync status=none
    small_writes "$DM_DEV_DIR/$VG/p" "$SCRATCH/exp" 10 $((8 * MIB))
    sync
    test_eq "$t: reads back" "$(lv_sum "$DM_DEV_DIR/$VG/p" 0 $((8 * MIB)))" "$(fsum "$SCRATCH/exp")"
    uspace_run_ok "$t: deactivate" lvx lvchange -an "$VG/p"
    report p_rmeta_0
    layout_ok "$t: data and parity placed as md's layout says (layout $(sb_field p_rmeta_0 layout))" \
        p "$t" 3 $((4 * MIB)) "$SCRATCH/exp"
    lvx lvremove -f "$VG/p" >/dev/null 2>&1
done

# ---- raid6: five legs, -i3
R6=$DM_DEV_DIR/$VG/r6
# raid6_fill TYPE MD_LAYOUT: r6 made as TYPE, 12 MiB and 20 small writes through the
# daemon, read back, superblock and placement checked
raid6_fill() {
    if [[ $1 == *_?_6 ]]; then  # LVM2 makes these by taking a raid5 over; lvx does not
        uspace_run_ok "$1: an inactive raid6 whose metadata then says $1 (vgcfgrestore)" sh -c \
            "'$LVX' lvcreate -q -an -Zn --type raid6 -i3 -I 64k -L 12m -n r6 $VG &&
             '$LVX' vgcfgbackup -q -f '$SCRATCH/bk' $VG &&
             sed -i 's/type = \"raid6\"/type = \"$1\"/' '$SCRATCH/bk' &&
             '$LVX' vgcfgrestore -q -f '$SCRATCH/bk' $VG && '$LVX' lvchange -ay $VG/r6"
    else
        uspace_run_ok "$1: lvcreate --type $1 -i3 -I 64k -L 12m" \
            lvx lvcreate -Zn --type "$1" -i3 -I 64k -L 12m -n r6 "$VG"
    fi
    head -c $((12 * MIB)) /dev/urandom >"$SCRATCH/exp"
    uspace_run_ok "$1: write 12 MiB" dd if="$SCRATCH/exp" of="$R6" bs=1M oflag=direct conv=fsync status=none
    uspace_run_ok "$1: 20 small random writes (read-modify-write of P and Q)" \
        small_writes "$R6" "$SCRATCH/exp" 20 $((12 * MIB))
    sync
    test_eq "$1: reads back" "$(lv_sum "$R6" 0 $((12 * MIB)))" "$(fsum "$SCRATCH/exp")"
    uspace_run_ok "$1: deactivate" lvx lvchange -an "$VG/r6"
    report r6_rmeta_0
    test_eq "$1: r6_rmeta_0 says level 6, layout $2, 5 devices" \
        "$(sb_field r6_rmeta_0 level) $(sb_field r6_rmeta_0 layout) $(sb_field r6_rmeta_0 devices)" "6 $2 5"
    layout_ok "$1: data, P and Q placed as md's layout says" r6 "$1" 5 $((4 * MIB)) "$SCRATCH/exp"
}
# raid6_degraded TYPE LEG...: r6 served with the PVs of legs LEG... hidden (one: data
# from P; two: from P and Q): reads, small writes and a 3 MiB write; then the legs
# rebuilt when the PVs are back, and the placement right
raid6_degraded() {
    local t=$1 leg keep=() gone=""
    shift
    for i in 0 1 2 3 4; do
        [[ " $* " == *" $i "* ]] && gone+=" ${DEVS[$i]}" || keep+=("${DEVS[$i]}")
    done
    local hide="--devices=$(IFS=,; echo "${keep[*]}")" what="$t with leg(s) $* gone"
    uspace_run_ok "$t: activate with$gone missing (--activationmode degraded)" \
        lvx lvchange -ay --activationmode degraded "$hide" "$VG/r6"
    test_eq "$what reads every byte" "$(lv_sum "$R6" 0 $((12 * MIB)))" "$(fsum "$SCRATCH/exp")"
    uspace_run_ok "$what: 20 small random writes" small_writes "$R6" "$SCRATCH/exp" 20 $((12 * MIB))
    head -c $((3 * MIB)) /dev/urandom >"$SCRATCH/d6"
    dd if="$SCRATCH/d6" of="$SCRATCH/exp" bs=1M seek=4 conv=notrunc status=none
    uspace_run_ok "$what: write 3 MiB" \
        dd if="$SCRATCH/d6" of="$R6" bs=1M seek=4 oflag=direct conv=fsync status=none
    sync
    test_eq "$what reads back its writes" "$(lv_sum "$R6" 0 $((12 * MIB)))" "$(fsum "$SCRATCH/exp")"
    udevadm settle >/dev/null 2>&1
    uspace_run_ok "$t: deactivate" lvx lvchange -an "$hide" "$VG/r6"
    : >"$LOG"
    uspace_run_ok "$t: activate with the PVs back" lvx lvchange -ay "$VG/r6"
    test_ok "r6: in sync (polled: the daemon resyncs in the background)" wait_synced r6
    local rebuilt=0
    for leg in "$@"; do grep -q "RAID leg $leg is rebuilt from the others" "$LOG" && rebuilt=$((rebuilt + 1)); done
    test_eq "$t: the daemon rebuilt leg(s) $*" "$rebuilt" "$#"
    uspace_run_ok "$t: deactivate" lvx lvchange -an "$VG/r6"
    layout_ok "$t after rebuilding leg(s) $*: data, P and Q right on every leg" \
        r6 "$t" 5 $((4 * MIB)) "$SCRATCH/exp"
}

raid6_fill raid6_zr 8
raid6_degraded raid6_zr 2
raid6_degraded raid6_zr 1 3
lvx lvremove -f "$VG/r6" >/dev/null 2>&1
# ---- raid6_nc (Q before P, rotating), raid6_n_6 (P and Q on the last two legs)
raid6_fill raid6_nc 10
raid6_degraded raid6_nc 1 3
lvx lvremove -f "$VG/r6" >/dev/null 2>&1
raid6_fill raid6_n_6 5
raid6_degraded raid6_n_6 0 4
# ---- raid5's layouts with Q on the last leg (LVM2's raid5 -> raid6 takeover)
for t in raid6_ls_6:18 raid6_la_6:16 raid6_rs_6:19 raid6_ra_6:17; do
    lvx lvremove -f "$VG/r6" >/dev/null 2>&1
    raid6_fill "${t%:*}" "${t#*:}"
done
raid6_degraded raid6_ra_6 0 2

done_testing
