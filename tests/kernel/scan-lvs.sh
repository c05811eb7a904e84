#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/scan-lvs.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0746-kernel-scan-lvs.sh) with 4 virtio disks, lvx at /t/lvx and the host's
# LVM2/dmsetup.  Prints TAP.  devices/scan_lvs with the kernel, both tools side by side:
#
#   vda  VG "lvmlo" (LV "lv", active), then "lvmup" on /dev/lvmlo/lv: LVM2's
#   vdc  VG "lvxlo" and "lvxup" the same: lvx's
#
# Checks (each command's exit status and output equal LVM2's, names normalized): with
# scan_lvs 0 pvcreate, vgcreate and pvs of the LV are refused; with 1 pvcreate,
# vgcreate, lvcreate of an upper LV (activated: its table maps onto the lower LV as
# LVM2's does); data written through the upper LV is on the lower one at pe_start; a
# filter naming only /dev/LO/lv or /dev/mapper/LO-lv accepts the LV; the lower LV is
# in use while the upper VG is active (lvchange -an, vgchange -an refused); after
# vgchange -an of the upper VG both go.
# shellcheck disable=SC2086
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

# LVM2's --config once: the guest's lvm wrapper's hints = "none" is in each of these
ON='devices { scan_lvs = 1 hints = "none" }'
# bothx DESC ARGS...: ARGS with LO/UP as each tool's lower/upper VG, for LVM2 and lvx;
# exit status and output compared with the VG names put back to LO/UP
bothx() {
    local desc=$1 ra=0 rb=0 oa ob a=() b=() x
    shift
    for x in "$@"; do
        x=${x//LO/lvmlo} a+=("${x//UP/lvmup}")
    done
    for x in "$@"; do
        x=${x//LO/lvxlo} b+=("${x//UP/lvxup}")
    done
    case " $* " in
    *" --config "*) ;;
    *) a+=(--config 'devices { hints = "none" }') ;;
    esac
    oa=$(command lvm "${a[@]}" 2>&1 | grep -v "' for more information.$"; exit "${PIPESTATUS[0]}") || ra=$?
    ob=$($LVX "${b[@]}" 2>&1) || rb=$?
    oa=${oa//lvmlo/LO} ob=${ob//lvxlo/LO}
    check_eq "$desc: lvx's exit status and output equal LVM2's" \
        "$rb ${ob//lvxup/UP}" "$ra ${oa//lvmup/UP}"
}
# table TOOL-PREFIX: the upper LV's dm table, device numbers as names, VGs as LO/UP
table() {
    local map
    map=$(dmsetup info -c --noheadings --separator ' ' -o major,minor,name |
        awk '{ printf "s/ %s:%s( |$)/ %s\\1/g;", $1, $2, $3 }')
    dmsetup table "${1}up-top" | sed -E "$map" | sed "s/${1}lo/LO/g"
}

check "LVM2: lvmlo on vda, lvmlo/lv 64m active" sh -c \
    "lvm pvcreate -q /dev/vda && lvm vgcreate -q lvmlo /dev/vda && lvm lvcreate -q -L 64m -n lv lvmlo"
check "lvx: lvxlo on vdc, lvxlo/lv 64m active" sh -c \
    "$LVX pvcreate -q /dev/vdc && $LVX vgcreate -q lvxlo /dev/vdc && $LVX lvcreate -q -L 64m -n lv lvxlo"

bothx "scan_lvs 0: pvcreate LV" pvcreate /dev/LO/lv
bothx "scan_lvs 0: vgcreate on LV" vgcreate UP /dev/LO/lv
bothx "scan_lvs 0: pvs LV" pvs /dev/LO/lv
bothx "scan_lvs 1: pvcreate LV" pvcreate --config "$ON" /dev/LO/lv
bothx "scan_lvs 1: vgcreate on LV" vgcreate --config "$ON" UP /dev/LO/lv
bothx "scan_lvs 1: lvcreate UP/top 16m" lvcreate --config "$ON" -L 16m -n top UP
check_eq "the upper LV's table equals LVM2's" "$(table lvx)" "$(table lvm)"
note "$(table lvx)"
bothx "scan_lvs 1: vgs UP" vgs --config "$ON" --noheadings -o vg_name,pv_count,lv_count UP
bothx "scan_lvs 0: vgs UP not found" vgs UP
for f in '/dev/LO/lv' '/dev/mapper/LO-lv'; do
    bothx "filter accepting only $f: the LV's PV listed" pvs --noheadings -o pv_size,vg_name \
        --config "devices { scan_lvs = 1 hints = \"none\" global_filter = [ \"a|^$f\$|\", \"r|.*|\" ] }"
done
bothx "filter accepting another name: nothing listed" pvs --noheadings -o pv_size,vg_name \
    --config 'devices { scan_lvs = 1 hints = "none" global_filter = [ "a|^/dev/LO/other$|", "r|.*|" ] }'

dd if=/dev/urandom of=/tmp/A bs=1M count=2 2>/dev/null
pe=$($LVX pvs --config "$ON" --noheadings --units b --nosuffix -o pe_start /dev/lvxlo/lv | trim)
check "lvx: data written to lvxup/top, read back there and on lvxlo/lv at pe_start" bash -c \
    "dd if=/tmp/A of=/dev/lvxup/top bs=1M oflag=direct 2>/dev/null &&
     cmp -n 2097152 /tmp/A /dev/lvxup/top &&
     cmp -n 2097152 /tmp/A <(dd if=/dev/lvxlo/lv bs=1M iflag=direct,skip_bytes skip=$pe count=2 2>/dev/null)"

# lvchange -an: LVM2's holders check, "... is used by another device.", exit 5
bothx "lvchange -an of the lower LV under the active upper VG" lvchange -an LO/lv
bothx "vgchange -an of the lower VG under the active upper VG" vgchange -an LO
bothx "vgchange -an UP" vgchange --config "$ON" -an UP
bothx "then vgchange -an LO" vgchange -an LO
check_eq "no device of either tool left" "$(dmsetup ls | grep -E '^lv[mx](lo|up)-' || true)" ""

guest_done
