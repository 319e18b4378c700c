/* SPDX-License-Identifier: ISC */
#ifndef P256SIGNCTL_H
#define P256SIGNCTL_H

#include <stddef.h>
#include <stdint.h>

#include "p256sign.h"

/*
 * p256signctl subcommands. Each gets the global options and argv from its own name on (argv[0] is
 * the subcommand) and returns the process exit status: 0 success, 1 refusal or failure, 2 usage
 * error. Errors go to stderr as one line, "p256signctl: COMMAND: message". Commands print to
 * stdout without checking each call: main checks the stream once, after the command.
 */
#define CTL_EXIT_OK 0
#define CTL_EXIT_REFUSED 1
#define CTL_EXIT_USAGE 2

/* The global options, accepted anywhere on the command line (main removes them from argv). */
struct ctl_options {
	const char *socket;	/* --socket PATH; NULL: $P256SIGN_SOCKET, else the default */
	int json;		/* --json: machine-readable output */
	int timeout_ms;		/* --timeout MS; 0: the library's default */
};

struct ctl_command {
	const char *name;
	const char *usage;	/* arguments after the name, for the help text */
	const char *summary;	/* one line */
	const char *help;	/* the options, one per line, for COMMAND --help */
	int (*run)(const struct ctl_options *o, int argc, char **argv);
};

/* check-key FILE [--cert CERT] [--json]: offline check of a private key file (ctl-check-key.c). */
int ctl_check_key(const struct ctl_options *o, int argc, char **argv);

/* status: the daemon's counters, as a table or JSON (ctl-status.c). */
int ctl_status(const struct ctl_options *o, int argc, char **argv);

/* keys: every key the daemon serves, as a table or JSON (ctl-status.c). */
int ctl_keys(const struct ctl_options *o, int argc, char **argv);

/* metrics [--output FILE]: STATUS and LIST_KEYS in the Prometheus text format, on stdout or
 * written atomically to FILE (ctl-metrics.c). */
int ctl_metrics(const struct ctl_options *o, int argc, char **argv);

/* ping: checks that the daemon answers (ctl-status.c). */
int ctl_ping(const struct ctl_options *o, int argc, char **argv);

/* pubkey KEY [--format pem|der|hex|sec1]: a key's public key (ctl-pubkey.c). */
int ctl_pubkey(const struct ctl_options *o, int argc, char **argv);

/* sign KEY (--digest HEX | --file PATH | -) [--format der|raw] [--out FILE] (ctl-sign.c). */
int ctl_sign(const struct ctl_options *o, int argc, char **argv);

/* sign-tls13: a TLS 1.3 CertificateVerify signature (SIGN_TLS). */
int ctl_sign_tls13(const struct ctl_options *o, int argc, char **argv);

/* verify (KEY | --pubkey FILE | --pubkey-hex HEX) (--signature FILE | --signature-hex HEX)
 * (--digest HEX | --file PATH) [--format der|raw] (ctl-verify.c). */
int ctl_verify(const struct ctl_options *o, int argc, char **argv);

/* cert KEY [--out FILE] [--pem]: a key's certificate from the daemon (ctl-cert.c). */
int ctl_cert(const struct ctl_options *o, int argc, char **argv);

/* export-key-ref KEY: a key-reference file for TLS servers on stdout (ctl-export-key-ref.c). */
int ctl_export_key_ref(const struct ctl_options *o, int argc, char **argv);

/* eip7951 HEX: the P256VERIFY precompile of the signing core, offline (ctl-eip7951.c). */
int ctl_eip7951(const struct ctl_options *o, int argc, char **argv);

/*
 * audit-verify FILE... [--pubkey PEM] [--anchor HASH] [--expect-stopped]: checks a series of
 * audit files, oldest first, against docs/audit.md (ctl-audit-verify.c). Its own exit statuses:
 * 0 intact and sealed to the end, 1 a broken record or an anchor not reached, 2 usage or a file
 * that cannot be read, 3 intact but ending in records no checkpoint seals (or, with
 * --expect-stopped, in no stop checkpoint), 4 intact but ending in a reopen checkpoint whose
 * next file is not given.
 */
