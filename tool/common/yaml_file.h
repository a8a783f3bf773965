// SPDX-License-Identifier: MIT
#pragma once

/// Strict reading of the Prometheus ecosystem's YAML files (serve's
/// --web.config.file, fabric's --http.config.file): every key is known, none
/// is repeated, and a failure names the file and the key.

#include "common/error.h"

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace rdmastat::yaml {

/// Thrown by the readers below and by a file's own reader; load() turns it
/// into "NAME: KEY: reason".
struct Refusal {
    std::string key, reason;
};

/// A scalar's text; a null node is "".
std::string scalar(const YAML::Node& node, const std::string& key);

/// true or false, as YAML spells them.
bool boolean(const YAML::Node& node, const std::string& key);

/// The keys of a map in file order, a repeated key refused (yaml-cpp keeps
/// both; the Go readers refuse it); a null node is an empty map. key is the
/// map's own dotted name, "" for the file's top level.
std::vector<std::pair<std::string, YAML::Node>> entries(const YAML::Node& node,
                                                        const std::string& key);

/// path, read from dir when relative (the Prometheus tools read a file's
/// relative paths from its own directory).
std::string resolve(const std::string& path, const std::string& dir);

/// The whole file at path; refused, naming key, when it cannot be read or is empty.
std::string read_file(const std::string& path, const std::string& key);

/// Parses text as YAML and hands its root to read; a Refusal or a YAML syntax
/// error becomes a Failure "NAME: KEY: reason" or "NAME: line L, column C: reason".
Status parse(std::string_view text, const std::string& name,
             const std::function<void(const YAML::Node&)>& read);

/// The file at path, parsed as parse() does; dir is set to its directory.
Status load(const std::string& path, std::string& dir,
            const std::function<void(const YAML::Node&)>& read);

/// A T that read(root, dir, T&) fills from text, as parse() reads it.
template <typename T, typename Read>
Result<T> parse_as(std::string_view text, const std::string& name, const std::string& dir,
                   Read read) {
    T value{};
    Status ok = parse(text, name, [&](const YAML::Node& root) { read(root, dir, value); });
    if (!ok) return ok.failure();
    return value;
}

/// The same from the file at path, its relative paths read from its directory.
template <typename T, typename Read> Result<T> load_as(const std::string& path, Read read) {
    T value{};
    std::string dir;
    Status ok = load(path, dir, [&](const YAML::Node& root) { read(root, dir, value); });
    if (!ok) return ok.failure();
    return value;
}

} // namespace rdmastat::yaml
