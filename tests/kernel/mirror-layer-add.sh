#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/mirror-layer-add.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0790-kernel-mirror-layer-add.sh) with 10 virtio disks, lvx at /t/lvx and
# the host's LVM2/dmsetup.  Prints TAP.  `lvconvert -m +1 -b -i +30` of an ACTIVE
# logged mirror by each tool on twin VGs: LVM2 writes its resync layer live
# (m_mimagetmp_2: the old mirror with its log, under a core-log top mirror of it and
# the new image; the layer's device loaded while the old top runs and resumed only
# once the top is suspended), lvx must do the same, an ext4 on lvx's mirror mounted
# across the conversion.  Then `lvconvert VG/m` (foreground) collapses it.
#
#   vda-vde  "lvm-ad": LVM2 (the oracle)          vdf-vdj  "lvx-ad": lvx
#
#   m   disk log (D1 D2, log D3), new image on D4; ext4 on lvx's; the layer's log
#       dropped and added again while layered
#   c   core log (D1 D2), -m+1 --mirrorlog disk (D3 D5)
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-ad
LVX_VG=lvx-ad
pv_map a:f b:g c:h d:i e:j
dd if=/dev/urandom of=/tmp/A bs=1M count=8 2>/dev/null
dm() { echo "${1//-/--}-$2"; }
pvs_as_lvm() {
    sed "s/$LVX_VG/VG/g; s|/dev/vdf|/dev/vda|; s|/dev/vdg|/dev/vdb|; s|/dev/vdh|/dev/vdc|;
         s|/dev/vdi|/dev/vdd|; s|/dev/vdj|/dev/vde|"
}
img_sum() { dd if="/dev/mapper/$1" bs=1M count=8 iflag=direct status=none | sha256sum | cut -d' ' -f1; }
layered() { lvm lvs --noheadings -o devices "$1" 2>/dev/null | grep -q mimagetmp; }
R=lv_name,lv_attr,devices,mirror_log,convert_lv,lv_converting

mk() {   # mk VG D1..D5: LVM2's mirror m (disk log), synced, data
    lvm pvcreate -q $2 $3 $4 $5 $6 >/dev/null && lvm vgcreate -q $1 $2 $3 $4 $5 $6 >/dev/null &&
        lvm lvcreate -q --type mirror -m1 -L 8m -n m $1 $2 $3 $4 >/dev/null &&
        wait_sync lvm $1/m && dd if=/tmp/A of=/dev/$1/m bs=1M count=8 oflag=direct status=none
}
mk_both() {
    mk $LVM_VG /dev/vda /dev/vdb /dev/vdc /dev/vdd /dev/vde &&
        mk $LVX_VG /dev/vdf /dev/vdg /dev/vdh /dev/vdi /dev/vdj
}
check "LVM2 makes both VGs: mirror m (disk log), active and in sync" mk_both
check "ext4 made and mounted on lvx's m, a file written" sh -c \
    "mkfs.ext4 -q /dev/$LVX_VG/m && mkdir -p /mnt && mount /dev/$LVX_VG/m /mnt &&
     dd if=/tmp/A of=/mnt/f bs=1M count=2 status=none && sync"

# ---- m: -m+1 -b -i+30 of the active (lvx's: open) disk-log mirror
ra=0 rb=0
oa=$(LVM_TEST_TAG=kill_me_h127 command lvm lvconvert -m+1 -b -i+30 $LVM_VG/m /dev/vdd 2>&1 |
    grep -v lvmpolld; exit "${PIPESTATUS[0]}") || ra=$?
ob=$(LVM_TEST_TAG=kill_me_h127 $LVX lvconvert -m+1 -b -i+30 $LVX_VG/m /dev/vdi 2>&1) || rb=$?
check_eq "lvconvert -m+1 -b -i+30 VG/m (lvx's mounted): exit status and output as LVM2's" \
    "$rb ${ob//$LVX_VG/VG}" "$ra ${oa//$LVM_VG/VG}"
both_layered() { layered $LVX_VG/$1 && layered $LVM_VG/$1; }
check "lvx's m is layered (m_mimagetmp_2), LVM2's too" both_layered m
check_eq "m's dm tables while layered as LVM2's (names, targets, args)" \
    "$(tables $LVX_VG | grep -- '-m')" "$(tables $LVM_VG | grep -- '-m')"
