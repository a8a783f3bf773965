// SPDX-License-Identifier: MIT
// The polling loop of -w, -E and life (pipeline/poll.h), driven by a fake
// clock and a fake source: its schedule, its stops, what each round carries,
// and life's lifetimes from the rounds (analysis/diff.h's PolledLives).
#include "analysis/diff.h"
#include "catch_compat.hpp"
#include "collect/snapshot_file.h"
#include "common/error.h"
#include "pipeline/follow.h"
#include "pipeline/poll.h"
#include "support.h"

#include <algorithm>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;

// Time that moves only when waited for (or when a collection takes some).
class FakeClock final : public RunClock {
  public:
    Clock::time_point now() override { return now_; }
    std::chrono::system_clock::time_point wall() override {
        return std::chrono::system_clock::time_point{} + (now_ - Clock::time_point{});
    }
    void wait_until(Clock::time_point t) override {
        waits.push_back(seconds(t));
        if (t > now_) now_ = t;
        if (stop_after_waits && waits.size() >= *stop_after_waits) stopping = true;
    }
    bool stop_requested() override { return stopping; }

    double seconds(Clock::time_point t) const {
        return std::chrono::duration<double>(t - Clock::time_point{}).count();
    }
    void advance(Clock::duration d) { now_ += d; }

    std::vector<double> waits; // the times waited until, in seconds from 0
    std::optional<std::size_t> stop_after_waits;
    bool stopping = false;

  private:
    Clock::time_point now_{};
};

// Hands out its snapshots in turn (the last one again when they run out);
// each collection takes `takes` of the clock's time.
class FakeSource final : public Source {
  public:
    FakeSource(FakeClock& clock, std::vector<Snapshot> rounds) : clock_(clock), rounds_(rounds) {}
    Collection collect(const Needs& needs) override {
        asked.push_back(needs);
        clock_.advance(takes);
        Collection c;
        c.snapshot = rounds_[std::min(asked.size() - 1, rounds_.size() - 1)];
        if (fail_connections_at && asked.size() - 1 == *fail_connections_at)
            c.errors.push_back({Part::connections, "connections: the kernel said no"});
        return c;
    }

    std::vector<Needs> asked;
    Clock::duration takes = 0s;
    std::optional<std::size_t> fail_connections_at;

  private:
    FakeClock& clock_;
    std::vector<Snapshot> rounds_;
};

Snapshot lab_snapshot() {
    std::istringstream in(fixture_text("snapshot.json"));
    return parse_snapshot_json(in, "snapshot.json").take();
}

// What poll handed over, copied out of each round.
struct Seen {
    unsigned index;
    double read;
    std::size_t selected;
    std::vector<EventKind> events;
    bool has_previous;
    double elapsed;
};

std::vector<Seen> run(FakeSource& source, FakeClock& clock, const PollPlan& plan,
                      unsigned stop_at = 0) {
    std::vector<Seen> seen;
    poll(source, clock, plan, [&](const PollRound& r) {
        std::vector<EventKind> kinds;
        for (const ConnectionEvent& e : r.events)
            kinds.push_back(e.kind);
        seen.push_back({r.index, clock.seconds(r.read), r.selected.size(), kinds,
                        r.previous != nullptr, r.elapsed});
        return stop_at == 0 || r.index + 1 < stop_at;
    });
    return seen;
}

} // namespace

