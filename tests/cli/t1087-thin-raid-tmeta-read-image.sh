#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1087-thin-raid-tmeta-read-image: which image of a pool's raid1 _tmeta thin_repair
# reads (map/lv_file.c, a raid1 LV opened read-only).  An image can be out of sync
# without LVM2's REBUILD flag (a leg half-rebuilt when the LV went down: LVM2 clears
# the flag once the kernel has the leg); the kernel's record is the dm-raid superblock
# in the leg's rmeta (docs/dm-formats.md §2): disk_recovery_offset below MaxSector, or
# the leg's failed bit in the superblock with the most events.  lvx read the first image
# whatever its superblock said.  Here, with the pool inactive and no daemon: image 1
# holds good metadata (thin_restore'd), image 0 zeroes; their rmeta superblocks are
# written by hand (offsets of §2) -- image 0 "recovering", then image 0 "failed" in the
# newest superblock -- and lvconvert --repair must find the metadata of image 1 (its
# thin device in the repaired _tmeta); with both images in sync, image 0 (the zeroes)
# is read and the repair fails, as before.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm thin_restore thin_repair thin_dump "$PYTHON"
need_lvx
plan_later
mapfile -t D < <(make_loops 4 64M)
[[ ${#D[@]} == 4 ]] || { _tap_result 1 "4 loop devices"; done_testing; }
lvm_sandbox "${D[@]}"
VG=vgtri$$
lvx pvcreate -q "${D[@]}" >/dev/null 2>&1 || { _tap_result 1 "pvcreate"; done_testing; }
pe_start=$(lvm2 pvs --noheadings --units s --nosuffix -o pe_start "${D[0]}" 2>/dev/null | tr -d ' ')
[[ $pe_start =~ ^[0-9]+$ ]] || { _tap_result 1 "pe_start of the PVs"; done_testing; }

cat >"$SCRATCH/meta.xml" <<'XML'
<superblock uuid="" time="0" transaction="0" flags="0" version="2" data_block_size="128" nr_data_blocks="128">
  <device dev_id="7" mapped_blocks="1" transaction="0" creation_time="0" snap_time="0">
    <single_mapping origin_block="0" data_block="0" time="0"/>
  </device>
</superblock>
XML
truncate -s 4M "$SCRATCH/meta.bin"
test_ok "thin_restore: metadata with thin device 7" thin_restore -q -i "$SCRATCH/meta.xml" -o "$SCRATCH/meta.bin"

# where LV (one segment, one area) starts: "DEV BYTE-OFFSET"
lv_at() {
    lvm2 lvs -a --noheadings --units s --nosuffix -o seg_pe_ranges "$VG/$1" 2>/dev/null |
        tr -d ' ' | awk -F: -v ps="$pe_start" '{ split($2, r, "-"); print $1, (ps + r[1] * 8192) * 512 }'
}
# put FILE at LV's start
put() {
    local at
    read -r -a at < <(lv_at "$1")
    dd if="$2" of="${at[0]}" bs=512 seek=$((at[1] / 512)) conv=notrunc,fsync status=none
}
# sb LEG EVENTS RECOVERY FAILED: a dm-raid superblock (magic, features, 2 devices,
# position, events, failed_devices, disk_recovery_offset, array_resync_offset) in
# pool_tmeta_rmeta_LEG's first 4 KiB
sb() {
    "$PYTHON" -c '
import struct, sys
leg, ev, rec, failed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
b = struct.pack("<IIIIQQQQ", 0x64526D44, 0, 2, leg, ev, failed, rec, 2**64 - 1)
sys.stdout.buffer.write(b + bytes(4096 - len(b)))' "$@" >"$SCRATCH/sb"
    put "pool_tmeta_rmeta_$1" "$SCRATCH/sb"
}
MAX=18446744073709551615    # MaxSector: in sync
# make: a pool whose _tmeta is raid1 (image 0 on D1, image 1 on D2), image 1 holding
# the metadata, image 0 zeroes
make() {
    lvx vgremove -q -ff "$VG" >/dev/null 2>&1
    lvx vgcreate -q "$VG" "${D[@]}" >/dev/null 2>&1 &&
        lvx lvcreate -q -an -Zn -T -L8M --poolmetadataspare y "$VG/pool" "${D[0]}" "${D[3]}" >/dev/null 2>&1 &&
        lvx lvcreate -q -an -Zn --type raid1 -m1 --nosync -L4M -n meta "$VG" "${D[1]}" "${D[2]}" >/dev/null 2>&1 &&
        lvx lvconvert -q -y --thinpool "$VG/pool" --poolmetadata "$VG/meta" >/dev/null 2>&1 &&
        put pool_tmeta_rimage_1 "$SCRATCH/meta.bin" &&
        dd if=/dev/zero bs=1M count=4 status=none | put pool_tmeta_rimage_0 /dev/stdin
}
# step DESC ARGS...: make, then the superblocks sb LEG EVENTS RECOVERY FAILED of ARGS
# (four at a time)
step() {
    local desc=$1 ok=0
    shift
    make || ok=1
    while (($# >= 4)); do
        sb "$1" "$2" "$3" "$4" || ok=1
        shift 4
    done
    _tap_result $ok "$desc"
}
# repaired DESC: lvconvert --repair VG/pool exits 0 and the new _tmeta holds device 7
repaired() {
    local rc=0 at
    lvx lvconvert -y --repair "$VG/pool" >"$SCRATCH/o" 2>&1 || rc=$?
    test_eq "$1: lvconvert --repair exit 0" "$rc" 0
    [[ $rc == 0 ]] || _diag_file "output" "$SCRATCH/o"
    read -r -a at < <(lv_at pool_tmeta)
    dd if="${at[0]}" of="$SCRATCH/new.bin" bs=512 skip=$((at[1] / 512)) count=8192 status=none 2>/dev/null
    test_eq "... the repaired metadata holds image 1's thin device 7" \
        "$(thin_dump "$SCRATCH/new.bin" 2>/dev/null | grep -c 'dev_id="7"')" 1
}

step "raid1 _tmeta, image 1 metadata, image 0 zeroes, image 0 recovering" 0 10 2048 0 1 10 $MAX 0
repaired "image 0 recovering (disk_recovery_offset 2048)"

step "again, image 0 in sync by its own superblock but failed in image 1's (more events)" 0 10 $MAX 0 1 12 $MAX 1
repaired "image 0 failed in the newest superblock"

step "again, both in sync: image 0 (the zeroes) is read" 0 10 $MAX 0 1 10 $MAX 0
rc=0; lvx lvconvert -y --repair "$VG/pool" >"$SCRATCH/o" 2>&1 || rc=$?
test_ok "... lvconvert --repair fails (thin_repair finds no metadata)" test "$rc" != 0
lvx vgremove -q -ff "$VG" >/dev/null 2>&1
done_testing
