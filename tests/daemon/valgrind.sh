#!/bin/sh
# SPDX-License-Identifier: ISC
# Runs the daemon named by $P256SIGND under valgrind memcheck, its workers included (fork keeps
# them under valgrind; --trace-children follows any exec). The integration tests take this script
# as the daemon binary: valgrind's exit status 1 fails them for the parent, and daemonlib.py finds
# a worker's report in the log.
exec valgrind -q --trace-children=yes --leak-check=full --error-exitcode=1 "$P256SIGND" "$@"
