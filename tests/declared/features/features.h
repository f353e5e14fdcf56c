// SPDX-License-Identifier: Apache-2.0
/* Included by features.cu as "features.h": found next to the source from
 * any folder, since a declaration's includes resolve against its files. */
#define KT_FEATURE_WEIGHTS 16
