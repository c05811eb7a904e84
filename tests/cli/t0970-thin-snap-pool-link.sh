#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0970-thin-snap-pool-link: two differences LVM2's test suite found in thin LVs
# (issue 21), lvx beside the real LVM2 (activation off) on the same loop devices; the
# thin LVs are made by lvx's user activation backend (LVM2 cannot without dm):
#   - lvcreate --type snapshot VG/THIN without -L or -l: every LVM2 command form with
#     --type snapshot has a size, so none matches: LVM2's lines (the nearest form on
#     stdout), exit 3, nothing written (lvcreate-thin-snap, its line 51); -s, -T,
#     --thin and --type thin of a thin LV still make thin snapshots, and --type thin
#     VG/THIN -V N is refused as by LVM2;
#   - a thin pool keeps a /dev/VG/POOL link only while no thin LV was made in it
#     (transaction_id 0, LVM2's _lv_has_mknode); once used, its device is private: no
#     link after the first thin LV, nor after a new activation, vgmknodes or a rename
#     (thin-overprovisioning, its line 38);
#   - lvextend --poolmetadatasize of a pool's _tmeta LV resizes the pool's metadata, and
#     with -L the data too; LVM2's refusals for other LVs and for _tmeta with -L
#     (lvextend-thin, its lines 36-37).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

VG=vgts$$
side_setup 2
[[ -c /dev/fuse ]] || skip_all "no /dev/fuse (user activation backend)"
plan_later
mkdir -p "$SCRATCH/dev"
DEV=$SCRATCH/dev
U() { DM_DEV_DIR=$DEV LVX_ACTIVATION_BACKEND=user lvx "$@" --config 'global { activation = 1 }'; }
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
# name:segtype:origin of the LVs named
lvrow() { lvm2 lvs --noheadings --separator : -o lv_name,segtype,origin -S "$1" "$VG" 2>/dev/null | tr -d ' ' | xargs; }

lvm2 vgcreate -q -s 64k "$VG" "${D[@]}" >/dev/null 2>&1
U lvcreate -q -T -L 16m "$VG/pool" >/dev/null 2>&1
test_ok "a new (unused) thin pool has its link $VG/pool" test -L "$DEV/$VG/pool"
rc=0
U lvcreate -n lv1 -V 8m "$VG/pool" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvcreate -n lv1 -V 8m VG/pool: a thin LV" "$rc $(lvrow lv_name=lv1)" "0 lv1:thin:"
test_ok "... the pool is used now: no link $VG/pool (LVM2 keeps it private)" \
    test ! -e "$DEV/$VG/pool" -a ! -L "$DEV/$VG/pool"
test_ok "... the thin LV has its link" test -L "$DEV/$VG/lv1"

# ---- lvcreate --type snapshot of a thin LV without a size
s0=$(seqno)
same "lvcreate --type snapshot VG/THIN: LVM2's lines, exit 3" lvcreate --type snapshot "$VG/lv1"
test_eq "... exit 3" "$(cat "$SCRATCH/x.rc")" "3"
same "lvcreate --type snapshot VG/THIN --name lv4: the same" \
    lvcreate --type snapshot "$VG/lv1" --name lv4
same "lvcreate --type snapshot VG/THIN --name VG/lv5: the same" \
    lvcreate --type snapshot "$VG/lv1" --name "$VG/lv5"
same "lvcreate --type snapshot -s VG/THIN: the same" lvcreate --type snapshot -s "$VG/lv1"
same "lvcreate --type snapshot -V 20m VG: the sparse form's lines" \
    lvcreate --type snapshot -V 20m "$VG"
same "lvcreate --type thin VG/THIN -V 20m: refused as LVM2" lvcreate --type thin "$VG/lv1" -V 20m
U lvcreate -q -an -L 1m -n lin "$VG" >/dev/null 2>&1
s0=$(seqno)
for a in "-T $VG/pool" "-T $VG/nope" "-T $VG/lin" "--type thin $VG/lin" "--thin $VG/lin --name x" \
    "-T $VG" "-T $VG/lv1 -n lv1"; do
    # shellcheck disable=SC2086
    same "lvcreate $a: refused as LVM2 (words, exit code)" lvcreate $a
