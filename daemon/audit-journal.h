/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_AUDIT_JOURNAL_H
#define P256SIGND_AUDIT_JOURNAL_H

#include <jansson.h>

/*
 * Sends one audit record (docs/audit.md) to the systemd journal as structured fields: each member
 * becomes P256SIGN_<MEMBER> in upper case, a nested object's members P256SIGN_<MEMBER>_<INNER>
 * (peer.uid is P256SIGN_PEER_UID), plus MESSAGE (the line people read), PRIORITY and
 * SYSLOG_IDENTIFIER. Returns 0, or a negative errno when journald does not take the record.
 */
int audit_journal_send(const json_t *record, const char *message);

#endif
