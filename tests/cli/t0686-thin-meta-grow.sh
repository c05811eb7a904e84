#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0686-thin-meta-grow: growing a thin pool's metadata (lvextend/lvresize
# --poolmetadatasize) and the kernel-format metadata's space map with it.
#   * activation off: lvresize --poolmetadatasize grows _tmeta (and lvol0_pmspare) with
#     LVM2's words, LVM2 reads the result; sizes not larger are refused (exit 5,
#     nothing written);
#   * user-space backend: a pool grown while inactive takes the new size at its next
#     activation, one grown while active at the reload (the daemon's metadata file
#     grows, as the kernel's pool at resume): Meta% drops by the ratio, the data written
#     before and after reads back, the superblock's metadata space map covers the new
#     size after the next commit, and thin_check accepts the metadata each time.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
for c in lvm thin_check python3; do need_cmd $c; done
need_lvx
[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
plan_later

mapfile -t D < <(make_loops 2 128M)
[[ ${#D[@]} == 2 ]] || { _tap_result 1 "loop devices"; done_testing; }
D1=${D[0]} D2=${D[1]} DEVS="${D[0]},${D[1]}"
X() { lvx "$@" --devices "$DEVS"; }

test_ok "vgt on two PVs" sh -c \
    "'$LVX' pvcreate -q $D1 $D2 --devices $DEVS && '$LVX' vgcreate -q vgt $D1 $D2 --devices $DEVS"
test_ok "pool with 4 MiB of metadata (activation off)" \
    X lvcreate -q -an -T -L 64m --poolmetadatasize 4m vgt/pool

# ---------------------------------------------------------------- 1: the metadata
# (LVM2 without device-mapper refuses: "Support for online metadata resize ... not
# detected"; its words in the VM are in t0671's capture, the same shape as here)
sums() { sha_devs "$D1" "$D2"; }
out=$(X lvresize --poolmetadatasize 12m vgt/pool 2>/dev/null)
test_eq "lvresize --poolmetadatasize 12m: _tmeta grows, LVM2's words" "$out" \
    "  Size of logical volume vgt/pool_tmeta changed from 4.00 MiB (1 extents) to 12.00 MiB (3 extents).
  Logical volume vgt/pool_tmeta successfully resized."
test_eq "LVM2 reads the pool: metadata size 12 MiB, the spare grown with it" \
    "$(lvm2 lvs -a --noheadings -o lv_name,lv_size,lv_metadata_size vgt 2>/dev/null | tr -s ' ' | sed 's/ $//')" \
    " [lvol0_pmspare] 12.00m
 pool 64.00m 12.00m
 [pool_tdata] 64.00m
 [pool_tmeta] 12.00m"
test_ok "LVM2's vgck" lvm2 vgck vgt
for req in "lvresize --poolmetadatasize 12m" "lvresize --poolmetadatasize 8m" "lvextend --poolmetadatasize 4m"; do
    before=$(sums)
    rc=0
    # shellcheck disable=SC2086
    out=$(X $req vgt/pool 2>&1) || rc=$?
    test_eq "$req (not larger): exit 5" "$rc" 5
    diag "$out"
    test_eq "... nothing written" "$(sums)" "$before"
done

# ---------------------------------------------------------------- 2: the daemon
test_ok "a new pool with 4 MiB of metadata" sh -c \
    "'$LVX' lvremove -q -f vgt/pool --devices $DEVS >/dev/null &&
     '$LVX' lvcreate -q -an -T -L 64m --poolmetadatasize 4m vgt/pool --devices $DEVS >/dev/null 2>&1"
mkdir -p "$SCRATCH/dev"
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user X "$@" --config 'global { activation = 1 }'; }
dev() { echo "$SCRATCH/dev/vgt/$1"; }
meta() { U lvs --noheadings -o metadata_percent vgt/pool 2>/dev/null | tr -d ' '; }
# put SEEK_MIB COUNT_MIB: random data into thin1, its copy kept
put() {
    head -c $(($2 << 20)) /dev/urandom >"$SCRATCH/d$1" &&
        dd if="$SCRATCH/d$1" of="$(dev thin1)" bs=1M seek="$1" oflag=direct conv=notrunc,fsync status=none
}
back() { cmp -s -n $(($2 << 20)) <(dd if="$(dev thin1)" bs=1M skip="$1" count="$2" status=none) "$SCRATCH/d$1"; }
# thin_check of the metadata as the PVs hold it; $nr the superblock's metadata space map size
check() {
    local out
    out=$(LVM_SYSTEM_DIR=$SCRATCH/lvm "$LVX_ROOT/tests/tools/thin_meta_check.sh" vgt pool "$SCRATCH") ||
        { diag "$out"; return 1; }
    nr=$(python3 -c "import struct,sys; print(struct.unpack_from('<Q', open(sys.argv[1],'rb').read(512), 192)[0])" "$SCRATCH/tmeta.bin")
}
ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (b > 0 and abs(a / b - float(sys.argv[3])) < 0.1))" "$@"; }

test_ok "thin1 (user backend)" U lvcreate -q -V 256m -T vgt/pool -n thin1
test_ok "16 MiB written" put 0 16
m1=$(meta)
diag "Meta% $m1 with 4 MiB"
test_ok "deactivated" U vgchange -an vgt
test_ok "thin_check" check
test_eq "... the metadata space map: 1024 blocks (4 MiB)" "$nr" 1024

test_ok "lvextend --poolmetadatasize +4m of the inactive pool" X lvextend -q --poolmetadatasize +4m vgt/pool
test_ok "thin1 activated" U lvchange -ay vgt/thin1
m2=$(meta)
diag "Meta% $m2 with 8 MiB"
test_ok "... the allocated share of Meta% halved ($m1 -> $m2)" \
    ratio "$(thin_meta_alloc_pct "$m1" 1024)" "$(thin_meta_alloc_pct "$m2" 2048)" 2
test_ok "16 MiB more written" put 16 16
test_ok "... the first 16 MiB read back" back 0 16
test_ok "deactivated" U vgchange -an vgt
test_ok "thin_check" check
test_eq "... the metadata space map: 2048 blocks (8 MiB)" "$nr" 2048

test_ok "thin1 activated" U lvchange -ay vgt/thin1
m3=$(meta)
out=$(U lvextend --poolmetadatasize +8m vgt/pool 2>&1)
test_eq "lvextend --poolmetadatasize +8m of the active pool: exit 0" "$?" 0
diag "$out"
m4=$(meta)
diag "Meta% $m3 with 8 MiB, $m4 with 16 MiB"
test_ok "... the allocated share of Meta% halved at the reload ($m3 -> $m4)" \
    ratio "$(thin_meta_alloc_pct "$m3" 2048)" "$(thin_meta_alloc_pct "$m4" 4096)" 2
test_ok "16 MiB more written" put 32 16
all_back() { back 0 16 && back 16 16 && back 32 16; }
test_ok "... all 48 MiB read back" all_back
test_ok "deactivated" U vgchange -an vgt
test_ok "thin_check" check
test_eq "... the metadata space map: 4096 blocks (16 MiB)" "$nr" 4096
test_ok "LVM2's vgck" lvm2 vgck vgt
test_ok "VG removed" X vgremove -f vgt
done_testing
