/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_AUDIT_JOURNAL_H
#define P256SIGND_AUDIT_JOURNAL_H

#include <jansson.h>

/* journald's socket for the native protocol. */
#define AUDIT_JOURNAL_SOCKET "/run/systemd/journal/socket"

/*
 * Sends one audit record (docs/audit.md) to the systemd journal as structured fields: each member
 * becomes P256SIGN_<MEMBER> in upper case ('-' as '_'), a nested object's members
 * P256SIGN_<MEMBER>_<INNER> (peer.uid is P256SIGN_PEER_UID), plus MESSAGE (the line people read,
 * cut at 256 bytes), PRIORITY 6 and SYSLOG_IDENTIFIER p256signd. Members are strings or integers,
 * objects one level deep; a value with a newline goes in the protocol's binary form.
 *
 * Never waits: returns 0 once journald's socket took the entry, else a negative errno:
 * -ENOENT or -ECONNREFUSED when no journal listens, -EAGAIN when its queue is full (journald
 * is not reading), -E2BIG for a record of more than 37 fields or a member longer than 256
 * bytes, -EINVAL for a member of another type (nested deeper, boolean, real, null).
 */
int audit_journal_send(const json_t *record, const char *message);

#endif
