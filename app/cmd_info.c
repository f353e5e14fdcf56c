// SPDX-License-Identifier: Apache-2.0
/* ktune info: the device record and its measured ceilings. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "core/parse.h"
#include "engine/devinfo.h"

static const char help[] =
    "usage: ktune info [--device N] [--recalibrate] [--json [FILE]]\n\n"
    "Prints the device record (name, compute capability, SMs, L2, memory\n"
    "clock and bus width, theoretical peak, driver and runtime) and the\n"
    "calibration: the device-to-device copy ceiling, the launch floor and\n"
    "bandwidth against working-set size across the L2. The calibration is\n"
    "measured once per device and driver and cached (see "
    "docs/measurement.md).\n\n"
    "  --device N      CUDA device ordinal (default 0)\n"
    "  --recalibrate   measure again even when a cached calibration exists\n"
    "  --json [FILE]   machine-readable output to FILE (default and '-':\n"
    "                  stdout)\n";

static void print_text(const json_t *dev, const kt_calibration *c,
                       int from_cache)
{
    printf("device      %s (compute capability %s, %lld SMs)\n",
           json_string_value(json_object_get(dev, "name")),
           json_string_value(json_object_get(dev, "compute_capability")),
           (long long)json_integer_value(json_object_get(dev, "sm_count")));
    printf("uuid        %s  pci %s\n",
           json_string_value(json_object_get(dev, "uuid")),
           json_string_value(json_object_get(dev, "pci_bus_id")));
    printf(
        "memory      %.1f GiB, %.0f MHz x %lld-bit bus -> %.0f GB/s "
        "theoretical\n",
        json_integer_value(json_object_get(dev, "global_mem_bytes")) /
            1073741824.0,
        json_real_value(json_object_get(dev, "mem_clock_mhz")),
        (long long)json_integer_value(json_object_get(dev, "bus_width_bits")),
        json_real_value(json_object_get(dev, "peak_bw_gbs")));
    printf("L2          %.1f MiB; SM clock %.0f MHz rated\n",
           json_integer_value(json_object_get(dev, "l2_bytes")) / 1048576.0,
           json_real_value(json_object_get(dev, "sm_clock_mhz")));
    printf(
        "driver      %lld, runtime %lld\n",
        (long long)json_integer_value(json_object_get(dev, "driver_version")),
        (long long)json_integer_value(json_object_get(dev, "runtime_version")));
    printf("\ncalibration (%s, %s)\n", from_cache ? "cached" : "measured now",
           c->date);
    printf("  copy ceiling     %.0f GB/s  (cudaMemcpy D2D of %.0f MiB, read "
           "+ write counted; %.1f%% of theoretical)\n",
           c->copy_gbs, c->copy_bytes / 1048576.0,
           100.0 * c->copy_gbs / c->peak_bw_gbs);
    printf("  launch floor     %.2f us event interval (queued), %.2f us "
           "launch + sync (host clock)\n",
           c->launch_floor_us, c->launch_sync_us);
    printf("  copy kernel bandwidth by working set (hot cache; L2 = %.0f "
           "MiB):\n",
           c->l2_bytes / 1048576.0);
    for (size_t i = 0; i < c->sweep_count; ++i)
        printf("    %10.2f MiB  %8.0f GB/s%s\n", c->sweep_bytes[i] / 1048576.0,
               c->sweep_gbs[i],
               c->sweep_bytes[i] <= c->l2_bytes ? "  (fits in L2)" : "");
}

int kt_cmd_info(int argc, char **argv)
{
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'},
        {"recalibrate", no_argument, NULL, 'r'},
        {"json", optional_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int json = 0, refresh = 0, opt, from_cache = 0, rc;
    const char *json_path = NULL;
    int64_t device = 0;
    kt_calibration calib;
    json_t *dev = NULL;
    kt_err err;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'd':
            if (kt_parse_i64(optarg, "--device", &device, &err))
                return kt_cli_fail(&err);
            break;
        case 'r': refresh = 1; break;
        case 'j':
            json = 1;
            json_path = optarg;
            break;
        case 'h': fputs(help, stdout); return KT_EXIT_OK;
        default: return kt_cli_bad_option("info", argv, options);
        }
    }
    if ((rc = kt_cli_json_operand("info", argc, argv, json, &json_path)))
        return rc;
    if (kt_devinfo_collect((int)device, refresh, &dev, &calib, &from_cache,
                           &err))
        return kt_cli_fail(&err);
    if (json) {
        json_t *root =
            json_pack("{s:s,s:i,s:o,s:o,s:b}", "kind", "ktune.info", "format",
                      1, "device", dev, "calibration", kt_calib_to_json(&calib),
                      "calibration_cached", from_cache);
        rc = kt_cli_write_json("info", root, json_path);
        json_decref(root);
    } else {
        print_text(dev, &calib, from_cache);
        json_decref(dev);
        rc = KT_EXIT_OK;
    }
    return rc;
}
