// SPDX-License-Identifier: MIT
#pragma once

/// One worker thread fed by a bounded queue. The worker takes everything queued
/// at once: items that arrive while it works on a batch form the next batch,
/// so serve answers every scrape that waited with one fresh collection.

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace rdmastat {

template <typename Item> class WorkQueue {
  public:
    using Handler = std::function<void(std::vector<Item>&)>;

    /// limit bounds the items queued plus those in hand (0: no bound). handle
    /// works on a batch; release, when given, then hands it back once its room
    /// is free again, so that whoever sees a batch's item finished (a client
    /// its answer) finds the room it took already free. A batch in release no
    /// longer counts: up to limit more items may be queued meanwhile.
    WorkQueue(std::size_t limit, Handler handle, Handler release = {})
        : limit_(limit), handle_(std::move(handle)), release_(std::move(release)),
          thread_([this] { run(); }) {}
    ~WorkQueue() { stop(); }
    WorkQueue(const WorkQueue&) = delete;
    WorkQueue& operator=(const WorkQueue&) = delete;

    /// Queues item; false when the bound is reached or the queue stopped.
    bool offer(Item item) {
        {
            std::lock_guard guard(lock_);
            if (stopped_ || (limit_ && queued_.size() + in_hand_ >= limit_)) return false;
            queued_.push_back(std::move(item));
        }
        wake_.notify_one();
        return true;
    }

    /// Lets the batch in hand finish and be released, then ends the thread; returns what was
    /// still queued, for the caller to answer. Idempotent.
    std::vector<Item> stop() {
        {
            std::lock_guard guard(lock_);
            stopped_ = true;
        }
        wake_.notify_one();
        if (thread_.joinable()) thread_.join();
        std::lock_guard guard(lock_);
        return std::exchange(queued_, {});
    }

  private:
    void run() {
        std::unique_lock guard(lock_);
        for (;;) {
            wake_.wait(guard, [this] { return stopped_ || !queued_.empty(); });
            if (stopped_) return;
            std::vector<Item> batch = std::exchange(queued_, {});
            in_hand_ = batch.size();
            guard.unlock();
            handle_(batch);
            guard.lock();
            in_hand_ = 0;
            if (!release_) continue;
            guard.unlock();
            release_(batch);
            guard.lock();
        }
    }

    const std::size_t limit_;
    Handler handle_;
    Handler release_;
    std::mutex lock_;
    std::condition_variable wake_;
    std::vector<Item> queued_;
    std::size_t in_hand_ = 0;
    bool stopped_ = false;
    std::thread thread_; // last: it runs on the members above
};

} // namespace rdmastat
