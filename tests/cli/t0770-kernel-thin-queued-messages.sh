#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0770-kernel-thin-queued-messages: thin pool messages queued in the VG metadata next
# to LVM2 with the kernel (LVM2's lvextend-thin-adddel.sh): lvremove of a thin LV whose
# pool lost its metadata device fails as LVM2's (exit 5, "Failed to update pool ...")
# and leaves message1 { delete = 1 } queued (transaction_id moved on); vgchange -an/-ay
# keeps it; lvextend of the pool sends it; thin_dump shows the device gone, as LVM2's.
# Runs tests/kernel/thin-queued-messages.sh in a throw-away QEMU guest (kvm-dm-test)
# with 2 sparse 256M virtio disks; about 25 LVM2/lvx commands.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 300 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test thin-queued-messages.sh 2 256M 300
