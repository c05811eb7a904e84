#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1013-host-tags: LVM2's host tags (lvm.conf's tags section), side by side with LVM2
# 2.03 on the host: `tags` lists tags/hosttags's host name, tags/@NAME and tags/NAME
# sections (host_list naming another host or empty: left out) and the tags an
# lvm_TAG.conf adds, in LVM2's order; each lvm_TAG.conf is merged over lvm.conf and the
# merged configuration has no tags section (`dumpconfig` as LVM2's, also with -qq);
# an invalid tag or host_list entry fails every command with LVM2's line and exit code
# 4.  Then lvx alone (LVM2 cannot activate here): "@*" in activation/volume_list
# activates, through the user backend, the LV whose tag is a host tag and not the one
# whose tag is not.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

side_setup 1
plan_later
CONF=$SCRATCH/lvm/lvm.conf
cp "$CONF" "$SCRATCH/lvm.conf.base"
host=$(uname -n)
cat "$SCRATCH/lvm.conf.base" - >"$CONF" <<'EOF2'
log { indent = 1 }
tags { hosttags = 1 @foo {} bar { host_list = [ "not-this-host" ] } baz { host_list = [ ] } }
EOF2
echo 'log { verbose = 1 } tags { qux {} }' >"$SCRATCH/lvm/lvm_foo.conf"
echo 'global { units = "k" }' >"$SCRATCH/lvm/lvm_qux.conf"
echo 'global { suffix = 0 }' >"$SCRATCH/lvm/lvm_$host.conf"
echo 'global { units = "m" }' >"$SCRATCH/lvm/lvm_bar.conf"     # bar is not this host's

same "tags as LVM2" tags
test_eq "... the host name, foo and qux (from lvm_foo.conf); not bar or baz" \
    "$(tr -d ' ' <"$SCRATCH/x.out" | paste -sd' ')" "$host foo qux"
same "tags -qq as LVM2 (still printed)" tags -qq
same "dumpconfig as LVM2" dumpconfig
test_eq "... lvm_foo.conf, lvm_qux.conf and lvm_HOST.conf merged, not lvm_bar.conf" \
    "$(grep -c -e 'verbose=1' -e 'units="k"' -e 'suffix=0' "$SCRATCH/x.out")/$(grep -c 'units="m"' "$SCRATCH/x.out")" "3/0"
same "dumpconfig tags as LVM2 (not found)" dumpconfig tags
same "dumpconfig log global as LVM2" dumpconfig log global
same "config --type full tags as LVM2" config --type full tags
same "lvs reads the merged units as LVM2 (global/units k, suffix 0)" vgs --noheadings -o vg_free --nosuffix

cat "$SCRATCH/lvm.conf.base" - >"$CONF" <<'EOF2'
tags { @foo {} "bad tag!" {} }
EOF2
same "an invalid tag: every command fails as LVM2" pvs
test_eq "... exit 4, LVM2's line" "$(cat "$SCRATCH/x.rc") $(cat "$SCRATCH/x.err")" "4   Invalid tag in config file: bad tag!"
cat "$SCRATCH/lvm.conf.base" - >"$CONF" <<'EOF2'
tags { foo { host_list = [ 1 ] } }
EOF2
same "a host_list entry that is not a string: as LVM2" tags

# ---- "@*" in activation/volume_list (lvx's user backend)
cat "$SCRATCH/lvm.conf.base" - >"$CONF" <<'EOF2'
tags { hosttags = 1 @foo {} }
EOF2
VG=vght$$
mkdir -p "$SCRATCH/dev"
[[ -e /dev/fuse ]] || { done_testing; }
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user lvx "$@" --config "global { activation = 1 } activation { volume_list = [ \"@*\" ] }"; }
test_ok "lvx: $VG with LV a (tag foo), b (tag other), c (no tag), inactive" sh -c \
    "'$LVX' pvcreate -q ${D[0]} && '$LVX' vgcreate -q $VG ${D[0]} &&
     '$LVX' lvcreate -q -an -Zn -L 8m -n a --addtag foo $VG &&
     '$LVX' lvcreate -q -an -Zn -L 8m -n b --addtag other $VG &&
     '$LVX' lvcreate -q -an -Zn -L 8m -n c $VG"
U vgchange -ay "$VG" >"$SCRATCH/act.out" 2>&1
test_eq "vgchange -ay under volume_list [\"@*\"]: only a (host tag foo) active" \
    "$(U lvs --noheadings -o lv_name,lv_active "$VG" | tr -s ' ' | sed 's/^ //')" \
    "a active
b 
c "
test_eq "... LVM2's line for the VG" "$(grep -c '1 logical volume(s) in volume group' "$SCRATCH/act.out")" "1"
lvx lvchange --addtag "$host" "$VG/c" >/dev/null 2>&1
U lvchange -ay "$VG/c" >/dev/null 2>&1
test_eq "an LV tagged with the host name (hosttags = 1) is activated" \
    "$(U lvs --noheadings -o lv_active "$VG/c" | tr -d ' ')" "active"
U vgchange -an "$VG" >/dev/null 2>&1
test_eq "all deactivated" "$(U lvs --noheadings -o lv_active "$VG" | tr -d ' \n')" ""
lvx vgremove -q -ff "$VG" >/dev/null 2>&1
cp "$SCRATCH/lvm.conf.base" "$CONF"
done_testing
