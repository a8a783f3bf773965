// SPDX-License-Identifier: MIT
#include "trace/tracer.h"

// The skeleton embeds the BPF object as one string literal, longer than
// -Wpedantic's portable limit.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
#include "rdma_cm.skel.h"
#pragma GCC diagnostic pop
#include "trace/bpf/record.h"
#include "trace/preempt_probe.h"

#include <algorithm>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <unistd.h>
#include <vector>

namespace rdmastat {
namespace {

// libbpf reports through a print callback; the last warning is the useful
// part of a failure ("failed to find BTF for ...", "permission denied").
std::mutex libbpf_mutex;
std::string libbpf_last;

int remember_libbpf(enum libbpf_print_level level, const char* format, va_list args) {
    if (level == LIBBPF_DEBUG) return 0;
    char buf[512];
    int n = std::vsnprintf(buf, sizeof(buf), format, args);
    std::string line(buf, n > 0 ? std::min<std::size_t>(std::size_t(n), sizeof(buf) - 1) : 0);
    while (!line.empty() && (line.back() == '\n' || line.back() == ' '))
        line.pop_back();
    if (line.empty()) return 0;
    std::lock_guard<std::mutex> lock(libbpf_mutex);
    libbpf_last = line;
    return 0;
}

std::string libbpf_said() {
    std::lock_guard<std::mutex> lock(libbpf_mutex);
    return libbpf_last.empty() ? std::string() : " (libbpf: " + libbpf_last + ")";
}

// The effective capability set's bit, from /proc/self/status.
bool has_capability(int bit) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("CapEff:", 0) != 0) continue;
        unsigned long long caps = std::strtoull(line.c_str() + 7, nullptr, 16);
        return (caps >> bit) & 1;
    }
    return false;
}

constexpr int cap_sys_admin = 21;

using Programs = std::vector<bpf_program*>;

// One program of each tracepoint's (rdma_cm.bpf.c's names).
#define TRACEPOINT_PROGRAMS(kind, second)                                                          \
    p.kind##_cm_event_handler##second, p.kind##_cm_qp_create##second,                              \
        p.kind##_cm_send_rej##second, p.kind##_cm_send_rtu##second,                                \
        p.kind##_cm_disconnect##second, p.kind##_cm_id_destroy##second,                            \
        p.kind##_icm_no_listener_err##second

// The first programs, then the second ones: a tracepoint runs its programs in
// the order they were attached.
Programs btf_programs(rdma_cm* s) {
    auto& p = s->progs;
    return {TRACEPOINT_PROGRAMS(btf, ), TRACEPOINT_PROGRAMS(btf, _again)};
}

Programs raw_programs(rdma_cm* s) {
    auto& p = s->progs;
    return {TRACEPOINT_PROGRAMS(raw, ), TRACEPOINT_PROGRAMS(raw, _again)};
}

// The rdma_cm programs on functions' entry or exit, each after its second
// program, since a trampoline runs the program attached last first; and
// what is not seen without each pair.
struct FunctionPair {
    bpf_program *second, *first;
    const char* what;
};

std::vector<FunctionPair> function_pairs(rdma_cm* s) {
    auto& p = s->progs;
    return {{p.connect_exit_again, p.connect_exit,
             "connect failures before any event (fexit/rdma_connect_locked)"},
            {p.connect_entry_again, p.connect_entry, "connect_ms (fentry/rdma_connect_locked)"},
            {p.reject_exit_again, p.reject_exit, "iWARP rejects (fexit/rdma_reject)"}};
}

// Attaches p unless it is not loaded (a second program where none is needed).
bool attach_loaded(bpf_program* p, std::vector<bpf_link*>& links) {
    if (!bpf_program__autoload(p)) return true;
    bpf_link* link = bpf_program__attach(p);
    if (!link) return false;
    links.push_back(link);
    return true;
}

