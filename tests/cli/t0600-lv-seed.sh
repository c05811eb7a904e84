#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0600-lv-seed: the first LV commands on twin VGs (tests/tools/lv_twin.sh): side A
# changed by lvx, side B by LVM2 (`lvm lvcreate -an -Zn`).  After every step LVM2's
# own `lvs --segments -o seg_pe_ranges,stripes,stripe_size` and `pvs --segments` of the
# two sides are equal (device names mapped), and LVM2's vgck accepts lvx's VG.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

twin_begin 4 1G vg1
test_ok "twin VGs start equal" twin_same

step() {  # step "description" lvcreate-args...
    local desc=$1 args_a args_b
    shift
    mapfile -d '' args_a < <(twin_args a "$@")
    mapfile -d '' args_b < <(twin_args b "$@")
    test_ok "lvx $desc" lvx_a "${args_a[@]}"
    lvm_b "${args_b[@]}" >/dev/null 2>&1 || diag "LVM2 failed: ${args_b[*]}"
    if ! test_ok "same layout as LVM2 after: $desc" twin_same; then
        diag "$(twin_diff)"
    fi
    test_ok "LVM2 vgck accepts lvx's VG after: $desc" lvm_a vgck "$TWIN_VG"
}

step "lvcreate -an -i 4 -I 256k -n lv1 -L 512m" lvcreate -an -Zn -i 4 -I 256k -n lv1 -L 512m vg1
step "lvcreate -an -i3 -I128K -L300m -ndata" lvcreate -an -Zn -i3 -I128K -L300m -ndata vg1
step "lvcreate -an -L100m -nlog" lvcreate -an -Zn -L100m -nlog vg1
step "lvremove -f vg1/lv1" lvremove -f vg1/lv1
step "lvcreate -an -L 200m -n after (in the hole)" lvcreate -an -Zn -L 200m -n after vg1
test_eq "lvx and LVM2 see the same LVs" \
    "$(lvm_a lvs --noheadings -o lv_name,lv_size,lv_attr vg1 2>/dev/null)" \
    "$(lvm_b lvs --noheadings -o lv_name,lv_size,lv_attr vg1 2>/dev/null)"

done_testing
