#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1017-cache-pool-reports: unused cache pools made by LVM2 (lvcreate --type cache-pool,
# activation off: the host has no device-mapper) reported by lvx as LVM2 reports them:
# lvs -a -o all (every field), lvdisplay -a and -m (a cache pool's LV Path, its
# segment's type and chunk size), vgdisplay -v, fullreport, JSON.  Before: lv_attr's
# target letter 'C' on the pools' _cdata/_cmeta (LVM2: '-'), lv_modules "cache-pool"
# (LVM2: "cache"), no lv_path and no "LV Path" for a cache pool, no chunk size in the
# segment's display.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

lvm2_pair_begin 200M
test_ok "LVM2: vgc with cache pools cp (default chunk) and cp2 (256k), a linear LV" sh -c \
    "LVM_SYSTEM_DIR=$SCRATCH/lvm lvm vgcreate -q vgc $D1 && 
     LVM_SYSTEM_DIR=$SCRATCH/lvm lvm lvcreate -q --type cache-pool -L 16m -n cp vgc &&
     LVM_SYSTEM_DIR=$SCRATCH/lvm lvm lvcreate -q --type cache-pool --chunksize 256k -L 16m -n cp2 vgc &&
     LVM_SYSTEM_DIR=$SCRATCH/lvm lvm lvcreate -q -an -Zn -L 32m -n orig vgc" 
both lvs -a --noheadings -o lv_name,lv_attr,lv_modules,lv_path vgc
diag "$(cat "$SCRATCH/l.out")"
same_as_lvm2 lvs -a --noheadings -o lv_name,lv_attr,lv_modules,lv_path,chunk_size vgc
same_as_lvm2 lvs -a --noheadings --nameprefixes -o all vgc
same_as_lvm2 lvdisplay -a vgc
same_as_lvm2 lvdisplay -m -a vgc
same_as_lvm2 lvdisplay -m -a --units s vgc
same_as_lvm2 vgdisplay -v vgc
same_as_lvm2 fullreport vgc
same_as_lvm2 lvs -a --reportformat json -o all vgc
lvm2 vgremove -q -ff vgc >/dev/null 2>&1
done_testing
