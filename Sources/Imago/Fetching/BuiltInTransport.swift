/// The transports Imago ships, by the names the CLI (`imago load --transport`) and the bench
/// use, so both pick from one list and a new transport joins both at once.
public enum BuiltInTransport: String, CaseIterable, Sendable, Hashable {
    /// `AsyncHTTPClientTransport.shared`: async-http-client over SwiftNIO (the default on Linux).
    case ahc
    /// `URLSessionTransport`: URLSession (FoundationNetworking over libcurl on Linux; the
    /// default elsewhere).
    case urlsession

    /// What `ImagePipeline.Configuration` uses unless told otherwise on this platform.
    public static var platformDefault: BuiltInTransport {
        #if os(Linux)
        .ahc
        #else
        .urlsession
        #endif
    }

    /// A transport of this kind: the shared AsyncHTTPClient one (its event loops and connection
    /// pool live for the process, like the pipeline default's), or a new URLSession one.
    public func make() -> any ImageTransport {
        switch self {
        case .ahc: AsyncHTTPClientTransport.shared
        case .urlsession: URLSessionTransport()
        }
    }
}
