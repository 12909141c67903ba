// SPDX-License-Identifier: BSD-3-Clause
// The registration list (mechanism.h): one line a mechanism, in any order;
// their order in the pipeline comes from their own runs_after/runs_before.
#include <cstdio>
#include <cstdlib>

#include "dataplane/stages/dcfit_stage.h"
#include "dataplane/stages/ecn_stage.h"
#include "dataplane/stages/int_stage.h"
#include "dataplane/stages/mechanism.h"
#include "dataplane/stages/pfcwd_stage.h"

namespace pfc::stages {

namespace {
const Mechanism* const kRegistered[] = {
    &kDcfitMechanism,
    &kEcnMechanism,
    &kIntMechanism,
    &kPfcwdMechanism,
};
}  // namespace

std::span<const Mechanism* const> RegisteredMechanisms() { return kRegistered; }

bool SortMechanisms(std::vector<const Mechanism*>* m, std::string* err) {
  const size_t n = m->size();
  auto index_of = [&](std::string_view name) -> size_t {
    for (size_t i = 0; i < n; i++)
      if (name == (*m)[i]->name) return i;
    return n;
  };
  // after[j] holds i when i must come before j.
  std::vector<std::vector<size_t>> after(n);
  for (size_t i = 0; i < n; i++) {
    if (index_of((*m)[i]->name) != i) {
      *err = std::string("mechanism '") + (*m)[i]->name + "' registered twice";
      return false;
    }
    for (const char* a : (*m)[i]->runs_after)
      if (a != nullptr && index_of(a) < n) after[i].push_back(index_of(a));
    for (const char* b : (*m)[i]->runs_before)
      if (b != nullptr && index_of(b) < n) after[index_of(b)].push_back(i);
  }
  // Kahn's algorithm, taking the first ready one each time: stable.
  std::vector<const Mechanism*> out;
  std::vector<bool> placed(n, false);
  while (out.size() < n) {
    size_t pick = n;
    for (size_t j = 0; j < n && pick == n; j++) {
      if (placed[j]) continue;
      bool ready = true;
      for (size_t i : after[j]) ready = ready && placed[i];
      if (ready) pick = j;
    }
    if (pick == n) {
      *err = "mechanisms ordered in a cycle:";
      for (size_t j = 0; j < n; j++)
        if (!placed[j]) *err += std::string(" ") + (*m)[j]->name;
      return false;
    }
    placed[pick] = true;
    out.push_back((*m)[pick]);
  }
  *m = std::move(out);
  return true;
}

int MechanismSlot(const Mechanism& m) {
  OrderedMechanisms();  // sorts, and sets each registered one's slot
  if (m.slot >= 0) return m.slot;
  std::fprintf(stderr, "pfc: mechanism '%s' is not registered (dataplane/stages/mechanisms.cc)\n",
               m.name);
  std::abort();
}

void MakeMechanismState(sw::Switch& sw) {
  const std::vector<const Mechanism*>& v = OrderedMechanisms();
  for (size_t i = 0; i < v.size(); i++) {
    if (v[i]->make_state == nullptr || sw.mech[i] != nullptr || !v[i]->wanted(sw)) continue;
    sw.mech[i] = v[i]->make_state(sw);
  }
}

void MakeMechanismWorkerState(WorkerCtx& w) {
  const std::vector<const Mechanism*>& v = OrderedMechanisms();
  for (size_t i = 0; i < v.size(); i++) {
    if (v[i]->make_worker_state == nullptr || !v[i]->wanted(*w.sw)) continue;
    w.mech[i] = v[i]->make_worker_state(*w.sw, w);
  }
}

const std::vector<const Mechanism*>& OrderedMechanisms() {
  static const std::vector<const Mechanism*> sorted = [] {
    std::vector<const Mechanism*> v(RegisteredMechanisms().begin(), RegisteredMechanisms().end());
    std::string err;
    if (v.size() > sw::kMaxMechanisms) err = "more mechanisms than sw::kMaxMechanisms";
    if (!err.empty() || !SortMechanisms(&v, &err)) {
      std::fprintf(stderr, "pfc: %s (dataplane/stages/mechanisms.cc)\n", err.c_str());
      std::abort();
    }
    for (size_t i = 0; i < v.size(); i++) v[i]->slot = static_cast<int>(i);
    return v;
  }();
  return sorted;
}

}  // namespace pfc::stages
