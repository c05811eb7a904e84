#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0810-library: liblvx as an installed library.
#  - `make install PREFIX=$SCRATCH/usr` installs lvx.h, liblvx.so with SONAME
#    liblvx.so.0 exporting only the public API, liblvx.a and lvx.pc;
#  - examples/vgs_example.c builds with `pkg-config --cflags --libs lvx` and prints, from
#    its log callback, the same vgs line LVM2 prints for a VG on loop devices;
#  - a test program checks error paths (unknown command, bad VG, bad quoting: codes and
#    messages) and the object API (open, lists, create / extend / remove, activation
#    refused) against LVM2's view, and that the library itself prints nothing;
#  - two handles in two threads run commands at the same time; every change lands;
#  - every field the object API gives (VG info, PV and LV lists) is what `lvx vgs/pvs/lvs
#    --units b --nosuffix` and LVM2 print, for a VG of 4 PVs and 14 LVs (striped, tagged),
#    with a PV missing and with a stale metadata copy; warnings arrive once, as vgs's.
# Uses the plain build ($LVX_PLAIN's directory): an ASan-built .so needs the ASan runtime.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm pkg-config cc make readelf nm
BUILD_DIR=$(dirname "$LVX_PLAIN")
[[ -f $BUILD_DIR/liblvx.so ]] || skip_all "$BUILD_DIR/liblvx.so not built"
plan_later

PREFIX=$SCRATCH/usr
if ! test_ok "make install PREFIX=\$SCRATCH/usr" \
        make -s -C "$LVX_ROOT" BUILD="$BUILD_DIR" install PREFIX="$PREFIX"; then
    done_testing
fi
for f in include/lvx.h lib/liblvx.so lib/liblvx.so.0 lib/liblvx.a lib/pkgconfig/lvx.pc sbin/lvx; do
    test_ok "installed $f" test -e "$PREFIX/$f"
done
test_eq "SONAME is liblvx.so.0" \
    "$(readelf -d "$PREFIX/lib/liblvx.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" "liblvx.so.0"
exported=$(nm -D --defined-only "$PREFIX/lib/liblvx.so" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }')
test_ok "lvx_run and lvx_vg_open are exported" grep -qx 'lvx_run' <<<"$exported"
test_eq "internal functions are not exported" \
    "$(grep -cE '^lvx_(scan|cfg|dev|main|cmd|report)' <<<"$exported")" "0"

export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
test_eq "pkg-config knows lvx" "$(pkg-config --modversion lvx)" "0.1.0"
# shellcheck disable=SC2046
if ! test_ok "examples/vgs_example.c compiles with pkg-config" \
        cc -Wall -Werror -o "$SCRATCH/vgs_example" "$LVX_ROOT/examples/vgs_example.c" \
        $(pkg-config --cflags --libs lvx); then
    done_testing
fi

D=()
for _ in 0 1; do D+=("$(make_loop 64M)") || skip_all "cannot make loop devices"; done
lvm_sandbox "${D[@]}"
export LVM_SYSTEM_DIR=$SCRATCH/lvm LVM_SUPPRESS_FD_WARNINGS=1
export LD_LIBRARY_PATH=$PREFIX/lib
VG=lib$$
lvm2 pvcreate -y "${D[@]}" >/dev/null 2>&1
lvm2 vgcreate "$VG" "${D[@]}" >/dev/null 2>&1
lvm2 lvcreate -an -Zn -y -n seed -L 12m "$VG" >/dev/null 2>&1

"$SCRATCH/vgs_example" "$VG" >"$SCRATCH/ex.out" 2>"$SCRATCH/ex.err"
test_eq "vgs_example exits 0" "$?" 0
test_eq "the vgs line arrives through the log callback, as LVM2 prints it" \
    "$(cat "$SCRATCH/ex.out")" "$(lvm2 vgs --noheadings "$VG" 2>/dev/null)"
