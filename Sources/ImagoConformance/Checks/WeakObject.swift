/// A weak reference to one object a loader or model is made of, named as the steps name it
/// ("loader 2", "model 3"), so that what stayed reachable after a check let go reads the way the
/// steps do (MEM-5, and MODEL-PHASES at the end of every sequence).
struct WeakObject {
    let name: String
    weak var object: AnyObject?
    var isReleased: Bool { object == nil }

    /// The check's wrapper of `loader` and, with a `LifetimeProbe`, the loader's own objects.
    @MainActor
    static func parts(of loader: any LoaderUnderTest, fallback: String) -> [WeakObject] {
        let label = (loader as? RecordingLoader)?.label ?? fallback
        return [WeakObject(name: "\(label) (the check's wrapper)", object: loader)]
            + (loader.lifetime?.loaderObjects ?? []).enumerated().map { part, object in
                WeakObject(name: "\(label) \(type(of: object)) #\(part + 1)", object: object)
            }
    }

    /// The check's wrapper of `model` and, with `loader`'s `LifetimeProbe`, the objects behind it.
    @MainActor
    static func parts(of model: any ModelUnderTest, on loader: any LoaderUnderTest, fallback: String) -> [WeakObject] {
        let label = (model as? RecordingModel)?.label ?? fallback
        return [WeakObject(name: "\(label) (the check's wrapper)", object: model)]
            + (loader.lifetime?.objects(behind: model) ?? []).map { WeakObject(name: "\(label) \(type(of: $0))", object: $0) }
    }
}
