#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1039-lvremove-open: lvremove -f of an active LV whose device is open (not mounted)
# is refused, as LVM2's lv_check_not_in_use refuses it (-f only skips the question):
# "Logical volume VG/LV in use.", exit 5, the LV still there and active, its data
# intact.  lvx replaced the open device's table by the error target and removed the
# LV (LVM2's snapshot-usage.sh:126 found it; a program holding the device lost its
# data; the daemon saw only O_EXCL holders).  For a plain LV and a COW snapshot (user
# backend); once the holder is gone the same lvremove -f goes through.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
lvm2_pair_begin 64M
VG=vglro$$
mkdir -p "$SCRATCH/dev"
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user lvx "$@" --config 'global { activation = 1 }'; }
dev() { readlink -f "$SCRATCH/dev/$VG/$1"; }
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
hold() {  # hold LV: a process keeps its device open (read-only) until killed
    rm -f "$SCRATCH/held"
    python3 -c 'import os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); print("held", flush=True); time.sleep(120)' \
        "$(dev "$1")" >"$SCRATCH/held" 2>&1 &
    holder=$!
    for _ in $(seq 1 100); do grep -q held "$SCRATCH/held" && break; sleep 0.05; done
}
unhold() { kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null; }

test_ok "$VG; LVs l and p (8 MiB each), active (user backend)" sh -c \
    "$LVX vgcreate -q $VG $D1 $D2 >/dev/null &&
     DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user $LVX lvcreate -q -Zn -L 8m -n l $VG --config 'global { activation = 1 }' &&
     DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user $LVX lvcreate -q -Zn -L 8m -n p $VG --config 'global { activation = 1 }'"
head -c 8388608 /dev/urandom >"$SCRATCH/d"
test_ok "8 MiB written to l and p" sh -c \
    "dd if=$SCRATCH/d of=$(dev l) bs=1M oflag=direct conv=fsync status=none &&
     dd if=$SCRATCH/d of=$(dev p) bs=1M oflag=direct conv=fsync status=none"
test_ok "snapshot s of l (8 MiB COW)" U lvcreate -q -s -L 8m -n s "$VG/l"

for lv in s p; do
    hold "$lv"
    s0=$(seqno)
    rc=0
    out=$(U lvremove -f "$VG/$lv" 2>&1) || rc=$?
    test_eq "lvremove -f of $lv while a process holds it open: exit 5, LVM2's line" \
        "$rc $(grep -c "Logical volume $VG/$lv in use." <<<"$out")" "5 1" || diag "$out"
    test_eq "... $lv still in the metadata (seqno $s0), active" \
        "$(seqno) $(U lvs --noheadings -o lv_active "$VG/$lv" 2>/dev/null | tr -d ' ')" "$s0 active"
    test_eq "... it still reads the data" \
        "$(head -c 8388608 "$(dev "$lv")" | sha256sum)" "$(sha256sum <"$SCRATCH/d")"
    unhold
done
test_ok "with the holders gone: lvremove -f of s, then of l and p" sh -c \
    "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user $LVX lvremove -f $VG/s --config 'global { activation = 1 }' &&
     DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user $LVX lvremove -f $VG/l $VG/p --config 'global { activation = 1 }'"
test_eq "no LV left" "$(lvm2 lvs --noheadings -o lv_name "$VG" 2>/dev/null | xargs)" ""
lvm2 vgremove -q -ff "$VG" >/dev/null 2>&1
done_testing