"$SCRATCH/vgs_example" "no$VG" >"$SCRATCH/ex2.out" 2>"$SCRATCH/ex2.err"
test_eq "vgs_example of a missing VG exits 1" "$?" 1
test_ok "... with the error through the callback" \
    grep -q "^\[level 3\] Volume group \"no$VG\" not found" "$SCRATCH/ex2.err"

cat >"$SCRATCH/api_test.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <lvx.h>

static int failures, lines_out;
static void check(int cond, const char *what)
{
    printf("%s %s\n", cond ? "PASS" : "FAIL", what);
    failures += !cond;
}
static void count_lines(void *user, int level, const char *msg)
{
    (void)msg;
    if (level == LVX_MSG_OUTPUT)
        (*(int *)user)++;
}
int main(int argc, char **argv)
{
    const char *vgname = argv[1];
    (void)argc;
    lvx_handle *h = lvx_init();
    check(lvx_run(h, "frobnicate") == LVX_ENO_SUCH_CMD, "unknown command: LVX_ENO_SUCH_CMD");
    check(strstr(lvx_errmsg(h), "No such command 'frobnicate'") != NULL, "unknown command: message");
    check(lvx_run(h, "vgs 'open") == LVX_EINVALID_CMD_LINE, "bad quoting: LVX_EINVALID_CMD_LINE");
    check(lvx_run(h, "vgs --bogus") == LVX_EINVALID_CMD_LINE, "bad option: LVX_EINVALID_CMD_LINE");
    check(lvx_run(h, "vgs nosuchvg") == LVX_ECMD_FAILED, "missing VG: LVX_ECMD_FAILED");
    check(strcmp(lvx_errmsg(h), "Volume group \"nosuchvg\" not found") == 0, "missing VG: message");
    check(lvx_errno(h) == -ENOENT, "missing VG: -ENOENT");
    lvx_log_fn_user(h, count_lines, &lines_out);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "lvx lvs --noheadings %s", vgname);
    check(lvx_run(h, cmd) == LVX_ECMD_PROCESSED && lvx_errmsg(h)[0] == '\0', "lvs ok, no error");
    check(lines_out == 1, "one lvs line through the user callback");
    check(lvx_config_override(h, "devices {") == -EINVAL, "unparsable override: EINVAL");
    check(lvx_config_override(h, "devices { global_filter = [ \"r|.*|\" ] }") == 0, "override set");
    check(lvx_run(h, cmd) == LVX_ECMD_FAILED, "override hides every device: lvs fails");
    check(lvx_config_override(h, NULL) == 0 && lvx_run(h, cmd) == LVX_ECMD_PROCESSED,
          "override removed: lvs works again");

    check(lvx_vg_open(h, "nosuchvg", "r") == NULL && lvx_errno(h) == -ENOENT, "open missing VG: ENOENT");
    check(lvx_vg_open(h, vgname, "x") == NULL && lvx_errno(h) == -EINVAL, "bad mode: EINVAL");
    lvx_vg_handle *ro = lvx_vg_open(h, vgname, "r");
    check(ro != NULL, "open read-only");
    check(ro && lvx_lv_create_linear(ro, "nope", 4 << 20) == -EPERM, "read-only handle refuses changes");
    lvx_vg_close(ro);

    lvx_vg_handle *vg = lvx_vg_open(h, vgname, "w");
    check(vg != NULL, "open for writing");
    if (!vg)
        return 1;
    const struct lvx_vg_info *info;
    const struct lvx_pv_info *pvs;
    const struct lvx_lv_info *lvs;
    unsigned npv, nlv;
    check(lvx_vg_get_info(vg, &info) == 0 && strcmp(info->name, vgname) == 0, "VG info name");
    printf("INFO %s %llu %llu %llu %llu\n", info->uuid, (unsigned long long)info->size,
           (unsigned long long)info->extent_size, (unsigned long long)info->pv_count,
           (unsigned long long)info->lv_count);
    check(lvx_vg_list_pvs(vg, &pvs, &npv) == 0 && npv == 2, "two PVs");
    for (unsigned i = 0; i < npv; i++)
        printf("PV %s %s %llu\n", pvs[i].name, pvs[i].uuid, (unsigned long long)pvs[i].size);
    check(lvx_lv_create_linear(vg, "api1", 8 << 20) == 0, "create api1 (8 MiB)");
    check(lvx_lv_create_linear(vg, "api1", 8 << 20) == -EEXIST, "create api1 again: EEXIST");
    check(lvx_lv_create_linear(vg, "huge", 1ull << 40) == -ENOSPC, "create 1 TiB: ENOSPC");
    check(lvx_lv_extend(vg, "api1", 16 << 20) == 0, "extend api1 to 16 MiB");
    check(lvx_lv_activate(vg, "api1") == -ENOTSUP, "activation: ENOTSUP");
    check(lvx_lv_remove(vg, "nosuchlv") == -ENOENT, "remove missing LV: ENOENT");
    check(lvx_vg_list_lvs(vg, &lvs, &nlv) == 0 && nlv == 2, "two LVs listed");
    for (unsigned i = 0; i < nlv; i++)
        printf("LV %s %s %s %llu\n", lvs[i].name, lvs[i].uuid, lvs[i].attr,
               (unsigned long long)lvs[i].size);
    check(lvx_lv_create_linear(vg, "api2", 4 << 20) == 0, "create api2");
    check(lvx_lv_remove(vg, "api2") == 0, "remove api2");
    lvx_vg_close(vg);
    lvx_exit(h);
    return failures != 0;
}
C
# shellcheck disable=SC2046
test_ok "the API test program compiles" \
    cc -Wall -Werror -o "$SCRATCH/api_test" "$SCRATCH/api_test.c" $(pkg-config --cflags --libs lvx)
