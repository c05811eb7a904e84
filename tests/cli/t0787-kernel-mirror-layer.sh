#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0787-kernel-mirror-layer: mirrors LVM2 left CONVERTING (the NAME_mimagetmp_N resync
# layer its lvconvert -m +1 writes and its poll collapses) finished by lvx in the
# kernel (dm backend), beside LVM2 finishing a twin, inside a throw-away QEMU guest
# (kvm-dm-test) running tests/kernel/mirror-layer.sh with the plain lvx binary and 8
# virtio disks of 128 MiB: an inactive layer activated and polled, a layer LVM2
# activated reported and polled; output, metadata, dm tables, data on every image.
# The guest's TAP lines become this test's.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 900 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test mirror-layer.sh 8 128M 900
