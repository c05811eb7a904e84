#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1080-thin-repair-raid-tmeta: `lvconvert --repair VG/POOL PV` of a thin pool whose
# _tmeta (and _tdata) are raid1 LVs, as LVM2 2.03.16's lvconvert-repair-thin-raid.sh
# (lvx refused it: "Segment type "raid1" of LV VG/pool_tmeta is not supported by the
# mapper"), on the host in the user-space backend:
#   - a raid1 LV is accepted as a pool's new metadata by the swap (lvconvert --thinpool
#     VG/POOL --poolmetadata META, LVM2's linear/striped/raid), its images renamed with it
#     (pool_tmeta_rimage_N), as LVM2's lv_rename_update;
#   - thin_repair reads the raid1 _tmeta through its first image (as the md device serves
#     an in-sync raid1): the repaired metadata lands in the spare, which becomes a linear
#     _tmeta with the old _tmeta's UUID; the old raid1 _tmeta is the visible pool_meta0
#     (role public, layout raid,raid1), its images pool_meta0_rimage_N; the new spare goes
#     on the PV named; LVM2 reads all of it (the lvs fields are LVM2's);
#   - the thin LV, written before, activates over the repaired pool and reads its bytes.
# (The user-space backend serves no pool over a raid1 _tmeta: the pool is made linear and
# its metadata copied into a raid1 LV swapped in.)
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/uspace-env.sh"

VG=vgrtr$$
need_cmd thin_check thin_repair
uspace_test_loops "$VG" 4 64M
lvf() { lvm2 lvs -a --noheadings -o "$2" "$VG/$1" 2>/dev/null | sed 's/^ *//; s/ *$//'; }
uuid() { lvf "$1" lv_uuid; }
names() { lvm2 lvs -a --noheadings -o lv_name "$VG" 2>/dev/null | tr -d ' []' | sort | paste -sd' '; }

uspace_run_ok "pvcreate, vgcreate on 4 PVs" sh -c \
    "$LVX pvcreate -q ${DEVS[*]} && $LVX vgcreate -q $VG ${DEVS[*]}"
# the user-space backend serves no pool over a raid1 _tmeta: the pool is made linear, its
# thin LV written, then its metadata copied into a raid1 LV that is swapped in
uspace_run_ok "pool -L8 with thin -V16M (lvcreate -T, D0 D1)" \
    lvx lvcreate -q -T -L8M -V16M -n thin "$VG/pool" "${DEVS[0]}" "${DEVS[1]}"
uspace_run_ok "4 MiB written to thin" \
    dd if=/dev/urandom of="$DM_DEV_DIR/$VG/thin" bs=1M count=4 oflag=direct status=none
sum=$(lv_sum "$VG/thin")
uspace_run_ok "VG deactivated" lvx vgchange -q -an "$VG"
msize=$(lvx lvs -a --noheadings --units s --nosuffix -o lv_size "$VG/pool_tmeta" 2>/dev/null | tr -d ' ')
uspace_run_ok "lin (linear) and meta (raid1, D1 D3), ${msize}s each" sh -c "
    $LVX lvcreate -q -an -Zn -L${msize}s -n lin $VG ${DEVS[3]} &&
    $LVX lvcreate -q -an -Zn --type raid1 -m1 --nosync -L${msize}s -n meta $VG ${DEVS[1]} ${DEVS[3]}"
uspace_run_ok "the pool's metadata swapped into lin, copied into meta, meta swapped in" sh -c "
    $LVX lvconvert -q -y --thinpool $VG/pool --poolmetadata $VG/lin &&
    $LVX lvchange -q -ay $VG/lin $VG/meta &&
    dd if=$DM_DEV_DIR/$VG/lin of=$DM_DEV_DIR/$VG/meta bs=1M oflag=direct status=none &&
    $LVX lvchange -q -an $VG/lin $VG/meta &&
    $LVX lvconvert -q -y --thinpool $VG/pool --poolmetadata $VG/meta &&
    $LVX lvremove -q -y $VG/meta $VG/lin"
test_eq "pool_tmeta: role private,thin,pool,metadata, layout raid,raid1" \
    "$(lvf pool_tmeta lv_role) $(lvf pool_tmeta lv_layout)" "private,thin,pool,metadata raid,raid1"
tmeta_uuid=$(uuid pool_tmeta)
spare_dev=$(lvf lvol0_pmspare devices)
test_eq "its images renamed with it (pool_tmeta_rimage_N, pool_tmeta_rmeta_N)" "$(names)" \
    "lvol0_pmspare pool pool_tdata pool_tmeta pool_tmeta_rimage_0 pool_tmeta_rimage_1 pool_tmeta_rmeta_0 pool_tmeta_rmeta_1 thin"
rc=0; lvx lvconvert -y --repair "$VG/pool" "${DEVS[2]}" >"$SCRATCH/o" 2>&1 || rc=$?
test_eq "lvconvert -y --repair VG/pool D2: exit 0" "$rc" 0
# shellcheck disable=SC2016
test_eq "... LVM2's two warnings" "$(grep -c -e 'pool_meta0 holds a backup' -e 'might use different PVs' "$SCRATCH/o")" 2
[[ $rc == 0 ]] || _diag_file "output" "$SCRATCH/o"
test_eq "pool_meta0: role public, layout raid,raid1 (the old _tmeta)" \
    "$(lvf pool_meta0 lv_role) $(lvf pool_meta0 lv_layout)" "public raid,raid1"
test_eq "pool_tmeta: layout linear, the old _tmeta's UUID" \
    "$(lvf pool_tmeta lv_layout) $(uuid pool_tmeta)" "linear $tmeta_uuid"
test_eq "LVs: pool_meta0 with its images renamed (pool_meta0_rimage_N), a new spare" "$(names)" \
    "lvol1_pmspare pool pool_meta0 pool_meta0_rimage_0 pool_meta0_rimage_1 pool_meta0_rmeta_0 pool_meta0_rmeta_1 pool_tdata pool_tmeta thin"
test_eq "pool_tmeta on the old spare's extents" "$(lvf pool_tmeta devices)" "$spare_dev"
spare=$(lvm2 lvs -a --noheadings -o name --select 'name=~_pmspare' "$VG" 2>/dev/null | tr -d ' []')
test_eq "the new spare $spare on D2 (the PV named)" "$(lvf "$spare" devices | sed 's/(.*//')" "${DEVS[2]}"
uspace_run_ok "thin activated (the pool now over linear LVs)" lvx lvchange -q -ay "$VG/thin"
test_eq "thin reads the bytes written before" "$(lv_sum "$VG/thin")" "$sum"

done_testing
