#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0712-kernel-raid-convert: RAID conversions (lvconvert -m N, linear <-> raid1,
# --type raid1|linear) made by lvx and by LVM2 on twin VGs, side by side in the kernel.
# LVM2 converts only active LVs (the host has no device-mapper), so the checks run
# inside a throw-away QEMU guest (kvm-dm-test) running tests/kernel/dm-raid-convert.sh
# with the plain lvx binary ($LVX_PLAIN, built when missing) and 8 virtio disks of
# 64 MiB: layouts, metadata text and dm tables equal LVM2's after every step, data
# intact, LVM2 activates and reads the result.  The guest's TAP lines become this
# test's.
#
#   KVM_DM_TEST=PATH        the tool (default: the repository's copy,
#                           tests/tools/kvm-dm-test)
#   LVX_SKIP_KERNEL=1       skip (e.g. for quick local runs)
#   LVX_KERNEL_TIMEOUT=SEC  guest time limit (default 1500; a loaded host under TCG is slow)
# Skipped (1..0 # SKIP) where no QEMU/kernel can run (kvm-dm-test exit 77).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

[[ ${LVX_SKIP_KERNEL:-0} == 1 ]] && skip_all "LVX_SKIP_KERNEL=1"
KDT=${KVM_DM_TEST:-$LVX_ROOT/tests/tools/kvm-dm-test}
[[ -x $KDT ]] || skip_all "kvm-dm-test not found"
need_root
if [[ ! -x $LVX_PLAIN ]]; then
    make -s -C "$LVX_ROOT" all >"$SCRATCH/make.log" 2>&1 || skip_all "cannot build $LVX_PLAIN"
fi
plan_later

puts=(--put "$LVX_PLAIN:/t/lvx")
mkdir -p "$SCRATCH/out"
rc=0
"$KDT" -q --disks 8 --disk-size 64M --timeout "${LVX_KERNEL_TIMEOUT:-1500}" "${puts[@]}" \
    --out "$SCRATCH/out" --run "$LVX_ROOT/tests/kernel/dm-raid-convert.sh" \
    >"$SCRATCH/console" 2>&1 || rc=$?
[[ $rc == 77 ]] && skip_all "no QEMU or kernel for kvm-dm-test: $(tail -n 1 "$SCRATCH/console")"

# the guest's results, renumbered into this file's TAP stream
result=$SCRATCH/out/result.tap
[[ -s $result ]] || result=$SCRATCH/out/result.partial   # timed out: the lines it got to
if [[ -s $result ]]; then
    while IFS= read -r line; do
        case $line in
        "ok "*) _tap_result 0 "${line#ok * - }" ;;
        "not ok "*) _tap_result 1 "${line#not ok * - }" ;;
        "#"*) printf '%s\n' "$line" ;;
        esac
    done <"$result"
fi
_tap_result "$([[ $rc == 0 && -s $result ]] && echo 0 || echo 1)" \
    "the guest ran the whole script (kvm-dm-test exit status $rc)"
[[ $rc == 0 && -s $result ]] || _diag_file "guest console" "$SCRATCH/console"
done_testing
