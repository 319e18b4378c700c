/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_AUDIT_JOURNAL_H
#define P256SIGND_AUDIT_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "audit-record.h"

/* journald's socket for the native protocol. */
#define AUDIT_JOURNAL_SOCKET "/run/systemd/journal/socket"

/*
 * Writes e's journal entry, with its place in the chain (seq, prev) as its line has it, to out
 * (cap bytes) in journald's native protocol: each member of the line (docs/audit.md) becomes
 * P256SIGN_<MEMBER> in upper case, an object's members P256SIGN_<OBJECT>_<MEMBER> (peer.uid is
 * P256SIGN_PEER_UID), strings unescaped and numbers in decimal; then MESSAGE (a line people
 * read), PRIORITY 6 and SYSLOG_IDENTIFIER p256signd. A value with a newline in it takes the
 * protocol's binary form, so that it cannot start a field of its own. Returns the entry's
 * length, or 0 when it does not fit or e is no record.
 */
size_t audit_journal_entry(const struct audit_entry *e, uint64_t seq, const uint8_t prev[32],
	char *out, size_t cap);

/*
 * Sends n entries to journald in order, entry i being the bytes of buf from ends[i - 1] (0 for the
 * first) to ends[i], one datagram each, many to a system call. Never waits: returns how many
 * journald's socket took; when fewer than n, *err says why: ENOENT or ECONNREFUSED when no
 * journal listens, EAGAIN when its queue is full (journald is not reading). The socket is
 * connected once and again after journald went away (a restart).
 */
size_t audit_journal_send(const char *buf, const size_t *ends, size_t n, int *err);

/* The socket connected to journald, -1 when none: polled writable, its queue has room again (a
 * connected datagram socket polls so). For polling only; it stays this module's to close. */
int audit_journal_socket(void);

#endif