TEST_CASE("poll: rounds on a fixed schedule, each compared with the one before", "[poll]") {
    Snapshot first = lab_snapshot();
    REQUIRE(first.connections.size() >= 3);
    Snapshot second = first;
    Connection gone = second.connections.back();
    second.connections.pop_back();
    Snapshot third = second;
    third.connections.push_back(gone);
    third.connections.back().cm_id = 4000;
    FakeClock clock;
    FakeSource source(clock, {first, second, third});
    // A collection of 1.5 s does not stretch the 2 s period.
    source.takes = 1500ms;
    PollPlan plan;
    plan.interval = 2;
    plan.count = 3;
    plan.needs.counters = true;
    plan.selection = Selection{Scope::all, std::nullopt};
    auto seen = run(source, clock, plan);

    REQUIRE(seen.size() == 3);
    CHECK(clock.waits == std::vector<double>{2, 4});
    CHECK(seen[0].read == 1.5);
    CHECK(seen[1].read == 3.5);
    CHECK(seen[2].read == 5.5);
    CHECK(seen[0].events.empty());
    CHECK_FALSE(seen[0].has_previous);
    CHECK(seen[0].elapsed == 0);
    CHECK(seen[1].events == std::vector<EventKind>{EventKind::closed});
    CHECK(seen[2].events == std::vector<EventKind>{EventKind::appeared});
    CHECK(seen[1].has_previous);
    CHECK(seen[1].elapsed == 2);
    CHECK(seen[2].elapsed == 2);
    CHECK(seen[0].selected == first.connections.size());
    CHECK(seen[1].selected == first.connections.size() - 1);
    REQUIRE(source.asked.size() == 3);
    CHECK(std::all_of(source.asked.begin(), source.asked.end(),
                      [](const Needs& n) { return n.counters && !n.resources; }));
}

TEST_CASE("poll: the selection decides what is compared", "[poll]") {
    Snapshot first = lab_snapshot();
    Snapshot second = first;
    // Every listener goes: -l sees them close, the default (connected) scope does not.
    std::erase_if(second.connections, [](const Connection& c) { return c.state == CmState::listen; });
    const std::size_t listeners = first.connections.size() - second.connections.size();
    REQUIRE(listeners > 0);
    for (Scope scope : {Scope::listening, Scope::connected}) {
        FakeClock clock;
        FakeSource source(clock, {first, second});
        PollPlan plan;
        plan.count = 2;
        plan.selection = Selection{scope, std::nullopt};
        auto seen = run(source, clock, plan);
        REQUIRE(seen.size() == 2);
        CHECK(seen[1].events.size() == (scope == Scope::listening ? listeners : 0));
    }
}

TEST_CASE("poll: stops at its duration, on a stop request, or when the round says so", "[poll]") {
    Snapshot snap = lab_snapshot();
    PollPlan plan;
    plan.interval = 1;
    plan.selection = Selection{Scope::all, std::nullopt};

    SECTION("duration: no round begins at or past it") {
        FakeClock clock;
        FakeSource source(clock, {snap});
        plan.duration = 2.5;
        auto seen = run(source, clock, plan);
        CHECK(seen.size() == 3); // at 0, 1 and 2
        CHECK(clock.waits == std::vector<double>{1, 2, 3});
    }
    SECTION("a stop request during a wait ends the run before the next round") {
        FakeClock clock;
        clock.stop_after_waits = 2;
        FakeSource source(clock, {snap});
        auto seen = run(source, clock, plan);
        CHECK(seen.size() == 2);
        CHECK(source.asked.size() == 2);
    }
    SECTION("the round's verdict") {
        FakeClock clock;
        FakeSource source(clock, {snap});
        auto seen = run(source, clock, plan, 4);
        CHECK(seen.size() == 4);
        CHECK(clock.waits.size() == 3);
    }
}

TEST_CASE("poll: a round without its connections is an error", "[poll]") {
    Snapshot snap = lab_snapshot();
    FakeClock clock;
    FakeSource source(clock, {snap});
    source.fail_connections_at = 1;
    PollPlan plan;
    plan.count = 3;
    unsigned rounds = 0;
    CHECK_THROWS_AS(poll(source, clock, plan,
                         [&](const PollRound&) {
                             ++rounds;
                             return true;
                         }),
                    Error);
    CHECK(rounds == 1);
}

TEST_CASE("life by polling: a lifetime from the round that saw the id appear", "[poll]") {
    Snapshot base = lab_snapshot();
    REQUIRE(!base.connections.empty());
    Snapshot with_new = base;
    with_new.connections.push_back(base.connections.front());
    with_new.connections.back().cm_id = 5000;
    Snapshot without_old = with_new;
    without_old.connections.erase(without_old.connections.begin()); // there before the start
    Snapshot without_both = without_old;
    without_both.connections.pop_back(); // the new one

    PolledLives lives;
    auto t0 = Clock::time_point{} + 10s;
    CHECK(lives.ended(diff_connections(base.connections, with_new.connections), t0).empty());
    auto old_end =
        lives.ended(diff_connections(with_new.connections, without_old.connections), t0 + 2s);
    REQUIRE(old_end.size() == 1);
    CHECK(old_end[0].kind == EventKind::closed);
    CHECK(old_end[0].ending == Ending::closed);
    CHECK_FALSE(old_end[0].lifetime); // born before the first round
    auto new_end =
        lives.ended(diff_connections(without_old.connections, without_both.connections), t0 + 5s);
    REQUIRE(new_end.size() == 1);
    CHECK(new_end[0].connection.cm_id == 5000);
    CHECK(new_end[0].ending == Ending::closed);
    REQUIRE(new_end[0].lifetime);
    CHECK(*new_end[0].lifetime == 5s);
}

