/// What a displayed image is doing, as its view sees it.
public enum ImagePhase: Sendable {
    /// Nothing requested yet, or reset by a cancel or a source change.
    case empty
    /// A fetch is under way. `previous` is the image of the source shown before a source
    /// change, for a cross-fade; it is never presented as a success (SOURCE-2). `preview` is the
    /// latest coarse image of a streaming load with previews on (PREVIEW-1), kept in the
    /// progress updates after it; never a success either.
    case loading(progress: FetchProgress?, previous: PixelBuffer?, preview: ImagePreview? = nil)
    /// The attempt's image and where it came from (CACHE-3); terminal (TRANS-1).
    case success(ImageResponse)
    /// The attempt failed; terminal (TRANS-1). A cancel is never one (TRANS-4), and the next
    /// `load()` makes a new request (ERR-4).
    case failure(ImageLoadingError)

    /// SwiftUI AsyncImage's three phases: `loading` folds into `empty`.
    public var asyncImagePhase: AsyncImagePhase {
        switch self {
        case .empty, .loading: .empty
        case .success(let response): .success(response.pixels)
        case .failure(let error): .failure(error)
        }
    }

    /// True for `success` and `failure`, the phases an attempt ends in (TRANS-1).
    public var isTerminal: Bool {
        switch self {
        case .success, .failure: true
        case .empty, .loading: false
        }
    }

    /// A short name for logs and the CLI: "empty", "loading", "success", "failure".
    public var name: String {
        switch self {
        case .empty: "empty"
        case .loading: "loading"
        case .success: "success"
        case .failure: "failure"
        }
    }
}

/// SwiftUI AsyncImage's phase shape, without SwiftUI.
public enum AsyncImagePhase: Sendable {
    /// No image yet: `ImagePhase.empty` or `loading`.
    case empty
    /// The decoded image (whatever its origin).
    case success(PixelBuffer)
    /// The attempt failed, with `ImagePhase.failure`'s error.
    case failure(ImageLoadingError)
}

/// What `load()` does with a nil source (INIT-2).
public enum MissingSourceBehavior: Sendable {
    /// Publish `failure(.missingSource)` (default).
    case fail
    /// Stay `empty`, as SwiftUI's AsyncImage does with a nil URL.
    case stayEmpty
}

/// What `onDisappear()` does with a load that is still running.
public enum DisappearBehavior: Sendable {
    /// Cancel it, as SwiftUI's AsyncImage does (default). The shared fetch goes on if another
    /// view still wants it.
    case cancel
    /// Keep it running at `.veryLow` priority so it finishes into the caches after more urgent
    /// work; `onAppear()` restores the request's priority.
    case lowerPriority
}
