#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/mirror-layer-live.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0788-kernel-mirror-layer-live.sh) with 8 virtio disks, lvx at /t/lvx and
# the host's LVM2/dmsetup.  Prints TAP.  LVM2's lvconvert -m +1 of an inactive disk-log
# mirror writes its resync layer (m_mimagetmp_2: the old mirror with its log, under a
# top mirror of it and the new image); LVM2's activation stacks it (log, images, layer,
# new image, top) and its poll collapses it live once the top is in sync.  Twin VGs,
# both made by LVM2:
#
#   vda-vdd  "lvm-cl": LVM2 (the oracle)          vde-vdh  "lvx-cl": lvx
#
#   m  activated with --poll n (stacked, tables compared; a mark written on the inactive
#      m_mimage_1 alone stays: the layer's log is kept, the old images not resynced),
#      ext4 mounted on lvx's, then `lvpoll --polloperation convert` by each tool
#   n  lvchange -ay: the detached poller each tool starts collapses it (n_mimage_1 marked
#      too: the mark stays)
#   p, q  vgchange -ay: one poller each
#   r  lvconvert --startpoll -b: a detached poller; lvpoll -i +2
#   s  lvx's lvconvert -m +1 -b -i +60 of the active mirror (the layer written live, a
#      detached poller told to wait; LVM2 takes -i with a conversion, not with
#      --startpoll): the poller seen running with the caller's environment, then killed;
#      lvx's foreground lvconvert collapses s
# shellcheck disable=SC2086
. /t/guest-tap.sh

LVM_VG=lvm-cl
LVX_VG=lvx-cl
pv_map a:e b:f c:g d:h
dd if=/dev/urandom of=/tmp/A bs=1M count=16 2>/dev/null
dm() { echo "${1//-/--}-$2"; }
pvs_as_lvm() { sed "s/$LVX_VG/VG/g; s|/dev/vde|/dev/vda|; s|/dev/vdf|/dev/vdb|; s|/dev/vdg|/dev/vdc|; s|/dev/vdh|/dev/vdd|"; }
img_sum() { dd if="/dev/mapper/$1" bs=1M count=$2 iflag=direct status=none | sha256sum | cut -d' ' -f1; }

