#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1027-readonly-until-write: a command that writes nothing opens the devices it names
# read-only, as LVM2 (dev/dev.c, meta/scan.c, meta/commit.c).  Closing a block device
# opened read-write raises inotify IN_CLOSE_WRITE on its /dev node, which udev's `watch`
# turns into a change event, a blkid probe and LVM2's pvscan; so under --test and for a
# command refused after the scan (a PV of another VG, a device that is not there) no
# named device may see a close-after-write.  A vgcreate that writes still does (the
# watcher's control), and its commit opens each device read-write once.
# The scan of vgcreate/vgextend opened the named devices read-write before (to spare
# the commit a thousand reopens): every check but the controls fails on that binary.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

mapfile -t D < <(make_loops 4 64M)
((${#D[@]} == 4)) || skip_all "no loop devices"
VG=vgro$$ OTHER=vgrother$$

# watch_start DEV...: count IN_CLOSE_WRITE per device node until watch_stop, which
# sets CW to "DEV N" lines, one per device with N > 0 (empty when no device was closed
# after a write).  Not in a subshell: wait needs the watcher as its child.
watch_start() {
    rm -f "$SCRATCH/cw.ready" "$SCRATCH/cw.stop" "$SCRATCH/cw.out"
    "$PYTHON" - "$SCRATCH/cw" "$@" <<'PY' &
import ctypes, os, select, struct, sys
base, devs = sys.argv[1], sys.argv[2:]
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
IN_CLOSE_WRITE = 0x8
wd = {libc.inotify_add_watch(fd, d.encode(), IN_CLOSE_WRITE): d for d in devs}
count = dict.fromkeys(devs, 0)
open(base + ".ready", "w").close()
def drain():
    while True:
        try:
            buf = os.read(fd, 65536)
        except BlockingIOError:
            return
        off = 0
        while off < len(buf):
            w, mask, _, ln = struct.unpack_from("iIII", buf, off)
            if mask & IN_CLOSE_WRITE and w in wd:
                count[wd[w]] += 1
            off += 16 + ln
while not os.path.exists(base + ".stop"):
    select.select([fd], [], [], 0.05)
    drain()
drain()
with open(base + ".out", "w") as f:
    for d in devs:
        if count[d]:
            f.write("%s %d\n" % (d, count[d]))
PY
    WATCH_PID=$!
    for _ in $(seq 200); do [[ -e $SCRATCH/cw.ready ]] && return 0; sleep 0.05; done
    return 1
}
watch_stop() {
    touch "$SCRATCH/cw.stop"
    wait "$WATCH_PID"
    CW=$(cat "$SCRATCH/cw.out")
}

# run WHAT...: lvx WHAT with all four devices watched; sets RC and CW (the closes after write)
run() {
    watch_start "${D[@]}" || { RC=-1 CW="watcher did not start"; return; }
    RC=0
    lvx "$@" >"$SCRATCH/out" 2>"$SCRATCH/err" || RC=$?
    watch_stop
}

lvx pvcreate -q "${D[0]}" "${D[1]}" "${D[2]}" >/dev/null 2>&1
lvx vgcreate -q "$OTHER" "${D[3]}" >/dev/null 2>&1
test_eq "setup: three orphan PVs and a VG on the fourth device" \
    "$(lvx pvs --noheadings -o vg_name "${D[@]}" 2>/dev/null | awk 'NF { print $1 }' | paste -sd,)" \
    "$OTHER"

# control: a device opened read-write and closed is seen
watch_start "${D[0]}" && "$PYTHON" -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_RDWR))' "${D[0]}"
watch_stop
test_eq "control: the watcher sees a read-write open closed" "$CW" "${D[0]} 1"

before=$(sha_devs "${D[@]}")

run vgcreate --test "$VG" "${D[0]}" "${D[1]}" "${D[2]}"
test_eq "vgcreate --test: exit 0" "$RC" 0
test_eq "vgcreate --test: no device closed after a read-write open" "$CW" ""

run vgextend --test "$OTHER" "${D[0]}" "${D[1]}"
test_eq "vgextend --test: exit 0" "$RC" 0
test_eq "vgextend --test: no device closed after a read-write open" "$CW" ""

run vgcreate "$VG" "${D[0]}" "${D[3]}"
test_eq "vgcreate with a PV of another VG: refused (exit 5)" "$RC" 5
test_eq "... no device closed after a read-write open" "$CW" ""

run vgextend "$OTHER" "${D[1]}" "$SCRATCH/no-such-device"
test_eq "vgextend with a device that is not there: refused (exit 5)" "$RC" 5
test_eq "... no device closed after a read-write open" "$CW" ""

run pvremove --test "${D[2]}"
test_eq "pvremove --test: exit 0, no device closed after a read-write open" "$RC:$CW" "0:"

test_eq "nothing written by the runs above" "$(sha_devs "${D[@]}")" "$before"

# the write path: the devices are written, so each is closed after a read-write open,
# opened read-only by the scan and read-write once by the commit
LOG=$SCRATCH/io.log
watch_start "${D[@]}"
rc=0
LVX_TEST_IO_LOG=$LOG lvx vgcreate -q "$VG" "${D[0]}" "${D[1]}" >/dev/null 2>"$SCRATCH/err" || rc=$?
watch_stop
test_eq "vgcreate that writes: exit 0" "$rc" 0
test_eq "... its two devices closed after a read-write open, once each (control)" \
    "$CW" "${D[0]} 1
${D[1]} 1"
test_eq "... each opened twice: read-only by the scan, read-write by the commit" \
    "$(for d in "${D[0]}" "${D[1]}"; do grep -c "^open $d\$" "$LOG"; done | paste -sd,)" "2,2"
test_eq "... the VG has both PVs" \
    "$(lvx vgs --noheadings -o pv_count "$VG" 2>/dev/null | tr -d ' ')" 2

lvx vgremove -f "$VG" >/dev/null 2>&1
lvx vgremove -f "$OTHER" >/dev/null 2>&1
done_testing
