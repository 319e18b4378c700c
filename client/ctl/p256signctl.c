/* SPDX-License-Identifier: ISC */
/* p256signctl: reads the global options, finds the subcommand in the table and runs it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

static const struct ctl_command commands[] = {
	{ "status", "", "show the daemon's status: uptime, workers, requests, errors, in-flight",
	  "", ctl_status },
	{ "keys", "", "list the daemon's keys: name, key id, nonce mode, verify after sign, signatures",
	  "", ctl_keys },
	{ "pubkey", "KEY [--format pem|der|hex|sec1|sec1-compressed]", "print a key's public key",
	  "  --format pem   SubjectPublicKeyInfo in PEM (the default)\n"
	  "  --format der   SubjectPublicKeyInfo in DER (binary)\n"
	  "  --format hex   the SEC 1 uncompressed point in hex\n"
	  "  --format sec1  the SEC 1 uncompressed point (65 bytes, binary)\n"
	  "  --format sec1-compressed  the SEC 1 compressed point (33 bytes, binary)\n", ctl_pubkey },
	{ "cert", "KEY [--out FILE] [--pem]", "print a key's X.509 certificate, as the daemon holds it",
	  "  --out FILE     write it to FILE instead of stdout\n"
	  "  --pem          PEM (CERTIFICATE) instead of DER (binary)\n"
	  "exit status: 0, or 1 when the key has no certificate (no-certificate) or another\n"
	  "refusal\n", ctl_cert },
	{ "sign", "KEY (--digest HEX | --file PATH | -) [--format der|raw] [--out FILE]",
	  "sign a SHA-256 digest, or a file or stdin hashed here",
	  "  --digest HEX   the 32-byte SHA-256 digest to sign, in hex\n"
	  "  --file PATH    hash the file with SHA-256 (streamed) and sign the digest; - is stdin\n"
	  "  -              the same for stdin\n"
	  "  --format FMT   der (the default) or raw (r || s, 64 bytes)\n"
	  "  --out FILE     write the signature (binary) to FILE instead of hex on stdout\n", ctl_sign },
	{ "sign-tls13", "KEY --transcript-hash HEX [--client] [--format der|raw] [--out FILE]",
	  "sign a TLS 1.3 CertificateVerify; the daemon builds the content (RFC 8446 4.4.3)",
	  "  --transcript-hash HEX  the handshake's transcript hash: 32, 48 or 64 bytes in hex\n"
	  "  --client       the client's CertificateVerify (default: the server's)\n"
	  "  --format FMT   der (the default) or raw (r || s, 64 bytes)\n"
	  "  --out FILE     write the signature (binary) to FILE instead of hex on stdout\n",
	  ctl_sign_tls13 },
	{ "verify",
	  "(KEY | --pubkey FILE | --pubkey-hex HEX) (--signature FILE | --signature-hex HEX) "
	  "(--digest HEX | --file PATH) [--format der|raw]",
	  "check a signature; prints valid (exit 0) or invalid (exit 1)",
	  "  KEY                asks the daemon, with its key KEY\n"
	  "  --pubkey FILE      offline, with a public key file: PEM or DER SubjectPublicKeyInfo,\n"
	  "                     or a 65-byte SEC 1 point, or a 33-byte compressed one\n"
	  "  --pubkey-hex HEX   offline, with a SEC 1 point (uncompressed or compressed) or a\n"
	  "                     SubjectPublicKeyInfo in hex\n"
	  "  --signature FILE   the signature, binary, in --format\n"
	  "  --signature-hex HEX  the signature in hex\n"
	  "  --digest HEX       the SHA-256 digest that was signed\n"
	  "  --file PATH        hash the file with SHA-256 (- is stdin)\n"
	  "  --format FMT       der (the default) or raw\n", ctl_verify },
	{ "export-key-ref", "KEY", "write a key-reference file for TLS servers (the provider) to stdout",
	  "", ctl_export_key_ref },
	{ "eip7951", "HEX", "run the EIP-7951 P256VERIFY precompile on a 160-byte input, offline",
	  "  HEX   hash || r || s || x || y (160 bytes) in hex; prints the 32-byte output in hex,\n"
	  "        or an empty line for the precompile's empty output\n", ctl_eip7951 },
	{ "ping", "", "check that the daemon answers", "", ctl_ping },
	{ "metrics", "[--output FILE]",
	  "print the daemon's metrics in the Prometheus text format (STATUS and LIST_KEYS)",
	  "  --output FILE  write them to FILE atomically (a temporary file renamed over it),\n"
	  "                 e.g. into node_exporter's textfile collector directory\n"
	  "exit status: 0, or 1 when the daemon did not answer (p256sign_up 0 is still written)\n",
	  ctl_metrics },
	{ "check-key", "FILE [--cert CERT] [--json]",
	  "check a private key file (and its certificate) before deploying it",
	  "  --cert CERT   also check that the certificate is for this key\n", ctl_check_key },
	{ "audit-verify", "FILE... [--pubkey PEM] [--anchor HASH] [--expect-stopped] "
	  "[--journal [--host HOST]]",
	  "check audit files, oldest first: the chain, the checkpoints and their signatures",
	  "  FILE...           the audit files in order, a rotated series oldest first\n"
	  "  --journal         the FILEs (none or -: standard input) are journalctl -o json\n"
	  "                    output: the records rebuilt from their P256SIGN_* fields\n"
	  "  --host HOST       with --journal: only the entries of this host (_MACHINE_ID or\n"
	  "                    _HOSTNAME), needed when several hosts' entries are given\n"
	  "  --pubkey PEM      the audit key's public key (PEM or DER SubjectPublicKeyInfo, or a\n"
	  "                    SEC 1 point, 65 or 33 bytes); without it, the key of the first\n"
	  "                    open record\n"
	  "  --anchor HASH     the SHA-256 of a line kept elsewhere: the chain must reach it\n"
	  "  --expect-stopped  an archive: anything but a stop checkpoint last is a failure\n"
	  "exit status: 0 intact and sealed to the end, 1 broken or the anchor not reached,\n"
	  "2 usage or a file not read, 3 intact but the last records are not sealed (or no stop\n"
	  "checkpoint last, with --expect-stopped), 4 intact but ending in a reopen checkpoint\n"
	  "whose next file is not given\n", ctl_audit_verify },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char global_help[] =
	"global options (anywhere on the line):\n"
	"  --socket PATH   the daemon's socket (default: $P256SIGN_SOCKET, else "
	P256SIGN_SOCKET_DEFAULT ")\n"
	"  --json          machine-readable output\n"
	"  --timeout MS    give up on the daemon after MS milliseconds (default 5000)\n"
	"  --help          this text; COMMAND --help for a command's\n"
	"exit status: 0 success, 1 failure (or an invalid signature), 2 usage error\n";

static void usage(FILE *f)
{
	fprintf(f, "usage: p256signctl [--socket PATH] [--json] [--timeout MS] COMMAND [ARGS]\n\n"
		"commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %s %s\n      %s\n", commands[i].name, commands[i].usage,
			commands[i].summary);
	fprintf(f, "\n%s", global_help);
}

static const struct ctl_command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

int ctl_usage(const char *cmd)
{
	const struct ctl_command *c = find_command(cmd);

	if (c != NULL)
		fprintf(stderr, "usage: p256signctl %s %s\n", c->name, c->usage);
	return CTL_EXIT_USAGE;
}

/* A --timeout value: 1 .. INT_MAX milliseconds. */
static int parse_timeout(const char *s, int *ms)
{
	char *end;
	long v;

	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < 1 || v > INT_MAX)
		return -1;
	*ms = (int)v;
	return 0;
}

