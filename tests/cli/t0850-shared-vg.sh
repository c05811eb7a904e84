#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0850-shared-vg: shared VGs made by LVM2 with lvmlockd on sanlock (issue 19, step 1).
# An LVM2 "host" (tests/tools/sanlock_host.sh: own mount namespace and /run, sanlock
# without watchdog, lvmlockd) runs `vgcreate --shared` and `lvcreate` on two loop
# devices; its lvmlock LV is reached through /dev/mapper/<vg>-lvmlock, a loop device
# over the LV's extents (no device-mapper here).  Then lvx is checked against LVM2
# (both without lvmlockd, as the test's sandbox) on that VG: the VG is left out of
# vgs/pvs/lvs, refused by name with LVM2's line and exit 5, shown by --shared with
# vg_lock_type, vg_lock_args, vg_shared, the `s` of vg_attr and lv_lock_args as LVM2
# shows them; every change is refused with LVM2's message and exit code and nothing is
# written.  With use_lvmlockd = 1 but no lockspace started here (no sanlock daemon in
# the test's namespace) lvx reads with LVM2's "without a lock" warning and refuses
# changes with LVM2's failed-lock line (t0851 takes the locks).
# Step 2: on a second host (sanlock only, host id 2) lvx runs `vgcreate --shared`: the
# leases it writes through libsanlock are at lvmlockd's offsets with lvmlockd's names,
# and the LVM2 host starts that VG's lockspace and creates an LV in it.
# Cost: about 2-3 min on a loaded machine (sanlock joins a lockspace twice).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/sanlock_host.sh
. "$LVX_ROOT/tests/tools/sanlock_host.sh"

need_loop
need_cmd lvm sanlock lvmlockd unshare nsenter cc
need_lvx
plan_later
trap 'hosts_stop; cleanup' EXIT

