// SPDX-License-Identifier: MIT
#include "cli/say.h"

#include <mutex>

namespace rdmastat {

void say_line(std::ostream& err, std::string_view context, const std::string& message) {
    std::string line = "rdmastat: ";
    if (!context.empty()) line.append(context).append(": ");
    line.append(message).append("\n");
    // serve's events thread and its scrape worker both say things, and
    // std::cerr is not synchronised with stdio (main.cpp): one line at a time.
    static std::mutex lock;
    std::lock_guard<std::mutex> guard(lock);
    err << line << std::flush;
}

int say_usage(std::ostream& err, std::string_view command, std::string_view message) {
    std::string help =
        command.empty() ? "rdmastat --help" : "rdmastat " + std::string(command) + " --help";
    return say_failed(err, "", message, "\nTry '", help, "' for more information.");
}

} // namespace rdmastat
