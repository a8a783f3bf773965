// SPDX-License-Identifier: MIT
// [lab] tests of rdmastat_kping.ko: judge what tests/lab/scenarios/kping.sh
// wrote in the guest. rping and rdmastat ping are the peers and referees (rping
// -V and rdmastat ping -V validate what the kernel server echoed; rping -v
// shows the payload the kernel client must reproduce), rdma the referee of the
// listing and of the teardown.
#include "evidence.h"
#include "support.h"

#include "catch_compat.hpp"
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {

const Evidence ev{"kping"};

const struct {
    const char* name;
    const char* device;
} devices[] = {{"siw", "siw0"}, {"rxe", "rxe0"}};
const char* mems[] = {"dma", "frwr-local"};

// A run that ended on its own, without an error, after count operations of size bytes.
void check_done(const json& r, const char* role, const std::string& device, const std::string& mem,
                std::uint64_t count, std::uint64_t size) {
    INFO(r.dump());
    CHECK(r["role"] == role);
    CHECK(r["state"] == "done");
    CHECK_FALSE(r.contains("error"));
    CHECK(r["device"] == device);
    CHECK(r["mem"] == mem);
    CHECK(r["size"] == size);
    CHECK(r["iters"] == count);
}

// rping's cycle, counted on either side: two messages each way per ping; the
// server READs and WRITEs size bytes per ping.
void check_ping_counters(const json& r, std::uint64_t count, std::uint64_t size) {
    INFO(r.dump());
    CHECK(r["send"]["ops"] == 2 * count);
    CHECK(r["send"]["bytes"] == 2 * count * 16);
    CHECK(r["recv"]["ops"] == 2 * count);
    CHECK(r["recv"]["bytes"] == 2 * count * 16);
    const bool server = r["role"] == "server";
    CHECK(r["read"]["ops"] == (server ? count : 0));
    CHECK(r["read"]["bytes"] == (server ? count * size : 0));
    CHECK(r["write"]["ops"] == (server ? count : 0));
    CHECK(r["write"]["bytes"] == (server ? count * size : 0));
}

// Fast registration: one key per buffer per ping, each invalidated locally
// (the client has two buffers, the server one).
void check_registrations(const json& r, const std::string& mem, std::uint64_t count) {
    INFO(r.dump());
    const std::uint64_t per = r["role"] == "client" ? 2 : 1;
    CHECK(r["reg_ops"] == (mem == "dma" ? 0 : per * count));
    CHECK(r["inv_ops"] == (mem == "dma" ? 0 : per * count));
    CHECK(r["remote_inv_ops"] == 0);
}

bool kernel_owned_by_kping(const json& c) {
    return c.contains("owner") && c["owner"].value("kernel", "") == "rdmastat_kping";
}

} // namespace

TEST_CASE("lab: a kping server serves rping and rdmastat ping clients", "[lab][kping]") {
    for (const auto& d : devices)
        for (const std::string mem : mems) {
            const std::string tag = std::string(d.name) + "-" + mem;
            INFO(tag);
            // rping -C 10 -S 64 -V: rping validated every echo.
            CHECK(rping_ended_ok(ev.rc("ks-rping-" + tag + ".client"),
                                 ev.text("ks-rping-" + tag + ".client")));
            CHECK(lines_starting(ev.text("ks-rping-" + tag + ".client"), "ping data: ").size() ==
                  10);
            REQUIRE(ev.rc("ks-rping-" + tag + ".json") == 0);
            json s = ev.json("ks-rping-" + tag + ".json");
            check_done(s, "server", d.device, mem, 10, 65535);
            check_ping_counters(s, 10, 64);
            check_registrations(s, mem, 10);

            // rdmastat ping -C 10 -S 1000 -V against the kernel server.
            REQUIRE(ev.rc("ks-ping-" + tag + ".client.json") == 0);
            json c = ev.json("ks-ping-" + tag + ".client.json");
            CHECK(c["completed"] == 10);
            CHECK(c["validated"] == true);
            CHECK_FALSE(c.contains("error"));
            json k = ev.json("ks-ping-" + tag + ".json");
            check_done(k, "server", d.device, mem, 10, 65535);
            check_ping_counters(k, 10, 1000);
            check_registrations(k, mem, 10);
        }
}

