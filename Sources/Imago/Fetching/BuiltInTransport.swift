/// The transports Imago ships, by the names the CLI (`imago load --transport`) and the bench
/// use, so both pick from one list and a new transport joins both at once.
public enum BuiltInTransport: String, CaseIterable, Sendable, Hashable {
    /// `URLSessionTransport`: URLSession (FoundationNetworking over libcurl on Linux).
    case urlsession

    /// What `ImagePipeline.Configuration` uses unless told otherwise on this platform.
    public static var platformDefault: BuiltInTransport { .urlsession }

    /// A new transport of this kind.
    public func make() -> any ImageTransport {
        switch self {
        case .urlsession: URLSessionTransport()
        }
    }
}