// The QP programs (qp.bpf.c), each after its second program as above:
// optional as a group, since a kernel may refuse one of them alone
// (ib_uverbs not loaded, say).
Programs qp_programs(rdma_cm* s) {
    auto& p = s->progs;
    return {
        p.qp_create_user_again,  p.qp_create_user,  p.qp_create_kernel_again, p.qp_create_kernel,
        p.cm_init_qp_attr_again, p.cm_init_qp_attr, p.qp_modify_again,        p.qp_modify,
        p.qp_destroy_again,      p.qp_destroy,      p.qp_async_event_again,   p.qp_async_event};
}

// A second program: its misses lose nothing its first program did not record.
bool is_second(const bpf_program* p) {
    return std::string_view(bpf_program__name(p)).ends_with("_again");
}

// The per-CPU values of a per-CPU array's element, summed by field.
template <typename T, typename F>
std::uint64_t per_cpu_sum(int map_fd, std::uint32_t key, F field) {
    int ncpu = libbpf_num_possible_cpus();
    if (ncpu <= 0) return 0;
    std::vector<T> values(static_cast<std::size_t>(ncpu));
    if (bpf_map_lookup_elem(map_fd, &key, values.data())) return 0;
    std::uint64_t sum = 0;
    for (const T& v : values)
        sum += field(v);
    return sum;
}

// ctx: the State's sink slot, set for the duration of a poll.
int on_record(void* ctx, void* data, std::size_t size) {
    const Tracer::Sink* sink = *static_cast<const Tracer::Sink**>(ctx);
    if (sink) (*sink)(data, size);
    return 0;
}

} // namespace

std::optional<std::string> tracepoints_unavailable() {
    // CAP_BPF and CAP_PERFMON would load the programs, but listing the
    // modules' BTF (where rdma_id_private is) takes CAP_SYS_ADMIN.
    if (geteuid() != 0 && !has_capability(cap_sys_admin))
        return "tracepoints need root (or CAP_SYS_ADMIN)";
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
        return "the kernel has no BTF (/sys/kernel/btf/vmlinux)";
    if (access("/sys/kernel/btf/rdma_cm", R_OK) != 0)
        return "rdma_cm is not loaded, or has no BTF (/sys/kernel/btf/rdma_cm)";
    return std::nullopt;
}

struct Tracer::State {
    rdma_cm* skel = nullptr;
    std::vector<bpf_link*> links;
    ring_buffer* rb = nullptr;
    const Sink* sink = nullptr; // the sink of the poll under way
    std::string_view kind;
    std::string missing;
    std::string preemption;
    Lost lost;                                                      // lost_recently()'s last read
    std::optional<std::chrono::steady_clock::time_point> lost_read; // and when

    ~State() {
        ring_buffer__free(rb);
        for (bpf_link* link : links)
            bpf_link__destroy(link);
        rdma_cm__destroy(skel);
    }
};

Tracer::Tracer(std::unique_ptr<State> state) : state_(std::move(state)) {}
Tracer::~Tracer() = default;

