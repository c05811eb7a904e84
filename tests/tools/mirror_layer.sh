# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/tools/mirror_layer.sh - sourced by the tests of images added to disk-log
# mirrors (t1023, t1024) after tests/lib.sh.  LVM2 adds them through a temporary
# resync layer (NAME_mimagetmp_N, the old mirror with its log, under a mirror of it and
# the new images) that its poll collapses once in sync; lvx writes the collapsed
# layout at once.  These helpers read LVM2's reports of either.
#
#   mir_layout VG SEDSCRIPT [LVM-ARGS...]  LVM2's (the command $MIR_LVM, default lvm2)
#                         "lv_name log=LOG devs" lines of VG,
#                         sorted, device names through SEDSCRIPT, PE offsets dropped,
#                         a resync layer collapsed as LVM2's poll does (the layer's
#                         images, then the top mirror's others; the layer's log)
#   mir_where VG SUBLV [LVM-ARGS...]     the PV LVM2 places SUBLV on (first segment)
#   mir_pv_sum VG SUBLV BYTES [LVM-ARGS...]  sha256 of SUBLV's first BYTES read from its
#                         PV (O_DIRECT)
#   mir_wsect DEV         sectors written to loop device DEV so far (/sys/block/*/stat)
#   mir_log_synced VG SUBLV [LVM-ARGS...]  "MiRr N in-sync K" of the dm-log in SUBLV
#                         (m_mlog, an image of a mirrored log) read from its PV
#
# Checks (TAP, tests/lib.sh) of an image conversion that lvx made on VG and LVM2 on the
# twin TW, devices named through $SEDA (VG) and $SEDB (TW):
#   mir_same_as_twin DESC LV RC OUT TWIN_RC TWIN_OUT [GREP-V-PATTERN...]  lvx's exit
#                         code and lines equal LVM2's on the twin, then its poll's end for
#                         VG/LV (noise and the patterns left out)
#   mir_copied VG TW DATA WHERE LAYOUT IMAGE...  the layout LVM2 reads equals LVM2's own
#                         on the twin and is LAYOUT (WHERE says it in words); VG/m reads
#                         the file DATA and so does each IMAGE read from its PV
#   mir_collapsed3 VG SEDSCRIPT  LVM2 reads VG's m collapsed as LVM2 leaves it (three
#                         images on D0 D1 D3, m_mlog on D2), then its vgck
#   mir_seen_devs VG LV WANT  LVM2's devices of VG/LV (--nolocking: a command holds the
#                         lock) read every 0.1 s for up to 10 s until they are WANT;
#                         prints what it read last (while a live conversion runs)

mir_layout() {
    local vg=$1 sed=$2
    shift 2
    "${MIR_LVM:-lvm2}" lvs -a --noheadings --separator ' ' -o lv_name,mirror_log,devices "$@" "$vg" \
        2>/dev/null | sed -e 's/^ *//' -e 's/\[//g; s/\]//g' -e 's/([0-9]*)//g' |
        awk 'NF == 2 { $3 = $2; $2 = "" } { print $1 "|" $2 "|" $3 }' | sed "$sed" |
        awk -F'|' '
            { name[NR] = $1; log_[NR] = $2; devs[NR] = $3; row[$1] = NR }
            END {
                for (i = 1; i <= NR; i++) {
                    if (name[i] ~ /_mimagetmp_/) continue
                    n = split(devs[i], d, ","); out = ""; lg = log_[i]
                    for (k = 1; k <= n; k++) {
                        if (d[k] in row && d[k] ~ /_mimagetmp_/) {
                            out = out (out == "" ? "" : ",") devs[row[d[k]]]
                            lg = log_[row[d[k]]]
                        } else {
                            out = out (out == "" ? "" : ",") d[k]
                        }
                    }
                    print name[i] " log=" lg " " out
                }
            }' | sort
}

mir_where() {
    local vg=$1 sub=$2
    shift 2
    lvm2 lvs -a --noheadings -o devices "$@" "$vg/$sub" 2>/dev/null | tr -d ' ' | sed 's/(.*//'
}

# _mir_at VG SUBLV [LVM-ARGS...]: "PV BYTE-OFFSET" of SUBLV's first extent, or nothing
_mir_at() {
    local vg=$1 sub=$2 pv start off ext
    shift 2
    pv=$(mir_where "$vg" "$sub" "$@")
    start=$(lvm2 lvs -a --noheadings -o devices "$@" "$vg/$sub" 2>/dev/null | tr -d ' ' |
        sed 's/.*(\(.*\))/\1/')
    off=$(lvm2 pvs --noheadings --units b --nosuffix -o pe_start "$@" "$pv" 2>/dev/null | tr -d ' ')
    ext=$(lvm2 vgs --noheadings --units b --nosuffix -o vg_extent_size "$@" "$vg" 2>/dev/null |
        tr -d ' ')
    [[ -n $pv && -n $start && -n $off && -n $ext ]] && echo "$pv $((off + start * ext))"
}

