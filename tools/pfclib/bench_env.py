# SPDX-License-Identifier: BSD-3-Clause
"""Settings the benches take from the environment (bench/fabric/scale.py,
bench/hpcc/threads.py): a bad one ends the bench with a message naming it,
never a silent default."""
import os
import sys


def env_count(what, name, default, least):
    """The integer in environment variable `name` (default `default`), at
    least `least`; else exits with "<what>: <name>: expected ..."."""
    v = os.environ.get(name, str(default))
    if not v.isdigit() or int(v) < least:
        sys.exit(f"{what}: {name}: expected an integer of at least {least} (got '{v}')")
    return int(v)