mk_layer() {   # mk_layer VG SIZE LV...: LVM2's mirrors on D1 D2 (log D3), data, layers on D4
    local vg=$1 size=$2 lv
    shift 2
    for lv in "$@"; do
        lvm lvcreate -q --type mirror -m1 -L $size -n $lv $vg $D1 $D2 $D3 >/dev/null &&
            wait_sync lvm $vg/$lv &&
            dd if=/tmp/A of=/dev/$vg/$lv bs=1M count=${size%m} oflag=direct status=none || return 1
    done
    lvm vgchange -q -an $vg >/dev/null || return 1
    for lv in "$@"; do lvm lvconvert -q -m +1 $vg/$lv $D4 || return 1; done
}
# mark VG LV: 4 KiB of 0xff written 8 MiB into LV_mimage_1 on its PV (LV inactive): only
# the old images' own resync (a log not kept) copies image 0 over it
mark() {
    local dev pe start
    dev=$(lvm lvs -a --noheadings -o devices $1/$2_mimage_1 | trim)
    pe=${dev#*(}; pe=${pe%)}; dev=${dev%(*}
    start=$(lvm pvs --noheadings --units s --nosuffix -o pe_start $dev | trim)
    head -c 4096 /dev/zero | tr '\0' '\377' |
        dd of=$dev bs=512 seek=$((start + pe * 8192 + 16384)) oflag=direct conv=notrunc status=none
}
mk() {   # mk VG D1 D2 D3 D4
    D1=$2 D2=$3 D3=$4 D4=$5
    lvm pvcreate -q $2 $3 $4 $5 >/dev/null && lvm vgcreate -q $1 $2 $3 $4 $5 >/dev/null &&
        mk_layer $1 16m m n && mark $1 m && mark $1 n
}
layered() { lvm lvs --noheadings -o devices "$1" 2>/dev/null | grep -q mimagetmp; }
wait_collapsed() {   # wait_collapsed VG/LV...: no layer left under any (at most 60 s)
    local t lv
    for ((t = 0; t < 120; t++)); do
        for lv in "$@"; do layered $lv && break; lv=; done
        [[ -z $lv ]] && return 0
        sleep 0.5
    done
    return 1
}
layer_synced() {   # layer_synced VG: m's layer reports every region in sync
    local f
    f=$(dmsetup status "$(dm $1 m_mimagetmp_2)" | awk '{print $7}')
    [[ -n $f && ${f%/*} == "${f#*/}" ]]
}
mk_both() { mk $LVM_VG /dev/vda /dev/vdb /dev/vdc /dev/vdd && mk $LVX_VG /dev/vde /dev/vdf /dev/vdg /dev/vdh; }
synced_both() {
    layer_synced $LVM_VG && layer_synced $LVX_VG && wait_sync lvm $LVM_VG/m && wait_sync lvm $LVX_VG/m
}
mk_pq() {
    D1=/dev/vda D2=/dev/vdb D3=/dev/vdc D4=/dev/vdd mk_layer $LVM_VG 4m p q &&
        D1=/dev/vde D2=/dev/vdf D3=/dev/vdg D4=/dev/vdh mk_layer $LVX_VG 4m p q
}

check "LVM2 makes both VGs: mirrors m and n written, deactivated, -m +1 (layers), m/n_mimage_1 marked" \
    mk_both

# ---- m: stacked at activation (--poll n), collapsed live by lvpoll under a mounted fs
check "m activated by each tool with --poll n" sh -c \
    "lvm lvchange -ay --poll n $LVM_VG/m && $LVX lvchange -ay --poll n $LVX_VG/m"
check_eq "m's dm tables while layered as LVM2's" "$(tables $LVX_VG | grep -- '-m')" \
    "$(tables $LVM_VG | grep -- '-m')"
check "both layers in sync, both tops in sync" synced_both
i0=$(img_sum $(dm $LVX_VG m_mimage_0) 16) i1=$(img_sum $(dm $LVX_VG m_mimage_1) 16)
check "the mark on lvx's old image 1 stays (the layer's log kept: no resync of the old images)" \
    test "$i0" != "$i1"
check_eq "lvx's m_mimage_1 as LVM2's" "$i1" "$(img_sum $(dm $LVM_VG m_mimage_1) 16)"
R=lv_name,lv_attr,copy_percent,devices,mirror_log,convert_lv,lv_converting
check_eq "lvs -a while layered as LVM2's" "$($LVX lvs -a -o $R $LVX_VG | pvs_as_lvm)" \
    "$(lvm lvs -a -o $R $LVM_VG | sed "s/$LVM_VG/VG/g")"
check "ext4 made and mounted on lvx's layered m, a file written" sh -c \
    "mkfs.ext4 -q /dev/$LVX_VG/m && mkdir -p /mnt && mount /dev/$LVX_VG/m /mnt &&
     dd if=/tmp/A of=/mnt/f bs=1M count=8 status=none && sync"
both "lvpoll --polloperation convert of m (lvx's mounted)" lvpoll --polloperation convert VG/m
check_eq "the file system stayed mounted and reads the file" \
    "$(grep -q ' /mnt ' /proc/mounts && sha256sum </mnt/f)" "$(head -c 8388608 /tmp/A | sha256sum)"
check "umount and fsck -n" sh -c "umount /mnt && fsck.ext4 -n /dev/$LVX_VG/m >/dev/null"
check_eq "m's dm tables once collapsed as LVM2's (no layer device left)" \
    "$(tables $LVX_VG | grep -- '-m')" "$(tables $LVM_VG | grep -- '-m')"
check_eq "metadata as LVM2's" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "lvs -a as LVM2's" "$($LVX lvs -a -o $R $LVX_VG | pvs_as_lvm)" \
    "$(lvm lvs -a -o $R $LVM_VG | sed "s/$LVM_VG/VG/g")"
both "lvpoll of a plain mirror" lvpoll --polloperation convert VG/m
both "lvpoll of an LV not there" lvpoll --polloperation convert VG/zz
both "lvpoll of an inactive layered mirror" lvpoll --polloperation convert -i 1 VG/n

# ---- n: lvchange -ay starts each tool's detached poller
check "n activated by each tool (pollers started)" sh -c \
    "lvm lvchange -ay $LVM_VG/n >/dev/null 2>&1 && $LVX lvchange -ay $LVX_VG/n"
check "lvx's poller collapsed n" wait_collapsed $LVX_VG/n
check "LVM2's poller collapsed n" wait_collapsed $LVM_VG/n
check_eq "n's dm tables as LVM2's" "$(tables $LVX_VG | grep -- '-n')" "$(tables $LVM_VG | grep -- '-n')"
i0=$(img_sum $(dm $LVX_VG n_mimage_0) 16) i1=$(img_sum $(dm $LVX_VG n_mimage_1) 16)
check "the mark on lvx's n_mimage_1 stays (activation kept the layer's log)" test "$i0" != "$i1"
check_eq "lvx's n_mimage_1 and n_mimage_2 as LVM2's" "$i1 $(img_sum $(dm $LVX_VG n_mimage_2) 16)" \
    "$(img_sum $(dm $LVM_VG n_mimage_1) 16) $(img_sum $(dm $LVM_VG n_mimage_2) 16)"

# ---- p, q: vgchange -ay starts one poller for each
check "LVM2 makes layered p and q in both VGs" mk_pq
check "vgchange -ay by each tool" sh -c \
    "lvm vgchange -ay $LVM_VG >/dev/null 2>&1 && $LVX vgchange -ay $LVX_VG >/dev/null"
check "lvx's pollers collapsed p and q" wait_collapsed $LVX_VG/p $LVX_VG/q
check "LVM2's pollers collapsed p and q" wait_collapsed $LVM_VG/p $LVM_VG/q
# ---- r: lvconvert --startpoll -b of an active layered mirror (LVM2 takes -b only with
# --startpoll or a conversion): a detached poller, the caller's
# environment kept
mk_r() {
    D1=/dev/vda D2=/dev/vdb D3=/dev/vdc D4=/dev/vdd mk_layer $LVM_VG 4m r &&
        D1=/dev/vde D2=/dev/vdf D3=/dev/vdg D4=/dev/vdh mk_layer $LVX_VG 4m r &&
        lvm vgchange -ay --poll n $LVM_VG >/dev/null && $LVX vgchange -ay --poll n $LVX_VG >/dev/null
}
poller_env() {   # poller_env TEXT: a process whose command line holds TEXT (within 2 s)
    local t d c   # has LVM_TEST_TAG in its environment (the guest has no pgrep)
    for ((t = 0; t < 20; t++)); do
        for d in /proc/[0-9]*; do
            c=$( { tr '\0' ' ' <$d/cmdline; } 2>/dev/null)
            [[ $c == *"$1"* ]] && grep -qz LVM_TEST_TAG=kill_me_h123 $d/environ && return 0
        done
        sleep 0.1
    done
    for d in /proc/[0-9]*; do       # what runs instead
        c=$( { tr '\0' ' ' <$d/cmdline; } 2>/dev/null)
        [[ $c == *lv* ]] && echo "$d: $c"
    done
    return 1
}
check "LVM2 makes layered r in both VGs, activated with --poll n" mk_r
ra=0 rb=0
oa=$(LVM_TEST_TAG=kill_me_h123 command lvm lvconvert --startpoll -b $LVM_VG/r 2>&1 |
    grep -v lvmpolld; exit "${PIPESTATUS[0]}") || ra=$?
ob=$(LVM_TEST_TAG=kill_me_h123 $LVX lvconvert --startpoll -b $LVX_VG/r 2>&1) || rb=$?
check_eq "lvconvert --startpoll -b VG/r: exit status and output as LVM2's" \
    "$rb ${ob//$LVX_VG/VG}" "$ra ${oa//$LVM_VG/VG}"
check "lvx's poller collapsed r" wait_collapsed $LVX_VG/r
check "LVM2's poller collapsed r" wait_collapsed $LVM_VG/r
# s: lvx's -b poller told to wait 60 s first (-i +60, which LVM2 takes with a conversion
# and not with --startpoll: lvx's own lvconvert -m +1 of the active mirror writes the
# layer live), so it is seen running whatever the guest's speed (with +3 a slow guest's
# poller had looked, collapsed and left before the scan); then it is killed (the
# kill_me_ tag's purpose) and lvx's foreground lvconvert collapses s; LVM2's twin is
# layered by LVM2 (inactive) and collapses itself
mk_s() {
    D1=/dev/vda D2=/dev/vdb D3=/dev/vdc D4=/dev/vdd mk_layer $LVM_VG 4m s &&
        lvm lvcreate -q --type mirror -m1 -L 4m -n s $LVX_VG /dev/vde /dev/vdf /dev/vdg >/dev/null &&
        wait_sync lvm $LVX_VG/s &&
        dd if=/tmp/A of=/dev/$LVX_VG/s bs=1M count=4 oflag=direct status=none &&
        lvm vgchange -ay --poll n $LVM_VG >/dev/null && $LVX vgchange -ay --poll n $LVX_VG >/dev/null
}
check "LVM2 makes layered s in its VG, a plain mirror s in lvx's, activated with --poll n" mk_s
check "lvx lvconvert -m +1 -b -i +60 VG/s (LVM_TEST_TAG set)" \
    env LVM_TEST_TAG=kill_me_h123 $LVX lvconvert -m +1 -b -i +60 $LVX_VG/s /dev/vdh
note "$(lvm lvs -a $LVX_VG 2>&1 | grep -- ' s')"
check "lvx's detached poller runs with the caller's environment (LVM_TEST_TAG)" \
    poller_env "lvpoll --polloperation convert -i +60 $LVX_VG/s"
check "s still layered while the poller waits" layered $LVX_VG/s
kill_poller() {  # kill_poller TEXT: SIGTERM to the processes whose command line holds TEXT
    local d c n=0
    for d in /proc/[0-9]*; do
        c=$( { tr '\0' ' ' <$d/cmdline; } 2>/dev/null)
        [[ $c == *"$1"* ]] && kill ${d#/proc/} 2>/dev/null && n=$((n + 1))
    done
    ((n > 0))
}
check "lvx's waiting poller of s killed" kill_poller "lvpoll --polloperation convert -i +60 $LVX_VG/s"
collapse_s() { $LVX lvconvert $LVX_VG/s >/dev/null && ! layered $LVX_VG/s &&
    command lvm lvconvert $LVM_VG/s >/dev/null; }
check "lvx's lvconvert VG/s collapsed s, LVM2 collapses its own" collapse_s
t0=$SECONDS
out=$($LVX lvpoll --polloperation convert -i +2 $LVX_VG/zz 2>&1)
check_eq "lvpoll -i +2: two seconds before its first look" \
    "$((SECONDS - t0 >= 2)) $out" "1   Can't find LV in $LVX_VG for $LVX_VG/zz."
check_eq "metadata as LVM2's at the end" "$(meta $LVX $LVX_VG)" "$(meta lvm $LVM_VG)"
check_eq "dm tables as LVM2's at the end" "$(tables $LVX_VG)" "$(tables $LVM_VG)"
check "vgck of both, both deactivated" sh -c "lvm vgck $LVM_VG && lvm vgck $LVX_VG &&
    lvm vgchange -an $LVM_VG >/dev/null && $LVX vgchange -an $LVX_VG >/dev/null"
guest_done
