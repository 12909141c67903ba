# SPDX-License-Identifier: BSD-3-Clause
"""Fabric files (docs/reference/fabric-file.md) written from Python dicts,
for the experiments and tests that make their own: `write(path, spec)`
dumps a dict as YAML (PyYAML, Debian's python3-yaml, in
tools/install-deps.sh), `flow(...)` makes one entry of `flows:`, and
`incast_3to1(...)` the 3-to-1 incast over configs/fabric/incast-3to1.yaml
that several tests of the fabric suite vary.

Leaf lists and maps come out in flow style (`- {name: f1, from: H1, ...}`),
as the shipped fabric files are written, so a generated file reads like
one."""
import os

import yaml


def write(path, spec):
    """Writes spec (a dict: fabric, include, switch, flows, events, ...) to
    path as a fabric file, keys in the dict's order; returns path."""
    with open(path, "w") as f:
        yaml.safe_dump(spec, f, sort_keys=False, default_flow_style=None, width=1 << 16)
    return path


def flow(name, src, dst, **fields):
    """One entry of flows: name, from, to, then fields in order (dscp, prio,
    rate, ...)."""
    return {"name": name, "from": src, "to": dst, **fields}


def incast_3to1(cfg_dir, fabric, flows, switch=None, **sections):
    """The spec of a run over cfg_dir/incast-3to1.yaml (H1, H2 on A; H3 and
    H4 on B, B's port to H4 the bottleneck): fabric is the `fabric:` map
    (clock, duration, bin, seed), switch the switch template's path (the
    include's own when None), flows the `flows:` list, and sections any
    further top-level sections (rc, events, captures, ...), after flows."""
    spec = {"fabric": fabric, "include": os.path.join(cfg_dir, "incast-3to1.yaml")}
    if switch is not None:
        spec["switch"] = {"config": switch}
    spec["flows"] = flows
    spec.update(sections)
    return spec
