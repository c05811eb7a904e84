#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0757-kernel-cached-reports: cached LVs made by LVM2 in the kernel (a cache pool
# attached, writethrough and writeback, and a cachevol), reported by lvx as LVM2
# reports them, active (dm-cache status: block counts, hits/misses, data/metadata/
# copy percent, kernel policy, settings and metadata format; lv_permissions
# "writeable") and inactive (the _corig's 'o' and role cacheorigin, no parent or
# ancestors for a cache's origin, the cache pool's chunk size, mode, policy and metadata
# format on the cache LV, a cachevol's attr/layout and metadata size, lvdisplay's cache
# lines and segments), inside a throw-away QEMU guest (kvm-dm-test) running
# tests/kernel/cached-reports.sh (lvs -o all, -o all,seg_all, --segments, JSON,
# lvdisplay -a -m, vgdisplay -v, pvs -o all[,seg_all], pvs --segments); lvx refuses to
# activate a cached LV (exit 5, one line, no device); lvx's lvchange -an of LVM2's active
# cached LV removes the devices under it too (origin, pool data/metadata, cachevol, a
# raid1 origin's images and metadata); a writecache LV LVM2 made, active: lvx's reports
# (layout, roles, origin, cachevol, dm-writecache status fields) equal LVM2's, and lvx's
# lvchange -an takes its origin and cachevol down too.
# With the main build of 415474c 15 of the 36 checks failed.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/lib_kernel.sh
. "$LVX_ROOT/tests/lib_kernel.sh"

kernel_guest_test cached-reports.sh 2 256M 900
