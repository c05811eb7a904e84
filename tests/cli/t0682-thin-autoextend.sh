#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0682-thin-autoextend: lvextend --use-policies (lvm.conf's thin pool and snapshot
# autoextend policies) in the user-space backend, the usage read from the daemon.  The
# new sizes are checked against LVM2 2.03.16's arithmetic, computed here from the
# reported usage (`want`: a usage over the threshold grows the LV by the percent that
# brings it back to the threshold, or by the policy's percent when more, in extents
# rounded up); t0724 compares the same cases with LVM2 and the kernel.
#   * threshold 100 (the default) or more: nothing, silently; at or below the threshold:
#     nothing; percent 0, a thin LV, an inactive pool, a size next to it: refused;
#     a threshold below 50: raised to 50 with LVM2's warning; a string or a float:
#     LVM2's warning and the default;
#   * a pool's data grows and the daemon takes it (Data% drops), the data stays;
#     a COW snapshot grows by its policy; a pool's metadata (2 MiB, filled past half
#     by 4 KiB writes one per 64 KiB chunk) grows by the policy's percent + 1.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_lvx
need_cmd python3
[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
plan_later

mapfile -t D < <(make_loops 2 160M)
[[ ${#D[@]} == 2 ]] || { _tap_result 1 "loop devices"; done_testing; }
DEVS="${D[0]},${D[1]}"
mkdir -p "$SCRATCH/dev"
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user lvx "$@" --devices "$DEVS" --config "global { activation = 1 } ${CFG:-}"; }
# pol LV CONFIG...: lvextend --use-policies; "$rc $out" in $out (without the sandbox's
# "metadata update is NOT backed up" warning)
pol() {
    local lv=$1 rc=0
    shift
    out=$(CFG="activation { $* }" U lvextend --use-policies "vgt/$lv" 2>&1) || rc=$?
    out="$rc $(grep -v 'NOT backed up' <<<"$out")"
}
field() { U lvs -a --noheadings --units m -o "$1" "vgt/$2" 2>/dev/null | tr -d ' '; }
ext() { U lvs -a --noheadings -o seg_size_pe "vgt/$1" 2>/dev/null | tr -d ' '; }
# want EXTENTS USAGE% THRESHOLD PERCENT: the new extent count by LVM2's rule
want() {
    python3 -c '
import math, sys
e, u, t, p = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
need = math.ceil(u * 100 / t) - 100 if u > max(t, 50) else 0
grow = max(need, p) if need else 0
print(e + math.ceil(e * grow / 100))' "$@"
}
# changed LV OLD NEW: LVM2's line for a resize, sizes from extents (4 MiB)
changed() {
    printf '  Size of logical volume vgt/%s changed from %d.00 MiB (%d extents) to %d.00 MiB (%d extents).' \
        "$1" $(($2 * 4)) "$2" $(($3 * 4)) "$3"
}

setup() {
    lvx pvcreate -q "${D[0]}" "${D[1]}" --devices "$DEVS" && lvx vgcreate -q vgt "${D[0]}" "${D[1]}" --devices "$DEVS" &&
        U lvcreate -q -T -L 40m vgt/pool >/dev/null 2>&1 && U lvcreate -q -V 64m -T vgt/pool -n thin >/dev/null 2>&1
}
test_ok "vgt, a 40 MiB pool and a 64 MiB thin LV (user backend)" setup
head -c 48234496 /dev/urandom >"$SCRATCH/data"
test_ok "30 MiB written" dd if="$SCRATCH/data" of="$SCRATCH/dev/vgt/thin" bs=1M count=30 oflag=direct conv=fsync status=none
test_eq "... Data% 75.00" "$(field data_percent pool)" 75.00

pol pool
test_eq "threshold 100 (default): nothing, silently" "$out" "0 "
pol pool thin_pool_autoextend_threshold = 150
test_eq "threshold 150: nothing" "$out" "0 "
pol pool thin_pool_autoextend_threshold = 80
test_eq "threshold 80, 75% used: nothing" "$out" "0 "
pol pool thin_pool_autoextend_threshold = 70 thin_pool_autoextend_percent = 0
test_eq "percent 0: refused (LVM2's words)" "$out" \
    "5   Can't extend vgt/pool with thin-pool autoextend percent set to 0%."
pol thin thin_pool_autoextend_threshold = 70
test_eq "a thin LV: refused" "$out" \
    "5   Policy-based resize is supported only for snapshot, thin pool and vdo pool volumes."
rc=0
out=$(CFG="activation { thin_pool_autoextend_threshold = 70 }" U lvextend --use-policies -L +4m vgt/pool 2>&1) || rc=$?
test_eq "with a size: refused" "$rc $out" "3   Command does not accept option: --usepolicies."
test_eq "... the pool still 10 extents" "$(ext pool_tdata)" 10
rc=0
out=$(lvm2 lvextend --use-policies -L +4m vgt/pool --devices "$DEVS" 2>&1) || rc=$?
out=$(grep -v "Activation disabled" <<<"$out")     # LVM2 without device-mapper
test_eq "... LVM2's words and exit code for it" "$rc $out" "3   Command does not accept option: --usepolicies."
rc=0
out=$(CFG="activation { thin_pool_autoextend_threshold = 80 }" U lvextend --use-policies -l +1 vgt/pool 2>&1) || rc=$?
test_eq "with -l: ignored (LVM2's notice), the policy applies (threshold 80: nothing)" "$rc $out" \
    "0   Ignoring size parameters with --use-policies."
test_eq "... LVM2's notice the same" "$(lvm2 lvextend --use-policies -l +1 vgt/pool --devices "$DEVS" 2>&1 | grep -v "Activation disabled" | head -1)" \
    "  Ignoring size parameters with --use-policies."
rc=0
out=$(U lvextend --use-policies -i 2 -I 64k vgt/pool 2>&1) || rc=$?
rcl=0
outl=$(lvm2 lvextend --use-policies -i 2 -I 64k vgt/pool --devices "$DEVS" 2>&1) || rcl=$?
test_eq "with -i/-I: refused, LVM2's words" "$rc $out" "$rcl $(grep -v "Activation disabled" <<<"$outl")"
for c in lvresize lvreduce; do
    rc=0
    out=$(U $c --use-policies vgt/pool 2>&1) || rc=$?
    test_eq "$c --use-policies: an unknown option (exit 3, as LVM2)" "$rc $out" \
        "3 lvx $c: unrecognized option '--use-policies'"
done
pol pool 'thin_pool_autoextend_threshold = "70"'
test_eq "a string: LVM2's warning, the default (100: nothing)" "$out" \
    "0   WARNING: Configuration setting \"activation/thin_pool_autoextend_threshold\" has invalid type. Found string but expected integer."

w=$(want 10 75.00 50 20)
pol pool thin_pool_autoextend_threshold = 40 thin_pool_autoextend_percent = 20
test_eq "threshold 40 (raised to 50), 75% used: +50% (back to the threshold), LVM2's lines" "$out" \
    "0   WARNING: Thin pool autoextend threshold 40% is set below minimum supported 50%.
$(changed pool_tdata 10 "$w")
  Logical volume vgt/pool successfully resized."
test_eq "... $w extents" "$(ext pool_tdata)" "$w"
test_eq "... the daemon took the new size: Data% 50.00" "$(field data_percent pool)" 50.00
pol pool thin_pool_autoextend_threshold = 50 thin_pool_autoextend_percent = 10
test_eq "at the threshold (50%): nothing" "$out" "0 "
test_ok "16 MiB more written" dd if="$SCRATCH/data" of="$SCRATCH/dev/vgt/thin" bs=1M skip=30 seek=30 count=16 oflag=direct conv=fsync status=none
u=$(field data_percent pool)
w=$(want 15 "$u" 70 30)
pol pool thin_pool_autoextend_threshold = 70 thin_pool_autoextend_percent = 30.5
test_eq "a float percent: LVM2's warning, the default 20%" "$(head -1 <<<"$out")" \
    "0   WARNING: Configuration setting \"activation/thin_pool_autoextend_percent\" has invalid type. Found float but expected integer."
test_eq "... grown to $(want 15 "$u" 70 20) extents" "$(ext pool_tdata)" "$(want 15 "$u" 70 20)"
u=$(field data_percent pool)
w=$(want "$(ext pool_tdata)" "$u" 50 30)
old=$(ext pool_tdata)
pol pool thin_pool_autoextend_threshold = 50 thin_pool_autoextend_percent = 30
test_eq "Data% $u, threshold 50, percent 30: grown to $w extents (rounded up), LVM2's lines" "$out" \
    "0 $(changed pool_tdata "$old" "$w")
  Logical volume vgt/pool successfully resized."
test_ok "... the data reads back" cmp -n 48234496 "$SCRATCH/data" "$SCRATCH/dev/vgt/thin"

snap() { U lvcreate -q -L 16m -n orig vgt >/dev/null 2>&1 && U lvcreate -q -s -L 8m -n snap vgt/orig >/dev/null 2>&1; }
test_ok "a 16 MiB LV with an 8 MiB COW snapshot" snap
test_ok "6 MiB written to the origin" dd if="$SCRATCH/data" of="$SCRATCH/dev/vgt/orig" bs=1M count=6 oflag=direct conv=fsync status=none
u=$(field snap_percent snap)
diag "snapshot use: $u%"
pol snap
test_eq "snapshot, threshold 100: nothing" "$out" "0 "
pol snap snapshot_autoextend_threshold = 30 snapshot_autoextend_percent = 0
test_eq "snapshot, threshold 30 warned (LVM2's words), percent 0 refused" "$out" \
    "5   WARNING: Snapshot autoextend threshold 30% is set bellow minimal supported value 50%.
  Can't extend vgt/snap with linear autoextend percent set to 0%."
w=$(want 2 "$u" 70 20)
pol snap snapshot_autoextend_threshold = 70 snapshot_autoextend_percent = 20
test_eq "snapshot above 70%: +20% rounded up to $w extents, LVM2's lines" "$out" \
    "0 $(changed snap 2 "$w")
  Logical volume vgt/snap successfully resized."
test_eq "... the snapshot still valid and active" "$(field lv_attr snap)" swi-a-s---
test_ok "... the origin's data unchanged" cmp -n 6291456 "$SCRATCH/data" "$SCRATCH/dev/vgt/orig"

# ---------------------------------------------------------------- a pool's metadata
# vgm (1 MiB extents) on two sparse 4 GiB loops: a 6.5 GiB pool with 64 KiB chunks and
# 2 MiB of metadata (-Zn: only the written 4 KiB per chunk reach the loops), 40000
# chunks mapped
mapfile -t M < <(make_loops 2 4G)
[[ ${#M[@]} == 2 ]] || { _tap_result 1 "loop devices"; done_testing; }
MDEVS="${M[0]},${M[1]}"
V() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user lvx "$@" --devices "$MDEVS" --config "global { activation = 1 } ${CFG:-}"; }
mpool() {
    lvx pvcreate -q "${M[0]}" "${M[1]}" --devices "$MDEVS" && lvx vgcreate -q -s 1m vgm "${M[0]}" "${M[1]}" --devices "$MDEVS" &&
        V lvcreate -q -T -L 6656m -c 64k --poolmetadatasize 2m -Zn vgm/mpool >/dev/null 2>&1 &&
        V lvcreate -q -V 3g -T vgm/mpool -n mthin >/dev/null 2>&1
}
test_ok "vgm: a 6.5 GiB pool with 2 MiB of metadata, a 3 GiB thin LV" mpool
strided() {
    python3 - "$SCRATCH/dev/vgm/mthin" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
b = b"m" * 4096
for i in range(40000):
    os.pwrite(fd, b, i * 65536)
os.fsync(fd)
PY
}
test_ok "40000 4 KiB writes, one per 64 KiB chunk" strided
mfield() { V lvs -a --noheadings -o "$1" "vgm/$2" 2>/dev/null | tr -d ' '; }
um=$(mfield metadata_percent mpool)
ud=$(mfield data_percent mpool)
diag "mpool: Data% $ud Meta% $um"
test_ok "... Meta% over 50 ($um), Data% not ($ud)" python3 -c "import sys; sys.exit(not ($um > 50 >= $ud))"
# LVM2: the metadata's threshold is the lower of the policy's and 100% less 25% or 4 MiB
# free (75% for 2 MiB); growth = max(back to it, percent) + 1, of 2 extents rounded up
wm=$(python3 -c "
import math
u, t, p = $um, 50, 20
need = math.ceil(u * 100 / t) - 100
g = max(need, p) + 1
print(2 + math.ceil(2 * g / 100))")
rc=0
out=$(CFG="activation { thin_pool_autoextend_threshold = 50 thin_pool_autoextend_percent = 20 }" V lvextend --use-policies vgm/mpool 2>&1) || rc=$?
test_eq "threshold 50: the metadata grows to $wm extents, the data not, LVM2's lines" \
    "$rc $(grep -v 'NOT backed up' <<<"$out")" "0   Size of logical volume vgm/mpool_tmeta changed from 2.00 MiB (2 extents) to $wm.00 MiB ($wm extents).
  Logical volume vgm/mpool_tmeta successfully resized."
test_eq "... _tmeta and the spare $wm MiB, the data 6.5 GiB" \
    "$(V lvs -a --noheadings --units m -o lv_name,lv_size vgm 2>/dev/null | tr -s ' ' | grep -E 'pmspare|tmeta|tdata')" \
    " [lvol0_pmspare] $wm.00m
 [mpool_tdata] 6656.00m
 [mpool_tmeta] $wm.00m"
um2=$(mfield metadata_percent mpool)
a1=$(thin_meta_alloc_pct "$um" 512)
a2=$(thin_meta_alloc_pct "$um2" $((wm * 256)))
test_ok "... the daemon took the new size: Meta% $um -> $um2 (allocated share $a1 -> $a2)" \
    python3 -c "import sys; sys.exit(not abs($a2 * $wm / 2 - $a1) < 1)"
test_ok "vgm deactivated" V vgchange -an vgm
test_ok "vgm removed" lvx vgremove -f vgm --devices "$MDEVS"

test_ok "deactivated" U vgchange -an vgt
pol pool thin_pool_autoextend_threshold = 50
test_eq "an inactive pool: refused" "$out" "5   Can't read state of locally inactive LV vgt/pool."
pol snap snapshot_autoextend_threshold = 50
test_eq "an inactive snapshot: refused" "$out" "5   Can't read state of locally inactive LV vgt/snap."
test_ok "VG removed" lvx vgremove -f vgt --devices "$DEVS"
done_testing
