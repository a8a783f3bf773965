// SPDX-License-Identifier: MIT
// The command line: exit codes, one-line errors, and a man page that matches the code.
#include "cli/app.h"
#include "support.h"

#include "catch_compat.hpp"
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {
const std::string snapshot = fixtures_dir() + "/snapshot.json";

std::set<std::string> long_options(const std::string& text, const std::regex& re) {
    std::set<std::string> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
         ++it)
        out.insert((*it)[1]);
    return out;
}
} // namespace

TEST_CASE("usage errors exit 2 with one rdmastat: line and a hint", "[cli]") {
    for (auto args :
         std::vector<std::vector<std::string>>{{"--bogus"}, {"-Z"}, {"devices", "extra"}}) {
        Run r = run(args);
        CHECK(r.rc == 2);
        CHECK(r.out.empty());
        CHECK_THAT(r.err, Catch::StartsWith("rdmastat: ") &&
                              Catch::EndsWith("Try 'rdmastat --help' for more information.\n"));
    }
}

TEST_CASE("a bad filter is a usage error naming the word", "[cli]") {
    Run r = run({"--input", snapshot, "sport", ">"});
    CHECK(r.rc == 2);
    CHECK(r.err == "rdmastat: filter: expected a port after '>', got end of filter\n");
    r = run({"--input", snapshot, "colour", "blue"});
    CHECK(r.rc == 2);
    CHECK_THAT(r.err, Catch::StartsWith("rdmastat: filter: unknown keyword 'colour'"));
}

TEST_CASE("runtime errors exit 2 with context", "[cli]") {
    Run r = run({"--input", "/nonexistent.json"});
    CHECK(r.rc == 2);
    CHECK(r.err == "rdmastat: /nonexistent.json: No such file or directory\n");
    std::string dir = std::filesystem::temp_directory_path();
    for (auto args : std::vector<std::vector<std::string>>{{"--input", dir, "-a"},
                                                           {"devices", "--input", dir}}) {
        r = run(args);
        CHECK(r.rc == 2);
        CHECK(r.out.empty());
        CHECK(r.err == "rdmastat: " + dir + ": Is a directory\n");
    }
}

namespace {
void check_usage_error(const std::vector<std::string>& args, const std::string& message) {
    INFO(Catch::Detail::stringify(args));
    Run r = run(args);
    CHECK(r.rc == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "rdmastat: " + message + "\nTry 'rdmastat --help' for more information.\n");
}
} // namespace

TEST_CASE("listing options and a filter before devices are usage errors", "[cli]") {
    check_usage_error({"--input", snapshot, "dev", "siw0", "devices"},
                      "the devices command takes no FILTER");
    check_usage_error({"dev", "siw0", "devices", "--input", snapshot},
                      "the devices command takes no FILTER");
    check_usage_error({"--input", snapshot, "-p", "devices"},
                      "--processes does not apply to devices");
    check_usage_error({"-a", "devices"}, "--all does not apply to devices");
    // Output options before the word still apply.
    Run r = run({"-H", "--input", snapshot, "devices"});
    CHECK(r.rc == 0);
    CHECK_THAT(r.out, Catch::StartsWith("siw0 "));
}

TEST_CASE("-a with -l and -4 with -6 are usage errors", "[cli]") {
    for (auto args : std::vector<std::vector<std::string>>{
             {"-a", "-l"}, {"-l", "-a"}, {"--all", "--listening"}, {"-al"}}) {
        args.insert(args.end(), {"--input", snapshot});
        Run r = run(args);
        CHECK(r.rc == 2);
        CHECK_THAT(r.err, Catch::StartsWith("rdmastat: --") && Catch::Contains(" excludes --") &&
                              Catch::Contains("--all") && Catch::Contains("--listening"));
    }
    for (auto args : std::vector<std::vector<std::string>>{{"-4", "-6"}, {"-6", "-4"}, {"-46"}}) {
        args.insert(args.end(), {"--input", snapshot});
        Run r = run(args);
        CHECK(r.rc == 2);
        CHECK_THAT(r.err, Catch::Contains("--ipv4") && Catch::Contains("--ipv6") &&
                              Catch::EndsWith("Try 'rdmastat --help' for more information.\n"));
    }
    CHECK(run({"-a", "-4", "--input", snapshot}).rc == 0);
    CHECK(run({"-l", "-6", "--input", snapshot}).rc == 0);
}

