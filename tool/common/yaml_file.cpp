// SPDX-License-Identifier: MIT
#include "common/yaml_file.h"

#include "common/file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace rdmastat::yaml {

std::string scalar(const YAML::Node& node, const std::string& key) {
    if (node.IsNull()) return "";
    if (!node.IsScalar()) throw Refusal{key, "expected a string"};
    return node.Scalar();
}

bool boolean(const YAML::Node& node, const std::string& key) {
    bool value = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value))
        throw Refusal{key, "expected true or false"};
    return value;
}

std::vector<std::pair<std::string, YAML::Node>> entries(const YAML::Node& node,
                                                        const std::string& key) {
    std::vector<std::pair<std::string, YAML::Node>> out;
    if (node.IsNull()) return out;
    if (!node.IsMap()) throw Refusal{key.empty() ? "the file" : key, "expected a map"};
    for (const auto& kv : node) {
        std::string name = scalar(kv.first, key.empty() ? "the file" : key);
        for (const auto& seen : out)
            if (seen.first == name)
                throw Refusal{key.empty() ? name : key + "." + name, "given twice"};
        out.emplace_back(std::move(name), kv.second);
    }
    return out;
}

std::string resolve(const std::string& path, const std::string& dir) {
    if (path.empty() || path.front() == '/' || dir.empty()) return path;
    return dir + "/" + path;
}

std::string read_file(const std::string& path, const std::string& key) {
    auto text = read_whole_file(path);
    if (!text) throw Refusal{key, text.error()};
    // A directory opens, then reads nothing.
    if (text.value().empty()) throw Refusal{key, path + ": empty or unreadable"};
    return std::move(text.value());
}

Status parse(std::string_view text, const std::string& name,
             const std::function<void(const YAML::Node&)>& read) {
    try {
        read(YAML::Load(std::string(text)));
        return Ok{};
    } catch (const Refusal& r) {
        return Failure{name + ": " + r.key + ": " + r.reason};
    } catch (const YAML::Exception& e) {
        return Failure{name + ": line " + std::to_string(e.mark.line + 1) + ", column " +
                       std::to_string(e.mark.column + 1) + ": " + e.msg};
    }
}

Status load(const std::string& path, std::string& dir,
            const std::function<void(const YAML::Node&)>& read) {
    // A directory opens, reads as nothing, and would be an empty config.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return Failure{path + ": " + std::strerror(EISDIR), EISDIR};
    auto text = read_whole_file(path);
    if (!text) return text.failure();
    auto slash = path.rfind('/');
    dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    return parse(text.value(), path, read);
}

} // namespace rdmastat::yaml
