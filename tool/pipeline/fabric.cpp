// SPDX-License-Identifier: MIT
#include "pipeline/fabric.h"

#include "collect/snapshot_file.h"

#include <algorithm>

namespace rdmastat {
namespace {

// "b=/tmp/x.json" names its host b; "/tmp/x.json" names it x.
std::pair<std::string, std::string> name_and_path(const std::string& word) {
    std::size_t eq = word.find('=');
    if (eq != std::string::npos && eq > 0 && word.find('/') > eq)
        return {word.substr(0, eq), word.substr(eq + 1)};
    std::string name = word.substr(word.rfind('/') + 1);
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
        name.resize(name.size() - 5);
    return {name, word};
}

Result<FabricInput> from_files(const std::vector<std::string>& words) {
    FabricInput in;
    in.origin = FabricOrigin::files;
    for (const std::string& word : words) {
        auto [name, path] = name_and_path(word);
        auto snap = load_snapshot_file(path);
        if (!snap) return snap.failure();
        FabricHost h{name, std::move(snap.value().connections), {}};
        bool known = false;
        for (const Device& d : snap.value().devices)
            for (const Port& p : d.ports)
                if (p.addresses) {
                    known = true;
                    h.addresses.insert(h.addresses.end(), p.addresses->begin(), p.addresses->end());
                }
        if (!known && !snap.value().devices.empty())
            in.warnings.push_back(path +
                                  ": its ports have no addresses (saved by an older "
                                  "rdmastat): host " +
                                  name + " holds only the addresses its ids are bound to");
        sort_unique(h.addresses);
        in.hosts.push_back(std::move(h));
    }
    std::sort(in.hosts.begin(), in.hosts.end(),
              [](const FabricHost& a, const FabricHost& b) { return a.name < b.name; });
    for (std::size_t i = 1; i < in.hosts.size(); ++i)
        if (in.hosts[i].name == in.hosts[i - 1].name)
            return Failure{"two snapshots name host '" + in.hosts[i].name +
                           "': name them apart as NAME=FILE"};
    return in;
}

} // namespace

Result<FabricInput> load_fabric_files(const std::vector<std::string>& files) {
    return from_files(files);
}

} // namespace rdmastat
