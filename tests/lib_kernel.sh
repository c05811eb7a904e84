# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/lib_kernel.sh - the one way a tests/cli file runs a guest script under the kernel
# device-mapper (sourced after tests/lib.sh by the t07NN-kernel-*.sh files).
#
#   kernel_guest_test SCRIPT DISKS DISK_SIZE TIMEOUT [kvm-dm-test options...]
#
# boots a throw-away QEMU guest (tests/tools/kvm-dm-test: stock Debian kernel with
# device-mapper, the host's lvm/dmsetup) with DISKS virtio disks, the plain lvx binary
# ($LVX_PLAIN, built when missing) at /t/lvx, and runs tests/kernel/SCRIPT there.  The
# guest's TAP lines (out/result.tap, or out/result.partial when it ran out of time)
# become this file's, followed by one check that the guest ran the whole script.  The
# guest script sources /t/guest-tap.sh (tests/kernel/guest-tap.sh, put there too).  A
# guest that reports not even its first line (it did not boot, or could not share
# /out), or whose kernel panicked (kvm-dm-test exit 125), is started once more, and the
# first console's end goes to stderr.  The guest's /out is $KERNEL_OUT (not
# $SCRATCH/out, which tests/tools/uspace-env.sh uses as a file).  Guests get one vCPU (LVX_GUEST_CPUS, default 1):
# with two, the stock kernel once panicked here in __kmalloc at a cmpxchg16b with
# corrupted EFLAGS under QEMU's multi-threaded TCG (about 1 of 15 guest runs this day;
# CI's t0700/t0701 failure, guests that reported nothing, looks the same).
#
# Guests run one at a time: each takes both cores under software emulation, and two at
# once (two prove jobs in `make check`) pushed each past its time limit.  `make check` runs
# the guest files in two lanes (tests/tools/harness.pl): one file's host part runs while
# the other's guest holds the lock, and the diag line says how long each waited and held it.  The guest runs
# at nice -5 when the test runs as root: the guest lane is the longest chain
# of a `make check`, and the two lanes of host files beside it had slowed its guests by
# 13% (CI of 12cad5f, the first 23 guest files), some by 70% (t0724's polling).  The lock is
# ${LVX_VM_LOCK:-/tmp/lvx-kvm-dm-test.lock}; TIMEOUT counts from the guest's start, after
# the lock is held.  When the guest fails, the end of its console goes to stderr too, so
# that prove's summary (and CI's log) shows why.
#
# A guest whose kernel hangs is ended by its kernel: hung_task_panic=1 panics it when a
# task has been blocked for the kernel's hung-task timeout (120 s), so kvm-dm-test
# exits 125 and the guest is started once more (its console's end, with the blocked
# task's stack, goes to stderr).  CI of c5a96c3: t0714's guest hung in the kernel's own
# dm-raid (LVM2's raid10 kx/r10, lvx not involved in the guest there; "blocked for
# more than 120 seconds" at 363 s of uptime, where the whole script takes ~50 s) and was
# killed at its 900 s limit, 14 minutes of the guest lane for one failed file.
#
#   KVM_DM_TEST=PATH        the tool (default: tests/tools/kvm-dm-test)
#   LVX_SKIP_KERNEL=1       skip (e.g. for quick local runs)
#   LVX_KERNEL_TIMEOUT=SEC  overrides TIMEOUT
#   LVX_GUEST_TMPDIR=DIR    kvm-dm-test's TMPDIR (default /dev/shm when 4 GiB free there,
#                           else $TMPDIR or /tmp; empty: the latter)
#   KERNEL_GUEST_MORE=1     do not end the TAP stream (the caller checks more after the guest)
# Skipped (1..0 # SKIP) where no QEMU/kernel can run (kvm-dm-test exit 77).