TEST_CASE("lab: a kping client pings rping and rdmastat ping servers, validated", "[lab][kping]") {
    for (const auto& d : devices)
        for (const std::string mem : mems) {
            const std::string tag = std::string(d.name) + "-" + mem;
            INFO(tag << ev.text("kc-rping-" + tag + ".json.err"));
            REQUIRE(ev.rc("kc-rping-" + tag + ".json") == 0);
            json r = ev.json("kc-rping-" + tag + ".json");
            check_done(r, "client", d.device, mem, 10, 4096);
            CHECK(r["validate"] == true);
            check_ping_counters(r, 10, 4096);
            check_registrations(r, mem, 10);
            CHECK(r["latency_us"]["min"].get<double>() > 0);
            // What rping's server read from the kernel client is rping's own payload.
            const std::string said = ev.text("kc-rping-" + tag + ".server");
            auto data = lines_starting(said, "server ping data: ");
            REQUIRE(data.size() == 10);
            for (std::size_t seq = 0; seq < data.size(); ++seq)
                CHECK(data[seq] == our_payload_text(4096, seq));
            CHECK(rping_ended_ok(std::stoi(ev.text("kc-rping-" + tag + ".server.rc")),
                                 said + ev.text("kc-rping-" + tag + ".server.err")));

            REQUIRE(ev.rc("kc-ping-" + tag + ".json") == 0);
            json k = ev.json("kc-ping-" + tag + ".json");
            check_done(k, "client", d.device, mem, 10, 1000);
            check_ping_counters(k, 10, 1000);
            json s = ev.json("kc-ping-" + tag + ".server.json");
            CHECK(s["completed"] == 10);
            CHECK(s["size"] == 1000);
            CHECK_FALSE(s.contains("error"));
        }
}

TEST_CASE("lab: a kping server invalidates a kping client's keys remotely", "[lab][kping]") {
    for (const auto& d : devices) {
        INFO(d.name);
        REQUIRE(ev.rc(std::string("remote-") + d.name + "-client.json") == 0);
        json c = ev.json(std::string("remote-") + d.name + "-client.json");
        check_done(c, "client", d.device, "frwr-remote", 10, 4096);
        check_ping_counters(c, 10, 4096);
        CHECK(c["reg_ops"] == 20);
        // Every key the client advertised came back invalidated by the server's go-ahead.
        CHECK(c["remote_inv_ops"] == 20);
        CHECK(c["inv_ops"] == 0);
        json s = ev.json(std::string("remote-") + d.name + "-server.json");
        check_done(s, "server", d.device, "frwr-remote", 10, 65535);
        check_ping_counters(s, 10, 4096);
    }
}

TEST_CASE("lab: kping's write and read modes, with rdmastat ping as the peer", "[lab][kping]") {
    for (const auto& d : devices) {
        const std::string dev = d.name;
        INFO(dev << ev.text("bw-" + dev + ".json.err"));
        REQUIRE(ev.rc("bw-" + dev + ".json") == 0);
        json bw = ev.json("bw-" + dev + ".json");
        check_done(bw, "client", d.device, "frwr-local", 2000, 65536);
        CHECK(bw["mode"] == "write-bw");
        CHECK(bw["depth"] == 64);
        CHECK(bw["write"]["ops"] == 2000);
        CHECK(bw["write"]["bytes"] == 2000ull * 65536);
        CHECK(bw["seconds"].get<double>() > 0);
        // The same load from user space, against the same server.
        json user = ev.json("bw-user-" + dev + ".json");
        CHECK(user["completed"] == 2000);
        CHECK(user["bytes"] == 2000ull * 65536);

        json lat = ev.json("lat-" + dev + ".json");
        check_done(lat, "client", d.device, "frwr-local", 100, 64);
        CHECK(lat["mode"] == "write-lat");
        CHECK(lat["write"]["ops"] == 100);
        CHECK(lat["latency_us"]["max"].get<double>() >= lat["latency_us"]["min"].get<double>());

        // rdmastat ping --bw against a kernel server, which follows its hello.
        json uc = ev.json("bw-kserver-" + dev + "-client.json");
        INFO(uc.dump());
        CHECK(uc["completed"] == 2000);
        CHECK_FALSE(uc.contains("error"));
        json ks = ev.json("bw-kserver-" + dev + ".json");
        CHECK(ks["mode"] == "write-bw");
        CHECK(ks["state"] == "done");
        CHECK(ks["size"] == 65536);
        CHECK(ks["send"]["ops"] == 1); // its advertisement; the writes land silently

        json rd = ev.json("read-" + dev + ".json");
        check_done(rd, "client", d.device, "frwr-local", 100, 4096);
        CHECK(rd["mode"] == "read-lat");
        CHECK(rd["read"]["bytes"] == 100ull * 4096);
        json rs = ev.json("read-" + dev + "-server.json");
        CHECK(rs["mode"] == "read-lat");
        CHECK(rs["state"] == "done");
    }
    CHECK(ev.json("cleared.json")["runs"].empty());
}

