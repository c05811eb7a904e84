#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0711-lvm2-testsuite: a smoke subset of LVM2's own shell tests run against lvx
# through bench/lvm2-testsuite/run.sh (the test tree from Debian's lvm2 source
# package, a kvm-dm-test guest, lvx as `lvm`).  Only lvx's side runs here (the LVM2
# control and the full list are the bench script's job).  Costs one guest boot and
# ten short tests (vgrename-usage, vgck, vgcfgbackup-usage: 30-50 s each under TCG
# with the machine shared by 7 jobs; process-each-pv-nomda, orphan-ondisk,
# mda-rollback: 0.4-0.9 times vgck's time in the same guest; pvck-dump, pvck-repair:
# LVM2's own checks of pvck; vgchange-partial, missing-pv-unused: LVM2's checks of VGs
# with a PV missing, 15 and 35 s under TCG): about a minute with KVM for the first
# eight (CI: 56 s for the first six); all ten 176 s under TCG on a loaded 2-core
# machine (guest boot included).  pvcreate-ff, pvremove-warnings, pv-min-size,
# error-usage and zero-usage pass too (10-17 s each) but would take t0711 past 3 min
# under TCG (all fifteen: 4 min 15 s on a loaded 2-core machine); the bench script
# runs them.
#   LVX_SKIP_KERNEL=1        skip (as t0700)
#   LVX_SUITE_TESTS="a b"    the LVM2 tests to run (default: the ten above)
#   LVX_SUITE_TIMEOUT=SEC    time limit of one test in the guest (default 240)
# Skipped (1..0 # SKIP) where no guest can run or the source package cannot be had
# (run.sh exit 77).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

[[ ${LVX_SKIP_KERNEL:-0} == 1 ]] && skip_all "LVX_SKIP_KERNEL=1"
need_root
RUN=$LVX_ROOT/bench/lvm2-testsuite/run.sh
if [[ ! -x $LVX_PLAIN ]]; then
    make -s -C "$LVX_ROOT" all >"$SCRATCH/make.log" 2>&1 || skip_all "cannot build $LVX_PLAIN"
fi
plan_later

read -r -a tests <<<"${LVX_SUITE_TESTS:-vgrename-usage vgck vgcfgbackup-usage process-each-pv-nomda orphan-ondisk mda-rollback pvck-dump pvck-repair vgchange-partial missing-pv-unused}"
rc=0
# one guest at a time, as tests/lib_kernel.sh does for the other kernel tests
{
    flock 8
    nice -n "$( [[ $(id -u) == 0 ]] && echo -5 || echo 0)" "$RUN" --control skip --lvx "$LVX_PLAIN" --timeout "${LVX_SUITE_TIMEOUT:-240}" \
        --out "$SCRATCH/out" "${tests[@]}" >"$SCRATCH/table" 2>"$SCRATCH/log" || rc=$?
} 8>>"${LVX_VM_LOCK:-/tmp/lvx-kvm-dm-test.lock}"
[[ $rc == 77 ]] && skip_all "$(grep SKIP "$SCRATCH/log" | tail -n 1)"

for t in "${tests[@]}"; do
    ok=1
    [[ -f $SCRATCH/out/$t.lvx.rc && $(cat "$SCRATCH/out/$t.lvx.rc") == 0 ]] && ok=0
    _tap_result "$ok" "lvx passes LVM2's shell/$t.sh"
    [[ $ok == 0 ]] || _diag_file "$t (lvx) log" "$SCRATCH/out/$t.lvx.log"
    _tap_result "$(grep -Eq "^$t +- +passed" "$SCRATCH/table" && echo 0 || echo 1)" \
        "the runner's table says $t passed with lvx"
done
_tap_result "$([[ $rc == 0 ]] && echo 0 || echo 1)" "run.sh exit status 0 (was $rc)"
[[ $rc == 0 ]] || { _diag_file table "$SCRATCH/table"; _diag_file "run.sh stderr" "$SCRATCH/log"; tail -n 20 "$SCRATCH/log" >&2; }
done_testing
