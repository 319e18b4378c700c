/* SPDX-License-Identifier: ISC */
/* p256signctl eip7951 HEX: the signing core's P256VERIFY precompile (EIP-7951), offline. */
#include <stdio.h>

#include "ctl.h"
#include "p256.h"

/* Inputs of any length are the precompile's to judge; this bounds what the command reads. */
#define INPUT_MAX 4096

int ctl_eip7951(const struct ctl_options *o, int argc, char **argv)
{
	uint8_t input[INPUT_MAX], out[32];
	size_t len, n;

	if (argc != 2)
		return ctl_usage("eip7951");
	if (ctl_hex_decode(argv[1], input, sizeof(input), &len) != 0)
		return ctl_error("eip7951", "the input must be hex (at most %d bytes)", INPUT_MAX);
	n = p256_eip7951(input, len, out);
	ctl_print_hex(out, n);	/* the precompile's empty output: an empty line */
	return CTL_EXIT_OK;
}
