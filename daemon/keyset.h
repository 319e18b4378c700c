/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_KEYSET_H
#define P256SIGND_KEYSET_H

#include <stddef.h>

#include "config.h"
#include "keytab.h"
#include "p256.h"

/*
 * The key-holder's side of the keys (relayd's ca.c: the one process that loads them): reading
 * and checking every configured key file and certificate, the private half that the key-holder
 * and the signers it forks hold, and the paths its sandbox lets it read on reload. The parent
 * never includes this header (docs/architecture.md).
 */

struct keyset {
	size_t n;
	struct key_public *pub;		/* index i of both halves is the same key (config order) */
	struct p256_key *priv;		/* pages of their own, kept out of core dumps */
};

/*
 * Loads every configured key with the strict loader (lib/keyfile.h), checks its certificate when
 * one is configured (lib/cert.h) and refuses two entries holding the same key. Relative file names
 * are taken from $CREDENTIALS_DIRECTORY when set (systemd LoadCredential=), else from the config
 * file's directory. Returns 0, or -1 with "keys[i] (NAME): FILE: tag: message" in err. The caller
 * releases *ks with keyset_free, also after a failure.
 */
int keyset_load(const struct config *cfg, struct keyset *ks, char *err, size_t errlen);

/* Allocates a zeroed set of n keys: the public table on the heap, the private half in pages of
 * its own (MADV_DONTDUMP). 0 or -1; free with keyset_free. */
int keyset_alloc(struct keyset *ks, size_t n);

/* Locks the private half in memory (mlock; a lock is not inherited across fork). 0 or -1. */
int keyset_lock(const struct keyset *ks);

/* Wipes and unmaps the private half, frees the public table; ks is empty afterwards. */
void keyset_free(struct keyset *ks);

/*
 * What a reload reads: the directories of the config file, $CREDENTIALS_DIRECTORY and every
 * configured key and certificate file, and the account files that resolve "allow" names
 * (/etc/passwd, /etc/group, /etc/nsswitch.conf): the key-holder's Landlock read list. *paths is a
 * NULL-terminated array (free each entry, then the array). 0 or -1 (out of memory or a path too
 * long).
 */
int keyset_read_paths(const struct config *cfg, char ***paths);

#endif
