// SPDX-License-Identifier: MIT
// [lab] tests of rdmastat.ko's safety rules: judge what
// tests/lab/scenarios/safety.sh wrote in the guest (ids naming QP numbers not
// their own, driver queries under unprivileged listing and QP churn, the strict
// generic netlink policy). Run by tests/lab/check.sh.
#include "collect/snapshot_file.h"
#include "support.h"

#include <catch2/catch.hpp>
#include <linux/rdmastat.h>
#include <regex>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

std::string evidence(const std::string& name) {
    return lab_evidence("safety", name);
}
int rc_of(const std::string& name) {
    return lab_rc("safety", name);
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

} // namespace

TEST_CASE("lab: unprivileged listing never makes the module query a driver", "[lab][safety]") {
    std::istringstream in(evidence("queries"));
    long dumps = -1, failed = -1, before = -1, after_lab = -1, after_root = -1;
    in >> dumps >> failed >> before >> after_lab >> after_root;
    INFO(evidence("lab-dump.err"));
    CHECK(dumps == 30);
    CHECK(failed == 0);
    // Thirty dumps by the lab user under QP churn, with a kernel-owned QP
    // (kping's) present: not one driver query.
    CHECK(after_lab == before);
    // The counter counts: root's one dump queried the one kernel id's own QP.
    CHECK(after_root == after_lab + 1);
    REQUIRE(rc_of("root-dump.json") == 0);
}

TEST_CASE("lab: the family refuses every attribute, naming it, and its reserved field",
          "[lab][safety]") {
    REQUIRE(rc_of("probe.txt") == 0);
    const auto lines = lines_of(evidence("probe.txt"));
    REQUIRE(lines.size() == 20 + 3);
    for (int t = 1; t <= 20; ++t) {
        const std::string& line = lines[static_cast<std::size_t>(t - 1)];
        INFO(line);
        const std::string head = "attr " + std::to_string(t) + ": error: Invalid argument: ";
        CHECK(line.rfind(head, 0) == 0);
        // The tool names the attribute the kernel's extended ack points at.
        CHECK(line.size() > head.size());
        CHECK(line.substr(line.size() - std::to_string(t).size() - 12) ==
              "(attribute " + std::to_string(t) + ")");
        if (t <= RDMASTAT_A_MAX)
            CHECK(line.find("RDMASTAT_CMD_CONN_GET takes no attributes") != std::string::npos);
    }
    CHECK(lines[20] == "doit: error: Operation not supported");
    CHECK(lines[21].rfind("reserved: error: Invalid argument", 0) == 0);
    CHECK(lines[22] == "plain dump: ok");
}

TEST_CASE("lab: safety scenario leaves dmesg clean", "[lab][safety]") {
    const std::string dmesg = evidence("dmesg.txt");
    static const std::regex bad(R"(BUG:|WARNING:|Oops|KASAN|general protection|refcount_t)");
    std::smatch m;
    INFO(dmesg);
    CHECK_FALSE(std::regex_search(dmesg, m, bad));
}