namespace {

// Hands out one round of records per poll, then nothing; a poll that waits
// takes the tracer's 10 ms of the clock. Losses grow as set per round.
class FakeFeed final : public TraceFeed {
  public:
    explicit FakeFeed(FakeClock& clock) : clock_(clock) {}
    Status poll(bool wait, const Sink& sink) override {
        waited.push_back(wait);
        if (wait) clock_.advance(10ms);
        if (fail_at && waited.size() - 1 == *fail_at) return Failure{"ring buffer: gone"};
        const std::size_t i = waited.size() - 1;
        if (i < rounds.size())
            for (const Result<TraceEvent>& r : rounds[i])
                sink(r);
        if (i < losses.size()) lost_ = losses[i];
        return Ok{};
    }
    TraceLost lost() override { return lost_; }
    TraceLost lost_recently() override { return lost_; }

    std::vector<std::vector<Result<TraceEvent>>> rounds;
    std::vector<TraceLost> losses;
    std::vector<bool> waited;
    std::optional<std::size_t> fail_at;

  private:
    FakeClock& clock_;
    TraceLost lost_;
};

// A record of the seed's connection c at time_ns: kind, and its CM event.
TraceEvent record_of(const Connection& c, TraceKind kind, std::uint64_t time_ns,
                     std::optional<CmEventType> event = std::nullopt) {
    TraceEvent e;
    e.kind = kind;
    e.event = event;
    e.time_ns = time_ns;
    e.connection = c;
    e.connection.transport = Transport::unknown; // what the seed's devices tell
    e.tracked = true;
    return e;
}

// Hands out one round of monitor messages per poll, and the overruns counted
// by then.
class FakeDevices final : public DeviceFeed {
  public:
    Status poll(const Sink& sink) override {
        const std::size_t i = polls++;
        if (i < rounds.size())
            for (const Result<DeviceEvent>& r : rounds[i])
                sink(r);
        if (i < overrun_counts.size()) overruns_ = overrun_counts[i];
        return Ok{};
    }
    std::uint64_t overruns() override { return overruns_; }
    bool up() const override { return true; }

    std::vector<std::vector<Result<DeviceEvent>>> rounds;
    std::vector<std::uint64_t> overrun_counts;
    std::size_t polls = 0;

  private:
    std::uint64_t overruns_ = 0;
};

struct Followed {
    std::vector<std::vector<EventKind>> rounds;
    std::vector<std::vector<std::uint64_t>> times;
    std::vector<ConnectionEvent> events;
    std::vector<std::string> notes;
    std::optional<std::size_t> started_after_polls, started_after_seeds; // when started() ran
};

Followed run_follow(FakeFeed& feed, FakeSource& source, FakeClock& clock, double duration,
                    bool note_lost = true, std::function<bool(ConnectionEvent&)> admit = {},
                    std::size_t stop_after_rounds = 0, DeviceFeed* devices = nullptr) {
    Followed f;
    FollowHandlers h;
    h.admit = admit ? admit : [](ConnectionEvent&) { return true; };
    h.emit = [&](std::vector<ConnectionEvent>& batch, const std::vector<std::uint64_t>& ns) {
        std::vector<EventKind> kinds;
        for (const ConnectionEvent& e : batch) {
            kinds.push_back(e.kind);
            f.events.push_back(e);
        }
        f.rounds.push_back(kinds);
        f.times.push_back(ns);
        return stop_after_rounds == 0 || f.rounds.size() < stop_after_rounds;
    };
    h.note = [&](const std::string& line) { f.notes.push_back(line); };
    h.note_lost = note_lost;
    h.started = [&] {
        f.started_after_polls = feed.waited.size();
        f.started_after_seeds = source.asked.size();
    };
    follow(feed, source, clock, duration, h, devices);
    return f;
}

} // namespace