TEST_CASE("lab: the listing shows kping's ends as kernel-owned", "[lab][kping]") {
    const std::string text = ev.text("listing.txt");
    CHECK_THAT(text, Catch::Contains("[rdmastat_kping]"));
    for (const char* name : {"listing.json", "listing-module.json"}) {
        INFO(name);
        json listing = ev.json(name);
        int listen = 0, server = 0, client = 0;
        for (const json& c : listing["connections"]) {
            if (!kernel_owned_by_kping(c)) continue;
            CHECK_FALSE(c["owner"].contains("pid"));
            const int local = c["local"]["port"], peer = c["peer"].value("port", 0);
            if (c["state"] == "LISTEN" && local == 7480) ++listen;
            if (c["state"] == "CONNECT" && local == 7480) ++server;
            if (c["state"] == "CONNECT" && peer == 7481) ++client;
        }
        CHECK(listen == 1);
        CHECK(server == 1);
        CHECK(client == 1);
    }
    // The referee: rdma names a kernel owner as comm, without a pid.
    json rdma = ev.json("rdma-cm_id.json");
    int kernel = 0;
    for (const json& id : rdma)
        if (id.value("comm", "") == "rdmastat_kping" && !id.contains("pid")) ++kernel;
    CHECK(kernel == 3);
}

TEST_CASE("lab: kping runs stopped in the middle tear everything down", "[lab][kping]") {
    json running = ev.json("running.json");
    REQUIRE(running["runs"].size() == 2);
    for (const json& r : running["runs"]) {
        CHECK(r["state"] == "running");
        CHECK(r["iters"].get<std::uint64_t>() > 0);
    }
    // Any user may read the runs.
    CHECK(ev.json("lab-show.json")["runs"].size() == 2);
    // show ID asks the kernel for that run alone (GET's doit): the same record
    // the dump gave, for root and for an unprivileged user.
    for (const char* name : {"show-client.json", "lab-show-client.json"}) {
        INFO(name << ev.text(std::string(name) + ".err"));
        REQUIRE(ev.rc(name) == 0);
        const auto runs = ev.json(name)["runs"];
        REQUIRE(runs.size() == 1);
        CHECK(runs[0]["id"] == ev.json("long-client.start.json")["id"]);
        CHECK(runs[0]["role"] == "client");
    }
    for (const char* name : {"stop-server.json", "stop-client.json"}) {
        INFO(name << ev.text(std::string(name) + ".err"));
        REQUIRE(ev.rc(name) == 0);
    }
    CHECK_THAT(ev.text("stop-server.json"), Catch::Contains("stopped"));
    CHECK_THAT(ev.text("stop-client.json"), Catch::Contains("stopped"));
    // The user-space peers saw the connection end, and nothing is left.
    CHECK(ev.json("after-stop.json")["runs"].empty());
    CHECK(ev.text("after-stop-cm_id.json").find("rdmastat_kping") == std::string::npos);
}

