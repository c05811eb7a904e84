#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/stripe-demo.sh - `make demo`, part 2: the seed workflow on this machine,
# without device-mapper.  Four sparse image files become loop devices, each limited to
# DEMO_MIBS MiB/s (default 100) with the cgroup v1 blkio throttle; lvx makes a VG, an
# LV striped over the four (-i 4 -I 256k) and a linear LV on one disk for comparison,
# both activated by lvx's user-space backend (the lvx daemon: FUSE + loop devices);
# XFS on each, a file written with fio (O_DIRECT) and read back with caches dropped; then
# the table: single volume vs striped, speed increase, share of the 4-disk limit.
# Everything made is removed at the end (also on failure or Ctrl-C).  The images live
# on tmpfs (/dev/shm, when it has room) so that dropping the caches does not send the
# reads to the host's own disk instead of the throttled disks.
#   LVX=path/to/lvx (default build/lvx)  DEMO_MIBS=100  DEMO_FILE_MIB=384  DEMO_IMGDIR=DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
LVX=$(realpath -m "${LVX:-build/lvx}")
RATE=${DEMO_MIBS:-100}
FILE_MIB=${DEMO_FILE_MIB:-384}
NDISKS=4
export LVX
source tests/tools/uspace-env.sh
source tests/tools/loops.sh

skip() { printf '\n(stripe demo skipped: %s)\n' "$1"; exit 0; }
[[ -x $LVX ]] || { echo "stripe-demo: $LVX is not built; run 'make' first" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || skip "needs root"
[[ -c /dev/fuse && -e /dev/loop-control ]] || skip "needs /dev/fuse and loop devices"
uspace_can_throttle || skip "needs the cgroup v1 blkio controller"
command -v mkfs.xfs >/dev/null || skip "needs mkfs.xfs"
command -v fio >/dev/null || skip "needs fio"

tmp=$(mktemp -d /tmp/lvx-stripe-demo.XXXXXX)
imgdir=${DEMO_IMGDIR:-$tmp}
if [[ -z ${DEMO_IMGDIR:-} && $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs &&
    $(df -m --output=avail /dev/shm 2>/dev/null | tail -1 | tr -d ' ') -gt 6144 ]]; then
    imgdir=/dev/shm
fi
IMG=$(mktemp -d "$imgdir/lvx-stripe-demo.XXXXXX")
LOOPS=()
VG=lvxdemo$$      # unique: /dev/VG and /dev/mapper/VG-* are shared by every run
finish() {
    set +e
    if [[ -n ${LVX_RUN_DIR:-} ]]; then
        "$LVX" vgchange -an "$VG" >/dev/null 2>&1
        "$LVX" vgremove -f "$VG" >/dev/null 2>&1
        ((${#LOOPS[@]})) && "$LVX" pvremove -q "${LOOPS[@]}" >/dev/null 2>&1
        uspace_cleanup
    fi
    own_loops=()
    for l in "${LOOPS[@]}"; do loop_backing "$l" | grep -q "^$IMG/" && own_loops+=("$l"); done
    uspace_unthrottle "${own_loops[@]}"
    loops_detach_under "$IMG"     # by backing file, never by a remembered name
    rm -rf "$tmp" "$IMG"
}
trap finish EXIT
trap 'exit 130' INT TERM

say() { printf '%s\n' "$*"; }
run() { printf '$ lvx %s\n' "$*"; "$LVX" "$@"; }

printf '\n==== Striping without device-mapper: %d disks of %d MiB/s, lvx user-space activation\n' \
    "$NDISKS" "$RATE"
for i in $(seq 1 $NDISKS); do
    truncate -s 1200M "$IMG/disk$i.img"
    LOOPS+=("$(losetup -f --show "$IMG/disk$i.img")")
done
for l in "${LOOPS[@]}"; do uspace_throttle "$l" "$RATE"; done
say "     (${LOOPS[*]}: sparse image files, each throttled to $RATE MiB/s read and write)"
uspace_env "$tmp/us" "${LOOPS[@]}"
mkdir -p "$tmp/us/mnt1" "$tmp/us/mnt4"

run pvcreate -q "${LOOPS[@]}"
run vgcreate -q "$VG" "${LOOPS[@]}"
run lvcreate -i 4 -I 256k -n striped -L 1g "$VG"
run lvcreate -n single -L 512m "$VG" "${LOOPS[0]}"
run lvs -o lv_name,lv_attr,lv_size,stripes,stripe_size,lv_kernel_major,lv_kernel_minor,lv_activation_backend "$VG"
printf '$ mkfs.xfs -d su=256k,sw=4 /dev/%s/striped; mkfs.xfs /dev/%s/single\n' "$VG" "$VG"
mkfs.xfs -q -f -d su=256k,sw=4 "/dev/$VG/striped"
mkfs.xfs -q -f "/dev/$VG/single"
mount "/dev/$VG/striped" "$tmp/us/mnt4"
mount "/dev/$VG/single" "$tmp/us/mnt1"

# fio_rate RW FILE -> MiB/s of sequential 1 MiB O_DIRECT I/O over a FILE_MIB MiB file
# (4 s after a 1 s ramp, so that the throttle's initial burst does not count)
fio_rate() {
    fio --output-format=json --name=demo --filename="$2" --rw="$1" --bs=1M --direct=1 \
        --ioengine=libaio --iodepth=16 --size="${FILE_MIB}m" --time_based --runtime=4 \
        --ramp_time=1 >"$tmp/fio.json" 2>/dev/null
    "${PYTHON:-python3}" -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print("%.0f" % (j[sys.argv[2]]["bw"] / 1024.0))' "$tmp/fio.json" "$1"
}
measure() {  # measure MOUNTPOINT -> "write read" MiB/s
    local w r
    w=$(fio_rate write "$1/file")
    sync
    echo 3 >/proc/sys/vm/drop_caches
    r=$(fio_rate read "$1/file")
    echo "$w $r"
}
say "\$ fio on a $FILE_MIB MiB file on each: write, drop caches, read (O_DIRECT, 1 MiB, 16 in flight, 4 s)"
read -r w1 r1 <<<"$(measure "$tmp/us/mnt1")"
read -r w4 r4 <<<"$(measure "$tmp/us/mnt4")"
limit=$((NDISKS * RATE))
"${PYTHON:-python3}" - "$r1" "$w1" "$r4" "$w4" "$limit" "$NDISKS" <<'PY'
import sys
r1, w1, r4, w4, limit = (float(x) for x in sys.argv[1:6])
n = int(sys.argv[6])
print()
print("  %-28s %12s %12s" % ("", "read MiB/s", "write MiB/s"))
print("  %-28s %12.0f %12.0f" % ("single volume (1 disk)", r1, w1))
print("  %-28s %12.0f %12.0f" % ("striped over %d (lvx)" % n, r4, w4))
print("  %-28s %11.1fx %11.1fx" % ("speed increase", r4 / r1, w4 / w1))
print("  %-28s %11.0f%% %11.0f%%" % ("of the %d-disk limit (%d)" % (n, limit), 100 * r4 / limit,
                                      100 * w4 / limit))
PY
umount "$tmp/us/mnt1" "$tmp/us/mnt4"
say ""
run lvremove -y "$VG/striped" "$VG/single"
run vgremove "$VG"
run pvremove -q "${LOOPS[@]}"
run daemon stop
say "(loop devices, throttle rules and images removed)"
