#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0840-fullreport: `lvx fullreport` and the report option forms, side by side with the
# real LVM2 on the same loop devices, stdout byte for byte and the exit status: the five
# reports per VG and the orphans, text and JSON, --configreport groups with -o/-O/-S,
# lvm2-dbusd's exact invocation (lvmdbusd/cmdhandler.py: lvm_full_report_json and its
# _dc() prefix), -o all / <obj>_all, --unbuffered (metadata order, per-row widths),
# --nameprefixes, --unquoted, --rows, --aligned, --separator, --noheadings, --units with
# --nosuffix, --binary, repeated -o, -o+/-o-, the default sort of vgs/pvs/lvs, and the report
# defaults of lvm.conf (global/units, global/suffix, report/output_format).  Then the same
# for fixture images made by LVM2 (p06 multi-segment, p08 thin/raid/cache/snapshot zoo),
# attached read-only.  LVM2's stderr is not compared (its activation warning).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm "$PYTHON"
need_lvx
plan_later

run_lvm() { LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@"; }

# compare DESC ARGS...: same stdout and exit status from LVM2 and lvx
compare() {
    local desc=$1 lrc=0 xrc=0
    shift
    run_lvm "$@" >"$SCRATCH/lvm.out" 2>"$SCRATCH/lvm.err" || lrc=$?
    lvx "$@" >"$SCRATCH/lvx.out" 2>"$SCRATCH/lvx.err" || xrc=$?
    if cmp -s "$SCRATCH/lvm.out" "$SCRATCH/lvx.out" && [[ $lrc == "$xrc" ]] &&
        ! sanitizer_report "$SCRATCH/lvx.err"; then
        _tap_result 0 "$desc"
    else
        _tap_result 1 "$desc"
        diag "command: $*" "exit status: LVM2 $lrc, lvx $xrc"
        diff "$SCRATCH/lvm.out" "$SCRATCH/lvx.out" | cut -c1-200 | head -20 | sed 's/^/#   /'
        _diag_file "lvx stderr" "$SCRATCH/lvx.err"
    fi
}

# lvm2-dbusd 1.x (Debian 12), cmdhandler.py: _dc() + lvm_full_report_json() (with VDO support)
SEP='{|}'
DBUSD=(fullreport --noheading --separator "$SEP" --nosuffix --unbuffered --units b -a
    --configreport pv -o pv_name,pv_uuid,pv_fmt,pv_size,pv_free,pv_used,dev_size,pv_mda_size,pv_mda_free,pv_ba_start,pv_ba_size,pe_start,pv_pe_count,pv_pe_alloc_count,pv_attr,pv_tags,vg_name,vg_uuid,pv_missing
    --configreport vg -o vg_name,vg_uuid,vg_fmt,vg_size,vg_free,vg_sysid,vg_extent_size,vg_extent_count,vg_free_count,vg_profile,max_lv,max_pv,pv_count,lv_count,snap_count,vg_seqno,vg_mda_count,vg_mda_free,vg_mda_size,vg_mda_used_count,vg_attr,vg_tags
    --configreport lv -o lv_uuid,lv_name,lv_path,lv_size,vg_name,pool_lv_uuid,pool_lv,origin_uuid,origin,data_percent,lv_attr,lv_tags,vg_uuid,lv_active,data_lv,metadata_lv,lv_parent,lv_role,lv_layout,snap_percent,metadata_percent,copy_percent,sync_percent,lv_metadata_size,move_pv,move_pv_uuid,vdo_operating_mode,vdo_compression_state,vdo_index_state,vdo_used_size,vdo_saving_percent
    --configreport seg -o seg_pe_ranges,segtype,lv_uuid,vdo_compression,vdo_deduplication,vdo_use_metadata_hints,vdo_minimum_io_size,vdo_block_map_cache_size,vdo_block_map_era_length,vdo_use_sparse_index,vdo_index_memory_size,vdo_slab_size,vdo_ack_threads,vdo_bio_threads,vdo_bio_rotation,vdo_cpu_threads,vdo_hash_zone_threads,vdo_logical_threads,vdo_physical_threads,vdo_max_discard,vdo_write_policy,vdo_header_size
    --configreport pvseg -o pvseg_start,pvseg_size,segtype,pv_uuid,lv_uuid,pv_name
    --reportformat json)
CMDHANDLER=/usr/lib/python3/dist-packages/lvmdbusd/cmdhandler.py
if [[ -f $CMDHANDLER ]]; then
    # the invocation above is still the installed lvm2-dbusd's
    for col in "'--unbuffered', '--units', 'b'" "'--configreport', 'pvseg', '-o'" "'vdo_header_size'" \
               "'pv_ba_start', 'pv_ba_size', 'pe_start', 'pv_pe_count'" "'move_pv', 'move_pv_uuid'"; do
        test_ok "lvm2-dbusd's cmdhandler.py still passes $col" grep -qF "$col" "$CMDHANDLER"
    done
fi

# abc's device made first: loop numbers go up (usually), so abc lies below vgr and
# LVM2 lists vgr first in fullreport and unbuffered reports (its lvmcache puts each VG
# first as the scan finds it, the scan going up by device number): not name order
D4=$(make_loop 60M) && D1=$(make_loop 100M) && D2=$(make_loop 100M) && D3=$(make_loop 60M) ||
    { _tap_result 1 "attach four loop devices"; done_testing; }
lvm_sandbox "$D1" "$D2" "$D3" "$D4"
test_ok "LVM2 builds vgr" run_lvm vgcreate -q vgr "$D1" "$D2"
test_ok "LVM2 adds zz" run_lvm lvcreate -q -an -Zn -L 12m -n zz vgr
test_ok "LVM2 adds aa (striped)" run_lvm lvcreate -q -an -Zn -i 2 -L 8m -n aa vgr
test_ok "LVM2 adds mm with a tag" run_lvm lvcreate -q -an -Zn -L 8m -n mm --addtag t1 vgr
test_ok "LVM2 extends zz (second segment)" run_lvm lvextend -q -L +4m vgr/zz
test_ok "LVM2 builds abc (no LVs)" run_lvm vgcreate -q abc "$D4"
test_ok "LVM2 makes an orphan PV" run_lvm pvcreate -q "$D3"

CASES=(
    "fullreport"
    "fullreport --reportformat json"
    "fullreport vgr"
    "fullreport abc --reportformat json"
    "fullreport nosuch"
    "fullreport -a --units b --nosuffix"
    "fullreport --configreport vg -o vg_name --configreport pv -o pv_name --configreport lv -o lv_name --configreport seg -o segtype --configreport pvseg -o pvseg_start"
    "fullreport --reportformat json --configreport vg -o vg_name,vg_size --configreport pv -o pv_name --configreport lv -o lv_name -S lv_name=mm --configreport pvseg -o pvseg_start,pvseg_size -O -pvseg_start --configreport seg -o seg_start,lv_name"
    "fullreport -o vg_name -O vg_uuid --configreport lv -o+lv_tags -o-lv_uuid"
    "fullreport --configreport lv -o lv_name,lv_size --configreport lv -o+lv_uuid"
    "fullreport --unbuffered"
    "fullreport --rows"
    "fullreport --nameprefixes --unquoted --noheadings"
    "fullreport --separator : --aligned"
    "fullreport --units k --reportformat json"
    "vgs -o all" "pvs -o all" "lvs -o all" "lvs --segments -o all" "pvs --segments -o all"
    "vgs -o vg_all" "lvs -o lv_all" "pvs -o pv_all,vg_name"
    "lvs --segments -o seg_all,lv_uuid" "pvs --segments -o pvseg_all,pv_uuid,lv_uuid"
    "lvs" "vgs" "pvs" "lvs --segments" "pvs --segments"
    "lvs -O lv_uuid" "lvs -O -lv_name" "lvs -O ''" "vgs -O -vg_name" "pvs -O -pv_size"
    "lvs --unbuffered" "pvs --unbuffered" "vgs --unbuffered" "pvs --segments --unbuffered"
    "lvs --segments --unbuffered -o+lv_uuid" "lvs --unbuffered -O -lv_name"
    "lvs --unbuffered --separator , --aligned" "lvs --unbuffered --reportformat json"
    "lvs --nameprefixes" "lvs --nameprefixes --unquoted" "lvs --noheadings --nameprefixes"
    "vgs --rows" "lvs --rows --separator ," "pvs --aligned --separator :"
    "lvs --separator '{|}'" "lvs --noheadings --separator :" "vgs --noheadings"
    "vgs --units b --nosuffix" "pvs --units k --nosuffix --reportformat json"
    "lvs -o lv_name -o lv_size -o +lv_uuid" "lvs -o+lv_uuid,lv_tags" "lvs -o-lv_attr"
    "lvs -o lv_name,lv_attr -o-lv_attr,+vg_uuid" "vgs -o+vg_tags -o-vg_attr"
    "vgs --config 'global/units=b global/suffix=0'" "lvs --config 'report/output_format=json'"
    "fullreport --config 'report/output_format=json global/units=k'"
    "vgs --units m --config 'global/units=b'"
    "vgs --binary -o vg_all" "lvs --binary -o all" "pvs --binary -o pv_all"
    "lvs --segments --binary -o seg_all" "fullreport --binary" "pvdisplay -C --binary"
    "lvs --binary --reportformat json -o lv_name,lv_active,lv_historical,lv_device_open"
    "vgs --reportformat json_std" "lvs nosuch --reportformat json" "vgs nosuch --reportformat json"
)
for c in "${CASES[@]}"; do
    eval "args=($c)"
    compare "$c" "${args[@]}"
done
compare "lvm2-dbusd's fullreport invocation" "${DBUSD[@]}"
compare "lvm2-dbusd's fullreport invocation, vgr only" "${DBUSD[@]}" vgr
compare "lvm2-dbusd's fullreport invocation without -a" "${DBUSD[@]/-a/--aligned}"

# Every read command takes VGs in LVM2's order (abc, on the lowest device, last): with no
# VG named its lvmcache order, VGs of LV arguments in the arguments' order, the VGs of PVs
# always in the lvmcache order, orphans last; also changing commands over every VG
test_ok "LVM2 adds a1 to abc" run_lvm lvcreate -q -an -Zn -L 8m -n a1 abc
ORDER_CASES=(
    "vgdisplay" "vgdisplay -c" "vgdisplay -s" "vgdisplay -v" "pvdisplay" "pvdisplay -c"
    "pvdisplay -s" "pvdisplay -m" "lvdisplay" "lvdisplay -c" "lvscan" "vgscan" "pvscan"
    "vgs -O ''" "pvs -O ''" "lvs -O ''" "pvs -a -O ''" "lvdisplay -C -O ''" "lvs --unbuffered"
    "vgdisplay -s abc vgr" "vgdisplay -s vgr abc" "vgs -O '' abc vgr" "lvs -O '' vgr abc"
    "lvs --unbuffered vgr abc" "lvdisplay -c vgr/zz abc/a1" "lvs -O '' /dev/vgr/zz abc/a1 vgr"
    "pvdisplay -c $D4 $D1 $D3" "pvs --unbuffered $D3 $D4 $D1" "pvs -O '' $D4 $D1"
    "vgchange -an" "vgmknodes" "vgchange --refresh"
)
for c in "${ORDER_CASES[@]}"; do
    eval "args=($c)"
    compare "$c" "${args[@]}"
done

# Fixture images made by LVM2 (read-only loop devices): thin, raid, cache, snapshots, ...
for scenario in p06_multiseg_extended p08_segtype_zoo; do
    dir="$SCRATCH/$scenario"
    mapfile -t images < <(fixture_images "$scenario" "$dir")
    if [[ ${#images[@]} -eq 0 ]]; then
        _tap_result 1 "$scenario: fixture images rebuilt"
        continue
    fi
    devs=()
    for img in "${images[@]}"; do
        dev=$(attach_loop "$img" -r) || { _tap_result 1 "$scenario: attach $img"; continue 2; }
        devs+=("$dev")
    done
    lvm_sandbox "${devs[@]}"
    compare "$scenario: fullreport" fullreport
    compare "$scenario: fullreport -a --reportformat json" fullreport -a --reportformat json
    compare "$scenario: lvm2-dbusd's fullreport invocation" "${DBUSD[@]}"
    compare "$scenario: lvs -a -o all" lvs -a -o all
    compare "$scenario: lvs -a --segments -o all" lvs -a --segments -o all
    compare "$scenario: lvs -a --unbuffered" lvs -a --unbuffered
    compare "$scenario: lvs -a" lvs -a
    compare "$scenario: lvs -a --binary -o all" lvs -a --binary -o all
    for dev in "${devs[@]}"; do detach_loop "$dev"; done
    lvm_sandbox "$D1" "$D2" "$D3" "$D4"
done
done_testing
