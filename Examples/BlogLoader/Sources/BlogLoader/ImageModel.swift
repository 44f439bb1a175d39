/// The view model of one displayed image. Plain `@MainActor` class with a list of observers
/// (no ObservableObject: a SwiftUI view would wrap it, a test observes it directly).
@MainActor
public final class ImageModel {
    public enum Phase: Sendable {
        case empty
        case loading
        case success(LoadedImage, ImageOrigin)
        case failure(LoadError)
    }

    public private(set) var phase: Phase = .empty {
        didSet { for observer in observers { observer(phase) } }
    }
    public private(set) var request: ImageRequest?
    private let loader: ImageLoader
    private var task: Task<Void, Never>?
    private var observers: [(Phase) -> Void] = []

    public init(loader: ImageLoader, request: ImageRequest?) {
        self.loader = loader
        self.request = request
    }

    /// Calls `observer` with every phase published from now on.
    public func onPhaseChange(_ observer: @escaping (Phase) -> Void) { observers.append(observer) }

    /// Starts loading, unless the image is already loading or shown. A memory hit is shown at once.
    public func load() {
        switch phase {
        case .loading, .success: return
        case .empty, .failure: break
        }
        guard let request else { phase = .failure(.missingSource); return }
        if let image = loader.cachedImage(for: request) {
            phase = .success(image, .memory)
            return
        }
        phase = .loading
        task = Task { [loader] in
            let outcome: Phase
            do throws(LoadError) {
                let (image, origin) = try await loader.load(request)
                outcome = .success(image, origin)
            } catch {
                outcome = .failure(error)
            }
            // Cancelled (by cancel() or a new request) after the work finished: not ours to show.
            guard !Task.isCancelled else { return }
            if case .failure(.cancelled) = outcome { return }
            phase = outcome
        }
    }

    /// Stops a load in progress and goes back to empty; a shown image stays.
    public func cancel() {
        guard case .loading = phase else { return }
        task?.cancel()
        task = nil
        phase = .empty
    }

    /// Loads again after a failure.
    public func retry() {
        guard case .failure = phase else { return }
        load()
    }

    /// Switches to another image: cancels the current load, goes back to empty, does not load.
    public func setRequest(_ newRequest: ImageRequest?) {
        guard newRequest != request else { return }
        task?.cancel()
        task = nil
        request = newRequest
        phase = .empty
    }
}
