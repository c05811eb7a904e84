#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/thin-crop.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0762-kernel-thin-crop.sh) with 4 sparse 24G virtio disks, lvx at /t/lvx and
# the host's LVM2/dmsetup.  Prints TAP.  LVM2's thin-16g.sh and lvcreate-thin.sh:235 as
# twins (LVM2 on vda-vdb, VG "lvm-cr"; lvx on vdc-vdd, VG "lvx-cr"), 512 KiB extents:
#
#   - lvconvert --thinpool --poolmetadata of a 16G LV: output equal to LVM2's, the dm
#     table of _tmeta all 33554432 sectors for both; of a 20G LV with
#     allocation/thin_pool_crop_metadata=1: cut to 33161216 sectors for both, also after
#     vgchange -an/-ay; lvresize -l+1 of _tmeta with the setting: still cut, without it:
#     all 20G again (LVM2's "without cropping"); the metadata equal to LVM2's;
#   - lvcreate --minor N -T -V: the thin LV's device has minor N (lvx: the kernel's
#     choice), also after lvchange -an/-ay; lvchange -y --persistent y --minor M of the
#     active thin LV moves it to M, as LVM2.
# shellcheck disable=SC2086  # disk lists split on purpose
. /t/guest-tap.sh

LVM_VG=lvm-cr
LVX_VG=lvx-cr
Z='allocation { zero_metadata = 0 }'                      # (no 16G of zeros here)
C='allocation { zero_metadata = 0 thin_pool_crop_metadata = 1 }'
# lvm.conf settings for one command of both tools: EXTRA (guest-tap's lvm() has its own
# --config, which LVM2 takes once)
export EXTRA=''
lvm() { local c=$1; shift; command lvm "$c" --config "devices { hints = \"none\" } $EXTRA" "$@"; }
printf '#!/bin/sh\nif [ -n "$EXTRA" ]; then exec %s "$@" --config "$EXTRA"; fi\nexec %s "$@"\n' \
    "$LVX" "$LVX" >/tmp/lvxc
chmod +x /tmp/lvxc
LVX=/tmp/lvxc
cfg() { EXTRA=$1; shift; "$@"; EXTRA=''; }   # cfg SETTINGS both|check ...
tlen() { dmsetup table "${1//-/--}-$2" 2>/dev/null | awk '{ s += $2 } END { print s + 0 }'; }
tlens() { echo "$(tlen $LVX_VG "$1") $(tlen $LVM_VG "$1")"; }

check "LVM2 makes lvm-cr, lvx makes lvx-cr (-s 512k)" sh -c \
    "lvm pvcreate -q /dev/vda /dev/vdb && lvm vgcreate -q -s 512k lvm-cr /dev/vda /dev/vdb &&
     $LVX pvcreate -q /dev/vdc /dev/vdd && $LVX vgcreate -q -s 512k lvx-cr /dev/vdc /dev/vdd"

# ------------------------------------------------------------ thin-16g.sh:34-39
check "both: lvcreate -L16G -n meta, -L10 -n pool" sh -c \
    "$LVX lvcreate -q -Zn -L16G -n meta $LVX_VG && $LVX lvcreate -q -L10 -n pool $LVX_VG &&
     lvm lvcreate -q -Zn -L16G -n meta $LVM_VG && lvm lvcreate -q -L10 -n pool $LVM_VG"
cfg "$Z" both "lvconvert --yes --thinpool VG/pool --poolmetadata meta (16G)" \
    lvconvert --yes --thinpool VG/pool --poolmetadata meta
check_eq "... the table of pool_tmeta: all 33554432 sectors, as LVM2's" "$(tlens pool_tmeta)" "33554432 33554432"
check_eq "... metadata equal to LVM2's (crop_metadata = 0, +CROP_METADATA)" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check "both: lvremove -f VG" sh -c "$LVX lvremove -q -f $LVX_VG && lvm lvremove -q -f $LVM_VG"

# ------------------------------------------------------------ thin-16g.sh:42-55
check "both: lvcreate -L20G -n meta, -L10 -n pool" sh -c \
    "$LVX lvcreate -q -Zn -L20G -n meta $LVX_VG && $LVX lvcreate -q -L10 -n pool $LVX_VG &&
     lvm lvcreate -q -Zn -L20G -n meta $LVM_VG && lvm lvcreate -q -L10 -n pool $LVM_VG"
