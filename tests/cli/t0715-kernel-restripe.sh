#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0715-kernel-restripe: lvx's restripe (lvconvert --stripes) with the kernel's
# device-mapper and LVM2 beside it.  The host kernel may lack device-mapper, so the
# checks run inside a throw-away QEMU guest (kvm-dm-test) running
# tests/kernel/restripe.sh with the plain lvx binary ($LVX_PLAIN) and 4 virtio disks of
# 256 MiB: an LV active in the kernel is refused (exit 5, no write); a restripe
# SIGKILLed mid-way is read, checked and activated by LVM2 (the data byte for byte),
# then resumed by lvx and activated by LVM2 again.  The guest's TAP lines become this
# test's.
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test restripe.sh 4 256M 600
