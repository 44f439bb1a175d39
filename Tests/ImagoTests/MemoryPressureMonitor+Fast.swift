import Imago

extension MemoryPressureMonitor.Configuration {
    /// Polling every 10 ms and recovery after 50 ms, so tests wait milliseconds, not seconds.
    static func fast(repeatInterval: Duration = .zero) -> Self {
        .init(pollingInterval: .milliseconds(10), minimumRepeatInterval: repeatInterval, recoveryInterval: .milliseconds(50))
    }
}
