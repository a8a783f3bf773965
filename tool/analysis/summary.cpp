// SPDX-License-Identifier: MIT
#include "analysis/summary.h"

#include "analysis/select.h"
#include "model/names.h"

#include <algorithm>
#include <tuple>

namespace rdmastat {

Summary summarize(const std::vector<const Connection*>& connections) {
    Summary s;
    // Key processes by what identifies them, not by everything /proc said.
    std::map<std::tuple<std::uint32_t, std::string>, ProcessCount> processes;
    for (const Connection* c : connections) {
        ++s.total;
        bool listening = is_listening(*c), peer = has_peer(*c);
        s.listening += listening;
        s.with_peer += peer;
        s.other += !listening && !peer;
        ++s.by_device[c->device];
        ++s.by_transport[name_of(c->transport)];
        ++s.by_state[state_name(*c)];
        auto key = std::tuple(c->owner.pid.value_or(0), c->owner.kernel.value_or(""));
        auto& pc = processes[key];
        if (!pc.count) {
            pc.owner.pid = c->owner.pid;
            pc.owner.comm = c->owner.comm;
            pc.owner.kernel = c->owner.kernel;
        }
        ++pc.count;
    }
    for (auto& [key, pc] : processes)
        s.by_process.push_back(std::move(pc));
    std::stable_sort(
        s.by_process.begin(), s.by_process.end(),
        [](const ProcessCount& a, const ProcessCount& b) { return a.count > b.count; });
    return s;
}

} // namespace rdmastat