TEST_CASE("lab: rmmod during kping runs leaves nothing behind", "[lab][kping]") {
    json before = ev.json("rmmod-before.json");
    int running = 0;
    for (const json& r : before["runs"])
        running += r["state"] == "running";
    CHECK(running == 2);
    INFO(ev.text("rmmod.txt.err"));
    CHECK(ev.rc("rmmod.txt") == 0);
    CHECK(ev.text("loaded-after") == "0\n");
    CHECK(ev.text("rmmod-after-cm_id.json").find("rdmastat_kping") == std::string::npos);
    CHECK(ev.json("reload.json")["runs"].empty());
    // dmesg: no warning, bug or leak report anywhere in the boot.
    const std::string dmesg = ev.text("dmesg.txt");
    for (const char* bad : {"WARNING", "BUG", "Oops", "leak", "refcount", "general protection",
                            "INFO: task", "still in use"})
        CHECK(dmesg.find(bad) == std::string::npos);
}

TEST_CASE("lab: unprivileged users and bad parameters are refused clearly", "[lab][kping]") {
    for (const char* name : {"lab-start.txt", "lab-stop.txt"}) {
        INFO(name);
        CHECK(ev.rc(name) == 2);
        CHECK_THAT(ev.text(std::string(name) + ".err"), Catch::Contains("CAP_NET_ADMIN"));
    }
    CHECK(ev.rc("bad-size.txt") == 2);
    CHECK_THAT(ev.text("bad-size.txt.err"), Catch::Contains("RDMASTAT_KPING_A_SIZE"));
    CHECK(ev.rc("bad-depth.txt") == 2);
    CHECK_THAT(ev.text("bad-depth.txt.err"), Catch::Contains("RDMASTAT_KPING_A_DEPTH"));
    CHECK(ev.rc("bad-stop.txt") == 2);
    CHECK_THAT(ev.text("bad-stop.txt.err"), Catch::Contains("no run with this id"));
    CHECK(ev.rc("bad-show.txt") == 2);
    CHECK_THAT(ev.text("bad-show.txt.err"), Catch::Contains("no run 99999"));
    // Nothing was started by the refused requests.
    CHECK(ev.json("after-bad.json")["runs"].empty());
}

namespace {

// A number the scenario wrote alone in a file (an uptime in seconds).
double number_in(const std::string& name) {
    return std::stod(ev.text(name));
}

// A failed run's record: the errno and the step its message names.
void check_failed(const json& r, int errnum, const std::string& says) {
    INFO(r.dump());
    CHECK(r["state"] == "failed");
    REQUIRE(r.contains("error"));
    CHECK(r["error"]["errno"] == errnum);
    CHECK_THAT(r["error"]["message"].get<std::string>(), Catch::Contains(says));
}

// The kernel thread's CPU while it waited: "uptime_s cpu_ns utime stime"
// lines, one each 0.2 s until the thread ended.
struct CpuWatch {
    double seconds = 0;      // wall time the samples span
    double cpu_ms = 0;       // the thread's time on a CPU meanwhile (schedstat)
    double total_cpu_ms = 0; // since the thread started
    std::size_t samples = 0;
};
CpuWatch cpu_watch(const std::string& name) {
    std::istringstream in(ev.text(name));
    CpuWatch w;
    double t, first_t = 0, ns, first_ns = 0;
    long utime, stime;
    while (in >> t >> ns >> utime >> stime) {
        if (!w.samples++) {
            first_t = t;
            first_ns = ns;
        }
        w.seconds = t - first_t;
        w.cpu_ms = (ns - first_ns) / 1e6;
        w.total_cpu_ms = ns / 1e6;
    }
    return w;
}

const int etimedout = 110, eproto = 71;

} // namespace

