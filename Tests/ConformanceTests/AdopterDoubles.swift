import ImagoConformance
import ImagoConformanceSubjects

/// Loaders an adopter might have written: the bug-free toy loader with one thing changed in
/// its models, to show what a report says about that change.
enum AlteredLoader {
    /// A subject named `name` of the toy reference's capabilities whose models `alter` changes.
    @MainActor
    static func subject(_ name: String, alter: @escaping @MainActor @Sendable (any ModelUnderTest, ConformanceSource?) -> any ModelUnderTest)
        -> ConformanceSubject {
        let toy = MutantSubjects.reference
        return ConformanceSubject(name: name, capabilities: toy.capabilities) { context in
            ModelWrappingLoader(try toy.makeLoader(context), wrap: alter)
        }
    }
}

/// Forwards every call, except that `setSource(_:)` is ignored while the model shows an image:
/// the adapter bug behind "load missing: no terminal phase" in TRANS-2 and ORDER-2.
@MainActor
final class SourceChangeIgnoredAfterSuccess: ModelUnderTest {
    private let inner: any ModelUnderTest

    init(_ inner: any ModelUnderTest) { self.inner = inner }

    var phase: ObservedPhase { inner.phase }
    func observe(_ observer: @escaping @Sendable (ObservedPhase) -> Void) { inner.observe(observer) }
    func load() { inner.load() }
    func cancel() { inner.cancel() }
    func retry() { inner.retry() }

    func setSource(_ source: ConformanceSource?) {
        if inner.phase.image != nil { return }
        inner.setSource(source)
    }
}

/// A model whose fetch runs as the toy's does (one request, the whole body read) but whose
/// success is replaced by `outcome`: a client with a decompression-bomb limit refusing HTTP-3's
/// 130:1 body once it inflated past the limit (a failure), or a loader getting it wrong (a
/// success with other pixels).
@MainActor
final class OutcomeReplacingModel: ModelUnderTest {
    private let inner: any ModelUnderTest
    private let outcome: ObservedPhase

    init(_ inner: any ModelUnderTest, outcome: ObservedPhase) {
        self.inner = inner
        self.outcome = outcome
    }

    var phase: ObservedPhase { replaced(inner.phase) }

    func observe(_ observer: @escaping @Sendable (ObservedPhase) -> Void) {
        let outcome = outcome
        inner.observe { phase in observer(phase.image != nil ? outcome : phase) }
    }

    func load() { inner.load() }
    func cancel() { inner.cancel() }
    func retry() { inner.retry() }
    func setSource(_ source: ConformanceSource?) { inner.setSource(source) }

    private func replaced(_ phase: ObservedPhase) -> ObservedPhase { phase.image != nil ? outcome : phase }
}
