#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/dm-raid.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0710-kernel-raid.sh) with 10 virtio disks, lvx at /t/lvx and the host's
# LVM2/dmsetup.  Prints TAP (also to /out/result.tap when /out is shared).
#
#   vda-vde  VG "rl": every RAID type made and activated by LVM2
#   vdf-vdj  VG "rx": the same LVs, same commands, made and activated by lvx (dm backend)
#
# Checks, per LV: lvx's layout (rmeta/rimage PE ranges, segment keys) equals LVM2's;
# LVM2's vgck accepts lvx's VG and its metadata equals LVM2's (ids and times aside);
# `lvx lvtable` prints LVM2's `dmsetup table` line of LVM2's LVs and their sub-LVs;
# lvx's devices (tables with device numbers named, DM names, UUIDs, attributes) equal
# LVM2's; lvx's reports of LVM2's LVs equal LVM2's; the kernel syncs lvx's LVs; data
# written through lvx's devices reads back through LVM2's activation and the other way
# round; `lvchange --syncaction check` finds no mismatch; deactivation leaves nothing.
# shellcheck disable=SC2317,SC2086  # functions called through check(); lists split on purpose
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

RL_DISKS="/dev/vda /dev/vdb /dev/vdc /dev/vdd /dev/vde"
RX_DISKS="/dev/vdf /dev/vdg /dev/vdh /dev/vdi /dev/vdj"
# name and lvcreate arguments: every RAID type and option of this step
LVDEFS="r1:--type raid1 -m1 -L 12m
r1m2:--type raid1 -m2 -L 8m
m1:-m1 -L 8m
r10:--type raid10 -i2 -m1 -L 16m
r4:--type raid4 -i2 -L 8m
r5:--type raid5 -L 12m
r5la:--type raid5_la -i3 -I32k -L 12m
r5rs:--type raid5_rs -i2 -L 8m
r5ra:--type raid5_ra -i2 -L 8m
r5n:--type raid5_n -i2 -L 8m
r6:--type raid6 -L 12m
r6nr:--type raid6_nr -i3 -L 12m
r6nc:--type raid6_nc -i3 -L 12m
r0:--type raid0 -i3 -I128k -L 12m
r0m:--type raid0_meta -i2 -L 8m
ns:--type raid1 -m1 --nosync -L 8m
rate:--type raid5 -i2 --minrecoveryrate 1m --maxrecoveryrate 8m -L 8m
rs:--type raid1 -m1 -R 1m -L 8m
tg:--type raid5 -i2 --addtag tg1 -L 8m"
LVS=$(echo "$LVDEFS" | cut -d: -f1)
args_of() { echo "$LVDEFS" | awk -F: -v n="$1" '$1 == n { print $2 }'; }

# ---------------------------------------------------------------- create
lvm pvcreate -q $RL_DISKS >/dev/null && lvm vgcreate -q rl $RL_DISKS >/dev/null
$LVX pvcreate -q $RX_DISKS >/dev/null && $LVX vgcreate -q rx $RX_DISKS >/dev/null
for lv in $LVS; do
    a=$(args_of "$lv")
    check "LVM2 lvcreate $a -n $lv rl" lvm lvcreate -q -y $a -n "$lv" rl
    check "lvx lvcreate $a -n $lv rx (activated by lvx)" $LVX lvcreate -q -y $a -n "$lv" rx
done
emit "# created at ${SECONDS}s"

