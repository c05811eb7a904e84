#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0724-kernel-autoextend: `lvextend --use-policies` (lvm.conf's thin pool and snapshot
# autoextend policies) by lvx's kernel backend next to LVM2 with the kernel, from the
# same states: same output, new sizes, reports and dm tables (tests/kernel/autoextend.sh
# in a throw-away QEMU guest, 4 sparse 8 GiB disks; about 30 LVM2/lvx commands and
# strided 4 KiB writes filling 2 MiB of pool metadata past half).
#
# Runs through tests/lib_kernel.sh (one guest at a time; LVX_SKIP_KERNEL=1 skips;
# LVX_KERNEL_TIMEOUT=SEC overrides the guest limit of 600 s).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

need_cmd fio
kernel_guest_test autoextend.sh 4 8G 600 --put "$(type -P fio):/t/fio"
