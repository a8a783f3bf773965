// SPDX-License-Identifier: MIT
// The polling loop of -w, -E and life (pipeline/poll.h), driven by a fake
// clock and a fake source: its schedule, its stops, what each round carries,
// and life's lifetimes from the rounds (analysis/diff.h's PolledLives).
#include "analysis/diff.h"
#include "catch_compat.hpp"
#include "collect/snapshot_file.h"
#include "common/error.h"
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
