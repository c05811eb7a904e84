#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0820-filter: lvm.conf devices/global_filter and devices/filter (and --config).
# Four PVs on loop devices; configurations rejecting some of them.  lvx lists the same
# PVs as LVM2 with the same configuration, and never opens a rejected device: every
# open goes through the I/O seam, logged by LVX_TEST_IO_LOG.  As LVM2 2.03 does,
# devices named with --devices are not filtered.  (Missing PVs, "[unknown]", are left
# out of the PV lists compared: LVM2's pvs does not list a PV rejected by the filter.)
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later

D=()
for _ in 0 1 2 3; do D+=("$(make_loop 16M)") || skip_all "cannot make loop devices"; done
d0=${D[0]} d1=${D[1]} d2=${D[2]} d3=${D[3]}
lvm_sandbox "${D[@]}"
export LVM_SUPPRESS_FD_WARNINGS=1
lvm2 pvcreate -y "${D[@]}" >/dev/null 2>&1 || skip_all "LVM2 pvcreate failed"
lvm2 vgcreate flt$$ "$d0" "$d2" >/dev/null 2>&1

# conf NAME GLOBAL_FILTER [FILTER]: a system dir with that lvm.conf
conf() {
    mkdir -p "$SCRATCH/$1"
    {
        echo "global { activation = 0 }"
        echo "backup { backup = 0 archive = 0 }"
        echo "devices {"
        echo "    global_filter = [ $2 ]"
        [[ -n ${3:-} ]] && echo "    filter = [ $3 ]"
        echo "    obtain_device_list_from_udev = 0"
        echo "    use_devicesfile = 0"
        echo "    hints = \"none\""
        echo "}"
    } >"$SCRATCH/$1/lvm.conf"
}
a() { printf '"a|^%s$|", ' "$@"; }

conf only01 "$(a "$d0" "$d1")\"r|.*|\""
conf all "$(a "${D[@]}")\"r|.*|\""
conf no1 "$(a "${D[@]}")\"r|.*|\"" "\"r|^$d1\$|\""
conf slash "\"r/loop/\", \"a|.*|\""

# pvs_of SYSDIR TOOL [ARGS]: sorted PV names
lvx_pvs() {
    local sys=$1
    shift
    LVM_SYSTEM_DIR=$SCRATCH/$sys LVX_TEST_IO_LOG=$SCRATCH/io.log "$LVX" pvs --noheadings \
        -o pv_name "$@" 2>"$SCRATCH/lvx.err" | awk '$1 != "[unknown]" {print $1}' | sort | xargs
}
lvm_pvs() {
    local sys=$1
    shift
    LVM_SYSTEM_DIR=$SCRATCH/$sys lvm pvs --noheadings -o pv_name "$@" 2>/dev/null |
        awk '{print $1}' | sort | xargs
}
opened() { sed -n 's/^open //p' "$SCRATCH/io.log" | sort -u | xargs; }
want_sorted() { printf '%s\n' "$@" | sort | xargs; }

: >"$SCRATCH/io.log"
got=$(lvx_pvs only01)
test_eq "global_filter: system scan lists the accepted PVs only" "$got" "$(want_sorted "$d0" "$d1")"
test_eq "... as LVM2 does" "$got" "$(lvm_pvs only01)"
test_eq "... and opens nothing else (no rejected loop, no other disk)" "$(opened)" \
    "$(want_sorted "$d0" "$d1")"

: >"$SCRATCH/io.log"
got=$(lvx_pvs only01 --devices "$d0,$d1,$d2,$d3")
test_eq "--devices names are not filtered (as LVM2)" "$got" "$(lvm_pvs only01 --devices "$d0,$d1,$d2,$d3")"
test_eq "... all four listed" "$got" "$(want_sorted "${D[@]}")"

: >"$SCRATCH/io.log"
got=$(lvx_pvs no1)
test_eq "filter rejects a device global_filter accepts" "$got" "$(want_sorted "$d0" "$d2" "$d3")"
test_eq "... as LVM2 does" "$got" "$(lvm_pvs no1)"
test_ok "... and it is not opened" bash -c "! grep -qx 'open $d1' '$SCRATCH/io.log'"

: >"$SCRATCH/io.log"
got=$(lvx_pvs slash | tr ' ' '\n' | grep loop | xargs)
test_eq "any delimiter ('/'), reject before accept-all: no loop PV" "$got" ""
test_eq "... as LVM2 does" "$got" "$(lvm_pvs slash | tr ' ' '\n' | grep loop | xargs)"
test_eq "... no loop device opened" "$(opened | tr ' ' '\n' | grep -c /dev/loop)" "0"

: >"$SCRATCH/io.log"
got=$(lvx_pvs all --config "devices { global_filter = [ \"a|^$d3\$|\", \"r|.*|\" ] }")
test_eq "--config replaces lvm.conf's global_filter" "$got" "$d3"
test_eq "... as LVM2 does" "$got" \
    "$(lvm_pvs all --config "devices { global_filter = [ \"a|^$d3\$|\", \"r|.*|\" ] }")"
test_eq "... only that device opened" "$(opened)" "$d3"

got=$(LVM_SYSTEM_DIR=$SCRATCH/only01 "$LVX" vgs --noheadings -o vg_name,pv_count 2>/dev/null | xargs)
test_eq "a VG with a filtered PV is seen with a missing PV" "$got" "flt$$ 2"
test_eq "VG of LVM2 with the same filter" "$got" \
    "$(LVM_SYSTEM_DIR=$SCRATCH/only01 lvm vgs --noheadings -o vg_name,pv_count 2>/dev/null | xargs)"

# devices/scan: only devices with a node under the listed directories, named by that node
mkdir -p "$SCRATCH/nodes/sub"
mknod "$SCRATCH/nodes/sub/mydisk" b "$((16#$(stat -c %t "$d1")))" "$((16#$(stat -c %T "$d1")))"
scancfg="devices { scan = [ \"$SCRATCH/nodes\" ] global_filter = [ \"a|mydisk|\", \"r|.*|\" ] }"
: >"$SCRATCH/io.log"
got=$(lvx_pvs all --config "$scancfg")
test_eq "devices/scan: the device found under the directory, by that name" "$got" \
    "$SCRATCH/nodes/sub/mydisk"
test_eq "... as LVM2 does" "$got" "$(lvm_pvs all --config "$scancfg")"
test_eq "... and nothing else opened" "$(opened)" "$SCRATCH/nodes/sub/mydisk"

conf bad "\"x|oops|\""
test_fail "a malformed pattern is an error" env LVM_SYSTEM_DIR="$SCRATCH/bad" "$LVX" pvs
cp "$SCRATCH/.err" "$SCRATCH/bad.err"
test_ok "... naming the setting" grep -q 'devices/global_filter' "$SCRATCH/bad.err"
sanitizer_report "$SCRATCH/bad.err" && _tap_result 1 "no sanitizer report"

test_eq "lvx config prints the merged filter in lvm.conf syntax" \
    "$(LVM_SYSTEM_DIR=$SCRATCH/no1 "$LVX" config --config 'devices/filter=["r|x|","a|y|"]' devices/filter)" \
    'filter=["r|x|","a|y|"]'

done_testing
