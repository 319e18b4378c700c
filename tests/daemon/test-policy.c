/* SPDX-License-Identifier: ISC */
/*
 * Unit test of the access policy (daemon/policy.c): who may see and who may sign with a key,
 * with and without an "allow" list, by uid, primary gid and supplementary group; root and the
 * daemon's own user; handshake-only keys refuse a digest of the client's choosing to everyone.
 */
#include <string.h>

#include "testutil.h"
#include "policy.h"
#include "proto.h"

#define DAEMON 990

static int may(const struct policy_acl *acl, enum policy_purpose purpose, uid_t uid, gid_t gid,
	const gid_t *groups, size_t ngroups, enum policy_op op)
{
	struct policy_peer peer = { .uid = uid, .gid = gid, .groups = groups, .ngroups = ngroups };

	return policy_allows(DAEMON, &peer, acl, purpose, op);
}

int main(void)
{
	const struct policy_acl none = { 0 };
	const struct policy_acl web = { .set = 1, .nusers = 2, .users = { 33, 1000 },
		.ngroups = 1, .groups = { 120 } };
	const struct policy_acl empty = { .set = 1 };
	const gid_t tls[] = { 5, 120 }, other[] = { 5, 6, 7 };

	test_case = "no allow";
	CHECK_INT(may(&none, POLICY_PURPOSE_ANY, 0, 0, NULL, 0, POLICY_SIGN), 0);
	CHECK_INT(may(&none, POLICY_PURPOSE_ANY, DAEMON, DAEMON, NULL, 0, POLICY_SIGN), 0);
	CHECK_INT(may(&none, POLICY_PURPOSE_ANY, 1000, 1000, NULL, 0, POLICY_SIGN), PROTO_E_DENIED);
	CHECK_INT(may(&none, POLICY_PURPOSE_ANY, 1000, 1000, NULL, 0, POLICY_SEE), PROTO_E_DENIED);
	/* The daemon's gid is no pass: the rule names its user. */
	CHECK_INT(may(&none, POLICY_PURPOSE_ANY, 1000, DAEMON, NULL, 0, POLICY_SIGN), PROTO_E_DENIED);

	test_case = "allow";
	CHECK_INT(may(&web, POLICY_PURPOSE_ANY, 33, 33, NULL, 0, POLICY_SIGN), 0);
	CHECK_INT(may(&web, POLICY_PURPOSE_ANY, 1000, 1000, NULL, 0, POLICY_SEE), 0);
	CHECK_INT(may(&web, POLICY_PURPOSE_ANY, 1001, 120, NULL, 0, POLICY_SIGN), 0);
	CHECK_INT(may(&web, POLICY_PURPOSE_ANY, 1001, 1001, tls, 2, POLICY_SIGN), 0);
	CHECK_INT(may(&web, POLICY_PURPOSE_ANY, 1001, 1001, other, 3, POLICY_SIGN), PROTO_E_DENIED);
	CHECK_INT(may(&web, POLICY_PURPOSE_ANY, 1001, 1001, NULL, 0, POLICY_SEE), PROTO_E_DENIED);
	/* With an allow list the daemon's own user is one peer like any other. */
	CHECK_INT(may(&web, POLICY_PURPOSE_ANY, DAEMON, DAEMON, NULL, 0, POLICY_SIGN),
	    PROTO_E_DENIED);
	CHECK_INT(may(&web, POLICY_PURPOSE_ANY, 0, 0, NULL, 0, POLICY_SIGN), 0);
	CHECK_INT(may(&empty, POLICY_PURPOSE_ANY, 33, 33, tls, 2, POLICY_SIGN), PROTO_E_DENIED);
	CHECK_INT(may(&empty, POLICY_PURPOSE_ANY, 0, 0, NULL, 0, POLICY_SIGN), 0);

	test_case = "purpose";
	for (int p = POLICY_PURPOSE_TLS_SERVER; p <= POLICY_PURPOSE_TLS_CLIENT; p++) {
		CHECK_INT(may(&web, (enum policy_purpose)p, 33, 33, NULL, 0, POLICY_SIGN),
		    PROTO_E_DENIED);
		CHECK_INT(may(&web, (enum policy_purpose)p, 0, 0, NULL, 0, POLICY_SIGN),
		    PROTO_E_DENIED);
		CHECK_INT(may(&web, (enum policy_purpose)p, 33, 33, NULL, 0, POLICY_SEE), 0);
		CHECK_INT(may(&web, (enum policy_purpose)p, 1001, 1001, NULL, 0, POLICY_SEE),
		    PROTO_E_DENIED);
	}
	CHECK(strcmp(policy_purpose_name(POLICY_PURPOSE_TLS_SERVER), "tls-server") == 0);
	CHECK(strcmp(policy_purpose_name(POLICY_PURPOSE_TLS_CLIENT), "tls-client") == 0);
	CHECK(strcmp(policy_purpose_name(POLICY_PURPOSE_ANY), "any") == 0);
	return test_done("policy");
}
