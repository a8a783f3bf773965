// SPDX-License-Identifier: MIT
#include "model/kping.h"

#include <array>
#include <linux/rdmastat_kping.h>

namespace rdmastat {
namespace {

constexpr std::array<const char*, RDMASTAT_KPING_MODE_MAX + 1> modes = {"ping", "write-lat",
                                                                        "write-bw", "read-lat"};
constexpr std::array<const char*, RDMASTAT_KPING_MEM_MAX + 1> mems = {"dma", "frwr-local",
                                                                      "frwr-remote"};
constexpr std::array<const char*, __RDMASTAT_KPING_STATE_LAST> states = {
    "connecting", "running", "done", "stopped", "failed"};

template <std::size_t N>
std::string name_of(const std::array<const char*, N>& names, std::uint8_t v) {
    return v < N ? names[v] : std::to_string(v);
}

template <std::size_t N>
std::optional<std::uint8_t> value_of(const std::array<const char*, N>& names,
                                     const std::string& name) {
    for (std::size_t i = 0; i < N; ++i)
        if (name == names[i]) return static_cast<std::uint8_t>(i);
    return std::nullopt;
}

} // namespace

std::string kping_mode_name(std::uint8_t mode) {
    return name_of(modes, mode);
}
std::string kping_mem_name(std::uint8_t mem) {
    return name_of(mems, mem);
}
std::string kping_state_name(std::uint8_t state) {
    return name_of(states, state);
}
std::optional<std::uint8_t> kping_mode_from_name(const std::string& name) {
    return value_of(modes, name);
}
std::optional<std::uint8_t> kping_mem_from_name(const std::string& name) {
    return value_of(mems, name);
}

} // namespace rdmastat
