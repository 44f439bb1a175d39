import Synchronization

/// An explicit handle on one load: cancel it, change its priority while it runs, await its
/// response. Cancelling leaves the shared work, which stops only when no other load wants it
/// (SHARE-3); changing the priority re-ranks the shared work at its next stage admission (SHARE-5).
public final class ImageTask: Sendable {
    /// The request as it was started; its `priority` is the starting one (``priority`` is live).
    public let request: ImageRequest
    private let livePriority: Mutex<ImageRequestPriority>
    private let task = Mutex<Task<Result<ImageResponse, ImageLoadingError>, Never>?>(nil)

    init(request: ImageRequest) {
        self.request = request
        livePriority = Mutex(request.priority)
    }

    /// Starts with `request.priority`.
    public var priority: ImageRequestPriority {
        get { livePriority.withLock { $0 } }
        set { livePriority.withLock { $0 = newValue } }
    }

    /// Stops this load. Its `response` throws `.cancelled` at once; a no-op after it finished.
    public func cancel() { task.withLock { $0 }?.cancel() }

    /// The outcome: the image, or why there is none (`.cancelled` after `cancel()`).
    public var response: ImageResponse {
        get async throws(ImageLoadingError) {
            guard let running = task.withLock({ $0 }) else { throw .cancelled }
            return try await running.value.get()
        }
    }

    /// Runs `body` in a task that starts at once, on the caller's thread, up to its first
    /// suspension: a load joins the shared work for its key (or starts it) before `start`
    /// returns, so loads of one key started together are coalesced however busy the machine is
    /// (with a plain `Task`, a join scheduled late could find the first load already finished
    /// and load again: SHARE-2 under ThreadSanitizer on a loaded machine).
    func start(_ body: @escaping @Sendable (@escaping @Sendable () -> ImageRequestPriority) async -> Result<ImageResponse, ImageLoadingError>) {
        let reader: @Sendable () -> ImageRequestPriority = { self.priority }   // held until the load ends
        let running = Task.immediate(priority: request.priority.taskPriority) { await body(reader) }
        task.withLock { $0 = running }
    }
}
