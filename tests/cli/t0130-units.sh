#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0130-units: --units with a number before the unit ("4k", "1.5m", "0.5s", "2.5K",
# "1e3k", ...) and the plain units, compared with real LVM2 on the same VG: reports
# (aligned, --nosuffix, JSON, segments) and the display commands (-m, -s), including
# zero sizes.  Invalid specifications ("0k", ".5k", "-1k", "4kk", " 4k", "0.0001k")
# fail with one line on stderr, as LVM2 refuses them.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later

D1=$(make_loop 100M) && D2=$(make_loop 100M) || { _tap_result 1 "attach two loop devices"; done_testing; }
lvm_sandbox "$D1" "$D2"
export LVM_SYSTEM_DIR="$SCRATCH/lvm"     # lvx reads the same filter
run_lvm() { LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@"; }
test_ok "LVM2 builds the VG" run_lvm vgcreate -q vgu "$D1" "$D2"
test_ok "LVM2 adds a linear LV" run_lvm lvcreate -q -an -Zn -L 12m -n l1 vgu
test_ok "LVM2 adds a striped LV" run_lvm lvcreate -q -an -Zn -i 2 -I 64k -L 40m -n s1 vgu
test_ok "LVM2 fills the VG (zero free)" run_lvm lvcreate -q -an -Zn -l 100%FREE -n rest vgu

# The lines both tools print, without LVM2's activation warning and volatile lines.
clean() { grep -v "WARNING: Activation disabled\|LV Creation\|^ *$" | sed 's/ *$//'; }

CMDS=("vgs -o vg_name,vg_size,vg_free,vg_extent_size"
      "lvs -o lv_name,lv_size"
      "pvs -o+pv_mda_size,pe_start,pv_mda_free"
      "vgs --nosuffix -o vg_size,vg_free"
      "lvs --segments -o+stripe_size,seg_size --reportformat json"
      "vgdisplay vgu"
      "vgdisplay -s vgu"
      "pvdisplay -m $D1"
      "pvdisplay -s $D2"
      "lvdisplay -m vgu/s1")
for u in 4k 512b 3g 10S 1.5k 0.5k 1.0k 1.5s 1.9b 0.5s 1e3k 1e-3k 2b 1.5M 2e 4h k s; do
    bad=()
    for c in "${CMDS[@]}"; do
        # shellcheck disable=SC2086
        a=$(run_lvm $c --units "$u" 2>&1 | clean)
        # shellcheck disable=SC2086
        b=$(lvx $c --units "$u" 2>&1 | clean)
        [[ $a == "$b" ]] || { bad+=("$c"); diag "--units $u: $c" "$(diff <(echo "$a") <(echo "$b"))"; }
    done
    test_eq "--units '$u': ${#CMDS[@]} commands print what LVM2 prints" "" "${bad[*]}"
done

for u in 0k .5k -1k 4kk " 4k" 0.0001k 4 x; do
    sums=$(sha_devs "$D1" "$D2")
    rc=0
    lvx vgs --units "$u" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
    test_eq "--units '$u' is refused (exit 3, as LVM2)" "3" "$rc"
    test_eq "--units '$u': one line on stderr" "1" "$(wc -l <"$SCRATCH/err")"
    test_ok "--units '$u': stderr names the problem" grep -q "Invalid units specification" "$SCRATCH/err"
    test_eq "--units '$u': nothing written" "$sums" "$(sha_devs "$D1" "$D2")"
    lrc=0
    run_lvm vgs --units "$u" >/dev/null 2>&1 || lrc=$?
    test_eq "--units '$u': LVM2 refuses it with the same status" "$lrc" "$rc"
done
done_testing
