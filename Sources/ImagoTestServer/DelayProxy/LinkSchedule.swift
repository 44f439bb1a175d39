import NIOCore

/// When each piece of one direction's data is delivered: the arithmetic of a link of a given
/// rate followed by a propagation delay, kept apart from timers and channels so it can be
/// checked with made-up clocks.
///
/// A piece arriving at `t` starts on the link when the link is free (never before `t`),
/// occupies it for `size / rate`, and is delivered `delay` after it left the link. Release
/// times never decrease, which is what keeps byte order.
struct LinkSchedule {
    /// The propagation delay, added to every piece.
    let delay: TimeAmount
    /// The link's rate, or `nil` for an infinitely fast link.
    let bytesPerSecond: Int?
    /// When the link has finished sending everything scheduled so far.
    private(set) var linkFreeAt: NIODeadline

    /// A link that may carry nothing before `linkFreeAt` (a simulated handshake), idle after.
    init(delay: TimeAmount, bytesPerSecond: Int?, linkFreeAt: NIODeadline = .uptimeNanoseconds(0)) {
        self.delay = delay
        self.bytesPerSecond = bytesPerSecond
        self.linkFreeAt = linkFreeAt
    }

    /// The largest piece released at once: about 10 ms worth at the capped rate (at least
    /// one byte, at most 64 KiB), so a capped transfer arrives as a stream, not in one lump
    /// at the end; unlimited without a cap.
    var sliceLength: Int {
        guard let bytesPerSecond else { return .max }
        return min(max(bytesPerSecond / 100, 1), 65_536)
    }

    /// Schedules `count` bytes that arrived at `arrival`; returns when they are delivered.
    mutating func release(bytes count: Int, arrivedAt arrival: NIODeadline) -> NIODeadline {
        let start = max(arrival, linkFreeAt)
        linkFreeAt = start + transmissionTime(bytes: count)
        return linkFreeAt + delay
    }

    /// When an end of stream that arrived at `arrival` is delivered: after every byte before it.
    func releaseOfEnd(arrivedAt arrival: NIODeadline) -> NIODeadline {
        max(arrival, linkFreeAt) + delay
    }

    /// `count / rate`, rounded up to the nanosecond so a capped transfer is never faster than its cap.
    func transmissionTime(bytes count: Int) -> TimeAmount {
        guard let bytesPerSecond else { return .zero }
        let (nanoseconds, remainder) = (Int64(count) * 1_000_000_000).quotientAndRemainder(
            dividingBy: Int64(bytesPerSecond))
        return .nanoseconds(remainder == 0 ? nanoseconds : nanoseconds + 1)
    }
}
