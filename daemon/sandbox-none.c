/* SPDX-License-Identifier: ISC */
/* No sandbox (sandbox.h). */
#include "sandbox.h"

int sandbox_parent(void)
{
	return 0;
}

int sandbox_keyholder(const char *const *read_paths)
{
	(void)read_paths;
	return 0;
}

int sandbox_signer(void)
{
	return 0;
}
