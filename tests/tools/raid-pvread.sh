# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/raid-pvread.sh - sourced by the user-space RAID tests (t0935, t0937)
# after lib.sh: a RAID LV's sub-LVs and rmeta state read directly from the PVs, with
# LVM2 as the oracle of where they live (tests/tools/lv_pvread.py).  Needs VG, SCRATCH,
# PYTHON, LVX_ROOT.
#   report LV             LVM2's segments of (sub-)LV LV, PV starts, extent size
#   pv_get LV OFF LEN OUT / pv_sum LV OFF LEN   its bytes read from the PVs / their sha256
#   pv_plant LV OFF       4 KiB of random bytes written at OFF of LV, on its PV
#   pv_put LV OFF FILE    FILE written at OFF of LV, on its PV
#   fsum FILE, lv_sum DEV OFF LEN               sha256 of a file / of the LV (direct I/O)
#   sb_field RMETA FIELD  a dm-raid superblock / md bitmap field of a rmeta (bits: the
#                         first 128 bitmap bits, 0/1 by region; first_dirty: the first
#                         region whose bit is set, -1 for none)
#   sb_wait_past RMETA FIELD N  polls sb_field until FIELD (an offset: recovery) is
#                         recorded above N sectors; prints it (hex) at the end
#   sb_wait_dirty RMETA N polls until the first dirty region of the bitmap is above N
#                         (a resync's progress); prints it
#   fio_crc NAME DEV SIZE EXTRA...  fio's 16 KiB random writes with crc32c headers (seed
#                         1004; --do_verify=0 to write, --verify_only=1 to verify)
#   wait_synced LV        polls lvx's lvs until LV's sync_percent is 100.00 (the daemon
#                         resyncs in the background); false after ~120 s of polling
PVREAD=$LVX_ROOT/tests/tools/lv_pvread.py
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
# pv_at LV: "DEV SECTOR" where the (sub-)LV's first segment starts on its PV, as
# LVM2's report places it
pv_at() {
    local range dev pe es ps
    range=$(lvm2 lvs -a --noheadings -o seg_pe_ranges "$VG/$1" 2>/dev/null | tr -d ' ')
    dev=${range%%:*}
    pe=${range#*:}
    pe=${pe%%-*}
    es=$(lvm2 vgs --noheadings --units s --nosuffix -o vg_extent_size "$VG" 2>/dev/null | tr -d ' ')
    ps=$(lvm2 pvs --noheadings --units s --nosuffix -o pe_start "$dev" 2>/dev/null | tr -d ' ')
    echo "$dev $((ps + pe * es))"
}
# pv_plant LV OFFSET: 4 KiB of random bytes into the (sub-)LV at byte OFFSET of its first
# segment, written straight on its PV (a planted mismatch)
pv_plant() {
    local at
    read -r -a at <<<"$(pv_at "$1")"
    dd if=/dev/urandom of="${at[0]}" bs=512 seek=$((at[1] + $2 / 512)) count=8 \
        oflag=direct conv=notrunc status=none
}
# pv_put LV OFFSET FILE: FILE's bytes into the (sub-)LV at byte OFFSET of its first
# segment, on its PV
pv_put() {
    local at
    read -r -a at <<<"$(pv_at "$1")"
    [[ -e ${at[0]:-} ]] || return 1     # no such LV: nothing written (not a new file)
    dd if="$3" of="${at[0]}" bs=512 seek=$((at[1] + $2 / 512)) oflag=direct conv=notrunc status=none
}
sb_wait_past() {
    local v=ffffffffffffffff _i
    for _i in $(seq 300); do
        v=$(sb_field "$1" "$2")
        [[ $v != ffffffffffffffff ]] && (($((16#$v)) > $3)) && break
        sleep 0.1
    done
    echo "$v"
}
sb_wait_dirty() {
    local v=-1 _i
    for _i in $(seq 300); do
        v=$(sb_field "$1" first_dirty)
        ((v > $2)) && break
        sleep 0.1
    done
    echo "$v"
}
fio_crc() {
    local name=$1 dev=$2 size=$3
    shift 3
    fio --name="$name" --filename="$dev" --direct=1 --ioengine=psync --rw=randwrite --bs=16k \
        --size="$size" --verify=crc32c --verify_state_save=0 --randseed=1004 "$@" \
        --output="$SCRATCH/$name.out" >/dev/null 2>&1
}
wait_synced() {
    local _i
    for _i in $(seq 600); do
        [[ $(lvx lvs --noheadings -o sync_percent "$VG/$1" 2>/dev/null | tr -d ' ') == 100.00 ]] && return 0
        sleep 0.2
    done
    return 1
}
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
      "stripe": struct.unpack_from("<I", b, 0x38)[0], "new_stripe": struct.unpack_from("<I", b, 0x50)[0],
      "array_sectors": struct.unpack_from("<Q", b, 0x58)[0], "devices": struct.unpack_from("<I", b, 0x08)[0],
      "flags": struct.unpack_from("<I", b, 0x3C)[0], "reshape": "%x" % struct.unpack_from("<Q", b, 0x40)[0],
      "delta_disks": struct.unpack_from("<i", b, 0x54)[0],
      "data_offset": struct.unpack_from("<Q", b, 0x60)[0],
      "new_data_offset": struct.unpack_from("<Q", b, 0x68)[0], "sectors": struct.unpack_from("<Q", b, 0x70)[0],
      "bm_magic": b[4096:4100].decode("latin1"), "bm_version": struct.unpack_from("<I", b, 4100)[0],
      "bm_events": struct.unpack_from("<Q", b, 4096 + 24)[0],
      "bm_cleared": struct.unpack_from("<Q", b, 4096 + 32)[0],
      "bm_sync_size": struct.unpack_from("<Q", b, 4096 + 40)[0],
      "bm_chunk": struct.unpack_from("<I", b, 4096 + 52)[0]}
chunks = -(-sb["bm_sync_size"] // (sb["bm_chunk"] // 512)) if sb["bm_chunk"] else 0
bits = b[4096 + 256:]
sb["dirty"] = sum((bits[c // 8] >> (c % 8)) & 1 for c in range(chunks))
sb["bits"] = "".join(str((bits[c // 8] >> (c % 8)) & 1) for c in range(min(chunks, 128)))
sb["first_dirty"] = next((c for c in range(chunks) if (bits[c // 8] >> (c % 8)) & 1), -1)
print(sb[f])
PY
}
