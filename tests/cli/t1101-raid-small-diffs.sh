#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1101-raid-small-diffs: small RAID/mirror differences from LVM2 2.03.16 + the kernel
# (dm-raid of Linux 6.12), user-space activation (the lvx daemon) over three loop
# devices, LVM2 (activation off) on the same devices where it can answer:
#   1. lvconvert -m1 of an active linear LV: LVM2 loads the new image with "rebuild 1"
#      and dm-raid recovers it from image 0 (status "Aa ... recover": lv_attr of
#      rimage_0 'i', of rimage_1 'I'); the daemon did a whole-array resync ("aa",
#      "resync", both images 'I').  -m +1 of the raid1: "AAa", "recover" (as before).
#   2. lvs -o data_offset,new_data_offset: the kernel's data offset for a reshapable
#      RAID LV (raid4/5/6/10) and its images' first segments (found by LVM2's name cut
#      at the first '_': an LV named r_4 has blank image rows, reshape_len too), blank
#      for raid1/raid0 and inactive LVs (lvx printed blanks everywhere).
#   3. lvconvert --type raid1 (no -m) of a linear origin of COW snapshots: LVM2's
#      "VG/LV must be active to perform this operation." when inactive (compared with
#      LVM2's), "Can't convert RAID LV VG/LV while under snapshot." after its question
#      when active; exit 5, no write (lvx: "it is a sub-LV (origin)").
#   4. lvcreate --type mirror -m1 -l 100%FREE: LVM2's approximate allocation makes the
#      images as large as images and disk log fit (3 PVs: a whole PV each, the log on the
#      third; 2 PVs: one extent less, the log after the second image), as seen in the
#      guest; lvx refused ("Insufficient suitable allocatable extents").
#   5. new sub-LV names skip historical LVs' (LVM2's generate_lv_name, each kind on its
#      own): raid1 h with historical h_rimage_4 and h_rmeta_3 gets h_rimage_5 and
#      h_rmeta_4 from -m +1 (lvx: h_rimage_2, h_rmeta_2); with a historical lvol7,
#      lvcreate without -n makes lvol8 (lvx: lvol0).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgsd$$
uspace_test_loops "$VG" 3 400M
LOG=$LVX_RUN_DIR/lvxd.log

lvsf() { lvx lvs --noheadings -a -o "$2" "$VG/$1" 2>/dev/null | tr -d ' '; }
attrs() {  # attrs LV...: "name:X" of each, X lv_attr's first letter (the images' 'i'
    local l  # in sync, 'I' not; the user backend has no devices of sub-LVs: no 'ao')
    for l in "$@"; do a=$(lvsf "$l" lv_attr); printf '%s:%s ' "$l" "${a:0:1}"; done
}
wait_idle() {
    for _ in $(seq 600); do
        [[ $(lvsf "$1" raid_sync_action) == idle && $(lvsf "$1" sync_percent) == 100.00 ]] &&
            return 0
        sleep 0.2
    done
    return 1
}
deact() {  # deact VG: vgchange -an, again while a prober holds an LV open
    for _ in $(seq 30); do lvx vgchange -an "$1" && return 0; sleep 0.2; done
    return 1
}
seqno() { lvm2 vgs --noheadings -o vg_seqno "$VG" 2>/dev/null | tr -d ' '; }

uspace_run_ok "pvcreate, vgcreate $VG" sh -c "'$LVX' pvcreate -q ${DEVS[*]} && '$LVX' vgcreate -q $VG ${DEVS[*]}"

# ---- 1. linear -> raid1 and -m +1: recover, not resync
uspace_run_ok "lvcreate -L 320m -n lin (linear, active)" lvx lvcreate -q -Zn -L 320m -n lin "$VG" "${DEVS[0]}"
head -c 4194304 /dev/urandom >"$SCRATCH/a.bin"
uspace_run_ok "4 MiB written" dd if="$SCRATCH/a.bin" of="$DM_DEV_DIR/$VG/lin" bs=1M oflag=direct status=none
uspace_run_ok "lvconvert -y -m1 $VG/lin" lvx lvconvert -y -m1 "$VG/lin" "${DEVS[1]}"
lvx lvchange -q --maxrecoveryrate 1m "$VG/lin" >/dev/null 2>&1
test_eq "during the copy: sync action recover (dm-raid's, with LVM2's rebuild 1)" \
    "$(lvsf lin raid_sync_action)" "recover"
test_eq "during the copy: rimage_0 in sync (i), rimage_1 not (I), as LVM2 + the kernel" \
    "$(attrs lin lin_rimage_0 lin_rimage_1)" \
    "lin:r lin_rimage_0:i lin_rimage_1:I "
test_eq "the daemon rebuilds leg 1 from leg 0 (no full initial sync)" \
    "$(grep -c 'lin: new RAID set: leg 1 is rebuilt' "$LOG") $(grep -c 'lin: new RAID set: full initial sync' "$LOG")" "1 0"