check_eq "no inactive table left on lvx's devices" \
    "$(dmsetup table --inactive | grep "^${LVX_VG//-/--}-" | awk 'NF > 1')" ""
check_eq "metadata while layered as LVM2's (but ids and times)" "$(meta $LVX $LVX_VG)" \
    "$(meta lvm $LVM_VG)"
# lvx's m is open (mounted): its attr's 6th character "o" taken out
check_eq "lvs -a while layered as LVM2's" "$($LVX lvs -a -o $R $LVX_VG | pvs_as_lvm | sed 's/cwi-aom/cwi-a-m/')" \
    "$(lvm lvs -a -o $R $LVM_VG | sed "s/$LVM_VG/VG/g")"
both "a second lvconvert -m+1 VG/m while layered" lvconvert -m+1 VG/m
both_synced() { wait_sync lvm $LVX_VG/$1 && wait_sync lvm $LVM_VG/$1; }
check "the layer's top mirror copies to the new image (both in sync)" both_synced m
check "the file system stays mounted across the conversion and takes a second file" sh -c \
    "grep -q ' /mnt ' /proc/mounts && dd if=/tmp/A of=/mnt/g bs=1M count=2 skip=2 status=none && sync"
poller_of() {   # poller_of TOOL-PATTERN: a process with the kill_me_h127 tag whose command line matches
    local d c
    for d in /proc/[0-9]*; do
        c=$( { tr '\0' ' ' <$d/cmdline; } 2>/dev/null)
        [[ $c == *$1* ]] && grep -qz LVM_TEST_TAG=kill_me_h127 $d/environ 2>/dev/null && echo ${d#/proc/}
    done
}
p=$(poller_of "lvpoll --polloperation convert -i +30 $LVX_VG/m")
check "lvx's -b poller of m runs, waiting (-i +30), with the caller's environment" test -n "$p"
kill $p $(poller_of "lvconvert") 2>/dev/null
sleep 0.5
check_eq "both pollers killed (the test's own foreground collapse follows)" \
    "$(poller_of lvpoll)$(poller_of lvconvert)" ""
# the layer's log changed while layered and active (mirror-names.sh :140-145), lvx's mounted
both "lvconvert -f --mirrorlog core VG/m while layered (the layer's log goes)" \
    lvconvert -f --mirrorlog core VG/m
check_eq "m's dm tables after --mirrorlog core as LVM2's (the layer on a core log, no m_mlog)" \
    "$(tables $LVX_VG | grep -- '-m')" "$(tables $LVM_VG | grep -- '-m')"
both "lvconvert --mirrorlog disk VG/m while layered (a new m_mlog under the layer)" \
    lvconvert --mirrorlog disk VG/m
check_eq "m's dm tables after --mirrorlog disk as LVM2's" \
    "$(tables $LVX_VG | grep -- '-m')" "$(tables $LVM_VG | grep -- '-m')"
check_eq "metadata after both log changes as LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
ra=0 rb=0
oa=$(command lvm lvconvert $LVM_VG/m 2>&1) || ra=$?
ob=$($LVX lvconvert $LVX_VG/m 2>&1) || rb=$?
check_eq "lvconvert VG/m (the foreground poll collapses the layer): exit status and output as LVM2's" \
    "$rb ${ob//$LVX_VG/VG}" "$ra ${oa//$LVM_VG/VG}"
check_eq "the files read back on the mounted fs" "$(cat /mnt/f /mnt/g | sha256sum)" \
    "$(head -c 4194304 /tmp/A | sha256sum)"
check "umount and fsck -n" sh -c "umount /mnt && fsck.ext4 -n /dev/$LVX_VG/m >/dev/null"
check_eq "m's dm tables once collapsed as LVM2's (no layer device left)" \
    "$(tables $LVX_VG | grep -- '-m')" "$(tables $LVM_VG | grep -- '-m')"
check_eq "metadata once collapsed as LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
sums() {   # sums VG: how many distinct contents m's three images hold
    local i
    for i in 0 1 2; do img_sum $(dm $1 m_mimage_$i); done | sort -u | wc -l
}
check_eq "lvx's three images of m hold the same data, LVM2's too" "$(sums $LVX_VG) $(sums $LVM_VG)" "1 1"

# ---- c: a core-log mirror given a disk log with its new image: the layer gets the new
# log (NAME_mlog), zeroed: the layer resyncs its old images, the top copies the new one
mk_c() {
    lvm lvcreate -q --type mirror -m1 --mirrorlog core -L 4m -n c $LVM_VG /dev/vda /dev/vdb >/dev/null &&
        lvm lvcreate -q --type mirror -m1 --mirrorlog core -L 4m -n c $LVX_VG /dev/vdf /dev/vdg >/dev/null &&
        wait_sync lvm $LVM_VG/c && wait_sync lvm $LVX_VG/c
}
check "LVM2 makes c (core log) in both VGs, in sync" mk_c
ra=0 rb=0
oa=$(LVM_TEST_TAG=kill_me_h127 command lvm lvconvert -m+1 --mirrorlog disk -b -i+30 $LVM_VG/c \
    /dev/vdc /dev/vde 2>&1 | grep -v lvmpolld; exit "${PIPESTATUS[0]}") || ra=$?
ob=$(LVM_TEST_TAG=kill_me_h127 $LVX lvconvert -m+1 --mirrorlog disk -b -i+30 $LVX_VG/c \
    /dev/vdh /dev/vdj 2>&1) || rb=$?
check_eq "lvconvert -m+1 --mirrorlog disk -b -i+30 VG/c: exit status and output as LVM2's" \
    "$rb ${ob//$LVX_VG/VG}" "$ra ${oa//$LVM_VG/VG}"
kill $(poller_of "$LVX_VG/c") $(poller_of "lvconvert") 2>/dev/null
check "c layered by each tool" both_layered c
check_eq "c's dm tables while layered as LVM2's (the layer on the new log)" \
    "$(tables $LVX_VG | grep -- '-c')" "$(tables $LVM_VG | grep -- '-c')"
check_eq "metadata while layered as LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
# (LVM2's lvconvert VG/LV takes no -q: "No command with matching syntax recognised.")
check "lvconvert VG/c by each tool" sh -c \
    "$LVX lvconvert $LVX_VG/c >/dev/null && command lvm lvconvert $LVM_VG/c >/dev/null"
check_eq "c's dm tables once collapsed as LVM2's" "$(tables $LVX_VG | grep -- '-c')" \
    "$(tables $LVM_VG | grep -- '-c')"
check_eq "metadata at the end as LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check "vgck of both, both removed" sh -c "lvm vgck $LVM_VG && lvm vgck $LVX_VG &&
    lvm vgremove -qff $LVM_VG >/dev/null && $LVX vgremove -qff $LVX_VG >/dev/null"
guest_done