#define CTL_EXIT_AUDIT_UNSEALED 3
#define CTL_EXIT_AUDIT_REOPEN 4
int ctl_audit_verify(const struct ctl_options *o, int argc, char **argv);

/* ---- shared by the commands (ctl-util.c) ---------------------------------------------------- */

/* Prints "p256signctl: CMD: message" (printf-style) on stderr; returns CTL_EXIT_REFUSED. */
int ctl_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "usage: p256signctl CMD USAGE" on stderr; returns CTL_EXIT_USAGE. */
int ctl_usage(const char *cmd);

/* Connects as the options say; on failure prints the error (with the socket path) and returns
 * NULL. */
struct p256sign *ctl_connect(const struct ctl_options *o, const char *cmd);

/* Prints a library error for cmd; returns CTL_EXIT_REFUSED. */
int ctl_lib_error(const char *cmd, int err);

/*
 * Fills a key selector from a KEY argument: a key name, or "id:" and the key id as 64 hex digits.
 * id is the storage for the id (32 bytes). 0, or -1 when the argument is neither.
 */
int ctl_parse_key(const char *arg, struct p256sign_key *key, uint8_t id[P256SIGN_KEY_ID_LEN]);

/*
 * Decodes hex (upper or lower case, an optional "0x" prefix) into out (cap bytes); *len gets the
 * byte count. -1 on a non-hex character, an odd count or more than cap bytes.
 */
int ctl_hex_decode(const char *hex, uint8_t *out, size_t cap, size_t *len);

/* Prints n bytes as lowercase hex on stdout (ctl_print_hex: and a newline). */
void ctl_put_hex(const uint8_t *p, size_t n);
void ctl_print_hex(const uint8_t *p, size_t n);

/* SHA-256 of a file streamed in chunks ("-" is stdin). 0, or -1 with errno set. */
int ctl_sha256_file(const char *path, uint8_t digest[P256SIGN_DIGEST_LEN]);

/* Reads a whole small file (at most cap bytes) into buf. 0, or -1 with errno set (EFBIG if
 * larger). */
int ctl_read_file(const char *path, uint8_t *buf, size_t cap, size_t *len);

/* Writes n bytes to path ("-" or NULL: stdout), created with mode 0644. 0, or -1 with errno set. */
int ctl_write_file(const char *path, const uint8_t *p, size_t n);

/* Writes der (len bytes) as PEM (RFC 7468) with the label, base64 in 64-character lines, to path
 * as ctl_write_file does. 0, or -1 with errno set. */
int ctl_write_pem(const char *path, const char *label, const uint8_t *der, size_t len);

/* Parses "der" or "raw" into *format. -1 for anything else. */
int ctl_parse_format(const char *arg, int *format);

/* ---- public keys of the offline commands (ctl-pubkey-file.c) -------------------------------- */

/*
 * A public point from DER or raw bytes: a P-256 SubjectPublicKeyInfo (exactly the 91 bytes the
 * core would build for its last 65 bytes), or a bare 65-byte SEC 1 point on the curve. 0 or -1.
 */
int ctl_point_from_bytes(const uint8_t *p, size_t len, uint8_t point[P256SIGN_POINT_LEN]);

/*
 * Reads a public key file: PEM ("PUBLIC KEY", as p256signctl pubkey writes it) or DER
 * SubjectPublicKeyInfo, or a 65-byte SEC 1 point. 0; -1 when the file cannot be read, -2 when it
 * holds no P-256 public key (the error is printed for cmd in both cases).
 */
int ctl_load_pubkey_file(const char *cmd, const char *path, uint8_t point[P256SIGN_POINT_LEN]);

#endif