lvx lvchange -q --maxrecoveryrate 0 "$VG/lin" >/dev/null 2>&1
test_ok "the copy ends: idle, 100.00 (polled)" wait_idle lin
test_eq "then both images in sync" "$(attrs lin_rimage_0 lin_rimage_1)" \
    "lin_rimage_0:i lin_rimage_1:i "
test_eq "the data kept" "$(head -c 4194304 "$DM_DEV_DIR/$VG/lin" | sha256sum)" "$(sha256sum <"$SCRATCH/a.bin")"
# the rate set before the conversion too (kept in the raid1 segment): under load the
# 320 MiB copy once ended before an lvchange after the conversion took effect (CI)
lvx lvchange -q --maxrecoveryrate 1m "$VG/lin" >/dev/null 2>&1
uspace_run_ok "lvconvert -y -m +1 $VG/lin" lvx lvconvert -y -m +1 "$VG/lin" "${DEVS[2]}"
lvx lvchange -q --maxrecoveryrate 1m "$VG/lin" >/dev/null 2>&1
test_eq "-m +1: recover, the new image I, the others i" \
    "$(lvsf lin raid_sync_action) $(attrs lin_rimage_0 lin_rimage_1 lin_rimage_2)" \
    "recover lin_rimage_0:i lin_rimage_1:i lin_rimage_2:I "
lvx lvchange -q --maxrecoveryrate 0 "$VG/lin" >/dev/null 2>&1
test_ok "-m +1: the copy ends (polled)" wait_idle lin
uspace_run_ok "lvremove lin" lvx lvremove -q -y "$VG/lin"

# ---- 2. data_offset / new_data_offset
F=lv_name,data_offset,new_data_offset,reshape_len_le
rep() { lvx lvs --noheadings -a -o $F "$@" 2>&1 | sed -e 's/^ *//' -e 's/  */ /g' -e 's/ *$//' | paste -sd'|'; }
uspace_run_ok "lvcreate raid5 r5, raid1 r1, raid4 r_4 (8 MiB each)" sh -c "
    '$LVX' lvcreate -q -Zn --type raid5 -i2 -L 8m -n r5 $VG &&
    '$LVX' lvcreate -q -Zn --type raid1 -m1 -L 8m -n r1 $VG &&
    '$LVX' lvcreate -q -Zn --type raid4 -i2 -L 8m -n r_4 $VG" 2>/dev/null
test_eq "raid5: the kernel's data offset 0 on the LV and its images, blank on rmeta" \
    "$(rep "$VG/r5" "$VG/r5_rimage_0" "$VG/r5_rmeta_0")" \
    "r5 0 0 0|[r5_rimage_0] 0 0 0|[r5_rmeta_0]"
test_eq "raid1: blank" "$(rep "$VG/r1" "$VG/r1_rimage_0")" "r1|[r1_rimage_0]"
test_eq "r_4: the LV 0, its images blank (LVM2 looks for an LV named r)" \
    "$(rep "$VG/r_4" "$VG/r_4_rimage_0")" "r_4 0 0 0|[r_4_rimage_0]"
uspace_run_ok "lvchange -an r5" lvx lvchange -an "$VG/r5"
test_eq "inactive: blank data offsets, reshape_len kept" \
    "$(rep "$VG/r5" "$VG/r5_rimage_0")" "r5 0|[r5_rimage_0] 0"
uspace_run_ok "lvremove r5 r1 r_4" lvx lvremove -q -y "$VG/r5" "$VG/r1" "$VG/r_4"

# ---- 3. --type raid1 of a linear origin
uspace_run_ok "lvcreate o, snapshot s of o" sh -c "'$LVX' lvcreate -q -Zn -L 8m -n o $VG ${DEVS[0]} &&
    '$LVX' lvcreate -q -s -L 4m -n s $VG/o"
s0=$(seqno)
out=$(lvx lvconvert -y --type raid1 "$VG/o" 2>&1)
test_eq "active: LVM2's refusal of a RAID takeover under snapshot, exit 5" "$? $out" \
    "5   Can't convert RAID LV $VG/o while under snapshot."
out=$(echo n | lvx lvconvert --type raid1 "$VG/o" 2>&1)
test_eq "active, answered n: LVM2's question first" "$? $(tr '\n' '|' <<<"$out")" \
    "5 Are you sure you want to convert linear LV $VG/o to raid1 type? [y/n]:   Logical volume $VG/o NOT converted.|"
test_eq "no metadata written" "$(seqno)" "$s0"
uspace_run_ok "vgchange -an" deact "$VG"
same_refusal "inactive: lvconvert -y --type raid1 VG/o" lvconvert -y --type raid1 "$VG/o"
test_eq "no metadata written" "$(seqno)" "$s0"
uspace_run_ok "lvremove s o" lvx lvremove -q -y "$VG/s" "$VG/o"