"$SCRATCH/api_test" "$VG" >"$SCRATCH/api.out" 2>"$SCRATCH/api.err"
test_eq "API test program exits 0" "$?" 0
while read -r verdict what; do
    _tap_result "$([[ $verdict == PASS ]] && echo 0 || echo 1)" "api: $what"
done < <(grep -E '^(PASS|FAIL) ' "$SCRATCH/api.out")
test_eq "the library printed nothing on stderr" "$(cat "$SCRATCH/api.err")" ""
test_eq "stdout holds only the program's own lines" \
    "$(grep -cvE '^(PASS|FAIL|INFO|PV|LV) ' "$SCRATCH/api.out")" "0"

# the object API reports what LVM2 reports
test_eq "VG info = LVM2's vgs" "$(sed -n 's/^INFO //p' "$SCRATCH/api.out")" \
    "$(lvm2 vgs --noheadings --units b --nosuffix -o vg_uuid,vg_size,vg_extent_size,pv_count "$VG" 2>/dev/null | xargs) 1"
test_eq "PV list = LVM2's pvs" "$(sed -n 's/^PV //p' "$SCRATCH/api.out" | sort)" \
    "$(lvm2 pvs --noheadings --units b --nosuffix -o pv_name,pv_uuid,pv_size "${D[@]}" 2>/dev/null | awk '{$1=$1; print}' | sort)"
test_eq "LV list = LVM2's lvs after the changes (sizes, attrs, UUIDs)" \
    "$(sed -n 's/^LV //p' "$SCRATCH/api.out" | sort)" \
    "$(lvm2 lvs --noheadings --units b --nosuffix -o lv_name,lv_uuid,lv_attr,lv_size "$VG" 2>/dev/null | awk '{$1=$1; print}' | sort)"
test_ok "LVM2's vgck accepts the VG changed through the API" lvm2 vgck "$VG"

# Two handles in two threads at once: commands run concurrently (no process-wide lock,
# a parser without global state) and the VG lock serialises their changes on disk.
cat >"$SCRATCH/threads.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <lvx.h>

