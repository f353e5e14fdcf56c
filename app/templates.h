// SPDX-License-Identifier: Apache-2.0
/*
 * The files `ktune new-plugin` writes, embedded at build time from
 * app/templates/ (cmake/embed.cmake): CMakeLists.txt.in, plugin.cu and
 * plugin.ini, with @NAME@ and @VERSION@ still to be replaced. The test
 * suite also compiles plugin.cu as a plugin, so the template stays valid.
 */
#ifndef KT_APP_TEMPLATES_H
#define KT_APP_TEMPLATES_H

extern const char kt_template_cmake[];
extern const char kt_template_cu[];
extern const char kt_template_ini[];

#endif
