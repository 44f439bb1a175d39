import Synchronization

/// Bounds what the decode stage runs at once: a count of operations and, optionally, the bytes
/// they declare (the decode stage's memory budget). The fetch stage has its own limiter,
/// `FetchAdmission`, which knows connections from streams.
///
/// Waiters are admitted highest priority first, judged when a slot frees (so a priority raised
/// while queued counts); equal priorities are first come, first served. Admission is strictly
/// in that order: when the next waiter's bytes do not fit, nobody behind it jumps the queue, so
/// a large image is never starved by a stream of small ones. Never a deadlock: an operation
/// whose bytes exceed the whole budget is admitted once nothing else runs, and runs alone.
/// A cancelled waiter leaves the queue.
final class StageLimiter: Sendable {
    private struct Waiter {
        let id: Int
        let bytes: Int
        let queuedAt: ContinuousClock.Instant
        let priority: @Sendable () -> ImageRequestPriority
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var running = 0
        var runningBytes = 0
        var waiters: [Waiter] = []
        var nextID = 0
        /// Waiters with an id that have not queued yet; a cancel removes the id.
        var pending: Set<Int> = []
        /// Admissions are held (running work continues) until this instant: critical memory
        /// pressure. Nil when not held.
        var heldUntil: ContinuousClock.Instant?
        /// Bytes admitted since the limiter was made.
        var admittedBytes = 0
        /// When the pending re-judgement for a waiter blocked only by pixel memory is due.
        var headroomCheckDue: ContinuousClock.Instant?
        /// The last waiter room was made for (`PixelHeadroom.makeRoom`): once per waiter at the
        /// head of the queue, not at every re-judgement.
        var roomMadeFor: Int?

        mutating func admit(_ bytes: Int) {
            running += 1
            runningBytes += bytes
            admittedBytes += bytes
        }
    }

    /// Admission by the process's live pixel memory, on top of the stage's own bytes: what a
    /// decode's output will add to images already decoded and still alive (cached, just
    /// delivered, held by the app), which the stage's budget cannot see.
    struct PixelHeadroom: Sendable {
        /// Whether an operation declaring `bytes` may start now.
        let allows: @Sendable (_ bytes: Int) -> Bool
        /// Whether starting an operation declaring `bytes` now would pass the memory limit
        /// itself (an OOM kill, not a tight fit): such a waiter does not start when `maxWait`
        /// runs out, only when this clears or `limitWait` runs out too.
        var wouldPassLimit: @Sendable (_ bytes: Int) -> Bool = { _ in false }
        /// Gives back memory the owner keeps only for speed (its caches), so that an operation
        /// declaring `bytes` may start. Called off the limiter's lock: what it frees re-judges
        /// the queue (`pixels`' free announcements).
        let makeRoom: @Sendable (_ bytes: Int) -> Void
        /// How long a waiter blocked only by this waits while nothing of the stage runs before
        /// it starts anyway: pixels the app keeps must delay decoding, never stop it.
        let maxWait: Duration
        /// How long a waiter that `wouldPassLimit` waits while nothing of the stage runs before
        /// it is let through to be judged by its owner (the decode stage refuses it then).
        var limitWait: Duration = .seconds(10)
        /// Whose freed buffers wake a waiter blocked by this.
        let pixels: PixelMemoryGauge
    }

    private enum Admission { case admit, wait, waitForPixels }

    let limit: Int
    /// Most bytes the running operations may declare together (`Int.max`: no byte bound).
    let byteBudget: Int
    let headroom: PixelHeadroom?
    private let state = Mutex(State())

    init(limit: Int, byteBudget: Int = .max, headroom: PixelHeadroom? = nil) {
        self.limit = max(1, limit)
        self.byteBudget = max(0, byteBudget)
        self.headroom = headroom
        headroom?.pixels.addFreeListener?(self) { [weak self] in self?.rejudge() }
    }

    deinit {
        headroom?.pixels.removeFreeListener?(self)
    }

    private func admission(_ state: State, bytes: Int, queuedAt: ContinuousClock.Instant) -> Admission {
        guard state.heldUntil == nil, state.running < limit,
              state.running == 0 || state.runningBytes + bytes <= byteBudget
        else { return .wait }
        guard let headroom, !headroom.allows(bytes) else { return .admit }
        guard state.running == 0 else { return .waitForPixels }
        let waited = ContinuousClock.now - queuedAt
        if waited >= headroom.limitWait || waited >= headroom.maxWait && !headroom.wouldPassLimit(bytes) { return .admit }
        return .waitForPixels
    }

    /// Operations queued for a slot (tests use it to know a waiter is in line).
    var waitingCount: Int { state.withLock { $0.waiters.count } }
    /// Operations holding a slot now (0 when the stage is idle).
    var runningCount: Int { state.withLock { $0.running } }
    /// Bytes declared by the queued operations.
    var waitingBytes: Int { state.withLock { $0.waiters.reduce(0) { $0 + $1.bytes } } }
    /// Bytes declared by the running operations.
    var runningBytes: Int { state.withLock { $0.runningBytes } }
    /// Bytes admitted so far, in total.
    var admittedBytes: Int { state.withLock { $0.admittedBytes } }

    /// Runs `body` once a slot (and `bytes` of the budget) is free; returns nil (without running
    /// it) if cancelled while waiting. `onWaitForBytes` is called when it has to queue although
    /// a slot is free: the budget (or a pressure hold) is what it waits for.
    func run<T: Sendable>(priority: @escaping @Sendable () -> ImageRequestPriority, bytes: Int = 0,
                          onWaitForBytes: () -> Void = {}, _ body: () async -> T) async -> T? {
        guard await acquire(priority: priority, bytes: bytes, onWaitForBytes: onWaitForBytes) else { return nil }
        defer { release(bytes) }
        return await body()
    }

