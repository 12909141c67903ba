# SPDX-License-Identifier: BSD-3-Clause
"""Fabric files that split runs are checked on (tests/fabric/threads_test.py,
mpi_test.py): partitions that meet over many links while every kind of
event happens and traffic crosses them; and what those scripts start
from."""
import json
import os
import subprocess


def split_setup(argv):
    """For a script run as SCRIPT BUILD_DIR SOURCE_DIR: (pfcfabric, the
    configs/fabric directory, the environment for pfcfabric and mpirun).
    Without meson's MALLOC_PERTURB_, which makes glibc fill every allocation
    (the rings, allocated large and touched only as used, would all be);
    Open MPI refuses root unless told, and CI runs as root."""
    build, src = argv[1], os.path.abspath(argv[2])
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return (os.path.join(build, "dataplane/emulator/pfcfabric"),
            os.path.join(src, "configs/fabric"), env)


def flap_file(fab, out_dir):
    """Fig. 11 with a leaf-spine link that carries the flows going down and
    up every 20 us, shorter than a pause of 65535 quanta at 40G (~840 us)."""
    path = os.path.join(out_dir, "fig11-flap.yaml")
    with open(path, "w") as f:
        f.write(f"include: {fab}/fig11-scenario.yaml\nevents:\n")
        for k in range(10):
            f.write(f"  - {{ at: {1000 + 20 * k}us, link: [L1, S1], "
                    f"state: {'down' if k % 2 == 0 else 'up'} }}\n")
    return path


def fattree4_file(fabric, fab, out_dir, env=None):
    """A k=4 fat-tree, 400 us: every host to the one five along (most cross
    pods), half of them RC with DCQCN over ECN (300 KB), the rest raw at
    10 Gb/s, starts staggered; queue lengths monitored from 50 to 350 us.
    Returns (path, pfcfabric --check's log, ok)."""
    path = os.path.join(out_dir, "ft4.yaml")
    head = ["fabric: { clock: virtual, duration: 400us, bin: 100us, seed: 1 }",
            "topology: { gen: 'fattree:4' }", "links: { rate: 40G, delay: 1us }",
            f"switch: {{ config: {fab}/switch-lossless-ecn.yaml }}", "rc: { mtu: 1000 }",
            # The queue monitor too: its samples are results like the rest.
            "monitor: { qlen: { start: 50us, end: 350us, interval: 100ns } }"]
    with open(path, "w") as f:
        f.write("\n".join(head) + "\n")
    check_dir = os.path.join(out_dir, "ft4-check")
    p = subprocess.run([fabric, "--fabric", path, "--out", check_dir, "--check"],
                       capture_output=True, text=True, env=env, timeout=120)
    if p.returncode != 0:
        return path, p.stdout + p.stderr, False
    hosts = [h["name"] for h in json.load(open(os.path.join(check_dir, "hosts.json")))["hosts"]]
    with open(path, "a") as f:
        f.write("flows:\n")
        for k, s in enumerate(hosts):
            d = hosts[(k + 5) % len(hosts)]
            kind = ("transport: rc, cc: dcqcn, ecn: ect0, bytes: 300000" if k % 2 == 0
                    else "rate: 10G")
            f.write(f"  - {{ name: f{k}, from: {s}, to: {d}, dscp: 1, prio: 1, {kind}, "
                    f"start: {10 * k}us }}\n")
    return path, "", True


def stepped_file(path, out_dir, quantum="250ns"):
    """The fabric at `path` on a stepped clock (fabric.quantum): its
    switches' rounds at the ends of steps."""
    out = os.path.join(out_dir, os.path.basename(path).replace(".yaml", "-stepped.yaml"))
    text = open(path).read()
    if "clock: virtual, " not in text:
        raise ValueError(f"{path}: no 'clock: virtual, ' to add a quantum to")
    with open(out, "w") as f:
        f.write(text.replace("clock: virtual, ", f"clock: virtual, quantum: {quantum}, ", 1))
    return out


def real_clock_file(fab, out_dir):
    """Fig. 11 on the real clock (what a split of the virtual one refuses)."""
    path = os.path.join(out_dir, "real.yaml")
    with open(path, "w") as f:
        text = open(f"{fab}/fig11-scenario.yaml").read()
        f.write(text.replace("include: clos-fig2", f"include: {fab}/clos-fig2")
                .replace("clock: virtual", "clock: real"))
    return path


def output_files(d, skip=("timing.json",), skip_dirs=()):
    """Every file under d, relative, less the wall-clock one (and any
    directory named in skip_dirs)."""
    out = []
    for r, dirs, fs in os.walk(d):
        dirs[:] = [x for x in dirs if os.path.relpath(os.path.join(r, x), d) not in skip_dirs]
        out += [os.path.relpath(os.path.join(r, f), d) for f in fs if f not in skip]
    return sorted(out)


def same_outputs(a, b, skip_dirs=()):
    """(every file byte for byte?, what differs)."""
    import filecmp
    fa, fb = output_files(a, skip_dirs=skip_dirs), output_files(b, skip_dirs=skip_dirs)
    if fa != fb:
        return False, f"file lists differ: {set(fa) ^ set(fb)}"
    differ = [f for f in fa if not filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False)]
    return not differ, ", ".join(differ)