# ---------------------------------------------------------------- layout and metadata
# device names -> D0..D4 (position in the VG's disk list), VG name -> V
norm() {
    sed -e 's#/dev/vd[af](#D0(#g; s#/dev/vd[bg](#D1(#g; s#/dev/vd[ch](#D2(#g; s#/dev/vd[di](#D3(#g; s#/dev/vd[ej](#D4(#g' \
        -e 's#/dev/vd[af]:#D0:#g; s#/dev/vd[bg]:#D1:#g; s#/dev/vd[ch]:#D2:#g; s#/dev/vd[di]:#D3:#g; s#/dev/vd[ej]:#D4:#g'
}
layout() {  # layout VG: LVM2's report of every LV and sub-LV (one line per segment)
    lvm lvs -a --noheadings --segments --units s --separator ' ' \
        -o lv_name,segtype,lv_size,stripes,stripe_size,region_size,seg_pe_ranges,devices,lv_tags,raid_min_recovery_rate,raid_max_recovery_rate,lv_attr \
        "$1" 2>/dev/null | norm | sed 's/^ *//; s/[][]//g'
}
layout rl >/tmp/layout.rl
layout rx >/tmp/layout.rx
of_lv() { awk -v n="$1" '$1 == n || index($1, n "_rimage_") == 1 || index($1, n "_rmeta_") == 1' "$2"; }
for lv in $LVS; do
    check_eq "$lv: lvx's layout, sizes, keys and attributes equal LVM2's" "$(of_lv "$lv" /tmp/layout.rx)" "$(of_lv "$lv" /tmp/layout.rl)"
done
check "LVM2's vgck accepts lvx's VG" lvm vgck rx
meta() {  # the metadata text without ids, times, hosts and seqno
    lvm vgcfgbackup -q -f "/tmp/$1.vg" "$1" >/dev/null 2>&1
    sed -n '/^[a-z][a-z]* {/,$p' "/tmp/$1.vg" | sed -E '/^\t*(id|creation_time|creation_host|seqno|device|dev_size) = /d; s/^(r[lx]) \{/V {/'
}
check_eq "lvx's metadata text equals LVM2's (ids, times, hosts aside)" "$(meta rx)" "$(meta rl)"

# ---------------------------------------------------------------- tables
# a table with every maj:min replaced by the device's name, the VG name by V
names() {
    dmsetup info -c --noheadings --separator ' ' -o major,minor,name | awk '{ printf "s/ %s:%s( |$)/ %s\\1/g;", $1, $2, $3 }'
    for d in a b c d e f g h i j; do printf 's/ %s( |$)/ vd%s\\1/g;' "$(cat /sys/block/vd$d/dev)" "$d"; done
}
# every device's table, one line "<name>: <table line>" with numbers named, VG -> V
dump_tables() {
NAMES=$(names)
dmsetup table | grep -E '^r[lx]-' | sed -E "s/^([^:]*): /\\1: /; $NAMES" |
    sed -E 's/ r[lx]-/ V-/g; s/ vd[af]( |$)/ D0\1/g; s/ vd[bg]( |$)/ D1\1/g; s/ vd[ch]( |$)/ D2\1/g; s/ vd[di]( |$)/ D3\1/g; s/ vd[ej]( |$)/ D4\1/g' |
    sort >/tmp/tables
}
dump_tables
dev_lines() {  # dev_lines VG LV: the tables of the LV's device and its sub-LVs' devices
    awk -v p="$1-$2" '{ n = $1; sub(/:$/, "", n) } n == p || index(n, p "_rimage_") == 1 || index(n, p "_rmeta_") == 1' /tmp/tables |
        sed "s/^$1-//"
}
for lv in $LVS; do
    check_eq "$lv: lvx's dm devices and tables equal LVM2's (device numbers named)" "$(dev_lines rx "$lv")" "$(dev_lines rl "$lv")"
done
emit "# $(grep -c '^rl-' /tmp/tables) table lines compared per VG"
# lvtable computes the table from the metadata: a --nosync LV's "nosync" is only in the
# table of its first activation (LVM2's too), so rl/ns is compared without it
subs=$(dmsetup ls | awk '$1 ~ /^rl-/ { sub(/^rl-/, "rl/", $1); print $1 }' | sort)
check_eq "lvx lvtable of every LVM2 device (LVs and sub-LVs) prints LVM2's dmsetup table" \
    "$($LVX lvtable $subs 2>&1 | sort)" \
    "$(dmsetup table | grep '^rl-' | sed 's/^\(rl-ns: .* raid raid1\) 4 0 nosync /\1 3 0 /' | sort)"