// rdmastat-hostile -m latsilent: rdmastat's hello for the write-latency mode,
// the server's advertisement taken and the client's sink advertised, then no
// RDMA WRITE. The server polls its buffer for the write: with a 2 s timeout
// the run fails with ETIMEDOUT about 2 s after it connected, and the thread,
// which used to spin on a CPU for ever, spends a small part of that on one.
TEST_CASE("lab: a kping peer that advertises and goes silent times out, at little CPU",
          "[lab][kping]") {
    for (const auto& d : devices) {
        const std::string tag = std::string("silent-lat-") + d.name;
        INFO(tag << "\n" << ev.text(tag + ".peer"));
        CHECK(ev.json(tag + ".start.json")["timeout_ms"] == 2000);
        json r = ev.json(tag + ".json");
        check_failed(r, etimedout, "waiting for the client's rdma write");
        CHECK(r["mode"] == "write-lat");
        CHECK(r["device"] == d.device);
        CHECK(r["iters"] == 0);
        // From the connection to the end: the advertisements and the 2 s wait.
        CHECK(r["seconds"].get<double>() >= 2.0);
        CHECK(r["seconds"].get<double>() < 5.0);
        // The peer saw the server leave, well within its 15 s.
        CHECK(ev.rc(tag + ".peer") == 0);
        CHECK_THAT(ev.text(tag + ".peer"), Catch::Contains("the server disconnected"));
        CpuWatch w = cpu_watch(tag + ".cpu");
        INFO(ev.text(tag + ".cpu")
             << "samples " << w.samples << " over " << w.seconds << " s, cpu " << w.cpu_ms
             << " ms, total " << w.total_cpu_ms << " ms");
        REQUIRE(w.samples >= 3);
        CHECK(w.seconds >= 0.8);
        // A spinning thread is on a CPU about all the time; a sleeping poll is not.
        CHECK(w.cpu_ms < 0.2 * w.seconds * 1000);
        CHECK(w.total_cpu_ms < 1000);
    }
}

// rdmastat-hostile -m latsilent printed the address the kernel server
// advertised: a fast registration's, zero-based (an offset within a page),
// never the buffer's kernel virtual address.
TEST_CASE("lab: kping advertises fast-registered buffers at a zero-based address", "[lab][kping]") {
    for (const auto& d : devices) {
        const std::string said = ev.text(std::string("silent-lat-") + d.name + ".peer");
        INFO(d.name << "\n" << said);
        auto adv = lines_starting(said, "latsilent: the server advertised addr ");
        REQUIRE(adv.size() == 1);
        const std::uint64_t addr = std::stoull(adv[0], nullptr, 16);
        CHECK(addr < 4096);
    }
}

// rdmastat-hostile -m onceping: one whole rping cycle, then nothing, as a
// client whose host went away between pings. The server used to wait for the
// next source buffer without a limit.
TEST_CASE("lab: a kping peer that vanishes between pings times out", "[lab][kping]") {
    for (const auto& d : devices) {
        const std::string tag = std::string("vanished-") + d.name;
        INFO(tag << "\n" << ev.text(tag + ".peer"));
        json r = ev.json(tag + ".json");
        check_failed(r, etimedout, "waiting for the client's source buffer");
        CHECK(r["iters"] == 1);
        CHECK(r["seconds"].get<double>() >= 2.0);
        CHECK(r["seconds"].get<double>() < 5.0);
        CHECK(ev.rc(tag + ".peer") == 0);
        CpuWatch w = cpu_watch(tag + ".cpu");
        INFO(ev.text(tag + ".cpu"));
        REQUIRE(w.samples >= 3);
        CHECK(w.cpu_ms < 0.2 * w.seconds * 1000);
    }
    // A server whose client never comes gives up after its timeout (1 s).
    json alone = ev.json("alone.json");
    check_failed(alone, etimedout, "waiting for a client");
    const double waited = number_in("alone.ended-at") - number_in("alone.started-at");
    INFO("alone: ended " << waited << " s after start");
    CHECK(waited >= 1.0);
    CHECK(waited < 6.0);
}

// rdmastat-hostile -m short: a 12-byte SEND where a 16-byte advertisement
// belongs. It used to be taken with the previous message's address and key.
TEST_CASE("lab: a short send to a kping server fails the run with EPROTO", "[lab][kping]") {
    for (const auto& d : devices) {
        const std::string tag = std::string("short-") + d.name;
        INFO(tag << "\n" << ev.text(tag + ".peer"));
        json r = ev.json(tag + ".json");
        check_failed(r, eproto, "a message of 12 bytes, not 16");
        CHECK(r["iters"] == 0);
        CHECK(r["read"]["ops"] == 0);
        CHECK(ev.rc(tag + ".peer") == 0);
        CHECK_THAT(ev.text(tag + ".peer"), Catch::Contains("the server disconnected"));
    }
}

