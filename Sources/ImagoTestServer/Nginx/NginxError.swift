/// Why an ``NginxServer`` could not be started or read.
///
/// `unavailable` is the only case a test should turn into a skip: it means this machine has no
/// usable nginx (`make deps` installs Debian's). Every other case is a bug in the test, the
/// generated configuration or the machine, and carries nginx's own words.
public enum NginxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No nginx binary could be run here (the reason: where it was looked for).
    case unavailable(reason: String)
    /// A location, directive or file name the configuration builder refuses (the reason),
    /// checked before anything is written or started.
    case invalidConfiguration(String)
    /// The temporary directory, a docroot file or the configuration could not be written.
    case fileSystem(String)
    /// nginx exited during start-up (its exit status, then its standard error and error.log).
    case exitedDuringStartup(status: Int32, log: String)
    /// nginx was still not accepting connections on its loopback port(s) after the start-up
    /// timeout (how long, then its standard error and error.log); it has been stopped.
    case startupTimedOut(seconds: Double, log: String)
    /// An awaited access-log condition did not hold in time (what was awaited, and the log).
    case accessLogTimedOut(String)
    /// The `stub_status` page could not be fetched or read (why, with what nginx sent).
    case statusUnreadable(String)

    /// `nginx …: ` and the case's detail; start-up failures add nginx's standard error and
    /// error.log on the following lines.
    public var description: String {
        switch self {
        case .unavailable(let reason): "nginx unavailable: \(reason)"
        case .invalidConfiguration(let reason): "invalid nginx configuration: \(reason)"
        case .fileSystem(let reason): "nginx file system: \(reason)"
        case .exitedDuringStartup(let status, let log): "nginx exited during start-up (status \(status)):\n\(log)"
        case .startupTimedOut(let seconds, let log): "nginx not accepting after \(seconds) s:\n\(log)"
        case .accessLogTimedOut(let what): "nginx access log: timed out waiting for \(what)"
        case .statusUnreadable(let reason): "nginx status: \(reason)"
        }
    }
}
