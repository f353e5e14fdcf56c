// SPDX-License-Identifier: Apache-2.0
/*
 * kt_msg: the one prefix of ktune's messages on stderr, "ktune CMD: "
 * (docs/cli.md), for every layer that prints a note or warning itself.
 * main() names the running command once; a worker process takes its
 * parent's command from its --command argument (core/worker.c passes
 * it), so a warning from a plugin measured in a worker reads like the
 * command the user typed.
 */
#ifndef KT_MSG_H
#define KT_MSG_H

#include <stdio.h>

/* Sets the command messages name (borrowed: must outlive every message;
 * NULL or "": the bare "ktune: " prefix). */
void kt_msg_set_command(const char *cmd);

/* The command set, or NULL. */
const char *kt_msg_command(void);

/* Writes "ktune CMD: " and then fmt (which brings its own newline) to
 * stderr; kt_fmsg to out. */
void kt_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kt_fmsg(FILE *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Writes only the prefix, "ktune CMD: ", for a message printed in pieces. */
void kt_msg_prefix(FILE *out);

/* Replaces, in place, every byte of s that a terminal would act on rather
 * than show with '?': the C0 controls but '\n' and '\t' (ESC starts the
 * escape sequences that recolour, move the cursor or retitle a window),
 * DEL, and the C1 controls written in UTF-8 (0xC2 0x80..0x9F, both bytes).
 * Text read from files (names in a capture, a Kernel Tuner file) goes
 * through it before it is printed; kt_msg and kt_fmsg apply it to every
 * message, which may quote such text. */
void kt_term_scrub(char *s);

#endif
