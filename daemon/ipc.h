/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_IPC_H
#define P256SIGND_IPC_H

#include <stddef.h>
#include <stdint.h>

#include "p256.h"

/*
 * Messages between the parent and a worker over their socketpair (a byte stream). Each message is
 * a fixed header followed by exactly ipc_body_len(type) bytes. Both ends are on the same machine,
 * so integers are in host order. A worker answers in the order it was asked, and every reply
 * echoes its request's id; the parent checks the id of each reply against the oldest request it
 * sent to that worker. Several messages travel in one read or write (batching).
 */
enum ipc_type {
	IPC_SIGN = 1,		/* parent -> worker: struct ipc_sign; key = key table index */
	IPC_SIGNATURE = 2,	/* worker -> parent: struct ipc_signature, the answer to IPC_SIGN */
	IPC_SELFTEST = 3,	/* parent -> worker: no body; run the start-up self-test */
	IPC_SELFTEST_RESULT = 4, /* worker -> parent: struct ipc_signature with the known-answer signature */
	IPC_PING = 5,		/* parent -> worker: no body; liveness check for the watchdog */
	IPC_PONG = 6,		/* worker -> parent: no body, the answer to IPC_PING */
};

/* Which end may send a message type. */
enum ipc_direction {
	IPC_TO_WORKER = 1,
	IPC_TO_PARENT = 2,
};

struct ipc_header {
	uint16_t type;		/* enum ipc_type */
	uint16_t len;		/* body bytes after this header */
	uint32_t key;		/* IPC_SIGN: index into the key table; 0 otherwise */
	uint64_t id;		/* chosen by the parent, echoed by the worker */
};

struct ipc_sign {
	uint8_t digest[P256_DIGEST_LEN];
};

struct ipc_signature {
	int32_t result;		/* 0 or a negative enum p256_err code */
	uint8_t sig[P256_SIG_LEN]; /* r || s when result is 0, zeros otherwise */
};

/* Messages a worker reads at most at once, and answers as one batch. */
#define IPC_BATCH 64

/*
 * A worker writes the answers of a batch after every IPC_ANSWERS_PER_WRITE of them, not only at
 * its end. Why: while a worker signs a large batch, its clients wait for every answer in it and
 * have nothing to send; when they run on other CPUs, the worker then idles while they turn the
 * whole batch around. One worker on a CPU of its own, at 64 connections, signed 0.64 of the time
 * with one write per batch and 0.88 with a write every 16 answers (medians of five runs each;
 * every 8: about the same; docs/performance.md).
 */
#define IPC_ANSWERS_PER_WRITE 16

/* The largest message, header included. */
#define IPC_MSG_MAX (sizeof(struct ipc_header) + sizeof(struct ipc_signature))

/*
 * Splits the next message off buf (len bytes): 0 with *h, *body and *used (header plus body) set;
 * 1 when buf holds only part of a message; P256_ERR_LENGTH when the type is unknown, travels the other way than `dir`, or its length is
 * not the one its type has. The header is copied out; *body points into buf.
 */
int ipc_next(const uint8_t *buf, size_t len, enum ipc_direction dir, struct ipc_header *h,
	const uint8_t **body, size_t *used);

/*
 * Appends one message (header and body of ipc_body_len(type) bytes) to out, whose capacity is
 * cap and fill *len. P256_ERR_BUFFER when it does not fit.
 */
int ipc_put(uint8_t *out, size_t cap, size_t *len, uint16_t type, uint32_t key, uint64_t id,
	const void *body);

/* The body length of a message type; SIZE_MAX for an unknown type. */
size_t ipc_body_len(uint16_t type);

#endif