# ---- 4. mirror -l 100%FREE
# (\b: /dev/loop1 must not match the start of /dev/loop17)
mlayout() {
    lvm2 lvs -a --noheadings -o name,seg_pe_ranges "$VG" 2>/dev/null | sed -e 's/^ *//' -e 's/ *$//' \
        -e 's/  */ /g' -e "s|${DEVS[0]}\b|D0|g;s|${DEVS[1]}\b|D1|g;s|${DEVS[2]}\b|D2|g" | sort | paste -sd'|'
}
pe=$(lvm2 pvs --noheadings -o pv_pe_count "${DEVS[0]}" 2>/dev/null | tr -d ' ')
l=$((pe - 1))
out=$(lvx lvcreate --config global/activation=1 -an -Zn -q -y --type mirror -m1 -l 100%FREE -n mm "$VG" 2>&1)
test_eq "3 PVs: lvcreate --type mirror -m1 -l 100%FREE (exit 0)" "$? $(grep -c 'Logical volume "mm" created' <<<"$out")" "0 1"
test_eq "3 PVs: whole PVs for the images, the log on the third (LVM2's layout in the guest)" \
    "$(mlayout)" "[mm_mimage_0] D0:0-$l|[mm_mimage_1] D1:0-$l|[mm_mlog] D2:0-0|mm mm_mimage_0:0-$l mm_mimage_1:0-$l"
lvx lvremove -q -y "$VG/mm" >/dev/null 2>&1
uspace_run_ok "vgreduce the third PV" lvx vgreduce -q "$VG" "${DEVS[2]}"
out=$(lvx lvcreate --config global/activation=1 -an -Zn -q -y --type mirror -m1 -l 100%FREE -n mm "$VG" 2>&1)
test_eq "2 PVs: lvcreate --type mirror -m1 -l 100%FREE (exit 0)" "$? $(grep -c 'Logical volume "mm" created' <<<"$out")" "0 1"
m=$((l - 1))
test_eq "2 PVs: one extent less, the log after the second image" \
    "$(mlayout)" "[mm_mimage_0] D0:0-$m|[mm_mimage_1] D1:0-$m|[mm_mlog] D1:$l-$l|mm mm_mimage_0:0-$m mm_mimage_1:0-$m"
lvx lvremove -q -y "$VG/mm" >/dev/null 2>&1
uspace_run_ok "vgextend the third PV back" lvx vgextend -q "$VG" "${DEVS[2]}"

# ---- 5. historical LV names
uspace_run_ok "lvcreate --type raid1 -m1 -L 8m -n h" lvx lvcreate -q -Zn --type raid1 -m1 -L 8m -n h "$VG" "${DEVS[0]}" "${DEVS[1]}"
wait_idle h
uspace_run_ok "vgchange -an" deact "$VG"
lvx vgcfgbackup -q -f "$SCRATCH/h.vg" "$VG" >/dev/null 2>&1
awk '/^\tlogical_volumes \{/ && !done {
        print "\thistorical_logical_volumes {\n\n\t\th_rimage_4 {\n\t\t\tid = \"aaaaaa-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\"\n\t\t\tcreation_time = 1700000000\n\t\t\tremoval_time = 1700000100\n\t\t}\n\n\t\th_rmeta_3 {\n\t\t\tid = \"bbbbbb-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\"\n\t\t\tcreation_time = 1700000000\n\t\t\tremoval_time = 1700000100\n\t\t}\n\n\t\tlvol7 {\n\t\t\tid = \"cccccc-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\"\n\t\t\tcreation_time = 1700000000\n\t\t\tremoval_time = 1700000100\n\t\t}\n\t}\n"
        done = 1 }
     { print }' "$SCRATCH/h.vg" >"$SCRATCH/h2.vg"
uspace_run_ok "vgcfgrestore with historical LVs h_rimage_4, h_rmeta_3, lvol7" lvx vgcfgrestore -q -f "$SCRATCH/h2.vg" "$VG"
test_eq "LVM2 reads the historical LV" \
    "$(lvm2 lvs --noheadings -H -o name -S 'lv_historical=1' "$VG" 2>/dev/null | tr -d ' ' | sort | paste -sd' ')" "-h_rimage_4 -h_rmeta_3 -lvol7"
uspace_run_ok "vgchange -ay" lvx vgchange -ay "$VG"
uspace_run_ok "lvconvert -y -m +1 $VG/h" lvx lvconvert -y -m +1 "$VG/h" "${DEVS[2]}"
test_eq "the new image and metadata LVs skip the historical names (h_rimage_5, h_rmeta_4)" \
    "$(lvx lvs --noheadings -a -o name "$VG" 2>/dev/null | tr -d ' []' | grep '^h_' | sort | paste -sd' ')" \
    "h_rimage_0 h_rimage_1 h_rimage_5 h_rmeta_0 h_rmeta_1 h_rmeta_4"
test_ok "h in sync (polled)" wait_idle h
lout=$(lvm2 lvcreate --test -Zn -an -L 4m "$VG" 2>&1)
out=$(lvx lvcreate -q -Zn -an -L 4m "$VG" 2>&1)
test_eq "lvcreate without -n: lvol8 after the historical lvol7, as LVM2's (--test)" \
    "$(grep -o 'Logical volume "[^"]*" created' <<<"$out") $(grep -o 'Logical volume "[^"]*" created' <<<"$lout")" \
    'Logical volume "lvol8" created Logical volume "lvol8" created'
uspace_run_ok "vgchange -an" deact "$VG"
done_testing
