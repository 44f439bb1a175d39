import Foundation

/// Polls `condition` until it holds; false when `timeout` passed first. For conditions on
/// counters that cannot notify (loader probes); the timeout only turns a hang into a failure.
public func waitUntil(isolation: isolated (any Actor)? = #isolation, timeout: Duration = .seconds(10),
                      _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// Polls the asynchronous `condition` (an actor-based loader's counters and probes) until it
/// holds; false when `timeout` passed first (default 10 s).
public func waitUntil(isolation: isolated (any Actor)? = #isolation, timeout: Duration = .seconds(10),
                      asking condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while await !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}