    /// A slot (and `bytes` of the budget) for work that is not one closure: a streaming decode
    /// is admitted at its header and ends with its last byte. The ticket gives the slot back on
    /// `release()` or when it goes away, whichever comes first. Nil if cancelled while waiting.
    func admit(priority: @escaping @Sendable () -> ImageRequestPriority, bytes: Int,
               onWaitForBytes: () -> Void = {}) async -> StageTicket? {
        guard await acquire(priority: priority, bytes: bytes, onWaitForBytes: onWaitForBytes) else { return nil }
        return StageTicket { [self] in release(bytes) }
    }

    /// Holds admissions until `deadline` (running operations go on); queued ones are admitted
    /// again from then, in order. A later deadline extends the hold, an earlier one is ignored.
    func holdAdmissions(until deadline: ContinuousClock.Instant) {
        let extended = state.withLock { state -> Bool in
            guard state.heldUntil.map({ $0 < deadline }) ?? true else { return false }
            state.heldUntil = deadline
            return true
        }
        guard extended else { return }
        Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            self?.endHold(ifDue: deadline)
        }
    }

    private func endHold(ifDue deadline: ContinuousClock.Instant) {
        let admitted = state.withLock { state -> [Waiter] in
            guard state.heldUntil == deadline else { return [] }   // extended meanwhile
            state.heldUntil = nil
            return admitNext(&state)
        }
        admitted.forEach { $0.continuation.resume(returning: true) }
    }

    private func acquire(priority: @escaping @Sendable () -> ImageRequestPriority, bytes: Int,
                         onWaitForBytes: () -> Void) async -> Bool {
        let queuedAt = ContinuousClock.now
        let (queued, forBytes) = state.withLock { state -> (Int?, Bool) in
            if state.waiters.isEmpty && admission(state, bytes: bytes, queuedAt: queuedAt) == .admit {
                state.admit(bytes)
                return (nil, false)
            }
            state.nextID += 1
            state.pending.insert(state.nextID)
            return (state.nextID, state.running < limit)
        }
        guard let id = queued else { return true }
        if forBytes { onWaitForBytes() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let admitted = state.withLock { state -> Bool? in
                    if state.pending.remove(id) == nil { return false }
                    if state.waiters.isEmpty && admission(state, bytes: bytes, queuedAt: queuedAt) == .admit {
                        state.admit(bytes)
                        return true
                    }
                    state.waiters.append(Waiter(id: id, bytes: bytes, queuedAt: queuedAt, priority: priority,
                                                continuation: continuation))
                    return nil
                }
                if let admitted { continuation.resume(returning: admitted) }
                if admitted == nil { rejudge() }   // schedules the pixel-headroom check if that is what blocks it
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.pending.remove(id)   // not queued yet: acquire will see it gone
                    return nil
                }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
            // The waiter that left may have been the head of the line holding the others back.
            let admitted = state.withLock { admitNext(&$0) }
            admitted.forEach { $0.continuation.resume(returning: true) }
        }
    }

    private func release(_ bytes: Int) {
        let admitted = state.withLock { state -> [Waiter] in
            state.running -= 1
            state.runningBytes -= bytes
            return admitNext(&state)
        }
        admitted.forEach { $0.continuation.resume(returning: true) }
    }

    /// Judges the queue again: pixel memory was freed, or a blocked waiter's wait ran out.
    private func rejudge() {
        let admitted = state.withLock { admitNext(&$0) }
        admitted.forEach { $0.continuation.resume(returning: true) }
    }

    /// Admits waiters in order (highest current priority, each read once per pass; the earliest
    /// among equals) for as long as the next one fits. When the next one waits for pixel memory
    /// with nothing of the stage running, no release will wake it: a check is scheduled for
    /// when its wait runs out (a freed pixel buffer may wake it sooner).
    private func admitNext(_ state: inout State) -> [Waiter] {
        var admitted: [Waiter] = []
        while !state.waiters.isEmpty {
            let priorities = state.waiters.map { $0.priority() }
            let best = priorities.indices.max { priorities[$0] < priorities[$1] } ?? 0
            let head = state.waiters[best]
            switch admission(state, bytes: head.bytes, queuedAt: head.queuedAt) {
            case .admit:
                state.waiters.remove(at: best)
                state.admit(head.bytes)
                admitted.append(head)
                continue
            case .waitForPixels:
                if let headroom, state.roomMadeFor != head.id {
                    state.roomMadeFor = head.id
                    let bytes = head.bytes
                    Task { [weak self] in
                        headroom.makeRoom(bytes)
                        self?.rejudge()
                    }
                }
                if let headroom, state.running == 0 {
                    let waitedOut = ContinuousClock.now - head.queuedAt >= headroom.maxWait
                    scheduleCheck(at: head.queuedAt + (waitedOut ? headroom.limitWait : headroom.maxWait), &state)
                }
            case .wait:
                break
            }
            break
        }
        return admitted
    }

    private func scheduleCheck(at due: ContinuousClock.Instant, _ state: inout State) {
        if let pending = state.headroomCheckDue, pending <= due, pending > .now { return }
        state.headroomCheckDue = due
        Task { [weak self] in
            try? await Task.sleep(until: due, clock: .continuous)
            self?.rejudge()
        }
    }
}

/// One admission to a `StageLimiter`, given back exactly once.
final class StageTicket: Sendable {
    private let giveBack: Mutex<(@Sendable () -> Void)?>

    init(_ giveBack: @escaping @Sendable () -> Void) { self.giveBack = Mutex(giveBack) }

    deinit { release() }

    func release() { giveBack.withLock { $0.take() }?() }
}
