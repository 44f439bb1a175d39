import ArgumentParser
import Imago

/// `--transport`: which HTTP client fetches.
enum TransportChoice: String, CaseIterable, ExpressibleByArgument {
    /// URLSession (FoundationNetworking over libcurl on Linux).
    case urlsession

    /// The pipeline's default on this platform.
    static var defaultChoice: TransportChoice { .urlsession }

    func make() -> any ImageTransport {
        switch self {
        case .urlsession: URLSessionTransport()
        }
    }
}
