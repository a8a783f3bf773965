// SPDX-License-Identifier: MIT
// rdmastat ping without a device: what a peer sends is parsed and checked
// (wire.h), the payload matches rping's as captured in the lab, percentiles,
// option checks and the result renderers (golden).
#include "catch_compat.hpp"
#include "cli/commands.h"
#include "ping/stats.h"
#include "ping/wire.h"
#include "render/output.h"
#include "render/ping.h"
#include "support.h"

#include <algorithm>
#include <cerrno>
#include <random>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::ping;
using namespace rdmastat::test;

namespace {

std::vector<std::uint8_t> advert_bytes(const Advertisement& a) {
    std::vector<std::uint8_t> b(advertisement_size);
    encode_advertisement(a, b.data());
    return b;
}

} // namespace

TEST_CASE("advertisements are big-endian address, rkey, length", "[ping]") {
    // Laid out by hand as rping's struct (be64 buf, be32 rkey, be32 size).
    const std::uint8_t wire[16] = {0x00, 0x00, 0x7f, 0x12, 0x34, 0x56, 0x78, 0x9a,
                                   0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x10, 0x00};
    auto a = parse_advertisement(wire, 65535);
    REQUIRE(a.ok());
    CHECK(a.value().address == 0x00007f123456789aull);
    CHECK(a.value().rkey == 0x1234);
    CHECK(a.value().length == 4096);
    CHECK(advert_bytes(a.value()) == std::vector<std::uint8_t>(wire, wire + 16));
}

TEST_CASE("a peer's bad advertisement is refused with a reason", "[ping]") {
    Advertisement good{0x1000, 7, 64};
    auto bytes = advert_bytes(good);
    CHECK(parse_advertisement(bytes, 64).ok());

    auto shorter = parse_advertisement({bytes.data(), 12}, 64);
    REQUIRE_FALSE(shorter.ok());
    CHECK(shorter.error() == "advertisement of 12 bytes, expected 16");
    std::vector<std::uint8_t> longer(bytes);
    longer.push_back(0);
    CHECK_THAT(parse_advertisement(longer, 64).error(), Catch::Contains("17 bytes"));
    CHECK_THAT(parse_advertisement({}, 64).error(), Catch::Contains("0 bytes"));

    CHECK(parse_advertisement(advert_bytes({0x1000, 0, 64}), 64).error() ==
          "advertisement with a zero rkey");
    CHECK(parse_advertisement(advert_bytes({0x1000, 7, 0}), 64).error() ==
          "advertisement of an empty buffer");
    auto big = parse_advertisement(advert_bytes({0x1000, 7, 65}), 64);
    REQUIRE_FALSE(big.ok());
    CHECK_THAT(big.error(), Catch::Contains("65 bytes is larger than the 64 bytes"));
    CHECK(parse_advertisement(advert_bytes({0x1000, 7, 0xffffffffu}), max_buffer).error() ==
          "advertised buffer of 4294967295 bytes is larger than the 67108864 bytes this side "
          "allows");
}

TEST_CASE("the hello tells rdmastat from rping", "[ping]") {
    std::uint8_t buf[hello_size];
    encode_hello({Mode::bw, 65536}, buf);
    auto h = parse_hello(buf);
    REQUIRE(h.ok());
    CHECK(h.value().mode == Mode::bw);
    CHECK(h.value().size == 65536);

    // rping sends no private data; an IB CM pads to 56 zero bytes.
    CHECK(parse_hello({}).error_code() == ENOENT);
    std::vector<std::uint8_t> zeros(56, 0);
    CHECK(parse_hello(zeros).error_code() == ENOENT);
    // The hello followed by padding is still a hello.
    std::vector<std::uint8_t> padded(buf, buf + hello_size);
    padded.resize(56, 0);
    CHECK(parse_hello(padded).ok());

    buf[4] = 9;
    CHECK(parse_hello(buf).error() == "rdmastat hello of version 9, expected 1");
    buf[4] = 1;
    buf[5] = 7;
    CHECK(parse_hello(buf).error() == "rdmastat hello with unknown mode 7");
    CHECK(parse_hello({buf, 11}).error_code() == ENOENT);
}

