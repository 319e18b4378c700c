/* SPDX-License-Identifier: ISC */
#ifndef P256SIGNCTL_H
#define P256SIGNCTL_H

/*
 * p256signctl subcommands. Each gets argv from its own name on (argv[0] is the subcommand) and
 * returns the process exit status: 0 success, 1 refusal or failure, 2 usage error.
 */
#define CTL_EXIT_OK 0
#define CTL_EXIT_REFUSED 1
#define CTL_EXIT_USAGE 2

struct ctl_command {
	const char *name;
	const char *usage;	/* arguments after the name, for the help text */
	const char *summary;	/* one line */
	int (*run)(int argc, char **argv);
};

/* check-key FILE [--cert CERT] [--json]: offline check of a private key file (ctl-check-key.c). */
int ctl_check_key(int argc, char **argv);

#endif
