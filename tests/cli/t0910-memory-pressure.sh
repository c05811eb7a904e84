#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0910-memory-pressure: an XFS file system on a user-space-activated LV (the lvx
# daemon: FUSE + loop device) filled by a writer while a memory hog runs next to it,
# both in a small memory cgroup (cgroup v1 memory controller).  Reclaim in that
# cgroup must write dirty pages back through the daemon: the daemon must not need
# memory of that cgroup to do it.  The daemon is started from inside the limited
# cgroup and must move itself to an unlimited one; the run must complete (bounded by
# a timeout) and the data read back.  The hog may be OOM-killed by its cgroup: that is
# the kernel's answer to the hog, not a failure of the daemon.
source "$(dirname "$0")/../lib.sh"
own_mount_ns "$@"   # umount ends the filesystem before it is checked (lib.sh says why)
source "$LVX_ROOT/tests/tools/uspace-env.sh"

need_loop
need_lvx
need_cmd mkfs.xfs mountpoint timeout
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse"
MEMCG_ROOT=/sys/fs/cgroup/memory
[[ -f $MEMCG_ROOT/cgroup.procs ]] || skip_all "no cgroup v1 memory controller"

VG=vgmem$$
LIMIT_MB=${T0910_LIMIT_MB:-128}
HOG_MB=${T0910_HOG_MB:-64}
WRITE_MB=${T0910_WRITE_MB:-768}
TIMEOUT=${T0910_TIMEOUT:-150}

own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
[[ $own == / ]] && own=""
CG=$MEMCG_ROOT$own/lvx-t0910-$$

t0910_cleanup() {
    if [[ -n ${LVX_RUN_DIR:-} ]]; then
        "$LVX" vgchange -an "$VG" >/dev/null 2>&1
        uspace_cleanup
    fi
    if [[ -d $CG ]]; then
        # move anything left (our own processes only) back, then remove the cgroup
        while read -r p; do echo "$p" >"$MEMCG_ROOT$own/cgroup.procs" 2>/dev/null; done <"$CG/cgroup.procs"
        rmdir "$CG" 2>/dev/null
    fi
    cleanup
}
trap t0910_cleanup EXIT

mkdir "$CG" || skip_all "cannot create a memory cgroup"
echo $((LIMIT_MB * 1048576)) >"$CG/memory.limit_in_bytes"

DEVS=("$(make_loop 700M)" "$(make_loop 700M)")
uspace_env "$SCRATCH/us" "${DEVS[@]}"
MNT=$SCRATCH/us/mnt
mkdir -p "$MNT"

in_cg() {  # in_cg CMD...: run CMD inside the limited cgroup
    bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' in_cg "$CG" "$@"
}

test_ok "pvcreate" lvx pvcreate -q "${DEVS[@]}"
test_ok "vgcreate" lvx vgcreate -q "$VG" "${DEVS[@]}"
# started from inside the limited cgroup: the daemon must leave it
test_ok "lvcreate (the daemon starts inside the ${LIMIT_MB} MiB cgroup)" \
    in_cg "$LVX" lvcreate -q -i 2 -I 256k -n lv -L 1200m "$VG"
read -r sup worker <<<"$(uspace_daemon_pids)"
dcg=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' "/proc/$worker/cgroup" 2>/dev/null)
diag "daemon worker $worker is in memory cgroup $dcg"
test_ok "the daemon left the limited cgroup" test -n "$dcg" -a "$dcg" != "$own/lvx-t0910-$$"
lim=$(cat "$MEMCG_ROOT$dcg/memory.limit_in_bytes" 2>/dev/null || echo 0)
test_ok "the daemon's cgroup has no memory limit" test "$lim" -ge $((1 << 62))
grep -q "memory not locked\|mlockall" "$LVX_RUN_DIR/lvxd.log" &&
    diag "$(grep -m1 "memory not locked\|mlockall" "$LVX_RUN_DIR/lvxd.log")"

test_ok "mkfs.xfs" mkfs.xfs -q -f "/dev/$VG/lv"
test_ok "mount" mount "/dev/$VG/lv" "$MNT"

# the hog: holds HOG_MB and keeps touching it; the writer: buffered writes of WRITE_MB
bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' hog "$CG" "$PYTHON" -c '
import sys, time
b = bytearray(int(sys.argv[1]) << 20)
end = time.time() + float(sys.argv[2])
while time.time() < end:
    for i in range(0, len(b), 4096):
        b[i] = (b[i] + 1) & 255
    time.sleep(0.05)
' "$HOG_MB" "$TIMEOUT" &
hog=$!
start=$SECONDS
timeout "$TIMEOUT" bash -c 'echo $$ >"$1/cgroup.procs" &&
    exec dd if=/dev/zero of="$2/fill" bs=1M count="$3" conv=fsync status=none' w "$CG" "$MNT" "$WRITE_MB"
rc=$?
hog_state=$(kill -0 "$hog" 2>/dev/null && echo alive || echo "gone (OOM-killed)")
kill "$hog" 2>/dev/null
wait "$hog" 2>/dev/null
test_eq "the writer filled ${WRITE_MB} MiB next to the hog without hanging (timeout ${TIMEOUT} s)" "0" "$rc"
diag "writer took $((SECONDS - start)) s; cgroup failcnt $(cat "$CG/memory.failcnt"); hog $hog_state"
test_eq "file size" "$((WRITE_MB * 1048576))" "$(stat -c %s "$MNT/fill" 2>/dev/null)"
test_ok "umount" umount "$MNT"
sync
echo 3 >/proc/sys/vm/drop_caches
test_ok "mount again" mount "/dev/$VG/lv" "$MNT"
test_ok "the data reads back" cmp -s -n $((WRITE_MB * 1048576)) "$MNT/fill" /dev/zero
test_ok "umount" umount "$MNT"
test_ok "lvremove" lvx lvremove -y "$VG/lv"
test_ok "vgremove" lvx vgremove "$VG"
test_ok "pvremove" lvx pvremove -q "${DEVS[@]}"
test_ok "daemon stop" lvx daemon stop
done_testing