Result<std::unique_ptr<Tracer>> Tracer::open(const Options& options) {
    libbpf_set_print(remember_libbpf);
    // The second programs only where tracepoints' programs can be preempted
    // mid-run, or where the probe cannot tell: elsewhere they would only
    // cost load time.
    Result<bool> preemptible = tracepoints_preemptible();
    const bool second = !preemptible.ok() || preemptible.value();
    const std::string preemption =
        !preemptible.ok() ? "cannot tell whether tracepoints run preemptibly (" +
                                preemptible.error() + "): second programs loaded"
        : preemptible.value() ? "tracepoints run preemptibly: second programs loaded"
                              : "tracepoints run with preemption disabled: no second programs";
    std::string tried;
    // The tracepoints BTF-typed, else raw; each with the fexit programs and
    // the QP programs, else with one of the two groups, else with neither
    // (their targets are resolved at load, and a kernel may refuse them alone).
    struct Mode {
        bool btf, fexit, qp;
    };
    std::string qp_tried; // why the last mode with the QP programs failed
    for (Mode mode : {Mode{true, true, true}, Mode{true, true, false}, Mode{true, false, true},
                      Mode{true, false, false}, Mode{false, true, true}, Mode{false, true, false},
                      Mode{false, false, true}, Mode{false, false, false}}) {
        const bool btf = mode.btf;
        {
            std::lock_guard<std::mutex> lock(libbpf_mutex);
            libbpf_last.clear();
        }
        auto state = std::make_unique<State>();
        state->kind = btf ? "tp_btf" : "raw_tp";
        auto fail = [&](const char* step, int err) {
            std::string why = std::string(state->kind) + (mode.fexit ? "+fexit" : "") +
                              (mode.qp ? "+qp" : "") + ": " + step + ": " +
                              std::strerror(err < 0 ? -err : err) + libbpf_said();
            tried += std::string(tried.empty() ? "" : "; ") + why;
            // The mode tried next is the same without them: its success
            // says this failure was theirs.
            if (mode.qp) qp_tried = why;
        };
        state->skel = rdma_cm__open();
        if (!state->skel) {
            fail("open", errno);
            continue;
        }
        for (bpf_program* p : btf ? raw_programs(state->skel) : btf_programs(state->skel))
            bpf_program__set_autoload(p, false);
        bpf_program* q = nullptr;
        bpf_object__for_each_program(q, state->skel->obj) {
            if (is_second(q) && !second) bpf_program__set_autoload(q, false);
        }
        if (!mode.fexit)
            for (const FunctionPair& f : function_pairs(state->skel)) {
                bpf_program__set_autoload(f.second, false);
                bpf_program__set_autoload(f.first, false);
            }
        if (!mode.qp)
            for (bpf_program* p : qp_programs(state->skel))
                bpf_program__set_autoload(p, false);
        int err = bpf_map__set_max_entries(state->skel->maps.records,
                                           static_cast<__u32>(options.buffer_bytes));
        if (err) {
            fail("ring buffer size", err);
            continue;
        }
        // Half full: the reader, polling every poll_ms, has fallen behind.
        state->skel->rodata->wake_bytes = options.buffer_bytes / 2;
        // The first programs mark their hits for the second ones, where loaded.
        state->skel->rodata->seconds = second;
        if (!second) bpf_map__set_max_entries(state->skel->maps.finished, 1);
        if ((err = rdma_cm__load(state->skel))) {
            fail("load", err);
            continue;
        }
        bool attached = true;
        for (bpf_program* p : btf ? btf_programs(state->skel) : raw_programs(state->skel)) {
            if (!attach_loaded(p, state->links)) {
                fail(bpf_program__section_name(p), errno);
                attached = false;
                break;
            }
        }
        if (!attached) continue;
        // Optional: a kernel whose functions cannot be traced still has
        // every tracepoint.
        for (const FunctionPair& f : function_pairs(state->skel)) {
            std::vector<bpf_link*> pair;
            if (mode.fexit && attach_loaded(f.second, pair) && attach_loaded(f.first, pair)) {
                state->links.insert(state->links.end(), pair.begin(), pair.end());
                continue;
            }
            const int why = errno;
            for (bpf_link* link : pair)
                bpf_link__destroy(link);
            if (!state->missing.empty()) state->missing += ", ";
            state->missing += f.what;
            state->missing += mode.fexit ? ": " + std::string(std::strerror(why)) : ": " + tried;
        }
        // All or none: a QP's life with a step missing would mislead.
        std::string qp_why = mode.qp ? "" : qp_tried.empty() ? tried : qp_tried;
        std::vector<bpf_link*> qp_links;
        for (bpf_program* p : mode.qp ? qp_programs(state->skel) : Programs{}) {
            if (!attach_loaded(p, qp_links)) {
                qp_why = bpf_program__section_name(p) + std::string(": ") + std::strerror(errno);
                break;
            }
        }
        if (!qp_why.empty()) {
            for (bpf_link* link : qp_links)
                bpf_link__destroy(link);
            qp_links.clear();
            if (!state->missing.empty()) state->missing += ", ";
            state->missing += "verbs QP events (fexit/_ib_modify_qp and others): " + qp_why;
        }
        state->links.insert(state->links.end(), qp_links.begin(), qp_links.end());
        // Every program attached: the second programs may record.
        state->skel->bss->armed = 1;
        state->preemption = preemption;
        state->rb = ring_buffer__new(bpf_map__fd(state->skel->maps.records), on_record,
                                     &state->sink, nullptr);
        if (!state->rb) {
            fail("ring buffer", errno);
            continue;
        }
        return std::unique_ptr<Tracer>(new Tracer(std::move(state)));
    }
    return Failure{"rdma_cma tracepoints: " + tried};
}

