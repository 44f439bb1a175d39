import ImagoConformance

/// A loader that forwards every call and probe to `inner`, except that each model it makes goes
/// through `wrap` first: how a subject plants a mistake of the adapter's own in front of a
/// bug-free loader (`CrashingSubject`, the adopter doubles of the tests). It forwards no
/// `LifetimeProbe`: the inner loader's would not know the wrapped models.
@MainActor
public final class ModelWrappingLoader: LoaderUnderTest {
    private let inner: any LoaderUnderTest
    private let wrap: @MainActor (any ModelUnderTest, ConformanceSource?) -> any ModelUnderTest

    /// Forwards to `inner`; `wrap` gets each model `inner` makes and the source it was made for.
    public init(_ inner: any LoaderUnderTest,
                wrap: @escaping @MainActor (any ModelUnderTest, ConformanceSource?) -> any ModelUnderTest) {
        self.inner = inner
        self.wrap = wrap
    }

    public func makeModel(source: ConformanceSource?) -> any ModelUnderTest { wrap(inner.makeModel(source: source), source) }
    public var decodeCount: Int { get async { await inner.decodeCount } }
    public var memoryCache: (any MemoryCacheProbe)? { inner.memoryCache }
    public var diskCache: (any DiskCacheProbe)? { inner.diskCache }
    public var queuedFetchCount: Int? { get async { await inner.queuedFetchCount } }
    public var memoryPressure: (any MemoryPressureProbe)? { inner.memoryPressure }
}
