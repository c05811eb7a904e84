#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/raid-stripes.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0761-kernel-raid-stripes.sh), twin VGs of 6 disks (tests/kernel/raid-twins.sh:
# "rl" changed by LVM2, "rx" by lvx): `lvconvert --stripes N` adding stripes to an
# active raid5 (-i3 -> 4), raid6 (-i3 -> 4) and raid4 (-i2 -> 3) LV holding 12 MiB of random data, by
# LVM2 on rl and by lvx on rx (raid5 first unanswered, without -y: both NOT converted):
# the same exit status and output, the kernel's reshape
# runs to its end in both, then the same layout, metadata text and dm tables, the data
# intact and the same new size; the reshaped LVs deactivated and activated again by
# each tool give the same tables and the data.  Then (lvx only) reshape space that
# would not be one linear segment is refused before any write.  What each tool wrote
# (metadata, tables, status, lvs) goes to /out/rec.
# shellcheck disable=SC2317,SC2086
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh
TWIN_DISKS=6
# shellcheck source=tests/kernel/raid-twins.sh
. /t/raid-twins.sh
R=/out/rec
mkdir -p $R
sums() { dd if=/dev/mapper/$1-$2 bs=1M count=12 iflag=direct status=none | sha256sum; }
dd if=/dev/urandom of=/tmp/data bs=1M count=12 status=none
want=$(sha256sum </tmp/data)
LVS=""
size() { lvm lvs --noheadings -o lv_size $1/$2 | trim; }

check "LVM2: pvcreate, vgcreate rl" sh -c "lvm pvcreate -q $RL_DISKS && lvm vgcreate -q rl $RL_DISKS"
check "lvx: pvcreate, vgcreate rx" sh -c "$LVX pvcreate -q $RX_DISKS && $LVX vgcreate -q rx $RX_DISKS"

reshape() {    # reshape TYPE STRIPES NEW: lvcreate --type TYPE -i STRIPES -L 12m, add to NEW
    local t=$1 i=$2 n=$3 vg
    check "$t -i$i: created by LVM2 on rl, by lvx on rx" sh -c \
        "lvm lvcreate -q -y --type $t -i$i -L 12m -n a rl && $LVX lvcreate -q -y --type $t -i$i -L 12m -n a rx"
    check "$t: both in sync" idle
    for vg in rl rx; do dd if=/tmp/data of=/dev/mapper/$vg-a bs=1M oflag=direct status=none; done
    record $t-before
    if [ "$t" = raid5 ]; then  # LVM2 asks; no answer is no: nothing changed
        conv "$t --stripes $n unanswered (no -y): NOT converted" --stripes $n V/a
        check_eq "$t: unanswered, lvx's metadata text still equals LVM2's" "$(meta rx)" "$(meta rl)"
    fi
    conv "$t --stripes $n of the active LV" -y --stripes $n V/a
    record $t-conv
    check "$t: the kernel's reshape runs to its end in both" idle
    record $t-done
    check_eq "$t: lvx's layout equals LVM2's" "$(layout rx)" "$(layout rl)"
    check_eq "$t: lvx's metadata text equals LVM2's (ids, times aside)" "$(meta rx)" "$(meta rl)"
    check_eq "$t: lvx's dm tables equal LVM2's (device numbers named)" "$(tables rx)" "$(tables rl)"
    check_eq "$t: the data intact in rl" "$(sums rl a)" "$want"
    check_eq "$t: the data intact in rx" "$(sums rx a)" "$want"
    check_eq "$t: the new size (LVM2's report of rx equals that of rl)" "$(size rx a)" "$(size rl a)"
    check "$t: deactivated (LVM2 rl, lvx rx)" sh -c "lvm lvchange -an rl/a && $LVX lvchange -an rx/a"
    check "$t: activated again (LVM2 rl, lvx rx)" sh -c "lvm lvchange -ay rl/a && $LVX lvchange -ay rx/a"
    record $t-react
    check_eq "$t: lvx's tables after the activation equal LVM2's" "$(tables rx)" "$(tables rl)"
    check_eq "$t: the data intact after it (rx)" "$(sums rx a)" "$want"
    check_eq "$t: lvx's report of the reshaped LV equals LVM2's" \
        "$($LVX lvs -a --noheadings -o lv_name,segtype,stripes,reshape_len_le,lv_size rx | sed 's/^ *//')" \
        "$(lvm lvs -a --noheadings -o lv_name,segtype,stripes,reshape_len_le,lv_size rx | sed 's/^ *//')"
    check "$t: LVM2's vgck of rx passes" lvm vgck rx
    check "$t: removed" sh -c "lvm lvremove -q -y rl/a && $LVX lvremove -q -y rx/a"
}
reshape raid5 3 4
reshape raid6 3 4
reshape raid4 2 3