cfg "$C" both "lvconvert --yes --thinpool VG/pool --poolmetadata meta (20G, crop 1)" \
    lvconvert --yes --thinpool VG/pool --poolmetadata meta
check_eq "... lvol0_pmspare 16.00g, as LVM2's" \
    "$($LVX lvs --noheadings -o lv_size $LVX_VG/lvol0_pmspare | trim)" "$(lvm lvs --noheadings -o lv_size $LVM_VG/lvol0_pmspare | trim)"
check_eq "... the table of pool_tmeta cut to 33161216 sectors, as LVM2's" "$(tlens pool_tmeta)" "33161216 33161216"
check_eq "... metadata equal to LVM2's (crop_metadata = 1)" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
each "vgchange -an VG" vgchange -q -an VG
each "vgchange -ay VG" vgchange -q -ay VG
check_eq "... after re-activation still 33161216 sectors, as LVM2's" "$(tlens pool_tmeta)" "33161216 33161216"
cfg "$C" both "lvresize -l+1 VG/pool_tmeta (crop 1)" lvresize -l+1 VG/pool_tmeta
check_eq "... still 33161216 sectors, as LVM2's" "$(tlens pool_tmeta)" "33161216 33161216"
cfg "$Z" both "lvresize -l+1 VG/pool_tmeta (setting 0)" lvresize -l+1 VG/pool_tmeta
check_eq "... all of it again (41943040 sectors), as LVM2's" "$(tlens pool_tmeta)" "41943040 41943040"
check_eq "... metadata equal to LVM2's (crop_metadata = 0)" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check "both: lvremove -f VG" sh -c "$LVX lvremove -q -f $LVX_VG && lvm lvremove -q -f $LVM_VG"

# ------------------------------------------------------------ lvcreate-thin.sh:234
check "both: pool tp (lvcreate -L10M -T)" sh -c \
    "$LVX lvcreate -q -L10M -T $LVX_VG/tp && lvm lvcreate -q -L10M -T $LVM_VG/tp"
check "LVM2: lvcreate --minor 2345 -T -V20M -n thin_minor" lvm lvcreate -q --minor 2345 -T -V20M -n thin_minor $LVM_VG/tp
check "lvx: lvcreate --minor 2346 -T -V20M -n thin_minor" $LVX lvcreate -q --minor 2346 -T -V20M -n thin_minor $LVX_VG/tp
check_eq "... the devices' minors 2346 (lvx) 2345 (LVM2)" "$(kminor $LVX_VG thin_minor) $(kminor $LVM_VG thin_minor)" "2346 2345"
check_eq "... lvx's lv_kernel_minor and lv_minor" \
    "$($LVX lvs --noheadings -o lv_kernel_minor,lv_minor $LVX_VG/thin_minor | xargs)" "2346 2346"
each "lvchange -an VG/thin_minor" lvchange -q -an VG/thin_minor
each "lvchange -ay VG/thin_minor" lvchange -q -ay VG/thin_minor
check_eq "... re-activated with the same minors" "$(kminor $LVX_VG thin_minor) $(kminor $LVM_VG thin_minor)" "2346 2345"
check "LVM2: lvchange -y --persistent y --minor 2347 of the active thin LV" \
    lvm lvchange -q -y --persistent y --minor 2347 $LVM_VG/thin_minor
check "lvx: lvchange -y --persistent y --minor 2348 of the active thin LV" \
    $LVX lvchange -q -y --persistent y --minor 2348 $LVX_VG/thin_minor
check_eq "... the devices moved to 2348 (lvx) 2347 (LVM2)" "$(kminor $LVX_VG thin_minor) $(kminor $LVM_VG thin_minor)" "2348 2347"
check_eq "... metadata equal to LVM2's (minor aside)" "$(meta $LVX $LVX_VG | sed 's/minor = 2348/minor = M/')" \
    "$(meta lvm $LVM_VG | sed 's/minor = 2347/minor = M/')"
check "both: vgremove -ff" sh -c "$LVX vgremove -q -ff $LVX_VG && lvm vgremove -q -ff $LVM_VG"
guest_done
