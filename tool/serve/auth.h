// SPDX-License-Identifier: MIT
#pragma once

/// HTTP basic authentication against bcrypt hashes (web config's
/// basic_auth_users), checked by libcrypt: no cryptography of our own.

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace rdmastat {

/// True when hash is a bcrypt hash as htpasswd -B and Python's bcrypt write it:
/// "$2a$", "$2b$" or "$2y$", a two-digit cost from 04 to 31, "$", and 53
/// characters of bcrypt's base64 alphabet, and libcrypt accepts it.
bool is_bcrypt_hash(std::string_view hash);

struct BasicCredentials {
    std::string user;
    std::string password;
};

/// The credentials of an Authorization header's value ("Basic" and the base64
/// of "user:password"); nullopt for another scheme or malformed base64.
std::optional<BasicCredentials> parse_basic_authorization(std::string_view value);

/// The users of a web config and the credentials proven good so far.
/// Thread-safe: serve asks known() on its network thread, and verify(), which
/// costs a bcrypt (tens of milliseconds by design), on a worker.
class BasicAuth {
  public:
    explicit BasicAuth(std::map<std::string, std::string> users);

    bool enabled() const { return !users_.empty(); }
    /// True when c was verified before: a scrape with the same credentials
    /// costs no bcrypt. Only digests of good credentials are remembered.
    bool known(const BasicCredentials& c) const;
    /// The bcrypt check. An unknown user costs the same as a wrong password.
    bool verify(const BasicCredentials& c);

  private:
    std::string digest(const BasicCredentials& c) const;

    std::map<std::string, std::string> users_;
    mutable std::mutex lock_;
    std::set<std::string> good_; ///< SHA-256 of user, password and hash
};

} // namespace rdmastat
