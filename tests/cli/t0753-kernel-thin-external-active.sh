#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0753-kernel-thin-external-active: lvx's dm backend beside LVM2 with the kernel for
# the external-origin leftovers: lvconvert --type thin of an active, open LV (reloaded in
# place over its origin's -real layer), the external origin active itself (stacked over
# -real, LVM2's layer), lvchange -p of an external origin refused, lvremove -f VG in
# LVM2's order.  Twin VGs, the same command lines, equal output, metadata, dm devices and
# tables (tests/kernel/thin-external-active.sh).  One guest boot, 2 disks, 1-2 min under
# TCG.  The user backend's side is t1010.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test thin-external-active.sh 2 256M 280
