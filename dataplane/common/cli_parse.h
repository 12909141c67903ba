// SPDX-License-Identifier: BSD-3-Clause
// CLI11's parse with the project's exit convention, shared by the programs
// that use CLI11 (pfcctl, pfcfabric, pfc-tagger; pfcswitch names its extra
// arguments itself): nothing to go on, else the exit status: 0 after --help
// or --version, 2 for any usage error (CLI11's own codes are 100 and up),
// its message printed by CLI11.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <utility>

namespace pfc {

template <typename... Args>
std::optional<int> CliParse(CLI::App& app, Args&&... args) {
  try {
    app.parse(std::forward<Args>(args)...);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return std::nullopt;
}

}  // namespace pfc