check_eq "the live table of LVM2's --nosync LV has nosync" "$(dmsetup table rl-ns | grep -c ' nosync ')" 1
uuids=$(lvm lvs -a --noheadings --separator ' ' -o vg_name,lv_name,vg_uuid,lv_uuid rl rx 2>/dev/null | tr -d '[]')
dminfo=$(dmsetup info -c --noheadings --separator ' ' -o name,uuid,attr,open)
bad=$( { echo "$uuids"; echo --; echo "$dminfo"; } | awk '
    $0 == "--" { sep = 1; next }
    !sep { v = $3 $4; gsub(/-/, "", v); u[$1 "-" $2] = v; next }
    $1 ~ /^r[lx]-/ { n++; if ($2 != "LVM-" u[$1]) print $1, $2, "want LVM-" u[$1] }
    END { if (n < 100) print "only", n, "devices" }')
check_eq "every device of both VGs has LVM2's DM name and UUID (LVM-<vg uuid><lv uuid>)" "$bad" ""
check_eq "attributes and open counts of lvx's devices equal LVM2's" \
    "$(awk '$1 ~ /^rx-/ { sub(/^rx-/, "", $1); print $1, $3, $4 }' <<<"$dminfo")" \
    "$(awk '$1 ~ /^rl-/ { sub(/^rl-/, "", $1); print $1, $3, $4 }' <<<"$dminfo")"
check_eq "hidden sub-LVs have no /dev/rx link, LVs have theirs" "$(ls /dev/rx | sort | tr '\n' ' ')" \
    "$(ls /dev/rl | sort | tr '\n' ' ')"

# ---------------------------------------------------------------- lvx's reports of LVM2's LVs
F=lv_name,segtype,lv_size,stripes,stripe_size,region_size,devices,seg_pe_ranges,lv_tags
check_eq "lvx lvs -a --segments of LVM2's RAID LVs equals LVM2's" \
    "$($LVX lvs -a --segments --units s -o $F rl 2>&1)" "$(lvm lvs -a --segments --units s -o $F rl 2>&1)"

# ---------------------------------------------------------------- sync, data, both directions
insync() {  # RAID LVs of the VGs not in sync yet (raid0: no sync field)
    lvm lvs --noheadings -o sync_percent "$@" 2>/dev/null | trim | grep -v -e '^$' -e '^100.00$' | wc -l
}
for i in $(seq 1 100); do [ "$(insync rl rx)" = 0 ] && break; sleep 2; done
check_eq "the kernel synced lvx's RAID LVs (sync_percent 100)" "$(insync rx)" 0
emit "# synced at ${SECONDS}s"
for lv in $LVS; do
    dd if=/dev/urandom of=/tmp/d.$lv bs=1M count=1 status=none
    dd if=/tmp/d.$lv of=/dev/mapper/rx-$lv bs=1M seek=1 oflag=direct status=none
    dd if=/dev/urandom of=/tmp/e.$lv bs=1M count=1 status=none
    dd if=/tmp/e.$lv of=/dev/mapper/rl-$lv bs=1M seek=1 oflag=direct status=none
done
check "lvx vgchange -an rx" $LVX vgchange -an rx
check_eq "no rx device left" "$(dmsetup ls | grep -c '^rx-')" 0
check "LVM2 vgchange -an rl" lvm vgchange -an rl
check "LVM2 activates lvx's VG" lvm vgchange -ay rx
check "lvx activates LVM2's VG" $LVX vgchange -ay rl
for lv in $LVS; do
    check "$lv: data written through lvx's device reads back through LVM2's, and the other way" sh -c \
        "dd if=/dev/mapper/rx-$lv bs=1M skip=1 count=1 iflag=direct status=none | cmp - /tmp/d.$lv &&
         dd if=/dev/mapper/rl-$lv bs=1M skip=1 count=1 iflag=direct status=none | cmp - /tmp/e.$lv"
done
for lv in r1 r10 r5 r6 r5la; do
    lvm lvchange -q --syncaction check rx/$lv >/dev/null 2>&1
done
for i in $(seq 1 60); do
    [ "$(lvm lvs --noheadings -o raid_sync_action rx 2>/dev/null | grep -c check)" = 0 ] && break; sleep 1
done
check_eq "--syncaction check: no mismatch on lvx's raid1/raid10/raid5/raid6 LVs, all healthy" \
    "$(lvm lvs --noheadings -o lv_name,raid_mismatch_count,lv_health_status rx/r1 rx/r10 rx/r5 rx/r6 rx/r5la 2>/dev/null | trim | tr '\n' ' ')" \
    "r10 r100 r50 r5la0 r60 "
F2=lv_name,lv_attr,sync_percent,raid_sync_action,raid_mismatch_count,lv_health_status,copy_percent
check_eq "lvx's RAID status fields (sync, action, mismatches, health) equal LVM2's, both VGs" \
    "$($LVX lvs -a -o $F2 rl rx 2>&1)" "$(lvm lvs -a -o $F2 rl rx 2>&1)"
dump_tables
bad=""
for lv in $LVS; do [ "$(dev_lines rx "$lv")" = "$(dev_lines rl "$lv")" ] || bad="$bad $lv"; done
check_eq "lvx's activation of LVM2's LVs equals LVM2's activation of lvx's (every table)" "$bad" ""
check "lvx vgchange -an rl" $LVX vgchange -an rl
check_eq "no rl device left" "$(dmsetup ls | grep -c '^rl-')" 0
check "lvx lvremove -y of an active RAID LV of LVM2's making" sh -c "$LVX lvchange -ay rx/r6 && $LVX lvremove -y rx/r6"
check_eq "its device and sub-LV devices are gone" "$(dmsetup ls | awk '{ print $1 }' | grep -c -E '^rx-r6($|_)')" 0
check "LVM2's vgck accepts the VG after lvx's lvremove" lvm vgck rx

# ---------------------------------------------------------------- other free-space shapes
# holes left by removed LVs, PV lists, LVs larger than any hole: each tool on its own VG
lvm lvremove -q -y rl/r6 >/dev/null 2>&1
check "LVM2 lvremove r1 r5la r0 r10 (holes in rl)" lvm lvremove -q -y rl/r1 rl/r5la rl/r0 rl/r10
check "lvx lvremove r1 r5la r0 r10 (the same holes in rx)" $LVX lvremove -q -y rx/r1 rx/r5la rx/r0 rx/r10
HOLES="h1:--type raid1 -m1 -L 20m
h2:--type raid5 -i3 -L 36m
h3:--type raid10 -i2 -m1 -L 8m %1 %2 %3 %4
h4:--type raid6 -i3 -L 60m
h5:-m1 -L 100m %0 %2
h6:--type raid4 -i2 -l 3 %4 %3 %2
h7:-m1 -L 40m %0 %2"
for lv in $(echo "$HOLES" | cut -d: -f1); do
    a=$(echo "$HOLES" | awk -F: -v n="$lv" '$1 == n { print $2 }')
    opts=${a%% %*}
    pvl=""; pvx=""
    for p in $(echo "$a" | grep -o '%[0-4]'); do
        i=${p#%}
        pvl="$pvl $(echo $RL_DISKS | cut -d' ' -f$((i + 1)))"
        pvx="$pvx $(echo $RX_DISKS | cut -d' ' -f$((i + 1)))"
    done
    al="$opts -n $lv rl$pvl"
    ax="$opts -n $lv rx$pvx"
    outl=$(lvm lvcreate -q -y -an $al 2>&1); rcl=$?
    outx=$($LVX lvcreate -q -y -an $ax 2>&1); rcx=$?
    check_eq "lvcreate -an $a -n $lv: lvx's exit status and errors equal LVM2's" \
        "$rcx $(echo "$outx" | grep -v -e WARNING -e "created\." -e "Using default" -e "Rounding size")" "$rcl $(echo "$outl" | grep -v -e WARNING -e "created\." -e "Using default" -e "Rounding size")"
done
layout rl >/tmp/layout.rl
layout rx >/tmp/layout.rx
for lv in $(echo "$HOLES" | cut -d: -f1); do
    check_eq "$lv (holes, PV lists): lvx's layout equals LVM2's" "$(of_lv "$lv" /tmp/layout.rx)" "$(of_lv "$lv" /tmp/layout.rl)"
done
check_eq "after the holes: lvx's metadata text equals LVM2's (ids, times, hosts aside)" "$(meta rx)" "$(meta rl)"

lvm vgchange -an rx >/dev/null 2>&1
guest_done
