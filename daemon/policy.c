/* SPDX-License-Identifier: ISC */
/* Who may use a key (policy.h). */
#include "policy.h"

#include "proto.h"

static int listed(const uint32_t *ids, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

static int member(const struct policy_acl *acl, const struct policy_peer *peer)
{
	if (listed(acl->users, acl->nusers, peer->uid) ||
	    listed(acl->groups, acl->ngroups, peer->gid))
		return 1;
	for (size_t i = 0; i < peer->ngroups; i++)
		if (listed(acl->groups, acl->ngroups, peer->groups[i]))
			return 1;
	return 0;
}

int policy_allows(uid_t daemon_uid, const struct policy_peer *peer, const struct policy_acl *acl,
	enum policy_purpose purpose, enum policy_op op)
{
	int who = peer->uid == 0 || (acl->set ? member(acl, peer) : peer->uid == daemon_uid);

	if (!who)
		return PROTO_E_DENIED;
	/* A handshake key never signs a digest of the client's choosing, not even for root. */
	return policy_purpose_allows(purpose, op) ? 0 : PROTO_E_DENIED;
}

int policy_purpose_allows(enum policy_purpose purpose, enum policy_op op)
{
	switch (purpose) {
	case POLICY_PURPOSE_ANY:
		return 1;
	case POLICY_PURPOSE_TLS_SERVER:
		return op == POLICY_SEE || op == POLICY_SIGN_TLS_SERVER;
	case POLICY_PURPOSE_TLS_CLIENT:
		return op == POLICY_SEE || op == POLICY_SIGN_TLS_CLIENT;
	case POLICY_PURPOSE_AUDIT:
		return op == POLICY_SEE;
	default:
		return 0;
	}
}

const char *policy_purpose_name(enum policy_purpose purpose)
{
	switch (purpose) {
	case POLICY_PURPOSE_TLS_SERVER: return "tls-server";
	case POLICY_PURPOSE_TLS_CLIENT: return "tls-client";
	case POLICY_PURPOSE_AUDIT: return "audit";
	default: return "any";
	}
}
