// SPDX-License-Identifier: BSD-3-Clause
// The two non-greedy tagging schemes of Tagger:
//  - Algorithm 1 (§V-A, brute force): the tag is the hop count; every hop
//    raises it by one, so every G_k is edgeless and the rules are trivially
//    deadlock-free, but the tag count equals the longest ELP path.
//  - The Clos bounce scheme (§IV-B/C, §VI-A): a switch raises the tag by
//    one when a packet that came down (in-port faces a higher layer) goes up
//    again (out-port faces a higher layer); every other turn keeps the tag.
//    N application classes start at tags 1..N and tolerate M bounces, so
//    tags 1..N+M are used (M+1 per class, N+M in all; the paper's "M+N-1"
//    counts M as tags per class). A packet bouncing once more gets lossy.
// Pure functions over a finalized topology; control thread.
#pragma once
#include <string>

#include "ctrl/tagger/elp.h"
#include "ctrl/tagger/tag_rules.h"
#include "ctrl/tagger/topology.h"

namespace pfc::tagger {

// Fails (with *err) when a path would need a tag above kMaxTag, or for tree
// ELPs (the brute force is meant for small explicit inputs).
bool BruteForceTags(const Topology& t, const Elp& elp, TagRules* out, std::string* err);
// Needs a layer on every switch (hosts may omit it: layer 0).
bool ClosBounceTags(const Topology& t, int classes, int bounces, TagRules* out, std::string* err);

}  // namespace pfc::tagger
