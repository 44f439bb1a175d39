import ImagoConformance

/// `crash-on-load`: the bug-free toy loader, except that `load()` with a source kills the
/// process (`fatalError`), as a loader hitting a fatal error inside FoundationNetworking does.
/// It exists to prove that a results log keeps what ran before a crash and names the check
/// that was running; `imago conform` accepts it by name but never runs it unasked.
public enum CrashingSubject {
    public static let name = "crash-on-load"

    public static var subject: ConformanceSubject {
        ConformanceSubject(name: name, kind: .other, capabilities: MutantSubjects.capabilities) { context in
            ModelWrappingLoader(try ToyLoader(context: context, bugs: [])) { CrashingModel($0, source: $1) }
        }
    }
}

@MainActor
private final class CrashingModel: ModelUnderTest {
    private let inner: any ModelUnderTest
    private var source: ConformanceSource?

    init(_ inner: any ModelUnderTest, source: ConformanceSource?) {
        self.inner = inner
        self.source = source
    }

    var phase: ObservedPhase { inner.phase }
    func observe(_ observer: @escaping @Sendable (ObservedPhase) -> Void) { inner.observe(observer) }

    func load() {
        // Without a source the toy loader fails at once (INIT-2 passes), so a run of INIT
        // shows finished checks before the crash.
        if let source { fatalError("crash-on-load: deliberate crash loading \(source)") }
        inner.load()
    }

    func cancel() { inner.cancel() }
    func retry() { inner.retry() }

    func setSource(_ source: ConformanceSource?) {
        self.source = source
        inner.setSource(source)
    }
}
