import Foundation
import Testing
@_spi(Testing) @testable import Imago

/// The view model's decisions without a pipeline: each event's effects, written as short names
/// ("lookUp", "loading", "start(1)", "success(memory)"...), for the INIT, TRANS, CACHE-1,
/// SOURCE, SHARE-1, RETRY-3, ORDER-1 and PROGRESS-1 rules.
@Suite struct PhaseMachineTests {
    private static func key(_ name: String) -> ImageRequestKey {
        ImageRequest(source: .url(URL(string: "https://example.com/\(name).png")!)).key
    }

    private let a = Self.key("a")
    private let b = Self.key("b")
    private let pixels = PixelBuffer(width: 1, height: 1, rgba: [0, 0, 0, 255])

    private func response(_ origin: ImageOrigin) -> ImageResponse {
        let metadata = ImageMetadata(
            format: .png, width: 1, height: 1, bitDepth: 8, colorModel: .rgba, hasAlpha: true,
            orientation: 1, orientationApplied: false, isProgressive: false, isArithmeticCoded: false,
            isLossless: true, isAnimated: false, frameCount: 1)
        return ImageResponse(image: DecodedImage(pixels: pixels, metadata: metadata), origin: origin)
    }

    /// A machine whose attempt 1 for `a` is loading (a memory miss).
    private func loadingA() -> PhaseMachine {
        var machine = PhaseMachine(key: a)
        _ = machine.handle(.load)
        _ = machine.handle(.memoryAnswered(nil))
        return machine
    }

    @Test func missingSourceFailsOrStaysEmptyAsDeclared() {
        var failing = PhaseMachine(key: nil)
        #expect(names(failing.handle(.load)) == ["failure(missingSource)"])
        var quiet = PhaseMachine(key: nil, missingSourceBehavior: .stayEmpty)
        #expect(names(quiet.handle(.load)).isEmpty)
        #expect(quiet.phase.name == "empty")
    }

    @Test func aMissPublishesLoadingThenStartsTheAttempt() {
        var machine = PhaseMachine(key: a)
        #expect(names(machine.handle(.load)) == ["lookUp"])
        #expect(names(machine.handle(.memoryAnswered(nil))) == ["loading", "start(1)"])
        #expect(machine.loadRunning && machine.activeKey == a)
        // SHARE-1: the same key again while it loads does nothing.
        #expect(names(machine.handle(.load)).isEmpty)
        #expect(names(machine.handle(.finished(.success(response(.network)), attempt: 1))) == ["release", "success(network)"])
        #expect(names(machine.handle(.load)).isEmpty, "nor after it succeeded")
    }

    @Test func aMemoryHitPublishesOnlyItsSuccess() {
        var machine = PhaseMachine(key: a)
        _ = machine.handle(.load)
        #expect(names(machine.handle(.memoryAnswered(response(.memory)))) == ["success(memory)"])
        #expect(!machine.loadRunning)
    }

