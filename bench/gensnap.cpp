// SPDX-License-Identifier: MIT
// rdmastat-gensnap N: writes a synthetic snapshot (the JSON of rdmastat -j -a)
// with N connections on two devices to stdout, for the host benchmark
// (bench/run.sh): a tenth listeners, the rest connected with an RC QP, one in
// ten IPv6, fifty ids per process. Written directly, not through nlohmann: it
// must not itself need the memory being measured.
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    long n = argc == 2 ? std::strtol(argv[1], nullptr, 10) : -1;
    if (n < 0) {
        std::fprintf(stderr, "usage: rdmastat-gensnap CONNECTIONS\n");
        return 2;
    }
    std::printf(
        "{\"version\":1,\"source\":\"nldev\",\"devices\":["
        "{\"name\":\"siw0\",\"index\":0,\"transport\":\"iwarp\",\"node_type\":\"rnic\","
        "\"protocol\":\"iw\",\"driver\":\"siw\",\"ports\":[{\"port\":1,\"state\":\"ACTIVE\","
        "\"phys_state\":\"LINK_UP\",\"netdev\":\"veth0\",\"netdev_index\":3}]},"
        "{\"name\":\"rxe0\",\"index\":1,\"transport\":\"roce\",\"node_type\":\"ca\","
        "\"protocol\":\"roce\",\"driver\":\"rxe\",\"ports\":[{\"port\":1,\"state\":\"ACTIVE\","
        "\"phys_state\":\"LINK_UP\",\"netdev\":\"veth1\",\"netdev_index\":4}]}],"
        "\"connections\":[");
    for (long i = 0; i < n; ++i) {
        const bool siw = i % 2 == 0, listener = i % 10 == 0, v6 = i % 10 == 5;
        const long pid = 1000 + i / 50, cm_id = i / 2;
        const unsigned port = 1024 + static_cast<unsigned>(i % 60000);
        char local[64], peer[64];
        if (v6) {
            std::snprintf(local, sizeof local, "fd00:9::%lx", 1 + (i / 7) % 0xfffe);
            std::snprintf(peer, sizeof peer, "fd00:9::%lx", 1 + (i / 3) % 0xfffe);
        } else {
            std::snprintf(local, sizeof local, "10.%ld.%ld.%ld", (i >> 16) & 255, (i >> 8) & 255,
                          1 + i % 254);
            std::snprintf(peer, sizeof peer, "10.9.%ld.%ld", (i >> 8) & 255, 1 + (i / 3) % 254);
        }
        std::printf("%s{\"device\":\"%s\",\"port\":1,\"transport\":\"%s\",\"port_space\":\"tcp\","
                    "\"cm_id\":%ld,\"state\":\"%s\",\"local\":{\"address\":\"%s\",\"port\":%u},",
                    i ? "," : "", siw ? "siw0" : "rxe0", siw ? "iwarp" : "roce", cm_id,
                    listener ? "LISTEN" : "CONNECT", local, port);
        if (listener)
            std::printf("\"peer\":{\"address\":\"%s\",\"port\":0},\"qp\":null,",
                        v6 ? "::" : "0.0.0.0");
        else
            std::printf("\"peer\":{\"address\":\"%s\",\"port\":%u},"
                        "\"qp\":{\"number\":%ld,\"type\":\"RC\",\"state\":\"RTS\"},",
                        peer, 1024 + static_cast<unsigned>((i * 7) % 60000), 2 + i);
        std::printf("\"owner\":{\"pid\":%ld,\"comm\":\"app%ld\",\"uid\":%d,\"user\":\"%s\"}}", pid,
                    pid % 100, pid % 3 ? 1000 : 0, pid % 3 ? "lab" : "root");
    }
    std::printf("]}\n");
    return std::fflush(stdout) == 0 ? 0 : 1;
}
