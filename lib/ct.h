/* SPDX-License-Identifier: ISC */
#ifndef P256_CT_H
#define P256_CT_H

#include <stddef.h>

/*
 * Declassification for the valgrind "secret as undefined" test (the ctgrind technique): a value
 * derived from a secret that is deliberately made public (a signature, a one-bit range check whose
 * failure discards the candidate) is marked defined here, so that memcheck reports every other
 * branch or index on secret data. Outside valgrind the client request costs a few instructions.
 */
#ifdef HAVE_VALGRIND
#include <valgrind/memcheck.h>
#define ct_declassify(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#else
#define ct_declassify(p, n) ((void)(p), (void)(n))
#endif

#endif
