#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0932-many-pvs: the lvx daemon serves an LV of a VG with many PVs (issue 13: it used
# to keep only the first 256 devices, and the control request only 300 words).  A VG of
# $LVX_MANY_PVS (default 300) small loop-device PVs (2 MiB, 1 MiB extents: one extent
# each), a linear LV over all of them (-l 100%FREE), activated with the user backend:
#   - the daemon serves the whole LV (the loop device has the LV's size), its log and
#     state file name every PV;
#   - fio --verify=crc32c writes and verifies the whole LV through the daemon;
#   - the last extent (on the last PV) holds what was written there, read directly from
#     that PV where LVM2's report places it;
#   - a worker restart (SIGKILL: the state file is read again) serves it again: the whole
#     LV reads back the same.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
need_cmd lvm fio mountpoint
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

COUNT=${LVX_MANY_PVS:-300}
VG=vgmany$$

DEVS=()
for ((i = 0; i < COUNT; i++)); do DEVS+=("$(make_loop 2M)") || break; done
((${#DEVS[@]} == COUNT)) || skip_all "could not attach $COUNT loop devices"
uspace_test_env "$VG" "${DEVS[@]}"
LV=$DM_DEV_DIR/$VG/all

uspace_run_ok "pvcreate $COUNT PVs" lvx pvcreate "${DEVS[@]}"
uspace_run_ok "vgcreate -s 1m $VG over $COUNT PVs" lvx vgcreate -s 1m "$VG" "${DEVS[@]}"
test_eq "LVM2 counts $COUNT PVs" "$(lvm2 vgs --noheadings -o pv_count "$VG" 2>/dev/null | tr -d ' ')" "$COUNT"
uspace_run_ok "lvcreate -l 100%FREE (linear over every PV, activated)" lvx lvcreate -Zn -n all -l 100%FREE "$VG"
test_eq "the LV spans all $COUNT PVs (LVM2's view)" \
    "$(lvm2 lvs --segments --noheadings -o devices "$VG/all" 2>/dev/null | wc -l)" "$COUNT"
size=$(lvm2 lvs --noheadings --nosuffix --units b -o lv_size "$VG/all" 2>/dev/null | tr -d ' ')
test_ok "$LV is a block device" test -b "$LV"
test_eq "the LV's device has the whole size" "$(blockdev --getsize64 "$LV")" "$size"
# state file line: ino vg lv uuid flags loop loop-file-name dev-dir device...
test_eq "the state file names all $COUNT devices" \
    "$(awk -v vg="$VG" '$2 == vg { print NF - 8 }' "$LVX_RUN_DIR/state")" "$COUNT"

uspace_run_ok "fio --verify=crc32c over the whole LV (through the daemon)" fio --name=v --filename="$LV" \
    --rw=randwrite --bsrange=4k-1m --direct=1 --ioengine=libaio --iodepth=16 \
    --verify=crc32c --do_verify=1 --verify_fatal=1 --size=100% --randrepeat=0

# the last extent: written through the LV, read directly from the last PV
head -c 1048576 /dev/urandom >"$SCRATCH/last"
uspace_run_ok "write the last MiB of the LV" dd if="$SCRATCH/last" of="$LV" bs=1M seek=$((size / 1048576 - 1)) \
    oflag=direct conv=fsync,notrunc status=none
read -r pv pe < <(lvm2 lvs --segments --noheadings -o seg_start_pe,seg_pe_ranges "$VG/all" 2>/dev/null |
    sort -n | tail -1 | awk '{ split($2, a, ":"); split(a[2], b, "-"); print a[1], b[1] }')
pe_start=$(lvm2 pvs --noheadings --nosuffix --units b -o pe_start "$pv" 2>/dev/null | tr -d ' ')
test_eq "the last extent is on the last PV" "$pv" "${DEVS[COUNT - 1]}"
test_eq "... and holds what was written (read directly from the PV)" \
    "$(dd if="$pv" iflag=direct,skip_bytes skip=$((pe_start + pe * 1048576)) bs=1M count=1 status=none | sha256sum)" \
    "$(sha256sum <"$SCRATCH/last")"

whole=$(dd if="$LV" iflag=direct bs=1M status=none | sha256sum)
read -r sup worker <<<"$(uspace_daemon_pids)"
kill -9 "$worker"
for _ in $(seq 100); do
    read -r sup2 worker2 <<<"$(uspace_daemon_pids)"
    [[ -n $worker2 && $worker2 != "$worker" ]] && lvx lvs "$VG/all" >/dev/null 2>&1 && break
    sleep 0.1
done
test_ok "a new worker serves the LV again (from the state file)" test -n "$worker2" -a "$worker2" != "$worker"
test_eq "... the whole LV reads back the same through the new worker" \
    "$(dd if="$LV" iflag=direct bs=1M status=none | sha256sum)" "$whole"

uspace_run_ok "vgchange -an" lvx vgchange -an "$VG"
uspace_run_ok "vgremove" lvx vgremove -f "$VG"
uspace_run_ok "lvx daemon stop" lvx daemon stop
for _ in $(seq 50); do [[ -z $(uspace_daemon_pids) ]] && break; sleep 0.1; done
uspace_leftovers >"$SCRATCH/left" 2>&1
test_ok "no loop device, mount or daemon left behind" test ! -s "$SCRATCH/left"
done_testing
