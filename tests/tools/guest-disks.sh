# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/guest-disks.sh - sourced by the tests whose disks move between lvx's daemon
# on the host and a kvm-dm-test guest (t0714, t0750), after lib.sh, lib_kernel.sh and
# uspace-env.sh: ten disk images vda-vdj of GUEST_DISK_SIZE (64M unless set) in $DISKS
# (IMGS), attached as loop devices (DEVS), $SCRATCH/data for the guest (--put), the
# daemon's log LOG.
#   attach_all / detach_all   the images as loop devices (DEVS) / detached again
#   sha FILE, lv_sha DEV      sha256 of a file / of a device read with direct I/O
uspace_need_guest

DISKS=$SCRATCH/disks
mkdir -p "$DISKS" "$SCRATCH/data"
IMGS=() DEVS=()
for l in a b c d e f g h i j; do
    truncate -s "${GUEST_DISK_SIZE:-64M}" "$DISKS/vd$l.img"
    IMGS+=("$DISKS/vd$l.img")
done
attach_all() {
    DEVS=()
    for f in "${IMGS[@]}"; do DEVS+=("$(attach_loop "$f")"); done
}
detach_all() { for d in "${DEVS[@]}"; do detach_loop "$d"; done; }
attach_all
uspace_test_env ux "${DEVS[@]}"
# shellcheck disable=SC2034  # used by the sourcing test
LOG=$LVX_RUN_DIR/lvxd.log
sha() { sha256sum <"$1" | cut -d' ' -f1; }
lv_sha() { dd if="$1" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1; }