/*
 * Takes the global options out of argv (up to a "--"), wherever they are; *argc shrinks. Returns
 * 0, or CTL_EXIT_USAGE after printing why.
 */
static int take_global_options(struct ctl_options *o, int *argc, char **argv, int *help)
{
	int out = 1, i;

	for (i = 1; i < *argc; i++) {
		const char *a = argv[i], *value = NULL;

		if (strcmp(a, "--") == 0)
			break;
		if (strcmp(a, "--json") == 0) {
			o->json = 1;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			*help = 1;
			continue;
		}
		if (strcmp(a, "--socket") == 0 || strcmp(a, "--timeout") == 0) {
			if (i + 1 == *argc) {
				fprintf(stderr, "p256signctl: %s needs a value\n", a);
				return CTL_EXIT_USAGE;
			}
			value = argv[++i];
		} else if (strncmp(a, "--socket=", 9) == 0 || strncmp(a, "--timeout=", 10) == 0) {
			value = strchr(a, '=') + 1;
		} else {
			argv[out++] = argv[i];
			continue;
		}
		if (a[2] == 's') {
			o->socket = value;
		} else if (parse_timeout(value, &o->timeout_ms) != 0) {
			fprintf(stderr, "p256signctl: --timeout needs a positive number of milliseconds\n");
			return CTL_EXIT_USAGE;
		}
	}
	for (; i < *argc; i++)
		argv[out++] = argv[i];
	argv[out] = NULL;
	*argc = out;
	return 0;
}

/*
 * What the command printed must have reached stdout: a full disk or any write error is a failure,
 * reported once here for every command (and for the help texts).
 */
static int check_stdout(const char *cmd, int r)
{
	int err = 0;

	if (fflush(stdout) != 0)
		err = errno;
	else if (ferror(stdout))
		err = EIO;	/* an earlier write failed; its errno is gone */
	else
		return r;
	ctl_error(cmd, "cannot write to standard output: %s", strerror(err));
	return CTL_EXIT_REFUSED;
}

int main(int argc, char **argv)
{
	struct ctl_options o = { 0 };
	const struct ctl_command *c;
	int help = 0, r;

	if ((r = take_global_options(&o, &argc, argv, &help)) != 0)
		return r;
	if (argc < 2) {
		usage(help ? stdout : stderr);
		return help ? check_stdout("help", CTL_EXIT_OK) : CTL_EXIT_USAGE;
	}
	if (strcmp(argv[1], "help") == 0) {
		if (argc > 2 && (c = find_command(argv[2])) != NULL)
			help = 1;
		else {
			usage(stdout);
			return check_stdout("help", CTL_EXIT_OK);
		}
	} else if ((c = find_command(argv[1])) == NULL) {
		fprintf(stderr, "p256signctl: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return CTL_EXIT_USAGE;
	}
	if (help) {
		printf("usage: p256signctl [--socket PATH] [--json] [--timeout MS] %s %s\n%s\n%s",
			c->name, c->usage, c->summary, c->help);
		return check_stdout(c->name, CTL_EXIT_OK);
	}
	return check_stdout(c->name, c->run(&o, argc - 1, argv + 1));
}
