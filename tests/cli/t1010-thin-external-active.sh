#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1010-thin-external-active: the leftovers of thin external origins, on loop devices
# with the lvx daemon (user backend) and LVM2 (activation off) as the oracle:
#   * lvconvert --type thin --thinpool VG/POOL VG/LV of an ACTIVE LV (LVM2's
#     lv_update_and_reload): LVM2's lines, the LV stays active as the thin LV (same
#     device, same UUID) over its now read-only external origin, its data unchanged,
#     writes go to the pool, the origin keeps the old bytes, thin_check passes;
#   * lvchange -p rw|r of an external origin: refused with LVM2's lines and exit code
#     (its rule "--permission not lv_is_external_origin"), nothing written;
#   * lvremove -f VG: thin pools (with their thin LVs) first, the last pool first, then
#     the other LVs in the VG's order, as LVM2's process_each_lv_in_vg: the same lines.
# The kernel's side (dm tables of the reload, the origin's stacked device) is t0753.
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
dev() { echo "$SCRATCH/dev/$1"; }
sum() { dd if="$(dev "$1")" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
fsum() { sha256sum <"$1" | cut -d' ' -f1; }
f() { X lvs -a --noheadings -o "$2" "$1" 2>/dev/null | tr -d ' '; }
meta_ok() { "$LVX_ROOT/tests/tools/thin_meta_check.sh" "$1" pool "$SCRATCH"; }
lvm2q() { lvm2 "$@" 2>&1 | grep -v 'WARNING: Activation disabled'; }
off() { local i; for i in 1 2 3; do U "$@" 2>/dev/null && return 0; sleep 1; done; U "$@"; }
# same_as_lvm2 DESC ARGS...: lvx and LVM2 print the same lines and exit alike
same_as_lvm2() {
    local desc=$1 out rc lout lrc
    shift
    out=$(X "$@" 2>&1); rc=$?
    lout=$(lvm2q "$@"); lrc=$(lvm2 "$@" >/dev/null 2>&1; echo $?)
    test_eq "$desc" "$out rc=$rc" "$lout rc=$lrc"
}
trap 'U vgchange -an vgA >/dev/null 2>&1; "$LVX" daemon stop -f >/dev/null 2>&1; cleanup' EXIT

test_ok "vgA on D1, vgB on D2: pool (32 MiB) and LV conv (8 MiB) in each" sh -c \
    "'$LVX' pvcreate -q $D1 $D2 --devices $DEVS && '$LVX' vgcreate -q vgA $D1 --devices $DEVS &&
     '$LVX' vgcreate -q vgB $D2 --devices $DEVS" &&
    for v in vgA vgB; do
        X lvcreate -q -an -T -L 32m $v/pool >/dev/null 2>&1 && X lvcreate -q -an -L 8m -n conv $v >/dev/null 2>&1
    done
head -c 8M /dev/urandom >"$SCRATCH/A"
test_ok "vgA/conv active (user backend), A written" sh -c \
    "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -ay vgA/conv --devices $DEVS --config 'global { activation = 1 }' &&
     dd if='$SCRATCH/A' of='$(dev vgA/conv)' bs=1M oflag=direct status=none"
uuid=$(f vgA/conv lv_uuid)
loop=$(readlink -f "$(dev vgA/conv)")

# ---------------------------------------------------------------- the active conversion
out=$(U lvconvert --type thin --thinpool vgA/pool vgA/conv --originname corig 2>&1)
test_eq "lvconvert --type thin of the active vgA/conv: exit 0" "$?" 0
test_eq "... LVM2's lines (as LVM2 2.03.16 prints them for an active LV in t0753's guest)" \
    "$(grep -v WARNING <<<"$out")" '  Logical volume "corig" created.
  Converted vgA/conv to thin volume with external origin vgA/corig.'
test_eq "conv: a thin LV of pool, still active, conv's UUID; corig the old LV, read-only" \
    "$(f vgA/conv segtype),$(U lvs --noheadings -o lv_active vgA/conv | tr -d ' '),$(f vgA/conv lv_uuid),$(f vgA/corig segtype),$(f vgA/corig lv_attr | cut -c1-2)" \
    "thin,active,$uuid,linear,or"
test_eq "... the same device (loop device of the link)" "$(readlink -f "$(dev vgA/conv)")" "$loop"
test_eq "conv reads A (unprovisioned: from corig)" "$(sum vgA/conv)" "$(fsum "$SCRATCH/A")"
test_ok "vgB/conv converted while inactive" U lvconvert -q --type thin --thinpool vgB/pool vgB/conv --originname corig
meta() { X vgcfgbackup -q -f "$SCRATCH/$1.vg" "$1" >/dev/null 2>&1
    sed -n '/logical_volumes {/,$p' "$SCRATCH/$1.vg" | grep -vE '^\s*(id|creation_time|creation_host) = '; }
test_eq "metadata of vgA (active conversion) equals vgB's (inactive; t0743: as LVM2's)" \
    "$(meta vgA)" "$(meta vgB)"
head -c 64K /dev/urandom >"$SCRATCH/W"
cp "$SCRATCH/A" "$SCRATCH/want"
dd if="$SCRATCH/W" of="$SCRATCH/want" bs=1k count=4 seek=100 conv=notrunc status=none
test_ok "4 KiB written into the active conv at 100 KiB" \
    dd if="$SCRATCH/W" of="$(dev vgA/conv)" bs=1k count=4 seek=100 oflag=direct conv=notrunc status=none
test_eq "conv reads A with the write in" "$(sum vgA/conv)" "$(fsum "$SCRATCH/want")"
test_eq "one pool chunk provisioned (conv's Data%)" \
    "$(U lvs --noheadings -o data_percent vgA/conv | tr -d ' ')" "0.78"
test_ok "corig activated (read-only)" U lvchange -ay vgA/corig
test_eq "corig keeps A" "$(sum vgA/corig)" "$(fsum "$SCRATCH/A")"
test_ok "vgA deactivated" off vgchange -an vgA
test_ok "thin_check accepts vgA's pool" meta_ok vgA
test_ok "conv activated again" U lvchange -ay vgA/conv
test_eq "conv reads the same" "$(sum vgA/conv)" "$(fsum "$SCRATCH/want")"
test_ok "vgA deactivated" off vgchange -an vgA
test_ok "LVM2's vgck accepts vgA" lvm2 vgck vgA

# ---------------------------------------------------------------- -p of an external origin
before=$(sha_devs "$D1" "$D2")
same_as_lvm2 "lvchange -p rw of the external origin: LVM2's lines and exit code" lvchange -p rw vgA/corig
same_as_lvm2 "lvchange -p r of the external origin: the same refusal" lvchange -p r vgA/corig
same_as_lvm2 "lvchange -prw vgA (every LV, corig refused)" lvchange -prw vgA
same_as_lvm2 "lvextend of conv past its external origin (activation off: no external_origin_extend)" \
    lvextend -L+4m vgA/conv
out=$(DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user X lvextend -L+4m vgA/conv \
    --config 'global { activation = 1 thin_disabled_features = [ "external_origin_extend" ] }' 2>&1)
test_eq "... the same with the daemon and external_origin_extend disabled: exit 5, LVM2's line" \
    "$out rc=$?" "  Thin target does not support external origin smaller then thin volume. rc=5"
test_eq "... nothing written" "$(sha_devs "$D1" "$D2")" "$before"

# ---------------------------------------------------------------- a pool made on the way
test_ok "vgA: LVs pl (8 MiB) and th (4 MiB)" sh -c \
    "'$LVX' lvcreate -q -an -L 8m -n pl vgA --devices $DEVS >/dev/null 2>&1 &&
     '$LVX' lvcreate -q -an -L 4m -n th vgA --devices $DEVS >/dev/null 2>&1"
same_as_lvm2 "lvconvert --thin --thinpool of a thin pool as the LV: LVM2's refusal" \
    lvconvert --thin --thinpool vgA/pl vgA/pool --originname o1
out=$(U lvconvert --yes --thin --thinpool vgA/pl vgA/th --zero n --originname th-origin 2>&1)
test_eq "lvconvert --thin --thinpool vgA/pl (not a pool yet) vgA/th: exit 0" "$?" 0
diag "$out"
test_eq "... pl converted to a thin pool first, then th (LVM2's lines)" \
    "$(grep -E 'Converted|created' <<<"$out")" '  Converted vgA/pl to thin pool.
  Logical volume "th-origin" created.
  Converted vgA/th to thin volume with external origin vgA/th-origin.'
test_eq "pl a pool not zeroing (--zero n), th its thin LV over th-origin" \
    "$(f vgA/pl segtype),$(f vgA/pl zero),$(f vgA/th pool_lv),$(f vgA/th origin)" "thin-pool,,pl,th-origin"
test_ok "vgA: pl, th and th-origin removed" sh -c "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user \
    '$LVX' lvremove -q -ff vgA/pl vgA/th-origin --devices $DEVS --config 'global { activation = 1 }' >/dev/null 2>&1"

# ---------------------------------------------------------------- lvremove -f VG
for v in vgA vgB; do
    X lvcreate -q -an -L 4m -n plain $v >/dev/null 2>&1
    X lvcreate -q -an -T -L 8m $v/pool2 >/dev/null 2>&1
    X lvcreate -q -an -L 4m -n plain2 $v >/dev/null 2>&1
done
for v in vgA vgB; do
    U lvcreate -q -an -T $v/pool -V 4m -n thin2 >/dev/null 2>&1
    U lvcreate -q -an -T $v/pool2 -V 4m -n thin3 >/dev/null 2>&1
done
off vgchange -an vgA vgB
test_eq "vgA and vgB alike" "$(X lvs -a --noheadings -o lv_name vgA | tr -d ' ' | tr '\n' ' ')" \
    "$(X lvs -a --noheadings -o lv_name vgB | tr -d ' ' | tr '\n' ' ')"
out=$(X lvremove -f vgA 2>&1); rc=$?
lout=$(lvm2 lvremove -f vgB 2>&1); lrc=$?
lout=$(grep -v 'WARNING: Activation disabled' <<<"$lout")
diag "$lout"
test_eq "lvremove -f VG: LVM2's lines in LVM2's order, exit code" "${out//vgA/VG} rc=$rc" "${lout//vgB/VG} rc=$lrc"
test_eq "both VGs empty" "$(X lvs --noheadings vgA vgB 2>&1 | wc -l)" 0

# ---------------------------------------------------------------- a chain of external origins
test_ok "vgA: pool, c1 converted, then its origin e1 converted (origin e2), then e2's origin" sh -c "
    export DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user
    A='--devices $DEVS --config global{activation=1}'
    '$LVX' lvcreate -q -T -L 16m vgA/pool \$A && '$LVX' lvcreate -q -L 4m -n c1 vgA \$A &&
    '$LVX' lvconvert -q -T --thinpool vgA/pool vgA/c1 --originname e1 \$A &&
    '$LVX' lvconvert -q -T --thinpool vgA/pool vgA/e1 --originname e2 \$A"

out=$(U lvremove -f vgA/e2 2>&1)
test_eq "lvremove -f of the chain's last origin: exit 0" "$?" 0
diag "$out"
test_eq "... its users went with it, each with its own users (only the pool is left)" \
    "$(X lvs --noheadings -o lv_name vgA | tr -d ' ' | tr '\n' ' ')" "pool "
test_ok "LVM2's vgck accepts vgA" lvm2 vgck vgA
done_testing