done
test_eq "... nothing written (VG seqno)" "$(seqno)" "$s0"
test_eq "... no LV made" "$(lvm2 lvs --noheadings -o lv_name "$VG" 2>/dev/null | xargs)" "lin lv1 pool"

# ---- thin snapshots without a size are still made
U lvcreate -q -s "$VG/lv1" -n snap >/dev/null 2>&1
U lvcreate -q -T "$VG/lv1" >/dev/null 2>&1
U lvcreate -q --thin "$VG/lv1" --name lv4 >/dev/null 2>&1
U lvcreate -q --type thin "$VG/lv1" --name "$VG/lv5" >/dev/null 2>&1
test_eq "-s, -T, --thin, --type thin of a thin LV: thin snapshots" \
    "$(lvrow 'origin=lv1 && lv_name!~lvol')" "lv4:thin:lv1 lv5:thin:lv1 snap:thin:lv1"
test_eq "... -T VG/THIN names one lvolN" \
    "$(lvm2 lvs --noheadings -o lv_name -S 'origin=lv1' "$VG" 2>/dev/null | grep -c lvol)" "1"

# ---- the used pool's link stays away
U vgchange -an "$VG" >/dev/null 2>&1
U lvchange -ay "$VG/lv1" >/dev/null 2>&1
test_ok "lvchange -ay of a thin LV: its link, none for its used pool" \
    test -L "$DEV/$VG/lv1" -a ! -e "$DEV/$VG/pool"
U lvchange -ay "$VG/pool" >/dev/null 2>&1
test_eq "lvchange -ay of the used pool: active, still no link" \
    "$(U lvs --noheadings -o lv_attr "$VG/pool" 2>/dev/null | cut -c7) $([[ -e $DEV/$VG/pool ]] && echo yes || echo no)" "a no"
U vgmknodes "$VG" >/dev/null 2>&1
test_ok "vgmknodes: no link for the used pool, the thin LV's kept" \
    test -L "$DEV/$VG/lv1" -a ! -e "$DEV/$VG/pool"
U lvcreate -q -T -L 4m "$VG/pool2" >/dev/null 2>&1
test_ok "a second, new pool beside it has its link" test -L "$DEV/$VG/pool2"
U vgchange -an "$VG" >/dev/null 2>&1
U lvrename "$VG/pool" "$VG/tpool9" >/dev/null 2>&1
U vgchange -ay "$VG" >/dev/null 2>&1
test_eq "renamed and activated again: the used pool has no link, the new one has" \
    "$([[ -e $DEV/$VG/tpool9 ]] && echo yes || echo no) $([[ -L $DEV/$VG/pool2 ]] && echo yes || echo no)" "no yes"
U vgchange -an "$VG" >/dev/null 2>&1
test_eq "deactivated: no link left under $VG" "$(ls "$DEV/$VG" 2>/dev/null)" ""

# ---- lvextend --poolmetadatasize of a pool's metadata LV (lvextend-thin)
s0=$(seqno)
for a in "$VG/lin" "$VG/pool2_tdata" "-L+1m $VG/pool2_tmeta" "$VG/lv1"; do
    # shellcheck disable=SC2086
    same "lvextend --poolmetadatasize +1m $a: refused as LVM2" lvextend --poolmetadatasize +1m $a
done
test_eq "... nothing written (VG seqno)" "$(seqno)" "$s0"
mb() { lvm2 lvs -a --noheadings --units m --nosuffix -o lv_size "$VG/$1" 2>/dev/null | tr -d ' '; }
rc=0
lvx lvextend --poolmetadatasize +1m "$VG/pool2_tmeta" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvextend --poolmetadatasize +1m VG/POOL_tmeta: the pool's metadata grows (LVM2's line)" \
    "$rc $(mb pool2_tmeta) $(grep successfully "$SCRATCH/o" | xargs)" \
    "0 3.00 Logical volume $VG/pool2_tmeta successfully resized."
rc=0
lvx lvextend --poolmetadatasize +1m -L +1m "$VG/pool2" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvextend --poolmetadatasize +1m -L +1m VG/POOL: metadata, spare and data grow" \
    "$rc $(mb pool2_tmeta) $(mb lvol0_pmspare) $(mb pool2_tdata)" "0 4.00 4.00 5.00"

lvm2 vgremove -ff "$VG" >/dev/null 2>&1
done_testing
