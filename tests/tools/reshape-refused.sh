# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/reshape-refused.sh - sourced by the user-backend RAID reshape tests (t1062,
# t1071) after lib.sh, uspace-env.sh and raid-pvread.sh: a raid LV "a" of VG holding
# 12 MiB of random data ($SCRATCH/da), and lvconvert's refusals of it.  Needs VG,
# SCRATCH, LVX; the caller defines rep (LVM2's report of the LVs it compares).
#   lines                 filter: output lines joined by '|', WARNING lines dropped
#   seqno                 LVM2's vg_seqno of VG
#   fill_a                12 MiB of random data written to VG/a (after its resync);
#                         s0 and r0 set to the seqno and report before any refusal
#   refused DESC LINES ARGS   lvx lvconvert -y ARGS VG/a: exit 5 and LINES, the seqno,
#                         the report and the data unchanged (four checks)
MIB=1048576
lines() { sed 's/^ *//' | grep -v -e 'NOT backed up' -e WARNING | tr '\n' '|'; }
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }
fill_a() {
    test_ok "a in sync" wait_synced a
    head -c $((12 * MIB)) /dev/urandom >"$SCRATCH/da"
    uspace_run_ok "12 MiB written to a" dd if="$SCRATCH/da" of="$DM_DEV_DIR/$VG/a" bs=1M oflag=direct conv=fsync status=none
    s0=$(seqno) r0=$(rep)
}
refused() {
    local d=$1 want=$2 out rc=0
    shift 2
    out=$(lvx lvconvert -y "$@" "$VG/a" 2>&1 </dev/null) || rc=$?
    test_eq "$d: exit 5, LVM2's first lines, then LVM2's refusal or lvx's one line" "$rc $(lines <<<"$out")" "5 $want"
    test_eq "... the VG's seqno unchanged" "$(seqno)" "$s0"
    test_eq "... LVM2's report of the LVs unchanged" "$(rep)" "$r0"
    test_eq "... the data intact" "$(lv_sum "$DM_DEV_DIR/$VG/a" 0 $((12 * MIB)))" "$(fsum "$SCRATCH/da")"
}