static const char *vgname;
static void *creator(void *arg)
{
    long t = (long)arg, failed = 0;
    lvx_handle *h = lvx_init();
    char cmd[256];
    for (int i = 0; i < 10; i++) {
        snprintf(cmd, sizeof(cmd), "lvcreate -an -Zn -l1 -n t%ld_%d --addtag @th%ld %s", t, i,
                 t, vgname);
        if (lvx_run(h, cmd) != LVX_ECMD_PROCESSED) {
            fprintf(stderr, "thread %ld: %s: %s\n", t, cmd, lvx_errmsg(h));
            failed++;
        }
    }
    lvx_exit(h);
    return (void *)failed;
}
int main(int argc, char **argv)
{
    pthread_t th[2];
    void *r[2];
    (void)argc;
    vgname = argv[1];
    for (long t = 0; t < 2; t++)
        pthread_create(&th[t], NULL, creator, (void *)t);
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], &r[t]);
    return r[0] || r[1];
}
C
# shellcheck disable=SC2046
test_ok "the two-thread program compiles" \
    cc -Wall -Werror -o "$SCRATCH/threads" "$SCRATCH/threads.c" -lpthread \
    $(pkg-config --cflags --libs lvx)
test_ok "two threads create 10 LVs each through their own handles" "$SCRATCH/threads" "$VG"
test_eq "LVM2 sees all 20 LVs with their thread's tag" \
    "$(lvm2 lvs --noheadings -o lv_name,lv_tags "$VG" 2>/dev/null | awk '$1 ~ /^t[01]_/ && $2 == "th" substr($1, 2, 1) {n++} END {print n + 0}')" 20
test_ok "LVM2's vgck accepts the VG after the concurrent changes" lvm2 vgck "$VG"


# Every field of the object API = `lvx vgs/pvs/lvs --units b --nosuffix` = LVM2's, on a
# VG of 4 PVs with 14 LVs (linear, striped, tagged; a thin pool's hidden LVs when LVM2
# makes one), then with a PV hidden by a filter (missing: "[unknown]", partial attrs,
# the warnings vgs prints) and with a stale metadata copy on one PV.
cat >"$SCRATCH/api_dump.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <lvx.h>

#define U(x) ((unsigned long long)(x))
static void on_log(void *user, int level, const char *msg)
{
    (void)user;
    if (level == LVX_MSG_WARN)
        printf("W|%s\n", msg);
}
int main(int argc, char **argv)
{
    lvx_handle *h = lvx_init();
    lvx_log_fn_user(h, on_log, NULL);
    if (argc > 2 && argv[2][0] && lvx_config_override(h, argv[2]) != 0)
        return 2;
    lvx_vg_handle *vg = lvx_vg_open(h, argv[1], "r");
    if (!vg) {
        printf("E|%d|%s\n", lvx_errno(h), lvx_errmsg(h));
        lvx_exit(h);
        return 1;
    }
    const struct lvx_vg_info *i;
    const struct lvx_pv_info *pv;
    const struct lvx_lv_info *lv;
    unsigned npv, nlv;
    if (lvx_vg_get_info(vg, &i) || lvx_vg_list_pvs(vg, &pv, &npv) || lvx_vg_list_lvs(vg, &lv, &nlv))
        return 3;
    printf("VG|%s|%s|%s|%llu|%llu|%llu|%llu|%llu|%llu|%llu|%llu\n", i->name, i->uuid, i->attr,
           U(i->size), U(i->free), U(i->extent_size), U(i->extent_count), U(i->free_count),
           U(i->pv_count), U(i->lv_count), U(i->seqno));
    for (unsigned k = 0; k < npv; k++)
        printf("PV|%s|%s|%s|%s|%llu|%llu|%llu|%llu\n", pv[k].name, pv[k].uuid, pv[k].vg_name,
               pv[k].attr, U(pv[k].size), U(pv[k].free), U(pv[k].pe_count),
               U(pv[k].pe_alloc_count));
    for (unsigned k = 0; k < nlv; k++)
        printf("LV|%s|%s|%s|%s|%s|%llu\n", lv[k].name, lv[k].uuid, lv[k].vg_name, lv[k].attr,
               lv[k].path, U(lv[k].size));
    printf("E|%d|%s\n", lvx_errno(h), lvx_errmsg(h));
    lvx_vg_close(vg);
    lvx_exit(h);
    return 0;
}
C
# shellcheck disable=SC2046
test_ok "the field dump program compiles" \
    cc -Wall -Werror -o "$SCRATCH/api_dump" "$SCRATCH/api_dump.c" $(pkg-config --cflags --libs lvx)