TEST_CASE("the client's payload is rping's, as rping -v printed it in the lab", "[ping]") {
    // 60 pings of 64 bytes from real rping (tests/lab/scenarios/capture.sh).
    std::istringstream in(fixture_text("rping-v-64.txt"));
    std::uint64_t seq = 0;
    for (std::string line; std::getline(in, line); ++seq) {
        INFO("ping " << seq);
        std::vector<std::uint8_t> buf(64);
        fill_rping_payload(buf, seq);
        CHECK(buf.back() == 0);
        CHECK(line == "ping data: " + printable_prefix(buf));
    }
    CHECK(seq == 60);
}

TEST_CASE("payloads of every size end in one NUL", "[ping]") {
    for (std::size_t size : {1u, 2u, 13u, 26u, 4096u}) {
        std::vector<std::uint8_t> buf(size, 0xee);
        fill_rping_payload(buf, 123456789);
        CHECK(buf.back() == 0);
        CHECK(std::count(buf.begin(), buf.end(), 0) == 1);
    }
    std::vector<std::uint8_t> odd = {'a', 0x01, 0x80, 'b', 0, 'c'};
    CHECK(printable_prefix(odd) == "a??b");
}

TEST_CASE("latency percentiles are within 1% of the exact ones", "[ping]") {
    Histogram h;
    CHECK(h.quantile(0.5) == 0);
    CHECK(h.min() == 0);
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> dist(10.0, 1.5); // ~22 us median, long tail
    std::vector<std::uint64_t> v;
    for (int i = 0; i < 100000; ++i) {
        auto x = static_cast<std::uint64_t>(dist(rng)) + 1;
        v.push_back(x);
        h.add(x);
    }
    std::sort(v.begin(), v.end());
    CHECK(h.count() == v.size());
    CHECK(h.min() == v.front());
    CHECK(h.max() == v.back());
    for (double q : {0.01, 0.5, 0.9, 0.99, 0.999, 1.0}) {
        INFO("q " << q);
        auto exact = static_cast<double>(v[static_cast<std::size_t>(q * v.size()) - 1]);
        auto got = static_cast<double>(h.quantile(q));
        CHECK(got >= exact);
        CHECK(got <= exact * 1.01 + 1);
    }
    Histogram one;
    one.add(UINT64_MAX);
    CHECK(one.quantile(0.5) == UINT64_MAX);
}

TEST_CASE("ping options: defaults and refused combinations", "[ping]") {
    auto parse = [](std::vector<std::string> args) { return parse_ping_args(args); };
    auto client = parse({"-c", "-a", "10.9.0.1"});
    REQUIRE(client.ok());
    CHECK(effective_size(client.value().ping) == 64);
    CHECK(effective_count(client.value().ping) == 0);
    CHECK(client.value().ping.port == 7174);
    auto server = parse({"-s"});
    REQUIRE(server.ok());
    CHECK(effective_size(server.value().ping) == 65535);
    auto lat = parse({"-c", "-a", "h", "--lat", "-S1"});
    REQUIRE(lat.ok());
    CHECK(effective_count(lat.value().ping) == 1000);
    auto bw = parse({"-c", "-a", "h", "--bw", "--depth", "16", "--duration", "2"});
    REQUIRE(bw.ok());
    CHECK(effective_count(bw.value().ping) == 0);
    CHECK(bw.value().ping.depth == 16);

    // rping's own options, with rping's meanings, on either side.
    auto counted = parse({"-s", "-C", "3"});
    REQUIRE(counted.ok());
    CHECK(effective_count(counted.value().ping) == 3); // serves 3 pings, as rping -s -C 3
    auto self_qp = parse({"-c", "-a", "h", "-q", "-d"});
    REQUIRE(self_qp.ok());
    CHECK(self_qp.value().ping.self_qp);
    CHECK(self_qp.value().ping.debug);
    CHECK_FALSE(self_qp.value().quiet); // -q is rping's, not --quiet
    auto quiet = parse({"-c", "-a", "h", "--quiet"});
    REQUIRE(quiet.ok());
    CHECK(quiet.value().quiet);
    CHECK_FALSE(quiet.value().ping.self_qp);
    // rping takes -I on a server and -P on a client and ignores them: so do we, saying so.
    auto s_with_i = parse({"-s", "-I", "10.0.0.1"});
    REQUIRE(s_with_i.ok());
    CHECK(ignored_options(s_with_i.value().ping) ==
          std::vector<std::string>{"-I applies to a client: ignored, as rping does"});
    auto c_with_p = parse({"-c", "-a", "h", "-P"});
    REQUIRE(c_with_p.ok());
    CHECK(ignored_options(c_with_p.value().ping) ==
          std::vector<std::string>{"-P applies to a server: ignored, as rping does"});
    CHECK(ignored_options(quiet.value().ping).empty());

    const std::pair<std::vector<std::string>, const char*> bad[] = {
        {{}, "give -s (server) or -c (client)"},
        {{"-s", "-c"}, "excludes"},
        {{"-c"}, "needs the server's address (-a)"},
        {{"-c", "-a", "h", "-S", "10"}, "-S 10: rping mode needs 26"},
        {{"-c", "-a", "h", "--lat", "-S", "0"}, "-S 0: needs 1 to"},
        {{"-s", "--lat"}, "chosen by the client"},
        {{"-c", "-a", "h", "--depth", "4"}, "--depth applies to --bw only"},
        {{"-c", "-a", "h", "--bw", "--depth", "0"}, "--depth needs 1 to 4096"},
        {{"-c", "-a", "h", "--duration", "0"}, "--duration needs a positive number"},
        {{"-c", "-a", "h", "-p", "0"}, "port"},
        {{"-c", "-a", "h", "-x"}, "-x"},
    };
    for (const auto& [args, message] : bad) {
        INFO(Catch::Detail::stringify(args));
        auto r = parse(args);
        REQUIRE_FALSE(r.ok());
        CHECK_THAT(r.error(), Catch::StartsWith("ping: ") && Catch::Contains(message));
    }
}

