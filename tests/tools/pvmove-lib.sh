# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/pvmove-lib.sh: helpers of the pvmove tests on loop devices (t0685, t1045),
# sourced after tests/lib.sh: the VG LVM2 makes (four linear LVs, three on the first
# PV), the LVs' contents read and written through the segment mapping, the backup
# text without what differs between twin VGs.  pvmove_loops: the set-up both share.
q() { "$@" >/dev/null 2>&1; }
# lvq ARGS...: the reads of the helpers below (where an LV's extents are, its size) by
# the plain build: plumbing of the checks, not the command under test (each ASan run of
# lvx costs ten times the plain one; t0685 made about a hundred)
lvq() { "$LVX_PLAIN" "$@"; }

# mkvg VG A B C: LVM2 makes the VG: one (8m on A, +4m on B), two (12m on A), three
# (4m on B), four (8m on A): pvmove A has 3 LVs and 3 segments to move
mkvg() {
    local vg=$1
    shift
    q lvm2 pvcreate -ff -y "$@"
    q lvm2 vgcreate "$vg" "$@"
    q lvm2 lvcreate -Zn -n one -L 8m "$vg" "$1"
    q lvm2 lvcreate -Zn -n two -L 12m "$vg" "$1"
    q lvm2 lvcreate -Zn -n three -L 4m "$vg" "$2"
    q lvm2 lvextend -L+4m "$vg/one" "$2"
    q lvm2 lvcreate -Zn -n four -L 8m "$vg" "$1"
}
rmvg() { q lvm2 vgremove -f "$1"; q lvm2 pvremove -ff -y "${@:2}"; }

# pvmove_loops: skipped without loop devices, lvx or LVM2; nine 64 MiB loop devices in
# D, LVM2's sandbox seeing only them
pvmove_loops() {
    local i
    need_loop
    need_lvx
    need_cmd lvm
    D=()
    for i in $(seq 0 8); do D+=("$(make_loop 64M)"); done
    lvm_sandbox "${D[@]}"
}

# ---- LV contents through the segment mapping (linear LVs, no move in progress)
ES=$((4 * 1024 * 1024))
PE_START=1048576   # LVM2's default data offset (checked below)
lv_map() {   # lv_map VG/LV: "DEV OFFSET BYTES" per segment
    local n dev d pe
    lvq lvs --noheadings --segments -o seg_size_pe,devices "$1" 2>/dev/null | while read -r n dev; do
        d=${dev%(*}
        pe=${dev#*(}
        pe=${pe%)}
        echo "$d $((PE_START + pe * ES)) $((n * ES))"
    done
}
lv_fill() {  # lv_fill VG/LV FILE: write FILE over the LV
    local dev off len at=0
    while read -r dev off len; do
        dd if="$2" of="$dev" bs=1M iflag=skip_bytes,count_bytes oflag=seek_bytes conv=notrunc \
            skip=$at seek="$off" count="$len" status=none
        at=$((at + len))
    done < <(lv_map "$1")
}
sums_now() { # sums_now VG: "LV sha256" of every LV, from one report of the segments
    local lv n dev d pe cur=""
    lvq lvs --noheadings --segments -o lv_name,seg_size_pe,devices "$1" 2>/dev/null |
        sort -s -k1,1 | while read -r lv n dev; do
        d=${dev%(*}
        pe=${dev#*(}
        pe=${pe%)}
        echo "$lv $d $((PE_START + pe * ES)) $((n * ES))"
    done >"$SCRATCH/map"
    for lv in one two three four; do
        echo "$lv $(awk -v l=$lv '$1 == l {print $2, $3, $4}' "$SCRATCH/map" |
            while read -r d off len; do
                dd if="$d" bs=1M iflag=skip_bytes,count_bytes skip="$off" count="$len" status=none
            done | sha256sum | cut -d' ' -f1)"
    done
}
fill_all() {  # fill_all VG: random contents in every LV, checksums in $SCRATCH/VG.sums
    local lv
    : >"$SCRATCH/$1.sums"
    for lv in one two three four; do
        head -c "$(($(lvq lvs --noheadings --units b --nosuffix -o lv_size "$1/$lv" | tr -d ' ')))" \
            /dev/urandom >"$SCRATCH/pat"
        lv_fill "$1/$lv" "$SCRATCH/pat"
        echo "$lv $(sha256sum <"$SCRATCH/pat" | cut -d' ' -f1)" >>"$SCRATCH/$1.sums"
    done
}

# the backup text without what differs between twins
norm() {
    sed -E -e '/^(#|description|creation_time|creation_host)/d' -e '/creation_(time|host) =/d' \
        -e 's/id = "[^"]*"/id = ID/' -e 's/device = "[^"]*"/device = DEV/' \
        -e 's/seqno = [0-9]+/seqno = N/' -e "s/^$2 \{/VG {/" "$1"
}
backup() { lvm2 vgcfgbackup -f "$2" "$1" >/dev/null 2>&1; }

# writes lvx makes before its first data write (the end of the setup commit), counted
# from its I/O log of the same move on a twin VG
setup_writes() {
    awk '$1 == "write" { if ($3 >= 1048576 && $4 >= 65536) { print n; exit } n++ }' "$1"
}
# sub A B C ARGS...: ARGS with the letters A, B, C replaced by the devices A, B, C
sub() {
    local a=$1 b=$2 c=$3
    shift 3
    local s=${*//A/$a}
    s=${s//B/$b}
    echo "${s//C/$c}"
}
# twin_end NAME WHAT: lvx pvmove (no arguments) finishes the move LVM2 set up on vl (and
# any other left): the final metadata of vl is that of lvx's own move on vf, the data of
# both intact, LVM2's vgck of vl; the three twin VGs (D0-2, D3-5, D6-8) removed
twin_end() {
    lvx pvmove -i 0 >"$SCRATCH/x.pm" 2>&1
    test_eq "$1: lvx pvmove (no arguments) finishes $2" "0" "$?"
    backup vl "$SCRATCH/l2.vg"
    backup vf "$SCRATCH/f.vg"
    test_eq "$1: ... the final metadata is that of lvx's own move" \
        "$(norm "$SCRATCH/f.vg" vf)" "$(norm "$SCRATCH/l2.vg" vl)"
    test_eq "$1: ... data intact (LVM2's setup, lvx's copy)" "$(cat "$SCRATCH/vl.sums")" "$(sums_now vl)"
    test_eq "$1: ... data intact (lvx's move)" "$(cat "$SCRATCH/vf.sums")" "$(sums_now vf)"
    test_eq "$1: LVM2's vgck of the result" "0" "$(lvm2 vgck vl >/dev/null 2>&1; echo $?)"
    rmvg vl "${D[0]}" "${D[1]}" "${D[2]}"
    rmvg vx "${D[3]}" "${D[4]}" "${D[5]}"
    rmvg vf "${D[6]}" "${D[7]}" "${D[8]}"
}
