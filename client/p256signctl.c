/* SPDX-License-Identifier: ISC */
/* p256signctl: finds the subcommand in the table and runs it. */
#include <stdio.h>
#include <string.h>

#include "ctl.h"

static const struct ctl_command commands[] = {
	{ "check-key", "FILE [--cert CERT] [--json]",
	  "check a private key file (and its certificate) before deploying it", ctl_check_key },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: p256signctl COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %s %s\n      %s\n", commands[i].name, commands[i].usage,
			commands[i].summary);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CTL_EXIT_USAGE;
	}
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return CTL_EXIT_OK;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "p256signctl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return CTL_EXIT_USAGE;
}
