/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/fields.c - THE table of report fields: name, object type, LVM2's
 * heading, minimum column width, value type, alignment and getter.  The headings
 * and widths are LVM2 2.03.16's (checked with the real tool); fields whose value
 * needs kernel state lvx has no access to print what LVM2 prints without
 * device-mapper ("unknown", -1 or blank).
 *
 * Entry point: lvx_report_field_find() resolves a user-given name: exact name,
 * or the name with the report's object prefix omitted ("name" -> "lv_name" in
 * lvs, "size" -> "seg_size" and "type" -> "segtype" in lvs --segments), case
 * insensitive, as LVM2 does.
 */
#include "report/report_int.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#define F(n, o, h, w, t, a, g) \
    { #n, LVX_ROBJ_##o, h, w, LVX_FT_##t, a == 'R', lvx_rget_##g }
#define L 'L'
#define R 'R'

const struct lvx_field lvx_report_fields[] = {
    F(lv_uuid, LV, "LV UUID", 38, STR, L, lv_uuid),
    F(lv_name, LV, "LV", 4, STR, L, lv_name),
    F(lv_full_name, LV, "LV", 4, STR, L, lv_full_name),
    F(lv_path, LV, "Path", 4, STR, L, lv_path),
    F(lv_dm_path, LV, "DMPath", 6, STR, L, lv_dm_path),
    F(lv_parent, LV, "Parent", 6, STR, L, lv_parent),
    F(lv_layout, LV, "Layout", 10, STRLIST, L, lv_layout),
    F(lv_role, LV, "Role", 10, STRLIST, L, lv_role),
    F(lv_initial_image_sync, LV, "InitImgSync", 10, STR, R, lv_initial_image_sync),
    F(lv_image_synced, LV, "ImgSynced", 10, NUM, R, blank_num),
    F(lv_merging, LV, "Merging", 10, STR, R, lv_merging),
    F(lv_converting, LV, "Converting", 10, STR, R, lv_converting),
    F(lv_allocation_policy, LV, "AllocPol", 10, STR, L, lv_allocation_policy),
    F(lv_allocation_locked, LV, "AllocLock", 10, STR, R, lv_allocation_locked),
    F(lv_fixed_minor, LV, "FixMin", 10, STR, R, lv_fixed_minor),
    F(lv_skip_activation, LV, "SkipAct", 15, STR, R, lv_skip_activation),
    F(lv_autoactivation, LV, "AutoAct", 7, STR, R, lv_autoactivation),
    F(lv_when_full, LV, "WhenFull", 15, STR, L, lv_when_full),
    F(lv_active, LV, "Active", 6, STR, L, lv_active),
    F(lv_active_locally, LV, "ActLocal", 10, STR, R, lv_active_locally),
    F(lv_active_remotely, LV, "ActRemote", 10, STR, R, lv_active_remotely),
    F(lv_active_exclusively, LV, "ActExcl", 10, STR, R, lv_active_exclusively),
    F(lv_major, LV, "Maj", 3, NUM, R, lv_major),
    F(lv_minor, LV, "Min", 3, NUM, R, lv_minor),
    F(lv_read_ahead, LV, "Rahead", 6, SIZE, R, lv_read_ahead),
    F(lv_size, LV, "LSize", 5, SIZE, R, lv_size),
    F(lv_metadata_size, LV, "MSize", 5, SIZE, R, lv_metadata_size),
    F(seg_count, LV, "#Seg", 4, NUM, R, seg_count),
    F(origin, LV, "Origin", 6, STR, L, origin),
    F(origin_uuid, LV, "Origin UUID", 38, STR, L, origin_uuid),
    F(origin_size, LV, "OSize", 5, SIZE, R, origin_size),
    F(lv_ancestors, LV, "Ancestors", 9, STRLIST, L, lv_ancestors),
    F(lv_full_ancestors, LV, "FAncestors", 10, STRLIST, L, lv_ancestors),
    F(lv_descendants, LV, "Descendants", 11, STRLIST, L, lv_descendants),
    F(lv_full_descendants, LV, "FDescendants", 12, STRLIST, L, lv_descendants),
    F(raid_mismatch_count, LV, "Mismatches", 10, NUM, R, raid_mismatch_count),
    F(raid_sync_action, LV, "SyncAction", 10, STR, L, raid_sync_action),
    F(raid_write_behind, LV, "WBehind", 7, NUM, R, raid_write_behind),
    F(raid_min_recovery_rate, LV, "MinSync", 7, NUM, R, raid_min_recovery_rate),
    F(raid_max_recovery_rate, LV, "MaxSync", 7, NUM, R, raid_max_recovery_rate),
    F(raidintegritymode, LV, "IntegMode", 9, STR, L, blank_str),
    F(raidintegrityblocksize, LV, "IntegBlkSize", 12, NUM, R, minus_one),
    F(integritymismatches, LV, "IntegMismatches", 15, NUM, R, blank_num),
    F(move_pv, LV, "Move", 4, STR, L, move_pv),
    F(move_pv_uuid, LV, "Move UUID", 38, STR, L, move_pv_uuid),
    F(convert_lv, LV, "Convert", 7, STR, L, convert_lv),
    F(convert_lv_uuid, LV, "Convert UUID", 38, STR, L, convert_lv_uuid),
    F(mirror_log, LV, "Log", 3, STR, L, mirror_log),
    F(mirror_log_uuid, LV, "Log UUID", 38, STR, L, mirror_log_uuid),
    F(data_lv, LV, "Data", 4, STR, L, data_lv),
    F(data_lv_uuid, LV, "Data UUID", 38, STR, L, data_lv_uuid),
    F(metadata_lv, LV, "Meta", 4, STR, L, metadata_lv),
    F(metadata_lv_uuid, LV, "Meta UUID", 38, STR, L, metadata_lv_uuid),
    F(pool_lv, LV, "Pool", 4, STR, L, pool_lv),
    F(pool_lv_uuid, LV, "Pool UUID", 38, STR, L, pool_lv_uuid),
    F(lv_tags, LV, "LV Tags", 7, STRLIST, L, lv_tags),
    F(lv_profile, LV, "LProfile", 8, STR, L, lv_profile),
    F(lv_lockargs, LV, "LLockArgs", 9, STR, L, lv_lockargs),
    F(lv_time, LV, "CTime", 26, STR, L, lv_time),
    F(lv_time_removed, LV, "RTime", 26, STR, L, blank_str),
    F(lv_host, LV, "Host", 10, STR, L, lv_host),
    F(lv_modules, LV, "Modules", 7, STRLIST, L, lv_modules),
    F(lv_historical, LV, "Historical", 10, NUM, R, blank_num),
    F(writecache_block_size, LV, "WCacheBlkSize", 13, NUM, R, writecache_block_size),
    F(lv_kernel_major, LV, "KMaj", 4, NUM, R, lv_kernel_major),
    F(lv_kernel_minor, LV, "KMin", 4, NUM, R, lv_kernel_minor),
    F(lv_kernel_read_ahead, LV, "KRahead", 7, SIZE, R, lv_kernel_read_ahead),
    F(lv_permissions, LV, "LPerms", 8, STR, L, lv_permissions),
    F(lv_suspended, LV, "Suspended", 10, STR, R, lv_suspended),
    F(lv_live_table, LV, "LiveTable", 20, STR, R, lv_live_table),
    F(lv_inactive_table, LV, "InactiveTable", 20, STR, R, lv_inactive_table),
    F(lv_device_open, LV, "DevOpen", 10, STR, R, lv_device_open),
    F(lv_activation_backend, LV, "ActBackend", 10, STR, L, lv_activation_backend),
    F(data_percent, LV, "Data%", 6, PERCENT, L, data_percent),
    F(snap_percent, LV, "Snap%", 6, PERCENT, L, snap_percent),
    F(metadata_percent, LV, "Meta%", 6, PERCENT, L, metadata_percent),
    F(copy_percent, LV, "Cpy%Sync", 8, PERCENT, L, sync_percent),
    F(sync_percent, LV, "Cpy%Sync", 8, PERCENT, L, sync_percent),
    F(cache_total_blocks, LV, "CacheTotalBlocks", 16, NUM, R, cache_total_blocks),
    F(cache_used_blocks, LV, "CacheUsedBlocks", 16, NUM, R, cache_used_blocks),
    F(cache_dirty_blocks, LV, "CacheDirtyBlocks", 16, NUM, R, cache_dirty_blocks),
    F(cache_read_hits, LV, "CacheReadHits", 16, NUM, R, cache_read_hits),
    F(cache_read_misses, LV, "CacheReadMisses", 16, NUM, R, cache_read_misses),
    F(cache_write_hits, LV, "CacheWriteHits", 16, NUM, R, cache_write_hits),
    F(cache_write_misses, LV, "CacheWriteMisses", 16, NUM, R, cache_write_misses),
    F(kernel_cache_settings, LV, "KCacheSettings", 18, STRLIST, L, kernel_cache_settings),
    F(kernel_cache_policy, LV, "KCachePolicy", 18, STR, L, kernel_cache_policy),
    F(kernel_metadata_format, LV, "KMFmt", 5, NUM, R, kernel_metadata_format),
    F(lv_health_status, LV, "Health", 15, STR, L, lv_health_status),
    F(kernel_discards, LV, "KDiscards", 9, STR, L, kernel_discards),
    F(lv_check_needed, LV, "CheckNeeded", 15, STR, R, lv_check_needed),
    F(lv_merge_failed, LV, "MergeFailed", 15, STR, R, unknown),
    F(lv_snapshot_invalid, LV, "SnapInvalid", 15, STR, R, unknown),
    F(vdo_operating_mode, LV, "VDOOperatingMode", 16, STR, L, blank_str),
    F(vdo_compression_state, LV, "VDOCompressionState", 19, STR, L, blank_str),
    F(vdo_index_state, LV, "VDOIndexState", 13, STR, L, blank_str),
    F(vdo_used_size, LV, "VDOUsedSize", 11, NUM, R, blank_num),
    F(vdo_saving_percent, LV, "VDOSaving%", 10, NUM, R, blank_num),
    F(writecache_total_blocks, LV, "WCacheTotalBlocks", 17, NUM, R, writecache_total_blocks),
    F(writecache_free_blocks, LV, "WCacheFreeBlocks", 16, NUM, R, writecache_free_blocks),
    F(writecache_writeback_blocks, LV, "WCacheWritebackBlocks", 21, NUM, R, writecache_writeback_blocks),
    F(writecache_error, LV, "WCacheErrors", 12, NUM, R, writecache_error),
    F(lv_attr, LV, "Attr", 4, STR, L, lv_attr),
    F(pv_fmt, PV, "Fmt", 3, STR, L, pv_fmt),
    F(pv_uuid, PV, "PV UUID", 38, STR, L, pv_uuid),
    F(dev_size, PV, "DevSize", 7, SIZE, R, dev_size),
    F(pv_name, PV, "PV", 10, STR, L, pv_name),   /* LVM2 pads it to 10 (/dev/vda: 2 spaces) */
    F(pv_major, PV, "Maj", 3, STR, L, pv_major),
    F(pv_minor, PV, "Min", 3, STR, L, pv_minor),
    F(pv_mda_free, PV, "PMdaFree", 9, SIZE, R, pv_mda_free),
    F(pv_mda_size, PV, "PMdaSize", 9, SIZE, R, pv_mda_size),
    F(pv_ext_vsn, PV, "PExtVsn", 7, NUM, R, pv_ext_vsn),
    F(pe_start, PV, "1st PE", 7, SIZE, R, pe_start),
    F(pv_size, PV, "PSize", 5, SIZE, R, pv_size),
    F(pv_free, PV, "PFree", 5, SIZE, R, pv_free),
    F(pv_used, PV, "Used", 4, SIZE, R, pv_used),
    F(pv_attr, PV, "Attr", 4, STR, L, pv_attr),
    F(pv_allocatable, PV, "Allocatable", 11, STR, R, pv_allocatable),
    F(pv_exported, PV, "Exported", 10, STR, R, pv_exported),
    F(pv_missing, PV, "Missing", 10, STR, R, pv_missing),
    F(pv_pe_count, PV, "PE", 3, NUM, R, pv_pe_count),
    F(pv_pe_alloc_count, PV, "Alloc", 5, NUM, R, pv_pe_alloc_count),
    F(pv_tags, PV, "PV Tags", 7, STRLIST, L, pv_tags),
    F(pv_mda_count, PV, "#PMda", 5, NUM, R, pv_mda_count),
    F(pv_mda_used_count, PV, "#PMdaUse", 8, NUM, R, pv_mda_used_count),
    F(pv_ba_start, PV, "BA Start", 8, SIZE, R, pv_ba_start),
    F(pv_ba_size, PV, "BA Size", 7, SIZE, R, pv_ba_size),
    F(pv_in_use, PV, "PInUse", 6, STR, R, pv_in_use),
    F(pv_duplicate, PV, "Duplicate", 9, NUM, R, blank_num),
    F(pv_device_id, PV, "DeviceID", 8, STR, L, pv_device_id),
    F(pv_device_id_type, PV, "DeviceIDType", 12, STR, L, pv_device_id_type),
    F(vg_fmt, VG, "Fmt", 3, STR, L, vg_fmt),
    F(vg_uuid, VG, "VG UUID", 38, STR, L, vg_uuid),
    F(vg_name, VG, "VG", 2, STR, L, vg_name),
    F(vg_attr, VG, "Attr", 4, STR, L, vg_attr),
    F(vg_permissions, VG, "VPerms", 10, STR, L, vg_permissions),
    F(vg_extendable, VG, "Extendable", 10, STR, R, vg_extendable),
    F(vg_exported, VG, "Exported", 10, STR, R, vg_exported),
    F(vg_autoactivation, VG, "AutoAct", 7, STR, R, vg_autoactivation),
    F(vg_partial, VG, "Partial", 10, STR, R, vg_partial),
    F(vg_allocation_policy, VG, "AllocPol", 10, STR, L, vg_allocation_policy),
    F(vg_clustered, VG, "Clustered", 10, STR, R, vg_clustered),
    F(vg_shared, VG, "Shared", 7, STR, R, vg_shared),
    F(vg_size, VG, "VSize", 5, SIZE, R, vg_size),
    F(vg_free, VG, "VFree", 5, SIZE, R, vg_free),
    F(vg_sysid, VG, "SYS ID", 6, STR, L, vg_sysid),
    F(vg_systemid, VG, "System ID", 9, STR, L, vg_sysid),
    F(vg_lock_type, VG, "LockType", 8, STR, L, vg_lock_type),
    F(vg_lock_args, VG, "VLockArgs", 9, STR, L, vg_lock_args),
    F(vg_extent_size, VG, "Ext", 3, SIZE, R, vg_extent_size),
    F(vg_extent_count, VG, "#Ext", 4, NUM, R, vg_extent_count),
    F(vg_free_count, VG, "Free", 4, NUM, R, vg_free_count),
    F(max_lv, VG, "MaxLV", 5, NUM, R, max_lv),
    F(max_pv, VG, "MaxPV", 5, NUM, R, max_pv),
    F(pv_count, VG, "#PV", 3, NUM, R, pv_count),
    F(vg_missing_pv_count, VG, "#PV Missing", 11, NUM, R, vg_missing_pv_count),
    F(lv_count, VG, "#LV", 3, NUM, R, lv_count),
    F(snap_count, VG, "#SN", 3, NUM, R, snap_count),
    F(vg_seqno, VG, "Seq", 3, NUM, R, vg_seqno),
    F(vg_tags, VG, "VG Tags", 7, STRLIST, L, vg_tags),
    F(vg_profile, VG, "VProfile", 8, STR, L, vg_profile),
    F(vg_mda_count, VG, "#VMda", 5, NUM, R, vg_mda_count),
    F(vg_mda_used_count, VG, "#VMdaUse", 8, NUM, R, vg_mda_used_count),
    F(vg_mda_free, VG, "VMdaFree", 9, SIZE, R, vg_mda_free),
    F(vg_mda_size, VG, "VMdaSize", 9, SIZE, R, vg_mda_size),
    F(vg_mda_copies, VG, "#VMdaCps", 8, NUM, R, vg_mda_copies),
    F(segtype, SEG, "Type", 4, STR, L, segtype),
    F(stripes, SEG, "#Str", 4, NUM, R, stripes),
    F(data_stripes, SEG, "#DStr", 5, NUM, R, data_stripes),
    F(reshape_len, SEG, "RSize", 5, SIZE, R, reshape_len),
    F(reshape_len_le, SEG, "RSize", 5, NUM, R, reshape_len_le),
    F(data_copies, SEG, "#Cpy", 4, NUM, R, data_copies),
    F(data_offset, SEG, "DOff", 4, NUM, R, data_offset),
    F(new_data_offset, SEG, "NOff", 4, NUM, R, data_offset),
    F(parity_chunks, SEG, "#Par", 4, NUM, R, parity_chunks),
    F(stripe_size, SEG, "Stripe", 6, SIZE, R, stripe_size),
    F(region_size, SEG, "Region", 6, SIZE, R, region_size),
    F(chunk_size, SEG, "Chunk", 5, SIZE, R, chunk_size),
    F(thin_count, SEG, "#Thins", 6, NUM, R, thin_count),
    F(discards, SEG, "Discards", 8, STR, L, discards),
    F(cache_metadata_format, SEG, "CMFmt", 5, NUM, R, cache_metadata_format),
    F(cache_mode, SEG, "CacheMode", 9, STR, L, cache_mode),
    F(zero, SEG, "Zero", 4, STR, R, zero),
    F(transaction_id, SEG, "TransId", 7, NUM, R, transaction_id),
    F(thin_id, SEG, "ThId", 4, NUM, R, thin_id),
    F(seg_start, SEG, "Start", 5, SIZE, R, seg_start),
    F(seg_start_pe, SEG, "Start", 5, NUM, R, seg_start_pe),
    F(seg_size, SEG, "SSize", 5, SIZE, R, seg_size),
    F(seg_size_pe, SEG, "SSize", 5, NUM, R, seg_size_pe),
    F(seg_tags, SEG, "Seg Tags", 8, STRLIST, L, seg_tags),
    F(seg_pe_ranges, SEG, "PE Ranges", 9, STR, L, seg_pe_ranges),
    F(seg_le_ranges, SEG, "LE Ranges", 9, STRLIST, L, seg_le_ranges),
    F(seg_metadata_le_ranges, SEG, "Metadata LE Ranges", 18, STRLIST, L, seg_metadata_le_ranges),
    F(devices, SEG, "Devices", 7, STRLIST, L, devices),
    F(metadata_devices, SEG, "Metadata Devs", 13, STRLIST, L, metadata_devices),
    F(seg_monitor, SEG, "Monitor", 7, STR, L, seg_monitor),
    F(cache_policy, SEG, "CachePolicy", 11, STR, L, cache_policy),
    F(cache_settings, SEG, "CacheSettings", 13, STRLIST, L, cache_settings),
    F(vdo_compression, SEG, "VDOCompression", 14, NUM, R, blank_num),
    F(vdo_deduplication, SEG, "VDODeduplication", 16, NUM, R, blank_num),
    F(vdo_use_metadata_hints, SEG, "VDOMetadataHints", 16, NUM, R, blank_num),
    F(vdo_minimum_io_size, SEG, "VDOMinimumIOSize", 16, NUM, R, blank_num),
    F(vdo_block_map_cache_size, SEG, "VDOBlockMapCacheSize", 20, SIZE, R, blank_size),
    F(vdo_block_map_era_length, SEG, "VDOBlockMapEraLength", 20, NUM, R, blank_num),
    F(vdo_use_sparse_index, SEG, "VDOSparseIndex", 14, NUM, R, blank_num),
    F(vdo_index_memory_size, SEG, "VDOIndexMemorySize", 18, SIZE, R, blank_size),
    F(vdo_slab_size, SEG, "VDOSlabSize", 11, SIZE, R, blank_size),
    F(vdo_ack_threads, SEG, "VDOAckThreads", 13, NUM, R, blank_num),
    F(vdo_bio_threads, SEG, "VDOBioThreads", 13, NUM, R, blank_num),
    F(vdo_bio_rotation, SEG, "VDOBioRotation", 14, NUM, R, blank_num),
    F(vdo_cpu_threads, SEG, "VDOCPUThreads", 13, NUM, R, blank_num),
    F(vdo_hash_zone_threads, SEG, "VDOHashZoneThreads", 18, NUM, R, blank_num),
    F(vdo_logical_threads, SEG, "VDOLogicalThreads", 17, NUM, R, blank_num),
    F(vdo_physical_threads, SEG, "VDOPhysicalThreads", 18, NUM, R, blank_num),
    F(vdo_max_discard, SEG, "VDOMaxDiscard", 13, NUM, R, blank_num),
    F(vdo_write_policy, SEG, "VDOWritePolicy", 14, STR, L, blank_str),
    F(vdo_header_size, SEG, "VDOHeaderSize", 13, SIZE, R, blank_size),
    F(pvseg_start, PVSEG, "Start", 5, NUM, R, pvseg_start),
    F(pvseg_size, PVSEG, "SSize", 5, NUM, R, pvseg_size),

};

#undef F
#undef L
#undef R

const unsigned lvx_report_field_count = sizeof(lvx_report_fields) / sizeof(lvx_report_fields[0]);

/* LVM2 compares field names without their underscores ("lv_lock_args" is lv_lockargs),
 * case insensitive */
static bool name_is(const char *field, const char *prefix, const char *name, size_t len)
{
    size_t plen = strlen(prefix), i = 0;
    if (strncasecmp(field, prefix, plen) != 0)
        return false;
    for (field += plen;; field++, i++) {
        while (*field == '_')
            field++;
        while (i < len && name[i] == '_')
            i++;
        if (!*field || i == len)
            return !*field && i == len;
        if (tolower((unsigned char)*field) != tolower((unsigned char)name[i]))
            return false;
    }
}

static const char *const *prefixes_of(unsigned report_obj)
{
    static const char *const pv[] = { "pv_", NULL };
    static const char *const vg[] = { "vg_", NULL };
    static const char *const lv[] = { "lv_", NULL };
    static const char *const seg[] = { "seg_", "seg", NULL };
    static const char *const pvseg[] = { "pvseg_", NULL };
    static const char *const none[] = { NULL };
    switch (report_obj) {
    case LVX_ROBJ_PV: return pv;
    case LVX_ROBJ_VG: return vg;
    case LVX_ROBJ_LV: return lv;
    case LVX_ROBJ_SEG: return seg;
    case LVX_ROBJ_PVSEG: return pvseg;
    default: return none;
    }
}

const struct lvx_field *lvx_report_field_find(const char *name, size_t len, unsigned report_obj)
{
    if (len == 0)
        return NULL;
    for (unsigned i = 0; i < lvx_report_field_count; i++)
        if (name_is(lvx_report_fields[i].name, "", name, len))
            return &lvx_report_fields[i];
    for (const char *const *p = prefixes_of(report_obj); *p; p++)
        for (unsigned i = 0; i < lvx_report_field_count; i++)
            if (name_is(lvx_report_fields[i].name, *p, name, len))
                return &lvx_report_fields[i];
    return NULL;
}

/* LVM2's binary fields (a name when set, blank when not, "unknown"): --binary prints
 * them as 1, 0 and -1 */
bool lvx_report_field_binary(const struct lvx_field *f)
{
    static const char *const names[] = {
        "lv_initial_image_sync", "lv_image_synced", "lv_merging", "lv_converting",
        "lv_allocation_locked", "lv_fixed_minor", "lv_skip_activation", "lv_autoactivation",
        "lv_active_locally", "lv_active_remotely", "lv_active_exclusively", "lv_historical",
        "lv_suspended", "lv_live_table", "lv_inactive_table", "lv_device_open",
        "lv_check_needed", "lv_merge_failed", "lv_snapshot_invalid", "pv_allocatable",
        "pv_exported", "pv_missing", "pv_in_use", "pv_duplicate", "vg_extendable",
        "vg_exported", "vg_autoactivation", "vg_partial", "vg_clustered", "vg_shared", "zero",
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(f->name, names[i]) == 0)
            return true;
    return false;
}

void lvx_report_field_names(enum lvx_report_kind kind, struct lvx_buf *out)
{
    unsigned objs = LVX_ROBJ_VG;
    if (kind == LVX_REPORT_PVS || kind == LVX_REPORT_PVSEGS)
        objs |= LVX_ROBJ_PV | LVX_ROBJ_PVSEG;
    else if (kind == LVX_REPORT_LVS || kind == LVX_REPORT_SEGS)
        objs |= LVX_ROBJ_LV | LVX_ROBJ_SEG;
    for (unsigned i = 0; i < lvx_report_field_count; i++)
        if (lvx_report_fields[i].obj & objs)
            lvx_buf_printf(out, "%s%s", out->len ? " " : "", lvx_report_fields[i].name);
}