TEST_CASE("follow: records become events in order, timed and owned from the seed", "[poll]") {
    Snapshot seed = lab_snapshot();
    const Connection& c = seed.connections.at(0);
    FakeClock clock;
    clock.advance(100s);
    FakeSource source(clock, {seed});
    FakeFeed feed(clock);
    Connection unowned = c;
    unowned.owner = Owner{};
    feed.rounds = {
        {record_of(unowned, TraceKind::cm_event, 5'000'000'000, CmEventType::disconnected)},
        {},
        {record_of(unowned, TraceKind::destroyed, 5'002'000'000)}};
    Followed f = run_follow(feed, source, clock, 0.035);

    // 10 ms a round: rounds at 0, 10, 20 and 30 ms wait, the one past 35 ms
    // takes what is queued without waiting, and is the last.
    CHECK(feed.waited == std::vector<bool>{true, true, true, true, false});
    REQUIRE(f.rounds.size() == 5);
    CHECK(f.rounds[0] == std::vector<EventKind>{EventKind::cm_event});
    CHECK(f.rounds[1].empty());
    CHECK(f.rounds[2] == std::vector<EventKind>{EventKind::closed});
    CHECK(f.times[0] == std::vector<std::uint64_t>{5'000'000'000});
    REQUIRE(f.events.size() == 2);
    // The record named no owner: the seed's is the id's.
    CHECK(f.events[0].connection.owner == c.owner);
    CHECK(f.events[1].connection.owner == c.owner);
    // The seed's device tells the transport the record lacked.
    CHECK(f.events[0].connection.transport == c.transport);
    CHECK(f.events[1].ending == Ending::disconnected);
    // Kernel time 5 s, on a wall clock that reads the steady clock's 100 s +
    // 10 ms when the round began: 5 s + (wall - steady), the fake's wall
    // being its steady time, so the event's wall time is 5 s from the epoch.
    CHECK(f.events[0].time->time_since_epoch() == 5s);
    // The seed only: every record's device was in it.
    REQUIRE(source.asked.size() == 1);
    CHECK_FALSE(source.asked[0].host_sockets);
    CHECK(f.notes.empty());
    // Signals become stop requests once the seed is read, before any poll.
    CHECK(f.started_after_seeds == 1u);
    CHECK(f.started_after_polls == 0u);
}

TEST_CASE("follow: admit filters, and a stop still empties the queue", "[poll]") {
    Snapshot seed = lab_snapshot();
    const Connection& a = seed.connections.at(0);
    const Connection& b = seed.connections.at(1);
    FakeClock clock;
    FakeSource source(clock, {seed});
    FakeFeed feed(clock);
    feed.rounds = {
        {record_of(a, TraceKind::disconnect_sent, 1), record_of(b, TraceKind::disconnect_sent, 2)},
        {record_of(b, TraceKind::destroyed, 3)}};
    clock.stopping = true; // asked to stop before the first round
    Followed f = run_follow(feed, source, clock, 0, true,
                            [&](ConnectionEvent& e) { return e.connection.cm_id == b.cm_id; });
    // One round, without waiting: what was queued, b's only.
    CHECK(feed.waited == std::vector<bool>{false});
    REQUIRE(f.rounds.size() == 1);
    REQUIRE(f.events.size() == 1);
    CHECK(f.events[0].connection.cm_id == b.cm_id);
    CHECK(f.times[0] == std::vector<std::uint64_t>{2});
}

TEST_CASE("follow: emit ends the run; bad records and losses are noted", "[poll]") {
    Snapshot seed = lab_snapshot();
    FakeClock clock;
    FakeSource source(clock, {seed});
    for (bool note_lost : {true, false}) {
        FakeFeed feed(clock);
        feed.rounds = {{Result<TraceEvent>(Failure{"a record of 12 bytes, expected 96"})}};
        feed.losses = {TraceLost{0, 0}, TraceLost{3, 1}, TraceLost{3, 1}, TraceLost{4, 1}};
        Followed f = run_follow(feed, source, clock, 0, note_lost, {}, 4);
        CHECK(feed.waited.size() == 4);
        std::vector<std::string> expected = {"a record of 12 bytes, expected 96"};
        if (note_lost) {
            expected.push_back("4 events lost (4 in all: 3 found the ring buffer full, 1 were "
                               "skipped by the kernel, their program already running on that CPU)");
            expected.push_back("1 events lost (5 in all: 4 found the ring buffer full, 1 were "
                               "skipped by the kernel, their program already running on that CPU)");
        }
        CHECK(f.notes == expected);
    }
}

TEST_CASE("follow: device events follow the round's records, timed when read", "[poll]") {
    Snapshot seed = lab_snapshot();
    const Connection& c = seed.connections.at(0);
    FakeClock clock;
    clock.advance(100s);
    FakeSource source(clock, {seed});
    FakeFeed feed(clock);
    feed.rounds = {{record_of(c, TraceKind::disconnect_sent, 5)}};
    FakeDevices devices;
    const DeviceEvent registered{DeviceEventType::registered, 3, "siw0", {}, {}, {}};
    const DeviceEvent attached{DeviceEventType::netdev_attached, 3, "siw0", 1, 4, "veth0"};
    devices.rounds = {
        {registered, attached},
        {Result<DeviceEvent>(Failure{"device event message 1: event type: missing"})}};
    devices.overrun_counts = {0, 2, 2};
    Followed f = run_follow(feed, source, clock, 0, true, {}, 3, &devices);
    CHECK(devices.polls == 3);
    REQUIRE(f.rounds.size() == 3);
    CHECK(f.rounds[0] ==
          std::vector<EventKind>{EventKind::disconnect_sent, EventKind::device, EventKind::device});
    // Read after the round's 10 ms wait: 100.010 s on both clocks.
    CHECK(f.times[0] == std::vector<std::uint64_t>{5, 100'010'000'000, 100'010'000'000});
    REQUIRE(f.events.size() == 3);
    const ConnectionEvent& r = f.events[1];
    REQUIRE(r.device_event);
    CHECK(r.device_event->type == DeviceEventType::registered);
    CHECK(r.connection.device == "siw0");
    CHECK_FALSE(r.connection.port);
    CHECK(r.time->time_since_epoch() == 100'010ms);
    const ConnectionEvent& a = f.events[2];
    REQUIRE(a.device_event);
    CHECK(a.connection.port == 1u);
    CHECK(a.device_event->netdev == "veth0");
    CHECK(a.device_event->netdev_index == 4u);
    // A message that did not parse, and the kernel's drops, once each.
    CHECK(f.notes ==
          std::vector<std::string>{"device event message 1: event type: missing",
                                   "device events lost: the kernel dropped RDMA netlink monitor "
                                   "messages 2 times, the reader having fallen behind"});

    // admit decides for device events as for the others.
    FakeFeed quiet(clock);
    FakeDevices more;
    more.rounds = {{registered}};
    Followed none = run_follow(
        quiet, source, clock, 0, true,
        [](ConnectionEvent& e) { return e.kind != EventKind::device; }, 2, &more);
    CHECK(none.events.empty());
    CHECK(more.polls == 2);
}

TEST_CASE("follow: a seed without its connections, or a failed feed, is an error", "[poll]") {
    Snapshot seed = lab_snapshot();
    FakeClock clock;
    FakeSource source(clock, {seed});
    source.fail_connections_at = 0;
    FakeFeed feed(clock);
    FollowHandlers h;
    h.admit = [](ConnectionEvent&) { return true; };
    h.emit = [](std::vector<ConnectionEvent>&, const std::vector<std::uint64_t>&) { return true; };
    auto thrown = [&](Source& from) -> std::string {
        try {
            follow(feed, from, clock, 0, h);
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    };
    CHECK(thrown(source) == "connections: the kernel said no");
    CHECK(feed.waited.empty()); // nothing followed without a seed

    FakeSource healthy(clock, {seed});
    feed.fail_at = 1;
    CHECK(thrown(healthy) == "ring buffer: gone");
    CHECK(feed.waited.size() == 2);
}
