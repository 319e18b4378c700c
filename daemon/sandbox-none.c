/* SPDX-License-Identifier: ISC */
/*
 * The no-op backend of sandbox.h (-Dseccomp=disabled, or no libseccomp): every role runs with
 * every system call its uid allows. Said once, so that an unconfined daemon is never mistaken
 * for a sandboxed one.
 */
#include "sandbox.h"

#include "log.h"

static int nothing(const char *role)
{
	static int said;

	if (!said) {
		said = 1;
		log_info("sandbox: none in this build (-Dseccomp=disabled or no libseccomp): "
		    "the %s runs unconfined", role);
	}
	return 0;
}

int sandbox_parent(const char *audit_dir, const char *socket_dir)
{
	return nothing("parent");
}

int sandbox_keyholder(const char *const *paths, size_t n)
{
	return nothing("keyholder");
}

int sandbox_signer(void)
{
	return nothing("signer");
}