TEST_CASE("lab: kping's timeout is a START attribute the kernel's policy bounds", "[lab][kping]") {
    CHECK(ev.json("ks-rping-siw-dma.start.json")["timeout_ms"] == 10000); // the default
    for (const char* name : {"bad-timeout-low.txt", "bad-timeout-high.txt"}) {
        INFO(name);
        CHECK(ev.rc(name) == 2);
        CHECK_THAT(ev.text(std::string(name) + ".err"),
                   Catch::Contains("RDMASTAT_KPING_A_TIMEOUT_MS"));
    }
    // Refused STARTs left no run; every run of this section was stopped.
    CHECK(ev.json("after-deadlines.json")["runs"].empty());
}

// rdmastat-genlprobe kping-unread fills its socket's receive queue before a
// START, so the kernel cannot deliver START's reply: the run must be taken
// back, its thread never started and no rdma_cm id left. The control starts
// the same server as usual, and it is a run.
TEST_CASE("lab: a START whose reply is lost leaves no run", "[lab][kping]") {
    INFO(ev.text("unread.txt"));
    REQUIRE(ev.rc("unread.txt") == 0);
    CHECK_THAT(ev.text("unread.txt"), Catch::Contains("overrun: yes"));
    CHECK_THAT(ev.text("unread.txt"), Catch::Contains("start reply: none"));
    // The same START, sent again once the socket is drained, was answered.
    CHECK_THAT(ev.text("unread.txt"), Catch::Contains("control reply: run "));
    CHECK(ev.json("unread-after.json")["runs"].empty());
    CHECK(ev.text("unread-cm_id.json").find("rdmastat_kping") == std::string::npos);
    // The control: the very START, answered, is a run listening on that port.
    const json control = ev.json("unread-control.json");
    const json runs = ev.json("unread-control-show.json")["runs"];
    REQUIRE(runs.size() == 1);
    CHECK(runs[0]["id"] == control["id"]);
    CHECK(runs[0]["role"] == "server");
    CHECK(std::to_string(runs[0]["address"]["port"].get<int>()) + "\n" == ev.text("unread.port"));
}

// Two servers waiting for their client in namespace kpns (one on its rxe
// device, one on every address), then `ip netns del kpns`. Their threads and
// rdma_cm ids hold kpns, as a live run's do, so it is not freed at once; the
// runs end by their 6 s timeout, drop their references, and kpns is freed:
// its vk0 and the veth peer vk1 left here go away, and with vk0 rxek.
TEST_CASE("lab: a namespace deleted under live kping runs is freed once they end", "[lab][kping]") {
    INFO("kpns was " << ev.text("ns-inode"));
    json before = ev.json("ns-before.json");
    REQUIRE(before["runs"].size() == 2);
    for (const json& r : before["runs"]) {
        INFO(r.dump());
        CHECK(r["state"] == "connecting");
        CHECK(r["timeout_ms"] == 6000);
    }
    // The host's namespace does not list kpns's runs.
    CHECK(ev.json("ns-host.json")["runs"].empty());
    CHECK_FALSE(ev.text("ns-thread1").empty());
    CHECK_FALSE(ev.text("ns-thread2").empty());
    CHECK(ev.text("ns-held-after-del") == "yes\n");
    CHECK(ev.text("ns-freed") == "yes\n");
    const double freed = number_in("ns-freed-at") - number_in("ns-deleted-at");
    INFO("kpns freed " << freed << " s after ip netns del");
    CHECK(freed < 12.0);
    CHECK(ev.text("ns-threads-left").empty());
    CHECK(ev.text("ns-rdma-link.txt").find("rxek") == std::string::npos);
    CHECK(ev.text("ns-after-cm_id.json").find("rdmastat_kping") == std::string::npos);
}
