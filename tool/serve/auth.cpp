// SPDX-License-Identifier: MIT
#include "serve/auth.h"

#include <array>
#include <crypt.h>
#include <cstring>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <memory>
#include <strings.h>

namespace rdmastat {

namespace {

constexpr std::string_view bcrypt_alphabet =
    "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

// libcrypt's hash of password with hash's salt and cost; empty when it fails.
std::string bcrypt(const std::string& password, const std::string& hash) {
    auto data = std::make_unique<crypt_data>();
    const char* out = crypt_rn(password.c_str(), hash.c_str(), data.get(), sizeof *data);
    // libcrypt signals failure with NULL or a string starting with '*'.
    if (!out || out[0] == '*') return "";
    return out;
}

// Equal in time whatever the contents (lengths are public: all hashes are 60).
bool same(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

// RFC 4648 base64 with padding; nullopt for anything else.
std::optional<std::string> base64_decode(std::string_view in) {
    if (in.size() % 4) return std::nullopt;
    std::string out;
    for (std::size_t i = 0; i < in.size(); i += 4) {
        int v[4];
        std::size_t pad = 0;
        for (std::size_t j = 0; j < 4; ++j) {
            if (in[i + j] == '=' && i + 4 == in.size() && j >= 2) {
                v[j] = 0;
                ++pad;
                continue;
            }
            if (pad || (v[j] = base64_value(in[i + j])) < 0) return std::nullopt;
        }
        unsigned bits = (unsigned(v[0]) << 18) | (unsigned(v[1]) << 12) | (unsigned(v[2]) << 6) |
                        unsigned(v[3]);
        out += static_cast<char>(bits >> 16);
        if (pad < 2) out += static_cast<char>((bits >> 8) & 0xff);
        if (pad < 1) out += static_cast<char>(bits & 0xff);
    }
    return out;
}

} // namespace

bool is_bcrypt_hash(std::string_view hash) {
    if (hash.size() != 60 || hash[0] != '$' || hash[1] != '2' || hash[3] != '$' || hash[6] != '$')
        return false;
    if (hash[2] != 'a' && hash[2] != 'b' && hash[2] != 'y') return false;
    if (hash[4] < '0' || hash[4] > '3' || hash[5] < '0' || hash[5] > '9') return false;
    int cost = (hash[4] - '0') * 10 + (hash[5] - '0');
    if (cost < 4 || cost > 31) return false;
    for (char c : hash.substr(7))
        if (bcrypt_alphabet.find(c) == std::string_view::npos) return false;
    // libcrypt has the last word: a setting it refuses fails every password.
    return crypt_checksalt(std::string(hash).c_str()) == CRYPT_SALT_OK;
}

std::optional<BasicCredentials> parse_basic_authorization(std::string_view value) {
    constexpr std::string_view scheme = "Basic ";
    if (value.size() < scheme.size() || strncasecmp(value.data(), scheme.data(), scheme.size()))
        return std::nullopt;
    value.remove_prefix(scheme.size());
    while (!value.empty() && value.front() == ' ')
        value.remove_prefix(1);
    auto decoded = base64_decode(value);
    if (!decoded) return std::nullopt;
    auto colon = decoded->find(':');
    if (colon == std::string::npos) return std::nullopt;
    return BasicCredentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
}

BasicAuth::BasicAuth(std::map<std::string, std::string> users) : users_(std::move(users)) {}

std::string BasicAuth::digest(const BasicCredentials& c) const {
    auto u = users_.find(c.user);
    std::string text = c.user + '\0' + c.password + '\0' + (u == users_.end() ? "" : u->second);
    std::array<unsigned char, 32> out{};
    gnutls_hash_fast(GNUTLS_DIG_SHA256, text.data(), text.size(), out.data());
    return std::string(out.begin(), out.end());
}

bool BasicAuth::known(const BasicCredentials& c) const {
    std::string d = digest(c);
    std::lock_guard guard(lock_);
    return good_.count(d) > 0;
}

bool BasicAuth::verify(const BasicCredentials& c) {
    auto u = users_.find(c.user);
    if (users_.empty()) return false;
    // An unknown user is checked against the costliest user's hash all the
    // same, so that a guess at a name costs as long as a guess at a password.
    const std::string* hash = &users_.begin()->second;
    for (const auto& [name, h] : users_)
        if (h.compare(4, 2, *hash, 4, 2) > 0) hash = &h; // "$2b$NN$": NN is the cost
    if (u != users_.end()) hash = &u->second;
    std::string computed = bcrypt(c.password, *hash);
    bool ok = u != users_.end() && !computed.empty() && same(computed, *hash);
    if (ok) {
        std::string d = digest(c);
        std::lock_guard guard(lock_);
        // Bounded: a long-lived serve with rotating passwords starts over.
        if (good_.size() >= 256) good_.clear();
        good_.insert(std::move(d));
    }
    return ok;
}

} // namespace rdmastat
