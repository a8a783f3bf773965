// SPDX-License-Identifier: MIT
#pragma once

/// The output formats. A Writer writes every command's result in one format;
/// writer_for() is the one place a format is chosen (cli's output_of reads -j
/// and --pretty into an Output), and no command looks at the format itself. A
/// new format is a new Writer and one line in writer_for().

#include "analysis/check.h"
#include "analysis/diff.h"
#include "analysis/fabric.h"
#include "analysis/lsof.h"
#include "analysis/summary.h"
#include "model/kping.h"
#include "model/model.h"
#include "ping/stats.h"
#include "render/fabric.h"
#include "render/lsof.h"
#include "render/monitor.h"
#include "render/text.h"

#include <memory>
#include <ostream>
#include <vector>

namespace rdmastat {

enum class Format { text, json };

struct Output {
    Format format = Format::text;
    bool pretty = false; ///< JSON: indented (--pretty)
};

class Writer {
  public:
    virtual ~Writer() = default;

    /// Whether this format is a document for programs (JSON) rather than text
    /// for people. With a document, stdout holds the documents alone: a line
    /// for people (no devices, a note, progress) goes to stderr or nowhere,
    /// and a listing carries what a reader of the snapshot needs (each port's
    /// addresses, for `fabric`).
    virtual bool document() const = 0;

    /// The listing, written as its connections come.
    virtual std::unique_ptr<ListingWriter> listing(std::ostream& out,
                                                   const TextOptions& text) const = 0;
    /// -s.
    virtual void summary(std::ostream& out, const Snapshot& snap, const Summary& s) const = 0;
    /// `devices`.
    virtual void devices(std::ostream& out, const Snapshot& snap,
                         const TextOptions& text) const = 0;
    /// `check`.
    virtual void check(std::ostream& out, const Snapshot& snap, const CheckReport& report,
                       bool header) const = 0;
    /// `lsof` (text omits its table when nothing matched).
    virtual void lsof(std::ostream& out, const Snapshot& snap, const LsofResult& r,
                      const LsofTextOptions& text) const = 0;
    /// `fabric`.
    virtual void fabric(std::ostream& out, const FabricInput& in, const FabricView& view,
                        const FabricTextOptions& text) const = 0;
    /// `kping show`: every run listed.
    virtual void kping_runs(std::ostream& out, const std::vector<KpingRun>& runs) const = 0;
    /// `kping start|stop`: the one run.
    virtual void kping_run(std::ostream& out, const KpingRun& run) const = 0;
    /// `ping`'s result; in text, a run that failed before completing anything
    /// has no result to show (its error says it all).
    virtual void ping_result(std::ostream& out, const ping::PingResult& r) const = 0;
    /// `-E`: one round's events.
    virtual void events(std::ostream& out, const std::vector<ConnectionEvent>& events, WallTime t,
                        EventSource source) const = 0;
    /// `life`: what comes before its first line (text: the header, unless
    /// header is false), then each round's ended connections.
    virtual void life_start(std::ostream& out, bool header) const = 0;
    virtual void life(std::ostream& out, const std::vector<ConnectionEvent>& ended, WallTime t,
                      EventSource source) const = 0;
};

/// The writer of o's format.
std::unique_ptr<Writer> writer_for(const Output& o);

} // namespace rdmastat