Result<int> Tracer::poll(int timeout_ms, const Sink& sink) {
    state_->sink = &sink;
    int n = ring_buffer__poll(state_->rb, timeout_ms);
    // A poll that was not woken reads nothing: records the programs did not
    // wake for are taken here.
    if (n >= 0) {
        int more = ring_buffer__consume(state_->rb);
        n = more < 0 ? more : n + more;
    }
    state_->sink = nullptr;
    if (n == -EINTR) return 0;
    if (n < 0) return Failure{"rdma_cma tracepoints: ring buffer", -n};
    return n;
}

Tracer::Lost Tracer::lost() const {
    Lost lost;
    lost.full = per_cpu_sum<std::uint64_t>(bpf_map__fd(state_->skel->maps.lost), 0,
                                           [](std::uint64_t n) { return n; });
    // Recoveries first: each follows its miss, so the misses read after them
    // are never fewer, and the count never dips. A hit whose mark the map
    // refused is recorded by both programs: not a recovery.
    std::uint64_t misses = 0, recovered = 0, unmarked = 0;
    const int states = bpf_map__fd(state_->skel->maps.tp_states);
    for (std::uint32_t tp = 0; tp < RDMASTAT_TRACE_HOOKS; ++tp) {
        recovered += per_cpu_sum<rdmastat_trace_tp_state>(
            states, tp, [](const rdmastat_trace_tp_state& v) { return v.recovered; });
        unmarked += per_cpu_sum<rdmastat_trace_tp_state>(
            states, tp, [](const rdmastat_trace_tp_state& v) { return v.unmarked; });
    }
    recovered = recovered > unmarked ? recovered - unmarked : 0;
    bpf_program* p = nullptr;
    bpf_object__for_each_program(p, state_->skel->obj) {
        bpf_prog_info info{};
        std::uint32_t len = sizeof(info);
        int fd = bpf_program__fd(p); // -1: not loaded in this mode
        if (fd >= 0 && !is_second(p) && !bpf_obj_get_info_by_fd(fd, &info, &len))
            misses += info.recursion_misses;
    }
    lost.busy = misses > recovered ? misses - recovered : 0;
    return lost;
}

std::optional<Tracer::Costs> Tracer::costs() const {
    Costs costs;
    const Programs qp = qp_programs(state_->skel);
    bpf_program* p = nullptr;
    bpf_object__for_each_program(p, state_->skel->obj) {
        bpf_prog_info info{};
        std::uint32_t len = sizeof(info);
        int fd = bpf_program__fd(p);
        if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) continue;
        Cost& c = std::find(qp.begin(), qp.end(), p) != qp.end() ? costs.qp : costs.cm;
        // An event's cost is all its programs' time, over the runs of those
        // that write a record: second programs and rdma_init_qp_attr's
        // (which only notes a cm_id's attributes) add time, not runs.
        if (!is_second(p) && p != state_->skel->progs.cm_init_qp_attr) c.runs += info.run_cnt;
        c.ns += info.run_time_ns;
    }
    // The kernel counts only while kernel.bpf_stats_enabled is 1.
    if (costs.cm.ns == 0 && costs.qp.ns == 0) return std::nullopt;
    return costs;
}

Tracer::Lost Tracer::lost_recently() {
    const auto now = std::chrono::steady_clock::now();
    if (!state_->lost_read || now - *state_->lost_read >= std::chrono::milliseconds(lost_read_ms)) {
        state_->lost = lost();
        state_->lost_read = now;
    }
    return state_->lost;
}

const std::string& Tracer::missing() const {
    return state_->missing;
}

const std::string& Tracer::preemption() const {
    return state_->preemption;
}

} // namespace rdmastat
