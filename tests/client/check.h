/* SPDX-License-Identifier: ISC */
#ifndef CLIENT_CHECK_H
#define CLIENT_CHECK_H

#include <stdio.h>
#include <stdlib.h>

/* Test assertions: print where and what failed, then exit 1 (the test program's failure). */
#define CHECK(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			exit(1); \
		} \
	} while (0)

/* A library call's return code must equal want; prints both codes' messages otherwise. */
#define CHECK_RC(expr, want) \
	do { \
		int check_rc_ = (expr); \
		if (check_rc_ != (want)) { \
			fprintf(stderr, "%s:%d: %s returned %d (%s), want %d (%s)\n", __FILE__, \
				__LINE__, #expr, check_rc_, p256sign_strerror(check_rc_), (want), \
				p256sign_strerror(want)); \
			exit(1); \
		} \
	} while (0)

#endif
