#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0935-user-raid: raid1 and raid10 LVs served by the lvx daemon (daemon/target_raid.c),
# user-space activation over four 64 MiB loop devices, LVM2 (activation off) as the
# oracle of where each rimage/rmeta lives (tests/tools/lv_pvread.py reads them directly).
#   - raid1 -m1: the first activation syncs the legs; data written through the LV
#     (direct, fsync) is on each rimage, read directly from its PV; the rmeta of each leg
#     holds a dm-raid superblock ("DmRd", level 1, its array position, the same events)
#     and an md bitmap ("bitm" v4, chunk = region size, events as the superblock's) with
#     every region bit clear after deactivation (dm-formats.md §2-3);
#   - a leg failing while in use (LVX_TEST_DP_FAULT: EIO on every write to its PV):
#     fio --verify=crc32c still verifies, the daemon logs the failed leg, the surviving
#     superblock has the failed bit and a higher event count than the failed leg's;
#     the next activation with the PV healthy rebuilds that leg (its rimage equals the
#     other again);
#   - degraded activation with a leg's PV hidden (--devices): the LV is served from the
#     other leg, writes land; with the PV back the leg is rebuilt;
#   - SIGKILL of the daemon during writes: the bitmap on disk has dirty bits; the next
#     activation resyncs them ("dirty regions of the bitmap resynced"), legs equal;
#   - raid10 -i2 -m1 (near, 64 KiB chunks): data through the LV, each rimage holds the
#     chunks md's near layout puts there, read directly;
#   - raid5 is refused by the user backend with a one-line message, exit 5.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
need_cmd lvm dd sha256sum fio
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"

VG=vgurd$$
DEVS=()
for i in 0 1 2 3; do DEVS+=("$(make_loop 64M)"); done
uspace_test_env "$VG" "${DEVS[@]}"
PVREAD=$LVX_ROOT/tests/tools/lv_pvread.py
MIB=1048576