TEST_CASE("ping's usage errors are one line and exit 2", "[ping][cli]") {
    std::ostringstream out, err;
    CHECK(run_ping({"-c", "-a", "h", "--pretty"}, CommonOptions{}, out, err) == 2);
    CHECK(err.str() == "rdmastat: ping: --pretty needs -j\n");
    err.str("");
    CommonOptions from_file;
    from_file.input = "snap.json";
    CHECK(run_ping({"-s"}, from_file, out, err) == 2);
    CHECK_THAT(err.str(), Catch::Contains("--input and --source do not apply to ping"));
    err.str("");
    CHECK(run_ping({"-c"}, CommonOptions{}, out, err) == 2);
    CHECK_THAT(err.str(), Catch::StartsWith("rdmastat: ping: the client needs the server's "
                                            "address (-a)"));
    CHECK(out.str().empty());
    CHECK(run_ping({"--help"}, CommonOptions{}, out, err) == 0);
    CHECK_THAT(out.str(), Catch::Contains("--lat"));
}

TEST_CASE("ping results render as golden text and JSON", "[ping][render]") {
    PingResult client;
    client.device = "siw0";
    client.local = {"10.9.0.1", 48613};
    client.peer = {"10.9.0.1", 7174};
    client.qp = 17;
    client.size = 64;
    client.completed = 10;
    client.bytes = 1280;
    client.seconds = 0.25;
    client.validate = true;
    client.latency = LatencySummary{12.5, 15.25, 19.5, 20.0, 16.0};

    PingResult bw = client;
    bw.mode = Mode::bw;
    bw.latency.reset();
    bw.validate = false;
    bw.size = 65536;
    bw.completed = 2000;
    bw.bytes = 2000ull * 65536;
    bw.seconds = 2.0;
    bw.depth = 128;
    bw.interrupted = true;

    PingResult server;
    server.server = true;
    server.device = "rxe0";
    server.local = {"fd00:9::2", 7174};
    server.peer = {"fd00:9::2", 40000};
    server.qp = 30;
    server.size = 16;
    server.error = "ping 0: source: peer's advertisement of 12 bytes, expected 16";

    PingResult bw_server = bw;
    bw_server.server = true;
    bw_server.completed = bw_server.bytes = 0;
    bw_server.interrupted = false;

    std::ostringstream text, json;
    for (const PingResult* r : {&client, &bw, &server, &bw_server}) {
        write_ping_text(text, *r);
        json_writer()->ping_result(json, *r);
    }
    CHECK(text.str() == golden("ping.txt", text.str()));
    CHECK(json.str() == golden("ping.json", json.str()));
    // 2000 writes of 64 KiB in 2 s.
    Rates rates = ping_rates(bw);
    CHECK(rates.mib_per_s == Approx(62.5));
    CHECK(rates.ops_per_s == Approx(1000));
    CHECK(rates.gbit_per_s == Approx(2000.0 * 65536 * 8 / 2 / 1e9));
    CHECK(ping_progress_line(bw).find("gbit_per_s 0.524") != std::string::npos);
}
