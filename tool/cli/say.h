// SPDX-License-Identifier: MIT
#pragma once

/// Every line rdmastat writes on stderr for the user goes through say(): an
/// error, a warning, a note, a usage error. One form, "rdmastat: CONTEXT:
/// MESSAGE" ("rdmastat: MESSAGE" without a context), written whole and
/// flushed, since lines come from threads (serve --events, ping) and before
/// long waits.

#include <ostream>
#include <sstream>
#include <string>
#include <string_view>

namespace rdmastat {

void say_line(std::ostream& err, std::string_view context, const std::string& message);

/// The parts, streamed as by <<, make the message.
template <typename... Parts>
void say(std::ostream& err, std::string_view context, const Parts&... parts) {
    std::ostringstream message;
    (message << ... << parts);
    say_line(err, context, message.str());
}

/// say(), then 2: the exit status of an error.
template <typename... Parts>
int say_failed(std::ostream& err, std::string_view context, const Parts&... parts) {
    say(err, context, parts...);
    return 2;
}

/// A usage error of command (empty: the top level): the message, then "Try
/// 'rdmastat[ COMMAND] --help' for more information.". Returns 2, the exit
/// status of a usage error.
int say_usage(std::ostream& err, std::string_view command, std::string_view message);

} // namespace rdmastat