mir_pv_sum() {
    local vg=$1 sub=$2 bytes=$3 pv at
    shift 3
    read -r pv at < <(_mir_at "$vg" "$sub" "$@")
    [[ -n $pv ]] || { echo "no-pv"; return; }
    dd if="$pv" bs=1M iflag=direct,skip_bytes,count_bytes skip="$at" count="$bytes" status=none |
        sha256sum | cut -d' ' -f1
}

mir_wsect() {
    awk '{ print $7 }' "/sys/block/$(basename "$1")/stat"
}

# mir_wsect_all DEV...: the sectors written to all of them, summed
mir_wsect_all() {
    local d s=0
    for d in "$@"; do s=$((s + $(mir_wsect "$d"))); done
    echo "$s"
}

# dm-log on disk (docs/dm-formats.md §6): "MiRr", version, nr_regions (le64), bits at
# byte 1024, 1 = in sync
mir_log_synced() {
    local vg=$1 sub=$2 pv at
    shift 2
    read -r pv at < <(_mir_at "$vg" "$sub" "$@")
    [[ -n $pv ]] || { echo "no log"; return; }
    dd if="$pv" bs=4096 iflag=direct,skip_bytes skip="$at" count=1 \
        status=none | "$PYTHON" -c '
import struct, sys
b = sys.stdin.buffer.read()
magic, _ver, n = struct.unpack_from("<IIQ", b, 0)
bits = sum(((b[1024 + g // 8] >> (g % 8)) & 1) for g in range(n))
print("%s %d in-sync %d" % ("MiRr" if magic == 0x4D695272 else "none", n, bits))'
}

mir_same_as_twin() {
    local desc=$1 lv=$2 rc=$3 out=$4 rcb=$5 twin=$6 p
    shift 6
    local filter=(grep -v -e "starts after activation")
    for p in "$@"; do filter+=(-e "$p"); done
    test_eq "$desc: exit 0, LVM2's lines, then its poll's end" \
        "$rc $(sandbox_noise <"$out" | "${filter[@]}")" \
        "$rcb $(sandbox_noise <"$twin" | "${filter[@]}" | sed "s/$TW/$VG/g")
  $VG/$lv: Converted: 100.00%
  Logical volume $VG/$lv converted."
}

mir_copied() {
    local vg=$1 tw=$2 data=$3 where=$4 layout=$5 img
    shift 5
    test_eq "the layout LVM2 reads: LVM2's on the twin once its resync layer is collapsed" \
        "$(mir_layout "$vg" "$SEDA")" "$(mir_layout "$tw" "$SEDB")"
    test_eq "... $where" "$(mir_layout "$vg" "$SEDA" | paste -sd' ')" "$layout"
    test_eq "m reads its data" "$(lv_sum "$vg/m")" "$(fsum "$data")"
    for img in "$@"; do
        test_eq "$img holds it (read from its PV)" \
            "$(mir_pv_sum "$vg" "$img" $((16 * 1048576)))" "$(fsum "$data")"
    done
}

# mir_collapsed3 VG SEDSCRIPT: the check that LVM2 reads VG after the collapse of m's
# layer as LVM2's own collapse leaves it (m over m_mimage_0,1,2 on D0 D1 D3 with m_mlog
# on D2; device names through SEDSCRIPT), then LVM2's vgck (t1094, t1099)
mir_collapsed3() {
    local f=lv_name,lv_attr,devices,mirror_log,convert_lv,lv_converting,lv_layout,lv_role,lv_parent
    test_eq "LVM2 reads LVM2's final layout (collapse_mirrored_lv): m over m_mimage_0,1,2 and m_mlog" \
        "$(lvm2 lvs -a --noheadings --separator ' | ' -o $f "$1" 2>/dev/null | sed "$2")" \
        "  m | mwi-XXm--- | m_mimage_0(0),m_mimage_1(0),m_mimage_2(0) | [m_mlog] |  |  | mirror | public | 
  [m_mimage_0] | Iwi-XXm--- | D0(0) |  |  |  | linear | private,mirror,image | m
  [m_mimage_1] | Iwi-XXm--- | D1(0) |  |  |  | linear | private,mirror,image | m
  [m_mimage_2] | Iwi-XXm--- | D3(0) |  |  |  | linear | private,mirror,image | m
  [m_mlog] | lwi-XXm--- | D2(0) |  |  |  | linear | private,mirror,log | m"
    test_ok "LVM2's vgck" lvm2 vgck "$1"
}

mir_seen_devs() {
    local d=
    for _ in $(seq 100); do
        d=$(lvm2 lvs --nolocking --noheadings -o devices "$1/$2" 2>/dev/null | tr -d ' ')
        [[ $d == "$3" ]] && break
        sleep 0.1
    done
    echo "$d"
}
