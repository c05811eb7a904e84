#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0670-snapshot: COW snapshots made by lvx without device-mapper (lvcreate -s on loop
# devices, LVM2's sandbox with activation off), checked by the real LVM2:
#   * LVM2's vgck accepts every step and LVM2's lvs/lvdisplay of lvx's VG equal lvx's
#     (origin, snap attr letters, COW sizes, chunk sizes, the hidden snapshotN);
#   * the COW's first 4 KiB (the exception store header) are zeroed over old data;
#   * bad requests (chunk size, no size, missing origin, snapshot of a
#     snapshot) fail with LVM2's message and code and write nothing;
#   * lvextend of a COW LV (capped at the origin's maximum), lvremove of a snapshot and
#     of an origin with its snapshots, as LVM2 then reads them;
#   * the user-space backend activates an origin with its snapshots as one set (and
#     deactivates it); lvcreate -s of an origin it serves takes the snapshot at once,
#     cached writes included, and a mounted filesystem frozen meanwhile (the file
#     just written is in the snapshot, which mounts without a journal replay).
# LVM2 itself refuses lvcreate -s without device-mapper: the comparison of lvx's
# snapshots with LVM2's own (metadata, dm tables, data) is t0701 (kernel, in a VM).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
own_mount_ns "$@"   # umount ends the filesystem before it is checked (lib.sh says why)

need_loop
need_cmd lvm
need_lvx
plan_later

D1=$(make_loop 256M) && D2=$(make_loop 256M) || { _tap_result 1 "loop devices"; done_testing; }
DEVS="$D1,$D2"
X() { lvx "$@" --devices "$DEVS"; }
sums() { sha_devs "$D1" "$D2"; }

test_ok "lvx makes vg1 and a 40m origin" sh -c \
    "'$LVX' pvcreate -q $D1 $D2 --devices $DEVS && '$LVX' vgcreate -q vg1 $D1 $D2 --devices $DEVS &&
     '$LVX' lvcreate -an -L 40m -n orig vg1 --devices $DEVS"
# old data where the COW will be placed (the next free extents on D1)
pe_start=$(lvm2 pvs --noheadings --units s --nosuffix -o pe_start "$D1" 2>/dev/null | tr -d ' ')
test_ok "old data written past the origin" sh -c \
    "dd if=/dev/urandom of=$D1 bs=512 seek=$((pe_start + 40 * 2048)) count=16384 conv=notrunc,fsync 2>/dev/null"

# (backups are off in the sandbox: the backup warning, checked by t0949, is left out)
out=$(X lvcreate -s -L 8m -n s1 vg1/orig 2>&1 | sandbox_noise; exit "${PIPESTATUS[0]}")
test_eq "lvcreate -s -L 8m: exit 0, created" "$?:$(tail -n 1 <<<"$out")" '0:  Logical volume "s1" created.'
cow_pe=$(lvm2 lvs --noheadings -o seg_pe_ranges vg1/s1 2>/dev/null | tr -d ' ')
cow_start=$(( pe_start + $(sed -E 's/.*:([0-9]+)-.*/\1/' <<<"$cow_pe") * 8192 ))
test_eq "the COW's first 4 KiB are zeroed (exception store header)" \
    "$(dd if="$D1" bs=512 skip="$cow_start" count=8 2>/dev/null | tr -d '\0' | wc -c)" 0
test_ok "the rest of the COW is left as it was (not zeroed)" sh -c \
    "[ \$(dd if=$D1 bs=512 skip=$((cow_start + 8)) count=8 2>/dev/null | tr -d '\\0' | wc -c) -gt 0 ]"
test_ok "lvcreate -s -l 50%ORIGIN -c 64k" X lvcreate -s -l 50%ORIGIN -c 64k -n s2 vg1/orig
out=$(X lvcreate -s -L 1g -n s3 vg1/orig 2>&1)
test_ok "a COW larger than the origin can fill is trimmed, as LVM2 says" \
    grep -q "Reducing COW size 1.00 GiB down to maximum usable size" <<<"$out"
test_ok "LVM2's vgck accepts lvx's snapshots" lvm2 vgck vg1

REP=lv_name,origin,lv_attr,lv_size,origin_size,chunk_size,snap_percent,data_percent,seg_count
test_eq "lvs -a: lvx's report equals LVM2's (snapshotN hidden, s/o attrs, chunks)" \
    "$(X lvs -a --noheadings -o $REP vg1 2>&1)" "$(lvm2 lvs -a --noheadings -o $REP vg1 2>/dev/null)"
for lv in s1 s2 orig; do
    test_eq "lvdisplay vg1/$lv: lvx's equals LVM2's" "$(X lvdisplay vg1/$lv 2>&1)" \
        "$(lvm2 lvdisplay vg1/$lv 2>/dev/null)"