KERNEL_OUT=$SCRATCH/guest-out
kernel_guest_test() {
    local script=$1 disks=$2 size=$3 timeout=${LVX_KERNEL_TIMEOUT:-$4}
    shift 4
    [[ ${LVX_SKIP_KERNEL:-0} == 1 ]] && skip_all "LVX_SKIP_KERNEL=1"
    local kdt=${KVM_DM_TEST:-$LVX_ROOT/tests/tools/kvm-dm-test}
    [[ -x $kdt ]] || skip_all "kvm-dm-test not found"
    need_root
    if [[ ! -x $LVX_PLAIN ]]; then
        make -s -C "$LVX_ROOT" all >"$SCRATCH/make.log" 2>&1 || skip_all "cannot build $LVX_PLAIN"
    fi
    need_cmd flock

    local -a nice=()                   # as root a raised priority (else nice only warns)
    [[ $(id -u) == 0 ]] && nice=(nice -n -5)
    local rc=0 lock=${LVX_VM_LOCK:-/tmp/lvx-kvm-dm-test.lock} waited=$SECONDS try held
    # kvm-dm-test's work dir (the initramfs, and the disk images unless --disk-dir) in RAM
    # when /dev/shm has 4 GiB free: QEMU (cache=unsafe) flushes the images' dirty pages
    # when it exits, and scattered guest writes took minutes to reach a loaded host's disk
    # (t0724: 250 s after its guest script ended; with the images on tmpfs, nothing to write)
    local kdt_tmp=${LVX_GUEST_TMPDIR-/dev/shm}
    if [[ -z $kdt_tmp || ! -d $kdt_tmp || ! -w $kdt_tmp ]] ||
        (($(df -P -k "$kdt_tmp" 2>/dev/null | awk 'NR == 2 { print $4 }') + 0 < 4194304)); then
        kdt_tmp=${TMPDIR:-/tmp}
    fi
    {
        flock 8
        waited=$((SECONDS - waited))
        held=$SECONDS
        for try in 1 2; do
            rc=0
            rm -rf "$KERNEL_OUT"
            mkdir -p "$KERNEL_OUT"
            TMPDIR=$kdt_tmp "${nice[@]}" "$kdt" -q --cpus "${LVX_GUEST_CPUS:-1}" --disks "$disks" --disk-size "$size" --timeout "$timeout" \
                --append hung_task_panic=1 --put "$LVX_PLAIN:/t/lvx" --put "$LVX_ROOT/tests/kernel/guest-tap.sh:/t/guest-tap.sh" \
                "$@" --out "$KERNEL_OUT" \
                --run "$LVX_ROOT/tests/kernel/$script" >"$SCRATCH/console" 2>&1 || rc=$?
            # a guest that never got to its first line (no boot, no /out), or whose kernel
            # died (exit 125), is tried once more
            [[ $rc == 0 || $rc == 77 || $try == 2 ]] && break
            [[ $rc != 125 && -s $KERNEL_OUT/result.partial ]] && break
            grep -q "blocked for more than" "$SCRATCH/console" &&
                diag "attempt $try: the guest's kernel found a hung task and panicked (hung_task_panic)"
            {
                echo "$(basename "$0"): the guest reported nothing or its kernel died (kvm-dm-test exit $rc); once more. Console tail:"
                tail -n 40 "$SCRATCH/console"
            } >&2
        done
        held=$((SECONDS - held))
    } 8>>"$lock"
    [[ $rc == 77 ]] && skip_all "no QEMU or kernel for kvm-dm-test: $(tail -n 1 "$SCRATCH/console")"
    diag "waited ${waited}s for the guest lock, held it ${held}s; guest limit ${timeout}s; attempts: $try"

    local result=$KERNEL_OUT/result.tap line
    [[ -s $result ]] || result=$KERNEL_OUT/result.partial
    if [[ -s $result ]]; then
        while IFS= read -r line; do
            case $line in
            "ok "*) _tap_result 0 "${line#ok * - }" ;;
            "not ok "*) _tap_result 1 "${line#not ok * - }" ;;
            "#"*) printf '%s\n' "$line" ;;
            esac
        done <"$result"
    fi
    local whole=1
    [[ $rc == 0 && -s $KERNEL_OUT/result.tap ]] && whole=0
    _tap_result "$whole" "the guest ran the whole script (kvm-dm-test exit status $rc)"
    if [[ $whole != 0 ]]; then
        _diag_file "guest console" "$SCRATCH/console"
        {
            echo "$(basename "$0"): guest failed (kvm-dm-test exit $rc, limit ${timeout}s); console tail:"
            tail -n 40 "$SCRATCH/console"
        } >&2
    fi
    [[ ${KERNEL_GUEST_MORE:-0} == 1 ]] || done_testing   # 1: the caller checks more, then ends
}
