// SPDX-License-Identifier: MIT
#include "serve/request_timer.h"

#include <sys/socket.h>

namespace rdmastat {

struct RequestTimer::Entry {
    int fd;
    std::chrono::steady_clock::time_point since;
    bool serving = false; // a whole request is in: no limit until answered
    bool cut = false;     // shut down once already
    std::list<Entry>::iterator self;
};

RequestTimer::RequestTimer(std::chrono::seconds limit) : limit_(limit) {
    if (limit_.count() > 0) thread_ = std::thread([this] { run(); });
}

RequestTimer::~RequestTimer() {
    {
        std::lock_guard guard(lock_);
        stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
}

RequestTimer::Entry* RequestTimer::opened(int fd) {
    std::lock_guard guard(lock_);
    entries_.push_front(Entry{fd, std::chrono::steady_clock::now(), false, false, {}});
    entries_.front().self = entries_.begin();
    return &entries_.front();
}

void RequestTimer::requested(Entry* e) {
    std::lock_guard guard(lock_);
    e->serving = true;
}

void RequestTimer::answered(Entry* e) {
    std::lock_guard guard(lock_);
    e->serving = false;
    e->since = std::chrono::steady_clock::now();
}

void RequestTimer::closed(Entry* e) {
    std::lock_guard guard(lock_);
    entries_.erase(e->self);
}

void RequestTimer::run() {
    std::unique_lock guard(lock_);
    // A connection is cut within a second of its limit: the sweep runs each second.
    while (!wake_.wait_for(guard, std::chrono::seconds(1), [this] { return stopping_; })) {
        auto now = std::chrono::steady_clock::now();
        for (Entry& e : entries_)
            if (!e.serving && !e.cut && now - e.since > limit_) {
                // Not close(): the descriptor stays libmicrohttpd's, which
                // sees the end of the stream and closes the connection.
                ::shutdown(e.fd, SHUT_RDWR);
                e.cut = true;
            }
    }
}

} // namespace rdmastat
