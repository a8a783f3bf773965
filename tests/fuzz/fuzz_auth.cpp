// SPDX-License-Identifier: MIT
// libFuzzer target: what a hostile client controls in serve before it is
// authenticated, the Authorization header. A header that parses must give back
// the user and password it encodes (checked by encoding them again).
#include "serve/auth.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

std::string base64(const std::string& in) {
    static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < in.size(); i += 3) {
        unsigned v = static_cast<unsigned char>(in[i]) << 16;
        if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
        if (i + 2 < in.size()) v |= static_cast<unsigned char>(in[i + 2]);
        out += a[(v >> 18) & 63];
        out += a[(v >> 12) & 63];
        out += i + 1 < in.size() ? a[(v >> 6) & 63] : '=';
        out += i + 2 < in.size() ? a[v & 63] : '=';
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rdmastat;
    std::string header(reinterpret_cast<const char*>(data), size);
    auto c = parse_basic_authorization(header);
    if (!c) return 0;
    if (c->user.find(':') != std::string::npos) std::abort();
    // Re-encoded, the credentials parse to themselves.
    auto again = parse_basic_authorization("Basic " + base64(c->user + ":" + c->password));
    if (!again || again->user != c->user || again->password != c->password) std::abort();
    return 0;
}
