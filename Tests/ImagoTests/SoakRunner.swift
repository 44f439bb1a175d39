import Foundation
import ImagoTestServer
import Synchronization
@testable import Imago

/// One planned load of the soak: which fault its route has, and how it is fetched.
struct SoakLoad: Sendable {
    let index: Int
    let fault: SoakFault
    let path: String
    let strategy: FetchStrategy
    /// Holds the head or the body for the cancel-at-a-point faults.
    let gate: Gate?

    init(index: Int, fault: SoakFault, path: String, strategy: FetchStrategy) {
        self.index = index
        self.fault = fault
        self.path = path
        self.strategy = strategy
        gate = fault.needsGate ? Gate() : nil
    }
}

/// Runs the soak's loads with at most `window` at a time and collects each one's outcome.
enum SoakRunner {
    static func run(_ plan: [SoakLoad], pipeline: ImagePipeline, server: TestServer,
                    window: Int) async throws -> [Int: Result<ImageResponse, ImageLoadingError>] {
        try await withThrowingTaskGroup(of: (Int, Result<ImageResponse, ImageLoadingError>).self) { group in
            var outcomes: [Int: Result<ImageResponse, ImageLoadingError>] = [:]
            var next = plan.makeIterator()
            func startNext() {
                guard let load = next.next() else { return }
                group.addTask { (load.index, try await perform(load, pipeline: pipeline, server: server)) }
            }
            for _ in 0..<window { startNext() }
            while let (index, outcome) = try await group.next() {
                precondition(outcomes.updateValue(outcome, forKey: index) == nil, "load \(index) ended twice")
                startNext()
            }
            return outcomes
        }
    }

    /// One load through an `ImageTask`, cancelled where its fault says: at once, while the
    /// server holds the head, or while it holds the rest of the body.
    static func perform(_ load: SoakLoad, pipeline: ImagePipeline,
                        server: TestServer) async throws -> Result<ImageResponse, ImageLoadingError> {
        let request = ImageRequest(source: .url(server.url(for: load.path)), fetchStrategy: load.strategy)
        let task = pipeline.imageTask(for: request)
        switch load.fault {
        case .cancelImmediately:
            task.cancel()
        case .cancelWhileHeadHeld, .cancelMidBody:
            // Queued behind other fetches it may take a while to reach the server.
            try await load.gate!.waitUntilHeld(count: 1, timeout: .seconds(60))
            task.cancel()
            load.gate!.open()
        default:
            break
        }
        do {
            return .success(try await task.response)
        } catch {
            return .failure(error)
        }
    }
}
