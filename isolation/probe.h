// SPDX-License-Identifier: Apache-2.0
/*
 * Probing plugins: each file is loaded and validated in a child process of
 * its own, all of them at once, under one time limit. A child that loaded
 * its plugin says so with a handshake line followed by the validated
 * descriptor as JSON (core/desc_json.h); a child that ends any other way
 * (exit(0) from a constructor, a crash, a hang) leaves a "not loaded"
 * verdict. Verdicts are remembered in ktune's cache folder keyed by the
 * file's path, size, modification time and inode (and this ktune's
 * version), so a plugin that hangs is paid for once, not on every command.
 */
#ifndef KT_PROBE_H
#define KT_PROBE_H

#include <stddef.h>

#include "core/loader.h" /* kt_probe_verdict */

/* Probes paths[0..n) in parallel within timeout_ms (all together), filling
 * out[0..n). Verdicts are read from and written to the cache unless the
 * environment sets KTUNE_PLUGIN_CACHE=0. */
void kt_probe_plugins(const char *const *paths, size_t n, int timeout_ms,
                      kt_probe_verdict *out);

/* The handshake a probe child writes before its descriptor. */
#define KT_PROBE_HELLO "KTPROBE1 ok\n"
#define KT_PROBE_FAIL "KTPROBE1 fail\n"

#endif
