import Synchronization

/// The pipeline's low-priority loads, by key, so they can be stopped.
final class Prefetcher: Sendable {
    private let tasks = Mutex<[ImageRequestKey: Task<Void, Never>]>([:])

    func start(_ key: ImageRequestKey, _ body: @escaping @Sendable () async -> Void) {
        tasks.withLock { tasks in
            guard tasks[key] == nil else { return }
            tasks[key] = Task(priority: .low) { [weak self] in
                await body()
                self?.finished(key)
            }
        }
    }

    func stop(_ key: ImageRequestKey) {
        tasks.withLock { $0.removeValue(forKey: key) }?.cancel()
    }

    private func finished(_ key: ImageRequestKey) {
        _ = tasks.withLock { $0.removeValue(forKey: key) }
    }
}