# lvx only: reshape space that cannot be one linear segment (review s7 R1).  rx again
# with 512 KiB extents (1 MiB of reshape space = 2 extents per image); raid5 -i2 on
# disks 0-2, then every free extent of those disks taken but two 1-extent holes each:
# --stripes 3 onto disks 0-3 would split each image's reshape space in two.  lvx
# refused after its first commit (reshape_count left, the LV refused afterwards); now
# before any write: exit 5, one error line, the seqno and the LV unchanged, the data
# intact.
seqno() { $LVX vgs --noheadings -o vg_seqno rx | trim; }
check "lvx: rx again with 512 KiB extents" sh -c \
    "$LVX vgremove -q -y rx && $LVX vgcreate -q -s 512k rx $RX_DISKS"
D0=$(disk 0 "$RX_DISKS") D1=$(disk 1 "$RX_DISKS") D2=$(disk 2 "$RX_DISKS") D3=$(disk 3 "$RX_DISKS")
check "raid5 -i2 -L 12m on disks 0-2" $LVX lvcreate -q -y --type raid5 -i2 -L 12m -n a rx $D0 $D1 $D2
check "a in sync" idle
dd if=/tmp/data of=/dev/mapper/rx-a bs=1M oflag=direct status=none
frag_ok=0
for d in $D0 $D1 $D2; do
    k=$($LVX pvs --noheadings -o pv_pe_alloc_count $d | trim)
    t=$($LVX pvs --noheadings -o pv_pe_count $d | trim)
    n=${d#/dev/}
    $LVX lvcreate -q -y -l1 -n fa$n rx $d:$k >/dev/null 2>&1 &&
        $LVX lvcreate -q -y -l1 -n fb$n rx $d:$((k + 2)) >/dev/null 2>&1 &&
        $LVX lvcreate -q -y -l$((t - k - 4)) -n fc$n rx $d:$((k + 4))-$((t - 1)) >/dev/null 2>&1 &&
        frag_ok=$((frag_ok + 1))
done
check_eq "disks 0-2 each left with two 1-extent holes" \
    "$frag_ok $($LVX pvs --noheadings -o pv_free --units k --nosuffix $D0 $D1 $D2 | trim | sort -u)" \
    "3 1024.00"
s0=$(seqno)
out=$($LVX lvconvert -y --stripes 3 rx/a $D0 $D1 $D2 $D3 </dev/null 2>&1); rc=$?
check_eq "--stripes 3: exit 5" "$rc" 5
check_eq "... after LVM2's warnings, the refusal: the reshape space is not one linear segment" \
    "$(printf '%s\n' "$out" | grep -vc '^  WARNING: \|^  Run "lvresize\|^  Using default stripesize') $(printf '%s\n' "$out" | tail -n1)" \
    "1   lvx cannot reshape rx/a: the reshape space of a_rimage_0 (2 extents) is not one linear segment on one PV; free 2 contiguous extents there first."
check_eq "... the metadata not committed (seqno $s0)" "$(seqno)" "$s0"
check_eq "... a unchanged: raid5, 3 images, no reshape space" \
    "$($LVX lvs --noheadings -o segtype,stripes,reshape_len_le rx/a | sed 's/^ *//; s/  */ /g')" "raid5 3 0"
check_eq "... the data intact" "$(sums rx a)" "$want"
check "... LVM2's vgck of rx passes" lvm vgck rx
check "the fillers and a removed" sh -c "$LVX lvremove -q -y rx"
dmesg | tail -n 60 >$R/dmesg
lvm vgchange -an rl rx >/dev/null 2>&1
guest_done
