#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0110-vgcfgbackup-lvm2: for every fixture scenario, attach the rebuilt images to loop
# devices, write a backup file with `lvx vgcfgbackup -f FILE VG`, and let the real LVM2
# judge it: `lvm vgcfgrestore --test -f FILE VG` must accept it (p08 needs --force for
# its thin pool).  Nothing may change: LVM2's `vgs` report and the device contents are
# compared before and after.  A control case checks that the oracle does reject a
# backup naming a PV that does not exist.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm "$PYTHON"
need_lvx
plan_later

VGS_FIELDS=vg_name,vg_uuid,vg_seqno,vg_attr,vg_extent_size,vg_extent_count,vg_free_count,pv_count,lv_count,vg_mda_count,vg_mda_free

for scenario in $(fixture_scenarios); do
    dir="$SCRATCH/$scenario"
    mapfile -t images < <(fixture_images "$scenario" "$dir")
    if [[ ${#images[@]} -eq 0 ]]; then
        _tap_result 1 "$scenario: rebuild fixture images"
        continue
    fi
    loops=()
    for img in "${images[@]}"; do
        loops+=("$(attach_loop "$img")")
    done
    devices=$(IFS=,; echo "${loops[*]}")
    lvm_sandbox "${loops[@]}"
    sha_devs "${loops[@]}" >"$dir/sha.before"
    lvm2 vgs --units b --nosuffix -o "$VGS_FIELDS" >"$dir/vgs.before" 2>/dev/null
    force=()
    [[ $scenario == p08_* ]] && force=(--force)

    for vg in $(fixture_vgs "$scenario"); do
        file="$dir/lvx-$vg.vg"
        test_ok "$scenario: LVM2 sees $vg before the test" grep -qw "$vg" "$dir/vgs.before"
        if test_ok "$scenario: lvx vgcfgbackup -f FILE $vg" lvx vgcfgbackup -f "$file" "$vg" --devices "$devices"; then
            test_ok "$scenario: LVM2 vgcfgrestore --test accepts lvx's backup of $vg" \
                lvm2 vgcfgrestore --test "${force[@]}" -f "$file" "$vg"
            if [[ $scenario == p01_* ]]; then
                # control: the oracle must reject a backup whose PV id matches no device
                sed -E '0,/id = "[^"]+"/!{0,/id = "[^"]+"/s//id = "AAAAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAAAA"/}' \
                    "$file" >"$dir/bad.vg"
                test_fail "$scenario: control: LVM2 rejects a backup with an unknown PV" \
                    lvm2 vgcfgrestore --test -f "$dir/bad.vg" "$vg"
            fi
        else
            test_skip "$scenario: LVM2 vgcfgrestore --test accepts lvx's backup of $vg" "no backup file"
        fi
    done

    lvm2 vgs --units b --nosuffix -o "$VGS_FIELDS" >"$dir/vgs.after" 2>/dev/null
    sha_devs "${loops[@]}" >"$dir/sha.after"
    test_eq "$scenario: LVM2 vgs unchanged" "$(cat "$dir/vgs.after")" "$(cat "$dir/vgs.before")"
    test_eq "$scenario: devices unchanged" "$(cat "$dir/sha.after")" "$(cat "$dir/sha.before")"
    for l in "${loops[@]}"; do detach_loop "$l"; done
    rm -rf "$dir"
done

done_testing