mapfile -t D < <(make_loops 4 512M)
[[ ${#D[@]} == 4 ]] || skip_all "cannot attach loop devices"
lvm_sandbox "${D[@]}"
# The lvmlock LVs LVM2 and lvx will allocate: the first 256 MiB of the first PV's data
# area (pe_start 1 MiB), checked below.  sh1 (LVM2's) on D0 D1, sh2 (lvx's) on D2 D3.
LK=$(attach_loop "$(loop_backing "${D[0]}")" -o 1048576 --sizelimit 268435456) &&
    LK2=$(attach_loop "$(loop_backing "${D[2]}")" -o 1048576 --sizelimit 268435456) ||
    skip_all "cannot attach the lvmlock devices"

host_start a 1 lvmlockd || skip_all "cannot start sanlock + lvmlockd in a mount namespace"
host_start b 2 || skip_all "cannot start a second sanlock in a mount namespace"
host_link a sh1-lvmlock "$LK"
host_link a sh2-lvmlock "$LK2"
test_ok "LVM2 + lvmlockd: vgcreate --shared" host_run a vgcreate --shared sh1 "${D[0]}" "${D[1]}"
test_ok "LVM2 + lvmlockd: lvcreate in the shared VG" host_run a lvcreate -an -L 8m -n lv1 sh1
test_ok "LVM2 + lvmlockd: vgchange --lockstop" host_run a vgchange --lockstop sh1
diag "LVM2 host: ${SECONDS} s"

got=$(lvm2 lvs -a --shared --noheadings -o lv_name,seg_pe_ranges sh1 2>/dev/null | awk '$1 == "[lvmlock]" {print $2}')
test_eq "the lvmlock LV is where the test mapped it" "$got" "${D[0]}:0-63"

# same DESC ARGS...: lvx and LVM2 print the same stdout, the same first stderr line
# without the activation warning, and exit alike.
same() {
    local desc=$1 ok=0
    shift
    both "$@"
    cmp -s "$SCRATCH/x.out" "$SCRATCH/l.out" || ok=1
    [[ $(cat "$SCRATCH/x.rc") == "$(cat "$SCRATCH/l.rc")" ]] || ok=1
    grep -v 'Activation disabled' "$SCRATCH/l.err" >"$SCRATCH/l.err2"
    grep -v 'Activation disabled' "$SCRATCH/x.err" >"$SCRATCH/x.err2"
    cmp -s "$SCRATCH/x.err2" "$SCRATCH/l.err2" || ok=1
    sanitizer_report "$SCRATCH/x.err" && ok=1
    _tap_result "$ok" "$desc"
    if [[ $ok != 0 ]]; then
        diag "command: $*" "exit: lvx $(cat "$SCRATCH/x.rc"), LVM2 $(cat "$SCRATCH/l.rc")"
        diff "$SCRATCH/l.out" "$SCRATCH/x.out" | head -20 | sed 's/^/#   /'
         diff "$SCRATCH/l.err2" "$SCRATCH/x.err2" | head -10 | sed 's/^/#   /'
    fi
}

# ---- reports without lvmlockd
same "vgs leaves the shared VG out" vgs
same "pvs leaves its PVs out" pvs
same "lvs leaves its LVs out" lvs -a
before2=$(sha_devs "${D[2]}")
same "vgcreate --shared without lvmlockd: refused" vgcreate --shared sh9 "${D[2]}"
test_eq "... before writing anything" "$(sha_devs "${D[2]}")" "$before2"
same "vgs VG: refused by name" vgs sh1
same "lvs VG/LV: refused by name" lvs sh1/lv1
same "vgdisplay VG: refused by name" vgdisplay sh1
F='vg_name,vg_attr,vg_lock_type,vg_lock_args,vg_shared,vg_seqno,lv_count'
same "vgs --shared: lock type, lock args, shared, attr" vgs --shared -o "$F"
same "vgs --shared VG (JSON)" vgs --shared --reportformat json -o "$F" sh1
same "lvs --shared: lv_lock_args" lvs -a --shared -o lv_name,lv_attr,lv_lock_args,seg_pe_ranges
same "lvs --shared VG/LV" lvs --shared -o lv_name,lv_lock_args sh1/lv1
same "pvs --shared" pvs --shared
same "vgdisplay --shared" vgdisplay --shared sh1
got=$(lvx lvs --shared --noheadings -o lv_lock_args sh1/lv1 | tr -d ' ')
[[ $got =~ ^1\.0\.0:[0-9]+$ ]]
_tap_result $? "lv_lock_args is lvmlockd's version:offset ($got)"

# ---- changes without lvmlockd: refused, nothing written
before=$(sha_devs "${D[0]}" "${D[1]}")
same "lvcreate refused" lvcreate -an -L 4m -n x sh1
same "lvremove refused" lvremove -f sh1/lv1
same "lvchange refused" lvchange --addtag t sh1/lv1
same "vgchange refused" vgchange --addtag t sh1
same "vgchange -ay refused" vgchange -ay sh1
same "vgremove refused" vgremove -f sh1
same "vgrename refused" vgrename sh1 sh2
test_eq "nothing was written" "$(sha_devs "${D[0]}" "${D[1]}")" "$before"

# ---- with use_lvmlockd = 1 and no lockspace started here
C='global/use_lvmlockd=1'
rc=0
lvx vgs --config "$C" -o vg_name,vg_attr,vg_lock_type sh1 >"$SCRATCH/o" 2>"$SCRATCH/e" || rc=$?
test_eq "use_lvmlockd: vgs reads the VG" "$rc $(awk '{print $1, $2, $3}' "$SCRATCH/o" | tail -1)" \
    "0 sh1 wz--ns sanlock"
test_eq "use_lvmlockd: ... and says it reads without a lock" "$(cat "$SCRATCH/e")" \
    "  Reading VG sh1 without a lock."
rc=0
lvx lvcreate --config "$C"  -an -L 4m -n x sh1 >"$SCRATCH/o" 2>"$SCRATCH/e" || rc=$?
test_eq "use_lvmlockd: lvcreate refused, LVM2's failed-lock line, exit 5" \
    "$rc $(grep -c . "$SCRATCH/e") $(grep -c 'Cannot access VG sh1 due to failed lock.' "$SCRATCH/e")" \
    "5 1 1"
rc=0
lvx vgchange --config "$C"  --addtag t sh1 >"$SCRATCH/o" 2>"$SCRATCH/e" || rc=$?
test_eq "use_lvmlockd: vgchange refused, exit 5" \
    "$rc $(grep -c 'Cannot access VG sh1 due to failed lock.' "$SCRATCH/e")" "5 1"
test_eq "nothing was written" "$(sha_devs "${D[0]}" "${D[1]}")" "$before"

# ---- step 2: lvx vgcreate --shared on host b (sanlock only), LVM2 + lvmlockd uses it
test_ok "lvx (host b): vgcreate --shared" host_run b "$LVX" vgcreate --shared sh2 "${D[2]}" "${D[3]}"
# lease_names OFFSET...: the resource (or lockspace) name sanlock reads at each offset
lease_names() {
    local off
    for off in "$@"; do
        host_run b sanlock direct dump "$LK2:$off:1M" 2>/dev/null | awk 'NR == 2 {print $(NF-4)}'
    done | tr '\n' ' '
}
test_eq "lvx's leases: _GLLK_disabled (sh1 has the global lock), VGLK, #unused at lvmlockd's offsets" \
    "$(lease_names $((65 << 20)) $((66 << 20)) $((67 << 20)) $((255 << 20)))" \
    "_GLLK_disabled VGLK #unused #unused "
got=$(host_run b sanlock direct read_leader -s "lvm_sh2:1:$LK2:0" 2>/dev/null | awk '/^space_name/ {print $2}')
test_eq "lvx's lockspace lvm_sh2 at offset 0" "$got" "lvm_sh2"
test_eq "lvx's VG: lock type, args, attr" \
    "$(lvx vgs --shared --noheadings -o vg_lock_type,vg_lock_args,vg_attr sh2 | xargs)" \
    "sanlock 1.0.0:lvmlock wz--ns"
test_eq "lvx's lvmlock LV: hidden, 256 MiB at the start of the first PV" \
    "$(lvx lvs -a --shared --noheadings -o lv_name,lv_attr,lv_size,seg_pe_ranges sh2 | xargs)" \
    "[lvmlock] -wi-XX---- 256.00m ${D[2]}:0-63"
test_ok "LVM2 + lvmlockd: vgchange --lockstart of lvx's VG" host_run a vgchange --lockstart sh2
test_ok "LVM2 + lvmlockd: lvcreate in lvx's VG (takes VGLK, a free LV slot)" \
    host_run a lvcreate -an -L 8m -n lv1 sh2
test_eq "LVM2's new LV got the first LV lease slot" \
    "$(host_run a lvs --noheadings -o lv_lockargs sh2/lv1 2>/dev/null | xargs)" "1.0.0:70254592"
test_ok "LVM2 + lvmlockd: vgchange --lockstop sh2" host_run a vgchange --lockstop sh2
test_eq "lvx reads LVM2's change" \
    "$(lvx lvs --shared --noheadings -o lv_name,lv_lockargs sh2/lv1 | xargs)" "lv1 1.0.0:70254592"

done_testing
