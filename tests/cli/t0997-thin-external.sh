#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0997-thin-external: thin LVs with an external origin made by lvx (`lvcreate -s
# --thinpool VG/POOL VG/LV`, `lvcreate --type thin --thinpool POOL VG/LV`) and served
# by the lvx daemon (user backend), on loop devices, LVM2 reading the VG:
#   * refusals as LVM2's (unknown origin or pool, a pool that is not one: the same
#     lines and exit codes as LVM2 on the same VG; a writable or an active origin:
#     LVM2's words), nothing written;
#   * the thin LV: the origin's size, external_origin in the metadata, no
#     ACTIVATION_SKIP, create_thin in the pool (transaction ids agree); lvs -a of
#     lv_attr, origin, origin_size, lv_role... equal LVM2's; LVM2's vgck passes;
#   * unprovisioned blocks read the origin's bytes; a 4 KiB write into a block fills
#     the rest of that 64 KiB block from the origin (the LV reads the origin with the
#     4 KiB replaced), a whole-block write too; the origin itself never changes; the
#     same after deactivation and reactivation; a thin LV larger than its origin... is
#     not made by lvcreate (the size is the origin's);
#   * a second thin LV on the same origin (--type thin form) reads the origin; a
#     thin snapshot of the first keeps its external origin (LVM2's create_snap);
#   * write-zeroes (blkdiscard -z) over an unprovisioned range reads zeroes, not the
#     origin; thin_check accepts the pool's metadata after deactivation.
# The kernel's side (LVM2 + dm-thin reading what the daemon wrote and the other way
# round) is t0743.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
need_cmd thin_check
[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
plan_later

D1=$(make_loop 96M) && D2=$(make_loop 96M) || { _tap_result 1 "loop devices"; done_testing; }
DEVS="$D1,$D2"
lvm_sandbox "$D1" "$D2"
X() { lvx "$@" --devices "$DEVS"; }
mkdir -p "$SCRATCH/dev"
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user X "$@" --config 'global { activation = 1 }'; }
dev() { echo "$SCRATCH/dev/vg1/$1"; }
sum() { dd if="$(dev "$1")" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
fsum() { sha256sum <"$1" | cut -d' ' -f1; }
f() { U lvs -a --noheadings -o "$2" "vg1/$1" 2>/dev/null | tr -d ' '; }
meta_ok() { "$LVX_ROOT/tests/tools/thin_meta_check.sh" vg1 pool "$SCRATCH"; }
tid() { f pool transaction_id; }
lvm2q() { lvm2 "$@" 2>&1 | grep -v 'WARNING: Activation disabled'; }
# deactivation, tried again while a device is busy (other programs scanning loop
# devices may hold one open for a moment; LVM2 retries deactivation too)
off() { local i; for i in 1 2 3; do U "$@" 2>/dev/null && return 0; sleep 1; done; U "$@"; }
# same_as_lvm2 DESC TOOL ARGS...: TOOL ARGS and LVM2's ARGS print the same lines and exit alike
same_as_lvm2() {
    local desc=$1 tool=$2 out rc lout lrc
    shift 2
    out=$("$tool" "$@" 2>&1); rc=$?
    lout=$(lvm2q "$@"); lrc=$(lvm2 "$@" >/dev/null 2>&1; echo $?)
    test_eq "$desc" "$out rc=$rc" "$lout rc=$lrc"
}
trap 'U vgchange -an vg1 >/dev/null 2>&1; "$LVX" daemon stop -f >/dev/null 2>&1; cleanup' EXIT

test_ok "vg1, thin pool pool (32 MiB, 64 KiB chunks), LV ext (8 MiB) active" sh -c \
    "'$LVX' pvcreate -q $D1 $D2 --devices $DEVS && '$LVX' vgcreate -q vg1 $D1 $D2 --devices $DEVS" &&
    U lvcreate -q -an -T -L 32m -c 64k vg1/pool >/dev/null 2>&1 && U lvcreate -q -L 8m -n ext vg1 >/dev/null 2>&1
head -c 8M /dev/urandom >"$SCRATCH/ext.img"
test_ok "ext filled with random data" dd if="$SCRATCH/ext.img" of="$(dev ext)" bs=1M oflag=direct status=none
test_eq "ext reads it back" "$(sum ext)" "$(fsum "$SCRATCH/ext.img")"

# ---------------------------------------------------------------- refusals
before=$(sha_devs "$D1" "$D2")
out=$(U lvcreate -s --thinpool vg1/pool vg1/ext -n t1 2>&1)
test_eq "writable origin: exit 5" "$?" 5
test_eq "... LVM2's line" "$out" "  Cannot use writable LV as the external origin."
test_ok "ext deactivated" off lvchange -an vg1/ext
test_ok "ext made read-only (lvchange -pr)" X lvchange -q -pr vg1/ext
test_ok "ext active again (read-only)" U lvchange -ay vg1/ext
out=$(U lvcreate -s --thinpool vg1/pool vg1/ext -n t1 2>&1)
test_eq "active origin: exit 5" "$?" 5
test_eq "... LVM2's line" "$out" "  Cannot use active LV for the external origin."
test_ok "ext deactivated" off lvchange -an vg1/ext
before=$(sha_devs "$D1" "$D2")
for c in "-s --thinpool vg1/nosuch vg1/ext" "-s --thinpool vg1/ext vg1/ext" \
         "-s --thinpool vg1/pool vg1/nosuch" "-s vg1/ext --chunksize 64 --thinpool vg1/pool" \
         "-s vg1/ext --zero y --thinpool vg1/pool" "--type thin --thinpool pool ext" \
         "-s vg1/ext -L10 --thinpool vg1/pool"; do
    # shellcheck disable=SC2086
    same_as_lvm2 "lvcreate $c: LVM2's line and exit code" U lvcreate $c
done
test_eq "... nothing written by the refusals" "$(sha_devs "$D1" "$D2")" "$before"

test_ok "ext4m (one 4 MiB extent, read-only), pool192 (192 KiB chunks)" sh -c \
    "'$LVX' lvcreate -q -an -pr -l 1 -n ext4m vg1 --devices $DEVS >/dev/null 2>&1 &&
     '$LVX' lvcreate -q -an -T -L 8m -c 192k vg1/pool192 --devices $DEVS >/dev/null 2>&1"
out=$(DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user X lvcreate -s --thinpool vg1/pool192 vg1/ext4m \
    --config 'global { activation = 1 thin_disabled_features = [ "external_origin_extend" ] }' 2>&1)
test_eq "lvcreate -s --thinpool of ext4m, global/thin_disabled_features = external_origin_extend: exit 5" "$?" 5
test_eq "... LVM2's line" "$out" '  Can'"'"'t use "vg1/ext4m" as external origin with "vg1/pool192" pool. Size 4.00 MiB is not a multiple of pool'"'"'s chunk size 192.00 KiB.'
test_ok "ext4m and pool192 removed" X lvremove -q -y vg1/ext4m vg1/pool192

# ---------------------------------------------------------------- lvcreate
out=$(U lvcreate -s --thinpool vg1/pool vg1/ext -n t1 2>&1)
test_eq "lvcreate -s --thinpool vg1/pool vg1/ext -n t1: exit 0" "$?" 0
test_ok "... 'Logical volume \"t1\" created.'" grep -q 'Logical volume "t1" created.' <<<"$out"
diag "$out"
test_eq "t1: the origin's size, active, not ACTIVATION_SKIP" \
    "$(f t1 lv_size),$(f t1 lv_active),$(f t1 lv_skip_activation)" "8.00m,active,"
test_ok "the metadata: external_origin = \"ext\"" sh -c \
    "'$LVX' vgcfgbackup -q -f '$SCRATCH/vg1.vg' vg1 --devices $DEVS && grep -q 'external_origin = \"ext\"' '$SCRATCH/vg1.vg'"
test_eq "ext read-only in the metadata (READ only)" \
    "$(sed -n '/^\t\text {/,/status/p' "$SCRATCH/vg1.vg" | grep status | tr -d '\t ')" 'status=["READ","VISIBLE"]'
F=lv_name,lv_attr,lv_size,origin,origin_size,lv_role,lv_layout,pool_lv,lv_ancestors,lv_descendants,lv_skip_activation
# fields TOOL: lvs -a of the fields F, the activity columns of lv_attr blanked
fields() { "$1" lvs -a --noheadings --separator '|' -o $F vg1 2>&1 | sed 's/^\(  [^|]*|....\)../\1--/'; }
test_eq "lvs -a: the fields as LVM2's (activity columns blanked)" \
    "$(fields X)" "$(fields lvm2q)"
test_ok "LVM2's vgck accepts the VG" lvm2 vgck vg1
test_eq "t1 reads the origin's bytes" "$(sum t1)" "$(fsum "$SCRATCH/ext.img")"

# ---------------------------------------------------------------- writes
head -c 4096 /dev/urandom >"$SCRATCH/w4k"
head -c 65536 /dev/urandom >"$SCRATCH/w64k"
cp "$SCRATCH/ext.img" "$SCRATCH/want.img"
# 4 KiB at 100 KiB (inside block 1), 64 KiB at 1 MiB (block 16, whole)
dd if="$SCRATCH/w4k" of="$SCRATCH/want.img" bs=1k seek=100 conv=notrunc status=none
dd if="$SCRATCH/w64k" of="$SCRATCH/want.img" bs=64k seek=16 conv=notrunc status=none
test_ok "4 KiB write into t1 (block 1 partly)" \
    dd if="$SCRATCH/w4k" of="$(dev t1)" bs=1k seek=100 oflag=direct conv=notrunc status=none
test_ok "64 KiB write into t1 (block 16 whole)" \
    dd if="$SCRATCH/w64k" of="$(dev t1)" bs=64k seek=16 oflag=direct conv=notrunc status=none
test_eq "t1 reads the origin with the writes in (the rest of block 1 from the origin)" \
    "$(sum t1)" "$(fsum "$SCRATCH/want.img")"
test_eq "two blocks provisioned (t1's Data% of 8 MiB: 1.56)" "$(f t1 data_percent)" "1.56"
test_ok "deactivated" off vgchange -an vg1
test_ok "thin_check accepts the pool's metadata" meta_ok
test_ok "t1 activated again" U lvchange -ay vg1/t1
test_eq "t1 reads the same" "$(sum t1)" "$(fsum "$SCRATCH/want.img")"
test_eq "transaction ids agree (pool 1)" "$(tid)" 1

# ---------------------------------------------------------------- more users
out=$(U lvcreate --type thin --thinpool pool vg1/ext -n t2 2>&1)
test_eq "lvcreate --type thin --thinpool pool vg1/ext -n t2: exit 0" "$?" 0
diag "$out"
test_eq "t2 reads the origin" "$(sum t2)" "$(fsum "$SCRATCH/ext.img")"
out=$(U lvcreate -s vg1/t1 -n s1 -K 2>&1)
test_eq "thin snapshot s1 of t1: exit 0" "$?" 0
diag "$out"
U vgcfgbackup -q -f "$SCRATCH/vg2.vg" vg1 >/dev/null 2>&1
test_eq "s1 keeps the external origin (origin t1 and external_origin ext)" \
    "$(sed -n '/^\t\ts1 {/,/^\t\t}/p' "$SCRATCH/vg2.vg" | grep -E 'origin' | tr -d '\t ' | sort | tr '\n' ' ')" \
    'external_origin="ext" origin="t1" '
test_eq "s1 reads what t1 does" "$(sum s1)" "$(fsum "$SCRATCH/want.img")"
test_ok "write-zeroes of t2's first 1 MiB" blkdiscard -z -l 1048576 "$(dev t2)"
head -c 1M /dev/zero >"$SCRATCH/want2.img"
tail -c +1048577 "$SCRATCH/ext.img" >>"$SCRATCH/want2.img"
test_eq "t2 reads zeroes there, the origin after" "$(sum t2)" "$(fsum "$SCRATCH/want2.img")"
test_eq "ext unchanged" "$(U lvchange -ay vg1/ext >/dev/null 2>&1; sum ext)" "$(fsum "$SCRATCH/ext.img")"
test_eq "lvs -a: still as LVM2's" \
    "$(fields X)" "$(fields lvm2q)"
test_ok "deactivated" off vgchange -an vg1
test_ok "thin_check accepts the pool's metadata" meta_ok
test_ok "LVM2's vgck accepts the VG" lvm2 vgck vg1

# ---------------------------------------------------------------- resize, remove
before=$(sha_devs "$D1" "$D2")
for c in "lvresize -L+4m vg1/ext" "lvreduce -f -L-4m vg1/ext"; do
    # shellcheck disable=SC2086
    same_as_lvm2 "$c: LVM2's line and exit code" X $c
done
out=$(echo n | X lvremove vg1/ext 2>&1); rc=$?
lout=$(echo n | lvm2q lvremove vg1/ext); lrc=$(echo n | lvm2 lvremove vg1/ext >/dev/null 2>&1; echo $?)
test_eq "lvremove vg1/ext answered n: LVM2's prompt, line and exit code" "$out rc=$rc" "$lout rc=$lrc"
test_eq "... nothing written" "$(sha_devs "$D1" "$D2")" "$before"

# ---------------------------------------------------------------- lvconvert --type thin
test_ok "LV conv (8 MiB) filled with random data, deactivated; pool3 (192 KiB chunks)" sh -c \
    "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvcreate -q -L 8m -n conv vg1 --devices $DEVS --config 'global { activation = 1 }' >/dev/null 2>&1 &&
     dd if='$SCRATCH/ext.img' of='$(dev conv)' bs=1M oflag=direct status=none &&
     sleep 1; DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -an vg1/conv --devices $DEVS --config 'global { activation = 1 }' &&
     '$LVX' lvcreate -q -an -T -L 8m -c 192k vg1/pool3 --devices $DEVS >/dev/null 2>&1"
uuid=$(f conv lv_uuid)
before=$(sha_devs "$D1" "$D2")
for c in "--type thin --thinpool vg1/pool3 vg1/conv" "--thin --thinpool vg1/pool3 vg1/conv --originname o3" \
         "--type thin --thinpool vg1/pool vg1/nosuch" "--type thin --thinpool vg1/nosuch vg1/conv"; do
    # shellcheck disable=SC2086
    same_as_lvm2 "lvconvert $c (no device-mapper): LVM2's line and exit code" X lvconvert $c
done
test_eq "... nothing written by the refusals" "$(sha_devs "$D1" "$D2")" "$before"
out=$(U lvconvert --type thin --thinpool vg1/pool vg1/conv --originname corig 2>&1)
test_eq "lvconvert --type thin --thinpool vg1/pool vg1/conv --originname corig: exit 0" "$?" 0
diag "$out"
test_eq "... LVM2's lines" "$(grep -v WARNING <<<"$out")" \
    '  Logical volume "corig" created.
  Converted vg1/conv to thin volume with external origin vg1/corig.'
test_eq "conv is a thin LV of pool with conv's UUID, corig the old LV (new UUID, read-only)" \
    "$(f conv segtype),$(f conv pool_lv),$(f conv origin),$(f conv lv_uuid),$(f corig segtype),$(f corig lv_attr | cut -c1-2),$([[ $(f corig lv_uuid) != "$uuid" ]] && echo new)" \
    "thin,pool,corig,$uuid,linear,or,new"
test_eq "lvs -a: as LVM2's" \
    "$(fields X)" "$(fields lvm2q)"
test_ok "LVM2's vgck accepts the VG" lvm2 vgck vg1
test_ok "conv activated" U lvchange -ay vg1/conv
test_eq "conv reads its old bytes (from corig)" "$(sum conv)" "$(fsum "$SCRATCH/ext.img")"
test_ok "t3: corig (an external origin already, active user) in pool3 (192 KiB chunks)" \
    U lvcreate -q -s --thinpool vg1/pool3 vg1/corig -n t3
test_ok "4 KiB written into t3" dd if="$SCRATCH/w4k" of="$(dev t3)" bs=4k oflag=direct status=none
test_eq "t3's Data%: one 192 KiB chunk of 8 MiB rounded up to 43 chunks (LVM2's rule): 2.33" \
    "$(f t3 data_percent)" "2.33"
test_ok "LV lin (4 MiB) active" U lvcreate -q -L 4m -n lin vg1
test_ok "... zeroed" dd if=/dev/zero of="$(dev lin)" bs=1M count=4 oflag=direct status=none
out=$(U lvconvert --thin --thinpool vg1/pool vg1/lin 2>&1)
test_eq "lvconvert --thin --thinpool vg1/pool vg1/lin of the active lin (no --originname): exit 0" "$?" 0
diag "$out"
test_eq "... the origin named lvol1 (LVM2's generate_lv_name: lvol0_pmspare counts)" \
    "$(f lin origin),$(f lvol1 segtype),$(f lvol1 lv_attr | cut -c1-2)" "lvol1,linear,or"
test_ok "lin still active (reloaded as the thin LV, t1010)" test -b "$(readlink -f "$(dev lin)")"
test_eq "lin reads zeroes" "$(sum lin)" "$(head -c 4M /dev/zero | sha256sum | cut -d' ' -f1)"
test_ok "deactivated" off vgchange -an vg1
test_ok "thin_check accepts the pool's metadata" meta_ok
test_ok "LVM2's vgck accepts the VG" lvm2 vgck vg1
out=$(U lvremove -f vg1/ext 2>&1)
test_eq "lvremove -f vg1/ext: exit 0" "$?" 0
diag "$out"
test_eq "... its thin LVs t1, s1, t2 went with it (LVM2's dependent volumes)" \
    "$(X lvs --noheadings -o lv_name vg1 2>/dev/null | tr -d ' ' | sort | tr '\n' ' ')" "conv corig lin lvol1 pool pool3 t3 "
test_ok "thin_check accepts the pool's metadata (deletes)" meta_ok
test_ok "LVM2's vgck accepts the VG" lvm2 vgck vg1
test_ok "VG removed" X vgremove -f vg1
done_testing