    @Test func aHitAfterAFailureGoesThroughLoading() {
        var machine = loadingA()
        #expect(names(machine.handle(.finished(.failure(.fetch(.httpStatus(500))), attempt: 1)))
                == ["release", "failure(httpStatus(500))"])
        #expect(machine.activeKey == nil)
        #expect(names(machine.handle(.retry)) == ["lookUp"])
        #expect(names(machine.handle(.memoryAnswered(response(.memory)))) == ["loading", "success(memory)"])
    }

    @Test func retryIsANewAttemptOnlyAfterAFailure() {
        var machine = loadingA()
        #expect(names(machine.handle(.retry)).isEmpty)
        _ = machine.handle(.finished(.failure(.fetch(.emptyData)), attempt: 1))
        #expect(names(machine.handle(.retry)) == ["lookUp"])
        #expect(names(machine.handle(.memoryAnswered(nil))) == ["loading", "start(2)"])
    }

    @Test func cancelIsNeverAFailureAndEndsTheAttempt() {
        var idle = PhaseMachine(key: a)
        #expect(names(idle.handle(.cancel)).isEmpty, "nothing runs: nothing to cancel")
        var machine = loadingA()
        #expect(names(machine.handle(.cancel)) == ["cancel", "empty"])
        // TRANS-3: the cancelled attempt's late reports are dropped.
        #expect(names(machine.handle(.progressed(FetchProgress(received: 10, expected: 20), attempt: 1))).isEmpty)
        #expect(names(machine.handle(.finished(.success(response(.network)), attempt: 1))).isEmpty)
        // TRANS-5: load() starts a new attempt.
        #expect(names(machine.handle(.load)) == ["lookUp"])
        #expect(names(machine.handle(.memoryAnswered(nil))) == ["loading", "start(3)"])
    }

    @Test func aCancellationFromOutsideResetsToEmpty() {
        var machine = loadingA()
        #expect(names(machine.handle(.finished(.failure(.cancelled), attempt: 1))) == ["release", "empty"])
        #expect(machine.activeKey == nil)
        #expect(names(machine.handle(.load)) == ["lookUp"])
    }

    @Test func aSourceChangeDropsTheOldAttemptAndKeepsItsImageOnlyAsPrevious() throws {
        var machine = loadingA()
        _ = machine.handle(.finished(.success(response(.network)), attempt: 1))
        #expect(names(machine.handle(.sourceChanged(a))).isEmpty, "same key: no change")
        #expect(names(machine.handle(.sourceChanged(b))) == ["empty"])
        _ = machine.handle(.load)
        let effects = machine.handle(.memoryAnswered(nil))
        #expect(names(effects) == ["loading", "start(3)"])
        guard case .publish(.loading(nil, let previous?, nil)) = effects.first else {
            Issue.record("loading without the previous image: \(names(effects))")
            return
        }
        #expect(previous.storage === pixels.storage, "the old image itself")
        // A change while B loads cancels it; nothing of B is published afterwards.
        #expect(names(machine.handle(.sourceChanged(nil))) == ["cancel", "empty"])
        #expect(names(machine.handle(.finished(.success(response(.network)), attempt: 3))).isEmpty)
    }

    @Test func progressNeverGoesDownAndNothingFollowsTheTerminalPhase() {
        var machine = loadingA()
        #expect(names(machine.handle(.progressed(FetchProgress(received: 10, expected: 30), attempt: 1))) == ["loading(10)"])
        #expect(names(machine.handle(.progressed(FetchProgress(received: 5, expected: 30), attempt: 1))).isEmpty)
        #expect(names(machine.handle(.progressed(FetchProgress(received: 30, expected: 30), attempt: 1))) == ["loading(30)"])
        _ = machine.handle(.finished(.success(response(.network)), attempt: 1))
        #expect(names(machine.handle(.progressed(FetchProgress(received: 40, expected: 40), attempt: 1))).isEmpty)
    }

    @Test func previewsOnlyInsideLoadingAndWithMoreDetail() {
        var machine = loadingA()
        let coarse = ImagePreview(pixels: pixels, detail: 1, receivedBytes: 10)
        let finer = ImagePreview(pixels: pixels, detail: 2, receivedBytes: 20)
        #expect(names(machine.handle(.previewed(finer, attempt: 1))) == ["loading+preview(2)"])
        #expect(names(machine.handle(.previewed(coarse, attempt: 1))).isEmpty)
        // Later progress keeps the preview shown.
        #expect(names(machine.handle(.progressed(FetchProgress(received: 25, expected: nil), attempt: 1))) == ["loading(25)+preview(2)"])
        _ = machine.handle(.finished(.failure(.fetch(.emptyData)), attempt: 1))
        #expect(names(machine.handle(.previewed(ImagePreview(pixels: pixels, detail: 3, receivedBytes: 30), attempt: 1))).isEmpty)
    }

    /// Short names of `effects`, in order.
    private func names(_ effects: [PhaseMachine.Effect]) -> [String] {
        effects.map { effect in
            switch effect {
            case .publish(.loading(let progress, _, let preview)):
                "loading" + (progress.map { "(\($0.received))" } ?? "") + (preview.map { "+preview(\($0.detail))" } ?? "")
            case .publish(.success(let response)): "success(\(response.origin))"
            case .publish(.failure(let error)): "failure(\(error))"
            case .publish(let phase): phase.name
            case .lookUpMemoryCache: "lookUp"
            case .startLoad(let attempt): "start(\(attempt))"
            case .cancelLoad: "cancel"
            case .releaseLoad: "release"
            }
        }
    }
}
