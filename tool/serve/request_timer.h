// SPDX-License-Identifier: MIT
#pragma once

/// The request time limit of serve (--web.request-timeout): a connection must
/// deliver a whole request (line, headers and body) within the limit of being
/// opened or of its previous answer. libmicrohttpd bounds only silence, so a
/// client that sends a byte now and then would otherwise hold its connection
/// for as long as it likes; past the limit, the timer shuts the socket down
/// and libmicrohttpd closes the connection as the client's.
///
/// Contract with libmicrohttpd (checked in its source): a connection's
/// NOTIFY_CONNECTION CLOSED callback runs before its socket is closed, so a
/// socket the timer still tracks is the connection's own, never a reused
/// descriptor.

#include <chrono>
#include <condition_variable>
#include <list>
#include <mutex>
#include <thread>

namespace rdmastat {

class RequestTimer {
  public:
    struct Entry; ///< one tracked connection, owned by the timer

    /// limit 0: no limit (no thread either).
    explicit RequestTimer(std::chrono::seconds limit);
    ~RequestTimer();
    RequestTimer(const RequestTimer&) = delete;
    RequestTimer& operator=(const RequestTimer&) = delete;

    /// A connection on socket fd opened: its clock starts.
    Entry* opened(int fd);
    /// Its request is complete: no limit while it is served.
    void requested(Entry* e);
    /// Its answer is done: the clock starts again for the next request.
    void answered(Entry* e);
    /// It closed (before its socket is): forgotten.
    void closed(Entry* e);

  private:
    void run();

    const std::chrono::seconds limit_;
    std::mutex lock_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::list<Entry> entries_;
    std::thread thread_; // last: it runs on the members above
};

} // namespace rdmastat
