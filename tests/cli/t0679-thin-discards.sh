#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0679-thin-discards: a thin pool's --discards ignore|nopassdown|passdown and -Z.
#   * metadata (activation off, LVM2 as the oracle on the same metadata restored):
#     lvchange --discards / -Z of a pool write what LVM2's lvchange writes and print
#     its lines; its refusals (already set, not a pool) with its exit codes and
#     nothing written; lvcreate takes allocation/thin_pool_discards and
#     allocation/thin_pool_zero from lvm.conf;
#   * the user-space backend honours them: passdown discards the freed data blocks on
#     _tdata (the PVs' backing files lose their space), nopassdown only unmaps them
#     (Data% drops, the files keep their space), ignore refuses discards (EOPNOTSUPP:
#     nothing unmapped, the data stays); lvchange between passdown and
#     nopassdown reloads an active pool, to or from ignore is refused while it is
#     active (LVM2's message); kernel_discards names the mode the daemon loaded;
#     thin_check accepts the metadata at the end.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
need_cmd thin_check
need_cmd blkdiscard
[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
plan_later

D1=$(make_loop 128M) && D2=$(make_loop 128M) || { _tap_result 1 "loop devices"; done_testing; }
DEVS="$D1,$D2"
X() { lvx "$@" --devices "$DEVS"; }
sums() { sha_devs "$D1" "$D2"; }
lvtext() { sed -n '/logical_volumes {/,$p' "$1" | grep -vE '^\s*(id|creation_time|creation_host) = '; }
filt() { grep -vE 'leaked on lvm|Activation disabled|WARNING: activation disabled'; }

test_ok "vgt on two PVs" sh -c \
    "'$LVX' pvcreate -q $D1 $D2 --devices $DEVS && '$LVX' vgcreate -q vgt $D1 $D2 --devices $DEVS"
test_ok "pool and a linear LV (activation off)" sh -c \
    "'$LVX' lvcreate -q -an -T -L 16m vgt/pool --devices $DEVS >/dev/null 2>&1 &&
     '$LVX' lvcreate -q -an -L 4m -n lin vgt --devices $DEVS >/dev/null 2>&1"

# ---------------------------------------------------------------- 1: lvchange, LVM2's
# same CMD...: lvx runs it; the metadata before is restored and LVM2 runs it; their
# exit codes, messages and metadata text must be equal
same() {
    local rc=0 lrc=0 out lout
    X vgcfgbackup -f "$SCRATCH/before.vg" vgt >/dev/null 2>&1
    out=$(X "$@" 2>&1) || rc=$?
    X vgcfgbackup -f "$SCRATCH/x.vg" vgt >/dev/null 2>&1
    lvm2 vgcfgrestore --force -f "$SCRATCH/before.vg" vgt >/dev/null 2>&1
    lout=$(lvm2 "$@" 2>&1 | filt; exit "${PIPESTATUS[0]}") || lrc=$?
    lvm2 vgcfgbackup -f "$SCRATCH/l.vg" vgt >/dev/null 2>&1
    test_eq "$*: exit status and messages equal LVM2's" "$rc $out" "$lrc $lout"
    test_eq "$*: metadata equals LVM2's" "$(lvtext "$SCRATCH/x.vg")" "$(lvtext "$SCRATCH/l.vg")"
}
field() { X lvs --noheadings -o "$1" vgt/pool 2>/dev/null | tr -d ' '; }
same lvchange --discards nopassdown vgt/pool
test_eq "... discards now nopassdown (lvx's report)" "$(field discards)" nopassdown
same lvchange --discards ignore vgt/pool
test_eq "... discards now ignore" "$(field discards)" ignore
same lvchange --discards ignore vgt/pool
same lvchange -Zn vgt/pool
test_eq "... zero now off" "$(field zero)" ""
same lvchange -Zn vgt/pool
same lvchange -Zy --discards passdown vgt/pool
test_eq "... discards passdown, zero on" "$(field discards),$(field zero)" "passdown,zero"
same lvchange --discards nopassdown vgt/lin
before=$(sums)
rc=0
out=$(X lvchange --discards sometimes vgt/pool 2>&1) || rc=$?
test_eq "--discards sometimes: exit 3" "$rc" 3
test_ok "... the message names the value" grep -q "sometimes" <<<"$out"
test_eq "... nothing written" "$(sums)" "$before"

# ---------------------------------------------------------------- 2: lvm.conf defaults
test_ok "lvcreate with allocation/thin_pool_discards and thin_pool_zero set" \
    X lvcreate -q -an -T -L 8m vgt/pool2 --config 'allocation { thin_pool_discards = "nopassdown" thin_pool_zero = 0 }'
test_eq "... the pool's discards and zero from lvm.conf (LVM2's report)" \
    "$(lvm2 lvs --noheadings -o discards,zero vgt/pool2 2>/dev/null | tr -s ' ')" " nopassdown "
test_ok "... --discards and -Z on the command line win" \
    X lvcreate -q -an -T -L 8m vgt/pool3 --discards ignore -Zy --config 'allocation { thin_pool_discards = "nopassdown" thin_pool_zero = 0 }'
test_eq "... (LVM2's report)" \
    "$(lvm2 lvs --noheadings -o discards,zero vgt/pool3 2>/dev/null | tr -s ' ')" " ignore zero"
before=$(sums)
rc=0
out=$(X lvcreate -an -T -L 8m vgt/pool4 --config 'allocation { thin_pool_discards = "often" }' 2>&1) || rc=$?
test_eq "an unknown allocation/thin_pool_discards: exit 3" "$rc" 3
test_ok "... LVM2's message" grep -qF 'Thin pool discards type "often" is unknown.' <<<"$out"
test_eq "... nothing written" "$(sums)" "$before"
test_ok "pool2, pool3 and lin removed" X lvremove -q -f vgt/pool2 vgt/pool3 vgt/lin

# ---------------------------------------------------------------- 3: the daemon
mkdir -p "$SCRATCH/dev"
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user X "$@" --config 'global { activation = 1 }'; }
dev() { echo "$SCRATCH/dev/vgt/$1"; }
used() { U lvs --noheadings -o data_percent vgt/pool 2>/dev/null | tr -d ' '; }
# KiB the PVs' backing files hold on the host's disk
F1=$(losetup -nO BACK-FILE "$D1") F2=$(losetup -nO BACK-FILE "$D2")
held() { sync; echo $(( ($(stat -c %b "$F1") + $(stat -c %b "$F2")) / 2 )); }
put() { dd if=/dev/urandom of="$(dev thin1)" bs=1M count=8 oflag=direct conv=notrunc,fsync status=none; }