M=()
for _ in 0 1 2 3; do M+=("$(make_loop 40M)") || skip_all "cannot make loop devices"; done
lvm_sandbox "${D[@]}" "${M[@]}"
VG2=libm$$
lvm2 pvcreate -y "${M[@]}" >/dev/null 2>&1
lvm2 vgcreate -s 1m --addtag vgtag "$VG2" "${M[@]}" >/dev/null 2>&1
lvm2 pvchange --addtag pvtag "${M[1]}" >/dev/null 2>&1
lvm2 lvcreate -an -Zn -y -i 4 -I 64k -n striped -L 16m "$VG2" >/dev/null 2>&1
for n in 1 2 3 4 5 6 7 8 9 10; do
    lvm2 lvcreate -an -Zn -y -n "l$n" -L "${n}m" "$VG2" >/dev/null 2>&1
done
lvm2 lvcreate -an -Zn -y --addtag t1 --addtag t2 -n tagged -L 3m "$VG2" "${M[2]}" >/dev/null 2>&1
lvm2 lvcreate -an -Zn -y -n onlast -L 5m "$VG2" "${M[3]}" >/dev/null 2>&1
lvx lvcreate -an -Zn -y --addtag @lvxtag -n bylvx -L 2m "$VG2" >/dev/null 2>&1
test_eq "LVM2 sees the tagged LV's tags" \
    "$(lvm2 lvs --noheadings -o lv_tags "$VG2/tagged" 2>/dev/null | xargs)" "t1,t2"

VGF=vg_name,vg_uuid,vg_attr,vg_size,vg_free,vg_extent_size,vg_extent_count,vg_free_count,pv_count,lv_count,vg_seqno
PVF=pv_name,pv_uuid,vg_name,pv_attr,pv_size,pv_free,pv_pe_count,pv_pe_alloc_count
LVF=lv_name,lv_uuid,vg_name,lv_attr,lv_path,lv_size
# report TOOL VG CONFIG: VG, PV and LV lines as the dump program prints them ("" = no --config)
report() {
    local tool=$1 vg=$2 cfg=() r=(--noheadings --separator '|' --units b --nosuffix)
    [[ -n $3 ]] && cfg=(--config "$3")
    "$tool" vgs "${cfg[@]}" "${r[@]}" -o "$VGF" "$vg" 2>/dev/null | sed 's/^ *//; s/^/VG|/'
    "$tool" pvs "${cfg[@]}" "${r[@]}" -o "$PVF" 2>/dev/null | sed 's/^ *//' |
        awk -F'|' -v vg="$vg" '$3 == vg { print "PV|" $0 }'
    "$tool" lvs "${cfg[@]}" "${r[@]}" -o "$LVF" "$vg" 2>/dev/null | sed 's/^ *//; s/^/LV|/'
}
# warnings of `vgs VG` in an lvx shell session (a session scans every device, as a
# library handle does) on stderr, without indentation and "WARNING: "
warnings() {
    local cfg=""
    [[ -n $2 ]] && cfg="--config '$2'"
    printf 'vgs %s %s\n' "$cfg" "$1" | "$LVX_PLAIN" shell 2>&1 >/dev/null |
        sed 's/^ *//; s/^WARNING: //'
}
# check_dump WHAT VG CONFIG: the dump program's fields against lvx's and LVM2's reports
check_dump() {
    local out=$SCRATCH/dump.$1
    "$SCRATCH/api_dump" "$2" "$3" >"$out" 2>"$out.err"
    test_eq "$1: the dump program exits 0, no error, nothing on stderr" \
        "$?:$(grep '^E|' "$out"):$(cat "$out.err")" "0:E|0|:"
    test_eq "$1: every VG/PV/LV field = lvx vgs/pvs/lvs --units b --nosuffix" \
        "$(grep -E '^(VG|PV|LV)\|' "$out")" "$(report lvx_cli "$2" "$3")"
    test_eq "$1: every VG/PV/LV field = LVM2's vgs/pvs/lvs" \
        "$(grep -E '^(VG|PV|LV)\|' "$out")" "$(report lvm2 "$2" "$3")"
    test_eq "$1: the warnings reach the log callback once, as lvx vgs prints them" \
        "$(sed -n 's/^W|//p' "$out" | sed 's/^WARNING: //')" "$(warnings "$2" "$3")"
}
lvx_cli() { "$LVX_PLAIN" "$@"; }

