#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/loop-churn.sh [SECONDS] [INTERVAL]: a busy neighbour for the tests.  Until
# SECONDS have passed (default 600) or it is killed, attach a throwaway loop device to a
# file of its own, wait INTERVAL (default 0.05 s), detach it, and so on: the kernel's
# loop numbering, /proc/partitions, /dev and the uevent counter keep changing under
# the tests running beside it.  It only ever detaches a device whose backing file is
# still its own (checked in sysfs), found by `losetup -j`, never a name it remembers.
# Prints the number of attach/detach cycles at the end.
set -u
# shellcheck source=tests/tools/loops.sh
. "$(dirname "$0")/loops.sh"
secs=${1:-600}
interval=${2:-0.05}
dir=$(mktemp -d /tmp/lvx-churn.XXXXXX)
img="$dir/churn.img"
truncate -s 4M "$img"
cycles=0
release() { loops_detach_under "$dir"; }
finish() { release; rm -rf "$dir"; echo "loop-churn: $cycles cycles"; }
trap finish EXIT
trap 'exit 0' INT TERM
end=$((SECONDS + secs))
while ((SECONDS < end)); do
    losetup -f "$img" 2>/dev/null && cycles=$((cycles + 1))
    sleep "$interval"
    release
    sleep "$interval"
done
