// SPDX-License-Identifier: MIT
#pragma once

/// The unit tests build with Catch2 2 (Debian 12) and Catch2 3 (Debian 13).
/// Include this header, never Catch2's own: it includes whichever version is
/// installed and gives Catch2 3 the version 2 names the tests use
/// (Catch::Contains, Catch::StartsWith, Catch::EndsWith, Catch::Equals, Approx).
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>

#include <string>

namespace Catch {
using Matchers::EndsWith;
using Matchers::Equals;
using Matchers::StartsWith;
/// Catch2 2's substring matcher; Catch2 3 names it ContainsSubstring and
/// gives Contains to the range matcher.
inline Matchers::StringContainsMatcher Contains(const std::string& s,
                                                CaseSensitive cs = CaseSensitive::Yes) {
    return Matchers::ContainsSubstring(s, cs);
}
} // namespace Catch
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif
