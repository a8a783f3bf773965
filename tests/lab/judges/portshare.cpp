// SPDX-License-Identifier: MIT
// [lab] tests of lsof and check: judge what tests/lab/scenarios/portshare.sh wrote.
// The story: rping on siw holds 10.9.0.1:4567 through the host TCP stack, so a
// plain program's bind() fails and ss shows no owner; rdmastat explains it.
#include "evidence.h"
#include "support.h"

#include "catch_compat.hpp"
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

using namespace rdmastat::test;
using nlohmann::json;

namespace {

const Evidence ev{"portshare"};

std::uint32_t server_pid() {
    return static_cast<std::uint32_t>(std::stoul(ev.text("siw-server-pid")));
}

// rdma reports the creating thread: map it to its process with the guest's Tgid list.
std::map<std::uint32_t, std::uint32_t> tgids() {
    std::map<std::uint32_t, std::uint32_t> m;
    std::istringstream in(ev.text("tgid.txt"));
    std::uint32_t pid, tgid;
    while (in >> pid >> tgid)
        m[pid] = tgid;
    return m;
}

// The cm-idn rdma gives the siw listener on 4567.
std::uint32_t listener_idn() {
    for (const auto& e : ev.json("rdma-cm_id.json"))
        if (e["ifname"] == "siw0" && e["state"] == "LISTEN" && e["src-addr"] == "10.9.0.1:4567")
            return e["cm-idn"];
    FAIL("rdma shows no siw listener on 10.9.0.1:4567");
    return 0;
}

} // namespace

TEST_CASE("lab: the application's bind fails and ss shows no owner", "[lab][lsof]") {
    CHECK(ev.rc("bind-siw.txt") == 1);
    CHECK_THAT(ev.text("bind-siw.txt"), Catch::Contains("Address already in use"));
    std::istringstream ss(ev.text("ss.txt"));
    std::string line;
    bool seen = false;
    while (std::getline(ss, line)) {
        if (line.find("10.9.0.1:4567") == std::string::npos) continue;
        seen = true;
        CHECK_THAT(line, Catch::StartsWith("LISTEN"));
        CHECK(line.find("users:") == std::string::npos);
    }
    CHECK(seen);
    CHECK_THAT(ev.text("bind-rxe.txt"), Catch::StartsWith("bound 10.9.0.2 4568"));
}

TEST_CASE("lab: lsof -i :4567 names the rping process, its cm_id and the kernel socket",
          "[lab][lsof]") {
    REQUIRE(ev.rc("lsof-i.json") == 0);
    auto doc = ev.json("lsof-i.json");
    std::uint32_t idn = listener_idn();
    bool process_row = false, socket_row = false;
    for (const auto& p : doc["processes"]) {
        for (const auto& f : p["files"]) {
            if (p.contains("pid") && p["pid"] == server_pid() && f["type"] == "RDMA_CM" &&
                f.value("cm_id", 0u) == idn) {
                process_row = true;
                CHECK(p["comm"] == "rping");
                CHECK(f["state"] == "LISTEN");
                CHECK(f["local"]["port"] == 4567);
            }
            if (!p.contains("pid") && f["type"] == "IPv4" && f["state"] == "LISTEN" &&
                f["local"]["port"] == 4567) {
                socket_row = true;
                CHECK(f["rdma_device"] == "siw0");
                CHECK(f["rdma_cm_id"] == idn);
            }
        }
    }
    CHECK(process_row);
    CHECK(socket_row);
    // -t: the pids holding the port, as rdma reports them (as processes).
    std::set<std::uint32_t> expected, got;
    auto t = tgids();
    for (const auto& e : ev.json("rdma-cm_id.json")) {
        std::string src = e["src-addr"], dst = e["dst-addr"];
        if (src == "10.9.0.1:4567" || dst == "10.9.0.1:4567") expected.insert(t.at(e["pid"]));
    }
    std::istringstream terse(ev.text("terse.txt"));
    std::uint32_t pid;
    while (terse >> pid)
        got.insert(pid);
    CHECK(got == expected);
}

