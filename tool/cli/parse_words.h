// SPDX-License-Identifier: MIT
#pragma once

/// The CLI11 step the commands with their own parsers (ping, kping) share.

#include "common/error.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace rdmastat {

/// Parses a command's words with app (CLI11 takes them reversed). true when
/// --help was asked for; a Failure reads "NAME: <CLI11's message>".
inline Result<bool> parse_words(CLI::App& app, const std::vector<std::string>& words,
                                const std::string& name) {
    std::vector<std::string> reversed(words.rbegin(), words.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::CallForHelp&) {
        return true;
    } catch (const CLI::ParseError& e) {
        return Failure{name + ": " + e.what()};
    }
    return false;
}

} // namespace rdmastat
