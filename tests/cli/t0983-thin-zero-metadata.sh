#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0983-thin-zero-metadata: a new thin pool's metadata LV is cleared as LVM2 2.03.16
# clears it (LVM2's test thin-zero-meta): all of it while allocation/zero_metadata is
# on (the default), only its first 4 KiB with zero_metadata = 0; a write error while
# clearing fails the command with LVM2's "Failed to initialize logical volume" and
# leaves the VG as it was (the clearing comes before the commit).  The PVs start full
# of random bytes; the _tmeta extents are read back from the PV through the ranges
# LVM2 reports (seg_pe_ranges, pe_start).  lvcreate -T and lvconvert --thinpool
# --poolmetadata (an LV of random bytes made the pool's metadata).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

lvm2_pair_begin 64M
X() { lvx "$@" --devices "$D1,$D2"; }

# random bytes over both PVs' data areas (from 1 MiB on: labels and metadata stay)
scramble() {
    local d
    for d in "$D1" "$D2"; do
        dd if=/dev/urandom of="$d" bs=1M seek=1 count=63 oflag=direct status=none
    done
}
# meta_bytes LV: the bytes of LV (one segment) read from its PV, as LVM2 places them
meta_bytes() {
    local r dev a b pe es
    r=$(lvm2 lvs -a --noheadings -o seg_pe_ranges "vg1/$1" 2>/dev/null | tr -d ' ')
    dev=${r%%:*}; a=${r#*:}; a=${a%-*}; b=${r##*-}
    pe=$(lvm2 pvs --noheadings --units s --nosuffix -o pe_start "$dev" 2>/dev/null | tr -d ' ')
    es=$(lvm2 vgs --noheadings --units s --nosuffix -o vg_extent_size vg1 2>/dev/null | tr -d ' ')
    dd if="$dev" bs=512 skip=$((pe + a * es)) count=$(((b - a + 1) * es)) iflag=direct status=none
}
# nonzero: how many bytes of stdin are not zero
nonzero() { tr -d '\0' | wc -c; }

test_ok "pvcreate, vgcreate vg1" sh -c \
    "'$LVX' pvcreate -q $D1 $D2 --devices $D1,$D2 && '$LVX' vgcreate -q vg1 $D1 $D2 --devices $D1,$D2"
scramble

# ---- lvcreate -T: all of the metadata zeroed (zero_metadata's default)
test_ok "lvcreate -T -L 16m --poolmetadatasize 4m vg1/pool" X lvcreate -q -an -T -L 16m --poolmetadatasize 4m vg1/pool
test_eq "... all 4 MiB of pool_tmeta read from its PV are zero" "$(meta_bytes pool_tmeta | nonzero)" 0
test_eq "... (4 MiB read)" "$(meta_bytes pool_tmeta | wc -c)" $((4 << 20))
test_ok "... LVM2's vgck accepts the VG" lvm2 vgck vg1
test_ok "lvremove vg1/pool" X lvremove -q -f vg1/pool
scramble

# ---- allocation/zero_metadata = 0: the first 4 KiB only
test_ok "lvcreate -T with allocation/zero_metadata=0" \
    X lvcreate -q -an -T -L 16m --poolmetadatasize 4m vg1/pool --config 'allocation/zero_metadata=0'
test_eq "... the first 4 KiB of pool_tmeta are zero" "$(meta_bytes pool_tmeta | head -c 4096 | nonzero)" 0
n=$(meta_bytes pool_tmeta | tail -c +4097 | nonzero)
test_ok "... the rest keeps the old bytes ($n not zero)" test "$n" -gt 1000000
test_ok "lvremove vg1/pool" X lvremove -q -f vg1/pool
scramble

# ---- a write error while zeroing: exit 5, LVM2's words, nothing committed
seq0=$(X vgs --noheadings -o vg_seqno vg1 | tr -d ' ')
out=$(LVX_TEST_DP_FAULT="pv=$D1,op=zero,kind=eio;pv=$D2,op=zero,kind=eio" X lvcreate -q -an -T -L 16m --poolmetadatasize 4m vg1/pool 2>&1)
test_eq "lvcreate -T with the zeroing failing (I/O error): exit 5" "$?" 5
diag "$out"
test_ok "... \"Failed to initialize logical volume\"" grep -q "Failed to initialize logical volume vg1/" <<<"$out"
test_ok "... \"Aborting. Failed to wipe pool metadata\"" grep -q "Aborting. Failed to wipe pool metadata vg1/" <<<"$out"
test_eq "... the VG not committed (vg_seqno $seq0)" "$(X vgs --noheadings -o vg_seqno vg1 | tr -d ' ')" "$seq0"
test_eq "... no LV in the VG" "$(X lvs -a --noheadings -o lv_name vg1 | tr -d ' ' | grep -c .)" 0

# ---- lvconvert --thinpool --poolmetadata: the given LV zeroed whole
test_ok "lvcreate data (16m) and meta (4m) of random bytes" sh -c \
    "'$LVX' lvcreate -q -an -Zn -L 16m -n data vg1 --devices $D1,$D2 &&
     '$LVX' lvcreate -q -an -Zn -L 4m -n meta vg1 --devices $D1,$D2"
n=$(meta_bytes meta | nonzero)
test_ok "... meta holds random bytes ($n not zero)" test "$n" -gt 4000000
test_ok "lvconvert -y --thinpool vg1/data --poolmetadata vg1/meta" \
    X lvconvert -q -y --thinpool vg1/data --poolmetadata vg1/meta
test_eq "... the pool's metadata (the former meta) is all zero" "$(meta_bytes data_tmeta | nonzero)" 0
test_ok "... LVM2's vgck accepts the VG" lvm2 vgck vg1

X vgremove -q -ff vg1 >/dev/null 2>&1
done_testing
