/* SPDX-License-Identifier: ISC */
/* p256signd: the command line. The daemon itself is the parent role (parent.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checkconfig.h"
#include "log.h"
#include "parent.h"

#define CONFIG_DEFAULT "/etc/p256sign/p256signd.json"

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: p256signd [--config FILE]\n"
	    "       p256signd --check-config FILE\n"
	    "       p256signd --version | --help\n"
	    "\n"
	    "Holds P-256 keys and signs over a Unix socket (default config: %s).\n"
	    "  --config FILE        run with this configuration\n"
	    "  --check-config FILE  check the configuration and every key, print each key's\n"
	    "                       name and id, and exit\n",
	    CONFIG_DEFAULT);
}

/*
 * Opens /dev/null on whichever of descriptors 0, 1 and 2 the daemon was started without: else the
 * next socket takes the number, and the log written to "stderr" goes to a client. 0 or -1.
 */
static int open_stdio(void)
{
	int r = -1;

	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		int n;

		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		if (errno != EBADF)
			goto out;
		/* open returns the lowest free number: fd, as the ones below it are open. */
		if ((n = open("/dev/null", O_RDWR)) != fd) {
			if (n >= 0)
				close(n);
			goto out;
		}
	}
	r = 0;
out:
	return r;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", required_argument, NULL, 'C' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = CONFIG_DEFAULT;
	int ch;

	if (open_stdio() != 0) {
		log_error("cannot open /dev/null on descriptors 0-2: %s", strerror(errno));
		return 1;
	}
	while ((ch = getopt_long(argc, argv, "c:C:Vh", opts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 'C':
			return check_config(optarg);
		case 'V':
			printf("p256signd %s\n", P256SIGN_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (log_init() != 0) {
		log_error("cannot make stderr non-blocking: %s", strerror(errno));
		return 1;
	}
	return parent_main(path);
}
