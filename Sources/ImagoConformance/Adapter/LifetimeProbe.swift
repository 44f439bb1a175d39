/// What MEM-5 can see of a loader beyond its adapter objects (optional: `LoaderUnderTest.lifetime`).
///
/// Without it MEM-5 only sees the adapter's own objects freed, which an adapter that merely
/// wraps a loader it does not own would pass while the loader leaks; with it, the check holds
/// the real objects weakly and counts the decoded images still alive.
@MainActor
public protocol LifetimeProbe: AnyObject {
    /// The objects the loader is made of beyond the adapter (its pipeline, caches, session),
    /// which must all be freed once the loader and its models are released. The check holds
    /// them weakly; the probe itself must not be what keeps the loader alive after the check
    /// drops it.
    var loaderObjects: [AnyObject] { get }
    /// The objects behind `model` beyond the adapter (the real view model, its task handle).
    func objects(behind model: any ModelUnderTest) -> [AnyObject]
    /// Bytes of decoded images alive in the whole process, as the loader's allocator counts
    /// them (not pooled free memory), or nil when the loader cannot count them. MEM-5 compares
    /// it with its value before the check's first load.
    var liveDecodedBytes: Int? { get }
}

extension LoaderUnderTest {
    /// No probe by default: MEM-5 then sees only the adapter's own objects freed.
    public var lifetime: (any LifetimeProbe)? { nil }
}
