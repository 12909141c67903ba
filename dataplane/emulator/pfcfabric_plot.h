// SPDX-License-Identifier: BSD-3-Clause
// pfcfabric's --plot, the run's last step: it spawns the source tree's plot
// script on the results.
#pragma once
#include <string>

namespace pfc::pfcfabric {

// --plot: the source tree's tools/fabric_plot.py draws the results
// directory into png. It is run as itself, so its first line chooses the
// interpreter (/usr/bin/python3, the one the project's scripts use, with
// python3-matplotlib). Returns whether it drew, having said why not; the
// results stay whatever happens.
bool Plot(const std::string& out_dir, const std::string& png, const std::string& title);

}  // namespace pfc::pfcfabric
