#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0675-thin-meta-kernel: thin pool metadata written by lvx's library (map/thin_meta.c)
# loaded and changed by the kernel's dm-thin and the other way round, inside a
# throw-away QEMU guest (kvm-dm-test) running tests/kernel/thin_meta.sh with the driver
# of tests/unit/test_thin_meta.c (the plain build's, built when missing) and 2 virtio
# disks.  The guest's TAP lines become this test's.  One guest boot, about 1-2 min.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

TMT=$(dirname "$LVX_PLAIN")/tests/test_thin_meta
if [[ ! -x $TMT ]]; then
    make -s -C "$LVX_ROOT" "${TMT#"$LVX_ROOT"/}" >/dev/null 2>&1 || skip_all "cannot build $TMT"
fi
kernel_guest_test thin_meta.sh 2 64M 600 --put "$TMT:/t/tmt"