test_ok "thin1 in vgt/pool (user backend)" U lvcreate -q -V 32m -T vgt/pool -n thin1
kdisc() { U lvs --noheadings -o kernel_discards vgt/pool 2>/dev/null | tr -d ' '; }
test_eq "kernel_discards of the active pool: passdown (the daemon's, as the kernel's status names it)" \
    "$(kdisc)" passdown
# round MODE: 8 MiB written to thin1 and discarded; $freed the KiB the backing files gave back
round() {
    local h0 h1
    test_ok "$1: 8 MiB written to thin1" put
    test_eq "... Data% 50.00" "$(used)" "50.00"
    h0=$(held)
    test_ok "$1: blkdiscard of thin1" blkdiscard "$(dev thin1)"
    test_eq "... Data% 0.00" "$(used)" "0.00"
    h1=$(held)
    diag "backing files: ${h0} KiB before, ${h1} KiB after the discard"
    freed=$((h0 - h1))
}
round passdown
test_ok "... the PVs' backing files gave back the 8 MiB (passed down)" test "$freed" -ge 8000
test_eq "... thin1 reads as zeroes" "$(cmp -n 8388608 "$(dev thin1)" /dev/zero 2>&1; echo $?)" 0

out=$(U lvchange --discards nopassdown vgt/pool 2>&1)
test_eq "lvchange --discards nopassdown of the active pool: exit 0" "$?" 0
diag "$out"
test_eq "... the pool's status (the daemon's) still active" \
    "$(U lvs --noheadings -o lv_active vgt/thin1 2>/dev/null | tr -d ' ')" active
test_eq "... kernel_discards nopassdown after the reload" "$(kdisc)" nopassdown
round nopassdown
test_ok "... the backing files keep their space (not passed down)" test "$freed" -lt 1024

seqno() { X vgs --noheadings -o vg_seqno vgt 2>/dev/null | tr -d ' '; }
before=$(seqno)
rc=0
out=$(U lvchange --discards ignore vgt/pool 2>&1) || rc=$?
test_eq "lvchange --discards ignore of an active pool: exit 5" "$rc" 5
test_ok "... LVM2's message" grep -qF "Cannot change support for discards while pool volume vgt/pool is active." <<<"$out"
test_eq "... discards still nopassdown" "$(field discards)" nopassdown
test_eq "... no commit (VG seqno)" "$(seqno)" "$before"

test_ok "deactivated, --discards ignore, thin1 activated" sh -c \
    "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' vgchange -an vgt --devices $DEVS --config 'global { activation = 1 }' >/dev/null &&
     '$LVX' lvchange --discards ignore vgt/pool --devices $DEVS >/dev/null &&
     DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -ay vgt/thin1 --devices $DEVS --config 'global { activation = 1 }'"
test_eq "kernel_discards ignore" "$(kdisc)" ignore
test_ok "8 MiB written to thin1" put
s0=$(head -c 8388608 "$(dev thin1)" | sha256sum)
# the daemon refuses the discard (EOPNOTSUPP); the loop device over its file then stops
# taking discards, and the kernel's BLKDISCARD hides that first refusal
out=$(blkdiscard "$(dev thin1)" 2>&1; echo "rc=$?"; blkdiscard "$(dev thin1)" 2>&1; echo "rc=$?")
diag "ignore: two blkdiscards: $out"
test_eq "... Data% still 50.00" "$(used)" "50.00"
test_eq "... the data still there" "$(head -c 8388608 "$(dev thin1)" | sha256sum)" "$s0"

test_ok "deactivated" U vgchange -an vgt
test_eq "... kernel_discards blank when inactive (LVM2's)" "$(kdisc)" ""
test_ok "thin_check accepts the pool's metadata" \
    env LVM_SYSTEM_DIR="$SCRATCH/lvm" "$LVX_ROOT/tests/tools/thin_meta_check.sh" vgt pool "$SCRATCH"
test_ok "LVM2's vgck" lvm2 vgck vgt
test_ok "VG removed" X vgremove -f vgt
done_testing