done
test_eq "vgs: lvx's equals LVM2's (snapshot count)" "$(X vgs -o +snap_count vg1 2>&1)" \
    "$(lvm2 vgs -o +snap_count vg1 2>/dev/null)"
lvm2 vgcfgbackup -f "$SCRATCH/b.vg" vg1 >/dev/null 2>&1
test_eq "LVM2's metadata: three snapshot segments, snapshot0..2, s3's, 64k chunks" \
    "$(grep -cF 'type = "snapshot"' "$SCRATCH/b.vg"):$(grep -cE 'snapshot[012] \{' "$SCRATCH/b.vg"):$(grep -cF 'cow_store = "s3"' "$SCRATCH/b.vg"):$(grep -cF 'chunk_size = 128' "$SCRATCH/b.vg")" \
    "3:3:1:1"

# ---------------------------------------------------------------- refused requests
bad() {  # bad DESC CODE MESSAGE ARGS...
    local desc=$1 code=$2 msg=$3 before rc=0
    shift 3
    before=$(sums)
    out=$(X "$@" 2>&1) || rc=$?
    test_eq "$desc: exit $code" "$rc" "$code"
    test_ok "$desc: LVM2's message" grep -qF -- "$msg" <<<"$out"
    test_eq "$desc: nothing written" "$(sums)" "$before"
}
bad "chunk size 3k" 3 "Chunk size must be a power of 2 in the range 4K to 512K." \
    lvcreate -s -L 4m -c 3k -n s9 vg1/orig
bad "no size" 5 "Please specify either size or extents with snapshots." lvcreate -s -n s9 vg1/orig
bad "missing origin" 5 "Snapshot origin LV none not found in Volume group vg1." \
    lvcreate -s -L 4m -n s9 vg1/none
bad "snapshot of a snapshot" 5 "Snapshots of snapshots are not supported." \
    lvcreate -s -L 4m -n s9 vg1/s1
bad "no origin" 3 "Please specify a logical volume to act as the snapshot origin." \
    lvcreate -s -L 4m -n s9
bad "origin without its VG" 3 "The origin name should include the volume group." \
    lvcreate -s -L 4m -n s9 orig
bad "reduce an origin" 5 "Snapshot origin volumes cannot be reduced in size yet." \
    lvreduce -f -L -4m vg1/orig

rc=0
out=$(echo n | X lvchange -ay vg1/s1 2>&1) || rc=$?
test_eq "lvchange -a of a snapshot asks about its origin; 'n' changes nothing (exit 5)" "$rc" 5
test_ok "lvchange -a of a snapshot: LVM2's question and answer" sh -c \
    "printf '%s' \"\$1\" | grep -qF 'Change of snapshot vg1/s1 will also change its origin vg1/orig and 2 other snapshot(s). Proceed? [y/n]' &&
     printf '%s' \"\$1\" | grep -qF 'Logical volume vg1/s1 not changed.'" _ "$out"