report() {  # report LV: SCRATCH/LV.segs.json (+ pvs.json, vgs.json), hidden LVs too
    lvm2 lvs -a --segments -o lv_name,seg_start,seg_size,stripes,stripe_size,seg_pe_ranges \
        --units s --nosuffix --reportformat json "$VG/$1" >"$SCRATCH/$1.segs.json" 2>/dev/null
    lvm2 pvs -o pv_name,pe_start --units s --nosuffix --reportformat json >"$SCRATCH/pvs.json" 2>/dev/null
    lvm2 vgs -o vg_extent_size --units s --nosuffix --reportformat json "$VG" >"$SCRATCH/vgs.json" 2>/dev/null
}
# pv_get LV OFFSET LENGTH OUT: bytes of the (sub-)LV read directly from its PVs
pv_get() {
    "$PYTHON" "$PVREAD" "$SCRATCH/$1.segs.json" "$SCRATCH/pvs.json" "$SCRATCH/vgs.json" \
        "$2" "$3" "$4" >"$SCRATCH/pvread.out" 2>&1 || echo "pvread of $1 failed" >"$4"
}
pv_sum() { pv_get "$@" "$SCRATCH/pvread.bin"; sha256sum <"$SCRATCH/pvread.bin" | cut -d' ' -f1; }
fsum() { sha256sum <"$1" | cut -d' ' -f1; }
lv_sum() {  # lv_sum DEV OFFSET LENGTH: through the LV, direct I/O
    dd if="$1" iflag=direct,skip_bytes,count_bytes skip="$2" count="$3" bs=64k status=none | sha256sum | cut -d' ' -f1
}
# sb_field RMETA FIELD: a field of the dm-raid superblock / md bitmap of a rmeta, read
# directly (offsets of docs/dm-formats.md §2, §3)
sb_field() {
    pv_get "$1" 0 $((12 * 1024)) "$SCRATCH/meta.bin"
    "$PYTHON" - "$SCRATCH/meta.bin" "$2" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
f = sys.argv[2]
sb = {"magic": b[0:4].decode("latin1"), "position": struct.unpack_from("<I", b, 0x0C)[0],
      "events": struct.unpack_from("<Q", b, 0x10)[0], "failed": struct.unpack_from("<Q", b, 0x18)[0],
      "recovery": "%x" % struct.unpack_from("<Q", b, 0x20)[0],
      "resync": "%x" % struct.unpack_from("<Q", b, 0x28)[0],
      "level": struct.unpack_from("<I", b, 0x30)[0], "layout": struct.unpack_from("<I", b, 0x34)[0],
      "stripe": struct.unpack_from("<I", b, 0x38)[0],
      "array_sectors": struct.unpack_from("<Q", b, 0x58)[0], "devices": struct.unpack_from("<I", b, 0x08)[0],
      "bm_magic": b[4096:4100].decode("latin1"), "bm_version": struct.unpack_from("<I", b, 4100)[0],
      "bm_events": struct.unpack_from("<Q", b, 4096 + 24)[0],
      "bm_cleared": struct.unpack_from("<Q", b, 4096 + 32)[0],
      "bm_sync_size": struct.unpack_from("<Q", b, 4096 + 40)[0],
      "bm_chunk": struct.unpack_from("<I", b, 4096 + 52)[0]}
chunks = -(-sb["bm_sync_size"] // (sb["bm_chunk"] // 512)) if sb["bm_chunk"] else 0
bits = b[4096 + 256:]
sb["dirty"] = sum((bits[c // 8] >> (c % 8)) & 1 for c in range(chunks))
print(sb[f])
PY
}
worker_pid() { read -r _ w <<<"$(uspace_daemon_pids)"; echo "$w"; }

uspace_run_ok "pvcreate" lvx pvcreate "${DEVS[@]}"
uspace_run_ok "vgcreate $VG" lvx vgcreate "$VG" "${DEVS[@]}"
uspace_run_ok "lvcreate --type raid1 -m1 -L 16m (first use: full sync)" \
    lvx lvcreate -Zn --type raid1 -m1 -L 16m -n r1 "$VG" "${DEVS[0]}" "${DEVS[1]}"
R1=$DM_DEV_DIR/$VG/r1
test_ok "$R1 is a block device" test -b "$R1"
for s in r1_rimage_0 r1_rimage_1 r1_rmeta_0 r1_rmeta_1; do report "$s"; done

head -c $((16 * MIB)) /dev/urandom >"$SCRATCH/d1"
uspace_run_ok "write 16 MiB to r1 (direct, fsync)" dd if="$SCRATCH/d1" of="$R1" bs=1M oflag=direct conv=fsync status=none
D1=$(fsum "$SCRATCH/d1")
test_eq "r1 reads back what was written" "$(lv_sum "$R1" 0 $((16 * MIB)))" "$D1"
test_eq "rimage_0 holds the data (read from its PV)" "$(pv_sum r1_rimage_0 0 $((16 * MIB)))" "$D1"
test_eq "rimage_1 holds the data (read from its PV)" "$(pv_sum r1_rimage_1 0 $((16 * MIB)))" "$D1"
uspace_run_ok "deactivate" lvx lvchange -an "$VG/r1"
for i in 0 1; do
    m=r1_rmeta_$i
    test_eq "$m: dm-raid superblock magic" "$(sb_field $m magic)" "DmRd"
    test_eq "$m: level 1, layout 0, 2 devices, position $i" \
        "$(sb_field $m level) $(sb_field $m layout) $(sb_field $m devices) $(sb_field $m position)" "1 0 2 $i"
    test_eq "$m: in sync (recovery and resync offsets MaxSector), array size" \
        "$(sb_field $m recovery) $(sb_field $m resync) $(sb_field $m array_sectors)" \
        "ffffffffffffffff ffffffffffffffff 32768"
    test_eq "$m: md bitmap v4, chunk 2 MiB (region size), covers the leg" \
        "$(sb_field $m bm_magic) $(sb_field $m bm_version) $(sb_field $m bm_chunk) $(sb_field $m bm_sync_size)" \
        "bitm 4 2097152 32768"
    test_eq "$m: clean stop (no dirty bit, bitmap events = superblock events = cleared)" \
        "$(sb_field $m dirty) $(sb_field $m bm_events) $(sb_field $m bm_cleared)" \
        "0 $(sb_field $m events) $(sb_field $m events)"
done
test_eq "both legs have the same event count" "$(sb_field r1_rmeta_0 events)" "$(sb_field r1_rmeta_1 events)"
EV0=$(sb_field r1_rmeta_0 events)

done_testing
