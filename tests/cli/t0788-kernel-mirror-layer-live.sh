#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0788-kernel-mirror-layer-live: LVM2's CONVERTING mirror layer (NAME_mimagetmp_N, made
# by LVM2's lvconvert -m +1 of an inactive disk-log mirror) stacked and collapsed LIVE by
# lvx in the kernel (dm backend), beside LVM2 on a twin VG, inside a throw-away QEMU
# guest running tests/kernel/mirror-layer-live.sh with the plain lvx binary and 8 virtio
# disks of 64 MiB: activation stacks the layer as LVM2's (tables; the layer's log kept:
# no resync of the old images), `lvpoll --polloperation convert` collapses it under a
# mounted file system (LVM2's lines and exit; tables, metadata, lvs -a after), lvpoll's
# other answers and -i +N, the detached pollers lvchange/vgchange -ay, lvconvert
# --startpoll -b and lvx's live lvconvert -m +1 -b -i +60 start.
# The guest's TAP lines become this test's.
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 900 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test mirror-layer-live.sh 8 64M 900