# ---------------------------------------------------------------- the user-space backend
if [[ -e /dev/fuse ]]; then
    # an origin with snapshots is served as one set by the daemon (t0905 checks the data)
    U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user X "$@" --config 'global { activation = 1 }'; }
    mkdir -p "$SCRATCH/dev"
    test_ok "user backend: lvchange -ay vg1/orig activates the set" U lvchange -ay vg1/orig
    test_ok "user backend: the snapshots are served with it" sh -c \
        "test -b $SCRATCH/dev/vg1/s1 && test -b $SCRATCH/dev/vg1/s2"
    test_ok "user backend: lvchange -an vg1/s1 deactivates the set" U lvchange -y -an vg1/s1
    test_fail "user backend: the origin is not served any more" test -b "$SCRATCH/dev/vg1/orig"
    # a snapshot of an origin the daemon serves: taken at once, a point in time
    test_ok "user backend: a plain LV o2 made" sh -c \
        "'$LVX' lvcreate -an -L 8m -n o2 vg1 --devices $DEVS 2>/dev/null"
    test_ok "user backend: o2 activated" U lvchange -ay vg1/o2
    head -c 8M /dev/urandom >"$SCRATCH/P1"
    head -c 8M /dev/urandom >"$SCRATCH/P2"
    dd if="$SCRATCH/P1" of="$SCRATCH/dev/vg1/o2" bs=1M status=none    # (cached: no sync)
    out=$(U lvcreate -s -L 16m -n s9 vg1/o2 2>&1 | sandbox_noise; exit "${PIPESTATUS[0]}")
    test_eq "user backend: lvcreate -s of the active o2: exit 0, created" "$?:$(tail -n 1 <<<"$out")" \
        '0:  Logical volume "s9" created.'
    test_ok "user backend: s9 is served at once" test -b "$SCRATCH/dev/vg1/s9"
    test_eq "user backend: s9 holds o2's data, cached writes included (flushed first)" \
        "$(sha256sum <"$SCRATCH/dev/vg1/s9" | cut -d' ' -f1)" "$(sha256sum <"$SCRATCH/P1" | cut -d' ' -f1)"
    dd if="$SCRATCH/P2" of="$SCRATCH/dev/vg1/o2" bs=1M oflag=direct status=none
    test_eq "user backend: o2 rewritten reads the new data" \
        "$(sha256sum <"$SCRATCH/dev/vg1/o2" | cut -d' ' -f1)" "$(sha256sum <"$SCRATCH/P2" | cut -d' ' -f1)"
    test_eq "user backend: s9 keeps the data of its point in time" \
        "$(sha256sum <"$SCRATCH/dev/vg1/s9" | cut -d' ' -f1)" "$(sha256sum <"$SCRATCH/P1" | cut -d' ' -f1)"
    test_ok "user backend: LVM2's vgck with s9" lvm2 vgck vg1
    # a mounted filesystem is frozen while the snapshot is taken (as LVM2's suspend
    # with lockfs): a file written just before, still in the page cache, is in it
    if command -v mkfs.ext4 >/dev/null; then
        mkdir -p "$SCRATCH/m1" "$SCRATCH/m2"
        test_ok "user backend: ext4 on o2, mounted, a file written (no sync)" sh -c \
            "mkfs.ext4 -q -F $SCRATCH/dev/vg1/o2 && mount $SCRATCH/dev/vg1/o2 $SCRATCH/m1 &&
             head -c 1M /dev/urandom >$SCRATCH/m1/f && cp $SCRATCH/m1/f $SCRATCH/f.want"
        test_ok "user backend: lvcreate -s of the mounted o2" U lvcreate -s -L 16m -n s10 vg1/o2
        test_ok "user backend: s10 mounts read-only without a journal replay, the file in it" sh -c \
            "mount -o ro,noload $SCRATCH/dev/vg1/s10 $SCRATCH/m2 && cmp $SCRATCH/m2/f $SCRATCH/f.want"
        umount "$SCRATCH/m2" 2>/dev/null
        umount "$SCRATCH/m1" 2>/dev/null
        U lvremove -f vg1/s10 >/dev/null 2>&1
    else
        test_skip "no mkfs.ext4" 3
    fi
    test_ok "user backend: o2 deactivated and removed with s9" sh -c \
        "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -an vg1/o2 --devices $DEVS --config 'global { activation = 1 }' &&
         '$LVX' lvremove -f vg1/o2 --devices $DEVS >/dev/null"
    lvx daemon stop >/dev/null 2>&1
else
    test_skip "user backend" "no /dev/fuse"
fi

# ---------------------------------------------------------------- extend, remove
test_ok "lvextend of a COW LV" X lvextend -L +8m vg1/s1
out=$(X lvextend -L 1g vg1/s1 2>&1)
test_ok "lvextend of a COW LV stops at the origin's maximum" \
    grep -q "Reached maximum COW size 44.00 MiB (11 extents)." <<<"$out"
test_eq "LVM2 sees the COW at its maximum" "$(lvm2 lvs --noheadings -o lv_size vg1/s1 2>/dev/null | tr -d ' ')" 44.00m
test_ok "LVM2's vgck after lvextend" lvm2 vgck vg1
out=$(X lvremove -f vg1/s2 2>&1 | sandbox_noise; exit "${PIPESTATUS[0]}")
test_eq "lvremove of a snapshot" "$out" '  Logical volume "s2" successfully removed.'
test_eq "LVM2: s2 and its snapshotN are gone" \
    "$(lvm2 lvs -a --noheadings -o lv_name,origin vg1 2>/dev/null | tr -s ' ' | sed 's/ *$//')" \
    " orig
 s1 orig
 s3 orig"
test_ok "LVM2's vgck after removing a snapshot" lvm2 vgck vg1
out=$(X lvremove -f vg1/orig 2>&1 | sandbox_noise; exit "${PIPESTATUS[0]}")
test_eq "lvremove of an origin removes its snapshots first" "$out" \
    '  Logical volume "s1" successfully removed.
  Logical volume "s3" successfully removed.
  Logical volume "orig" successfully removed.'
test_eq "LVM2: no LV left, all extents free" \
    "$(lvm2 vgs --noheadings -o lv_count,vg_free vg1 2>/dev/null | tr -s ' ')" " 0 504.00m"
test_ok "LVM2's vgck at the end" lvm2 vgck vg1
test_ok "vgremove" X vgremove -f vg1
done_testing
