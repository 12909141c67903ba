# SPDX-License-Identifier: BSD-3-Clause
"""Fabric files with DCFIT on, for the fabric suite and the DCFIT benches:
a copy of a shipped fabric file whose switch template is the shipped one
plus a dcfit section (includes made absolute, captures left out)."""
import os
import re


def with_dcfit(cfg_dir, tmp, fabric_name, template_name, recovery, duration_ms, tag, extra=""):
    tmpl = os.path.join(tmp, f"switch-dcfit-{tag}.yaml")
    with open(tmpl, "w") as f:
        f.write(open(os.path.join(cfg_dir, template_name)).read())
        f.write(f"dcfit: {{ enabled: true, recovery: {recovery} }}\n")
    text = open(os.path.join(cfg_dir, fabric_name)).read()
    text = re.sub(r"include: \[([^\]]*)\]",
                  lambda m: "include: [" + ", ".join(os.path.join(cfg_dir, x.strip()) for x in m.group(1).split(","))
                  + "]", text)
    text = re.sub(r"switch: \{ config: [^}]*\}", f"switch: {{ config: {tmpl} }}", text)
    text = re.sub(r"duration: [0-9.]+m?s", f"duration: {duration_ms}ms", text)
    text = re.sub(r"\ncaptures:\n(  - .*\n)*", "\n", text)
    path = os.path.join(tmp, f"fabric-{tag}.yaml")
    with open(path, "w") as f:
        f.write(text + extra)
    return path


def fig10_with_dcfit(cfg_dir, tmp, recovery, duration_ms, tagger=False):
    name = "fig10-tagger.yaml" if tagger else "fig10-1bounce.yaml"
    template = "switch-tagger.yaml" if tagger else "switch-lossless.yaml"
    tag = ("tagger-" if tagger else "fig10-") + recovery
    return with_dcfit(cfg_dir, tmp, name, template, recovery, duration_ms, tag)