check_dump "whole VG" "$VG2" ""
test_ok "whole VG: the striped LV is listed" grep -q '^LV|striped|' "$SCRATCH/dump.whole VG"
test_eq "whole VG: 4 PVs, 14 LVs" \
    "$(grep -c '^PV|' "$SCRATCH/dump.whole VG") $(grep -c '^LV|' "$SCRATCH/dump.whole VG")" "4 14"
test_eq "whole VG: nothing warned" "$(grep -c '^W|' "$SCRATCH/dump.whole VG")" 0

hide="devices { global_filter = [ \"a|^${M[0]}\$|\", \"a|^${M[1]}\$|\", \"a|^${M[2]}\$|\", \"r|.*|\" ] }"
check_dump "missing PV" "$VG2" "$hide"
test_ok "missing PV: listed as [unknown] with attr a-m" grep -qx "PV|\[unknown\]|.*|$VG2|a-m|.*" \
    "$SCRATCH/dump.missing PV"
test_ok "missing PV: the VG is partial" grep -q "^VG|$VG2|[^|]*|wz-pn-|" "$SCRATCH/dump.missing PV"
test_ok "missing PV: warned about" grep -q '^W|' "$SCRATCH/dump.missing PV"

# a stale copy: the first PV's metadata area as it was before one more lvcreate
dd if="${M[0]}" of="$SCRATCH/m0.head" bs=1M count=1 status=none
lvm2 lvcreate -an -Zn -y -n late -L 1m "$VG2" >/dev/null 2>&1
dd if="$SCRATCH/m0.head" of="${M[0]}" bs=1M count=1 conv=notrunc,fsync status=none
blockdev --flushbufs "${M[0]}" 2>/dev/null
check_dump "stale copy" "$VG2" ""
test_ok "stale copy: the newest metadata wins (LV late listed)" grep -q '^LV|late|' \
    "$SCRATCH/dump.stale copy"
test_ok "stale copy: warned about" grep -q '^W|' "$SCRATCH/dump.stale copy"

# hidden LVs (raid images and metadata, mirror legs and log, thin pool data and metadata,
# the snapshot's snapshot0): LVM2's segment-type zoo fixture on loop devices, renamed
Z=()
if fixture_images p08_segtype_zoo "$SCRATCH/zoo" >"$SCRATCH/zoo.list" 2>"$SCRATCH/zoo.err"; then
    while read -r img; do Z+=("$(attach_loop "$img")"); done <"$SCRATCH/zoo.list"
fi
if [[ ${#Z[@]} -eq 5 ]]; then
    lvm_sandbox "${D[@]}" "${M[@]}" "${Z[@]}"
    VG3=libz$$
    lvm2 vgrename vg08 "$VG3" >/dev/null 2>&1
    check_dump "hidden LVs" "$VG3" ""
    shown=$(lvm2 lvs --noheadings -o lv_name "$VG3" 2>/dev/null | wc -l)
    all=$(lvm2 lvs -a --noheadings -o lv_name "$VG3" 2>/dev/null | wc -l)
    test_eq "hidden LVs: as many LVs as LVM2's lvs shows without -a" \
        "$(grep -c '^LV|' "$SCRATCH/dump.hidden LVs")" "$shown"
    test_ok "hidden LVs: lvs -a shows more ($all > $shown)" test "$all" -gt "$shown"
else
    test_skip "hidden LVs" "fixture p08_segtype_zoo not rebuilt: $(head -c 200 "$SCRATCH/zoo.err")"
fi

done_testing