TEST_CASE("--pretty needs -j", "[cli]") {
    check_usage_error({"--pretty", "--input", snapshot}, "--pretty needs -j");
    check_usage_error({"-s", "--pretty", "--input", snapshot}, "--pretty needs -j");
    check_usage_error({"devices", "--pretty", "--input", snapshot}, "--pretty needs -j");
    check_usage_error({"--pretty", "devices", "--input", snapshot}, "--pretty needs -j");
    // -j and --pretty on either side of the word devices.
    for (auto args : std::vector<std::vector<std::string>>{{"-j", "--pretty"},
                                                           {"-j", "devices", "--pretty"},
                                                           {"--pretty", "devices", "-j"},
                                                           {"devices", "-j", "--pretty"}}) {
        args.insert(args.end(), {"--input", snapshot});
        Run r = run(args);
        CHECK(r.rc == 0);
        CHECK_THAT(r.out, Catch::StartsWith("{\n  \"version\": 1,"));
    }
}

TEST_CASE("help and version exit 0", "[cli]") {
    Run h = run({"--help"});
    CHECK(h.rc == 0);
    CHECK_THAT(h.out, Catch::Contains("--listening"));
    Run v = run({"-V"});
    CHECK(v.rc == 0);
    CHECK_THAT(v.out, Catch::StartsWith("rdmastat "));
}

TEST_CASE("the man page documents every option and no other", "[cli][man]") {
    std::string man = read_file(fixtures_dir() + "/../../man/rdmastat.8");
    std::string help = run({"--help"}).out + run({"devices", "--help"}).out +
                       run({"lsof", "--help"}).out + run({"check", "--help"}).out +
                       run({"export", "--help"}).out + run({"serve", "--help"}).out +
                       run({"fabric", "--help"}).out;
    auto in_help = long_options(help, std::regex("(--[a-z][a-z0-9-]*)"));
    // groff writes "--name" as "\-\-name".
    auto in_man = long_options(man, std::regex(R"(\\-\\-([a-z][a-z0-9\\-]*))"));
    std::set<std::string> man_options;
    for (auto o : in_man)
        man_options.insert("--" + std::regex_replace(o, std::regex(R"(\\-)"), "-"));
    CHECK(in_help == man_options);
    for (const char* cmd : {"devices", "lsof", "check", "export", "serve", "fabric"})
        CHECK_THAT(man, Catch::Contains(std::string(".B ") + cmd));
}

TEST_CASE("a filter keeps the --input snapshot's ids that match it", "[cli]") {
    Run all = run({"--input", snapshot, "-a", "-j"});
    Run siw = run({"--input", snapshot, "-a", "-j", "dev", "siw0"});
    REQUIRE(all.rc == 0);
    REQUIRE(siw.rc == 0);
    auto a = nlohmann::json::parse(all.out)["connections"];
    auto s = nlohmann::json::parse(siw.out)["connections"];
    std::size_t expected = 0;
    for (const auto& c : a)
        expected += c["device"] == "siw0";
    CHECK(s.size() == expected);
    CHECK(expected > 0);
}

TEST_CASE("--source module without the module is a runtime error", "[cli]") {
    if (std::filesystem::exists("/sys/module/rdmastat")) return; // loaded here: nothing to check
    Run r = run({"--source", "module", "-a"});
    CHECK(r.rc == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "rdmastat: module source: the rdmastat generic netlink family is not "
                   "registered (load it as root: modprobe rdmastat)\n");
    CHECK(run({"--source", "module", "devices"}).rc == 2);
}

TEST_CASE("--source takes auto, nldev or module and is ignored with --input", "[cli]") {
    Run bad = run({"--source", "verbs"});
    CHECK(bad.rc == 2);
    CHECK_THAT(bad.err, Catch::StartsWith("rdmastat: ") && Catch::Contains("--source"));
    for (const char* source : {"auto", "nldev", "module"}) {
        Run r = run({"--source", source, "--input", snapshot, "-a", "-j"});
        REQUIRE(r.rc == 0);
        CHECK(nlohmann::json::parse(r.out)["source"] == "file");
        CHECK(run({"devices", "--source", source, "--input", snapshot}).rc == 0);
        CHECK(run({"--source", source, "devices", "--input", snapshot}).rc == 0);
    }
}
