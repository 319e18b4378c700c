#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The generated systemd units: `systemd-analyze verify` accepts them (with ExecStart= pointing at
the built daemon, since verify checks that the command exists) and `systemd-analyze security
--offline=yes` rates the service 0.4 or lower; journald's rate limit is off for it (it would drop
audit records)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    service, socket_unit, binary = sys.argv[1:4]
    tmp = tempfile.mkdtemp(prefix="p256signd-units-")
    try:
        with open(service) as f:
            text = f.read()
        exec_start = re.search(r"^ExecStart=(\S+)", text, re.M)
        if not exec_start or not exec_start.group(1).endswith("/p256signd"):
            fail("ExecStart= runs p256signd from the install prefix")
        # systemd 252 reads LogRateLimitIntervalSec=0 as unset: the burst is raised instead.
        if not re.search(r"^LogRateLimitBurst=50000000$", text, re.M):
            fail("LogRateLimitBurst=50000000: journald's rate limit would drop audit records")
        # Verify checks ExecStart's command exists: point it at the daemon just built.
        local = os.path.join(tmp, "p256signd.service")
        with open(local, "w") as f:
            f.write(text.replace(exec_start.group(1), os.path.abspath(binary)))
        shutil.copy(socket_unit, os.path.join(tmp, "p256signd.socket"))
        # --man=no: Documentation= names man pages that are installed, not in the build tree.
        r = subprocess.run(["systemd-analyze", "verify", "--man=no", local,
                            os.path.join(tmp, "p256signd.socket")],
                           capture_output=True, text=True, cwd=tmp)
        if r.returncode != 0 or r.stderr.strip():
            fail("systemd-analyze verify: %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
        r = subprocess.run(["systemd-analyze", "security", "--offline=yes", local],
                           capture_output=True, text=True, cwd=tmp)
        score = re.search(r"Overall exposure level for p256signd.service: ([0-9.]+)", r.stdout)
        if not score:
            fail("no exposure level:\n" + r.stdout + r.stderr)
        if float(score.group(1)) > 0.4:
            fail("exposure %s > 0.4:\n%s" % (score.group(1), r.stdout))
        print("exposure", score.group(1))
    finally:
        shutil.rmtree(tmp)


main()