TEST_CASE("lab: check explains siw's port and RoCE's separate space", "[lab][lsof]") {
    CHECK(ev.rc("check.json") == 0);
    CHECK(ev.rc("check.txt") == 0);
    auto checks = ev.json("check.json")["checks"];
    bool siw = false, rxe = false;
    for (const auto& c : checks) {
        if (c["device"] == "siw0" && c["port"] == 4567) {
            siw = true;
            CHECK(c["verdict"] == "OK");
            CHECK(c["driver"] == "siw");
            CHECK(c["host_socket"]["rdma_cm_id"] == listener_idn());
            CHECK_THAT(c["reason"].get<std::string>(), Catch::Contains("kernel socket"));
        }
        if (c["device"] == "rxe0" && c["port"] == 4568) {
            rxe = true;
            CHECK(c["verdict"] == "INFO");
            CHECK(c["host_socket"]["comm"] == "rdmastat-bind");
        }
        CHECK(c["verdict"] != "CONFLICT");
        CHECK(c["verdict"] != "UNRESERVED");
    }
    CHECK(siw);
    CHECK(rxe);
}

TEST_CASE("lab: lsof -p lists the process's RDMA resources and fds as rdma and /proc do",
          "[lab][lsof]") {
    REQUIRE(ev.rc("lsof-p.json") == 0);
    auto procs = ev.json("lsof-p.json")["processes"];
    REQUIRE(procs.size() == 1);
    std::map<std::string, std::size_t> ours;
    std::map<std::uint32_t, std::string> chr;
    for (const auto& f : procs[0]["files"]) {
        ++ours[f["type"].get<std::string>()];
        if (f["type"] == "CHR") chr[f["fd"]] = f["name"];
    }
    // rdma's view of the same process, threads folded into it.
    auto t = tgids();
    auto count = [&](const char* kind) {
        std::size_t n = 0;
        for (const auto& e : json::parse(ev.text(std::string("rdma-") + kind + ".json")))
            if (e.contains("pid") && t.at(e["pid"]) == server_pid()) ++n;
        return n;
    };
    CHECK(ours["RDMA_CM"] == count("cm_id"));
    CHECK(ours["QP"] == count("qp"));
    CHECK(ours["CQ"] == count("cq"));
    CHECK(ours["MR"] == count("mr"));
    CHECK(ours["PD"] == count("pd"));
    CHECK(ours["QP"] >= 1);
    // Every /dev/infiniband fd of the process, with /proc's fd numbers.
    std::map<std::uint32_t, std::string> proc;
    std::istringstream in(ev.text("proc-fd.txt"));
    std::string line;
    while (std::getline(in, line)) {
        auto arrow = line.find(" -> /dev/infiniband/");
        if (arrow == std::string::npos) continue;
        auto fd_start = line.rfind(' ', arrow - 1) + 1;
        proc[static_cast<std::uint32_t>(std::stoul(line.substr(fd_start, arrow - fd_start)))] =
            line.substr(arrow + 4);
    }
    CHECK(proc.size() == 2);
    CHECK(chr == proc);
}

TEST_CASE("lab: without sock_diag, lsof -i, check and export give the same answers",
          "[lab][portshare]") {
    // sock_diag was really used first, and really gone after.
    CHECK(ev.text("diag-modules-before").find("tcp_diag") != std::string::npos);
    CHECK(ev.text("diag-modules-after").empty());
    for (std::string view : {"lsof-i.json", "check.json", "export.prom"}) {
        INFO(view << "\n" << ev.text("nodiag-" + view + ".err"));
        CHECK(ev.rc("diag-" + view) == ev.rc("nodiag-" + view));
        CHECK(ev.text("diag-" + view + ".err").empty());
        // Said once, on stderr, with the reason.
        const std::string err = ev.text("nodiag-" + view + ".err");
        CHECK(err.find("rdmastat: warning: sock_diag unavailable (no TCP sock_diag") == 0);
        CHECK(err.find('\n') == err.size() - 1);
        std::string with = ev.text("diag-" + view), without = ev.text("nodiag-" + view);
        if (view == "export.prom") {
            // The scrape's own duration is the one line that may differ.
            auto drop = [](std::string text) {
                std::string out, line;
                std::istringstream in(text);
                while (std::getline(in, line))
                    if (line.rfind("rdmastat_scrape_duration_seconds ", 0) != 0) out += line + "\n";
                return out;
            };
            with = drop(with);
            without = drop(without);
        }
        CHECK(with == without);
    }
    // The answers hold host sockets: siw's kernel TCP sockets, found by both paths.
    auto lsof = ev.json("nodiag-lsof-i.json");
    int ipv4 = 0;
    for (const auto& p : lsof["processes"])
        for (const auto& f : p["files"])
            ipv4 += f["type"] == "IPv4";
    CHECK(ipv4 >= 3);
}
