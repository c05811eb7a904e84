#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1113-test-mode: --test (-t) as LVM2 runs it, side by side with the real LVM2 on the
# same loop devices, stdout and stderr together and the exit status: the one line
#   "  TEST MODE: Metadata will NOT be updated and volumes will not be (de)activated."
# on stderr before anything the command does (LVM2's init_test; lvx printed its own
# shorter line on stdout at the commit), the command's messages as if it had written,
# and the "NOT backed up" warning where LVM2 gives it (backups are off here), for
# pvchange, pvresize, vgchange, lvcreate, lvextend, lvremove, lvrename, lvchange,
# vgremove -f, vgck --updatemetadata, vgrename, pvcreate, pvremove; nothing written
# (the metadata seqno unchanged).  On the code before: 15 of its 20 checks fail.  Left different: vgcreate/vgextend -t of a device
# without a PV label (LVM2 labels it in test mode and then fails to write its metadata
# area; lvx refuses with one line).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later

run_lvm() { LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@"; }
# the sandbox's own warnings (activation off), printed by both
noise() { grep -v "WARNING: activation/activation\|File descriptor\|Activation disabled\|Skipping zeroing"; }
# compare DESC ARGS...: the same output (both streams) and exit status from LVM2 and lvx
compare() {
    local desc=$1 lrc=0 xrc=0
    shift
    run_lvm "$@" >"$SCRATCH/lvm.raw" 2>&1 || lrc=$?
    noise <"$SCRATCH/lvm.raw" >"$SCRATCH/lvm.out"
    lvx "$@" >"$SCRATCH/lvx.raw" 2>&1 || xrc=$?
    noise <"$SCRATCH/lvx.raw" >"$SCRATCH/lvx.out"
    if cmp -s "$SCRATCH/lvm.out" "$SCRATCH/lvx.out" && [[ $lrc == "$xrc" ]] &&
        ! sanitizer_report "$SCRATCH/lvx.raw"; then
        _tap_result 0 "$desc"
    else
        _tap_result 1 "$desc"
        diag "command: $*" "exit status: LVM2 $lrc, lvx $xrc"
        diff "$SCRATCH/lvm.out" "$SCRATCH/lvx.out" | head -20 | sed 's/^/#   /'
    fi
}
seqnos() { run_lvm vgs --noheadings -o vg_name,vg_seqno 2>/dev/null | xargs; }

D1=$(make_loop 100M) && D2=$(make_loop 100M) && D3=$(make_loop 100M) ||
    { _tap_result 1 "attach three loop devices"; done_testing; }
lvm_sandbox "$D1" "$D2" "$D3"
test_ok "LVM2 builds vgr on D1 D2 with l1" \
    sh -c "LVM_SUPPRESS_FD_WARNINGS=1 lvm vgcreate -q vgr $D1 $D2 >/dev/null 2>&1 &&
           LVM_SUPPRESS_FD_WARNINGS=1 lvm lvcreate -q -an -Zn -L 4m -n l1 vgr >/dev/null 2>&1"
test_ok "LVM2 labels D3" run_lvm pvcreate -q "$D3"
before=$(seqnos)
compare "pvchange -t -a -x n" pvchange -t -a -x n
compare "pvchange -t --addtag x D1" pvchange -t --addtag x "$D1"
compare "pvchange -t --addtag x D1 D2" pvchange -t --addtag x "$D1" "$D2"
compare "pvresize -t D1" pvresize -t "$D1"
compare "vgchange -t --addtag y vgr" vgchange -t --addtag y vgr
compare "lvcreate -t" lvcreate -t -L 4m -n t1 vgr
compare "lvextend -t" lvextend -t -L +4m vgr/l1
compare "lvremove -t" lvremove -t -y vgr/l1
compare "lvrename -t" lvrename -t vgr l1 l2
compare "lvchange -t --addtag" lvchange -t --addtag z vgr/l1
compare "vgremove -t -f (the LV's and the VG's lines, the backup warning)" vgremove -t -f vgr
compare "vgck -t --updatemetadata" vgck -t --updatemetadata vgr
compare "vgrename -t" vgrename -t vgr vgs2
compare "pvremove -t of an orphan" pvremove -t "$D3"
compare "pvcreate -t of a PV" pvcreate -t "$D3"
test_eq "nothing written: vgr's seqno" "$(seqnos)" "$before"
test_eq "vgr still has l1, D3 still a PV" \
    "$(run_lvm lvs --noheadings -o lv_name vgr 2>/dev/null | xargs) $(run_lvm pvs --noheadings -o pv_name "$D3" 2>/dev/null | xargs)" \
    "l1 $D3"
test_ok "LVM2 removes vgr" run_lvm vgremove -q -f vgr
done_testing
