import ImagoTestServer
import Testing

/// nginx for tests that need the real server: start it, or skip where this machine has none.
/// `NginxError.unavailable` is the one failure that becomes a skip; every other start-up error
/// fails the test.
extension NginxServer {
    /// Why no nginx can be run here, or nil when a binary is installed
    /// (``NginxServer/locateExecutable(_:)`` finds one; `make deps` installs Debian's).
    public static var unavailableReason: String? {
        do {
            _ = try locateExecutable()
            return nil
        } catch {
            if case .unavailable(let reason) = error { return reason }
            return "\(error)"
        }
    }

    /// Skips the running test (XCTest or swift-testing: ``TestSkip``) where no nginx is
    /// installed; for tests that expect a start to fail for another reason first.
    public static func requireInstalledOrSkip() throws {
        if let reason = unavailableReason { try TestSkip.skip("nginx unavailable: \(reason)") }
    }

    /// Starts nginx with `configuration`, or skips the running test (XCTest or swift-testing:
    /// ``TestSkip``) with the reason when nginx is unavailable. Any other start-up failure is
    /// thrown, failing the test.
    public static func startOrSkip(_ configuration: Configuration = Configuration()) async throws -> NginxServer {
        do {
            return try await start(configuration)
        } catch {
            guard case .unavailable(let reason) = error else { throw error }
            try TestSkip.skip("nginx unavailable: \(reason)")
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where an nginx binary is installed, else skips it saying so
    /// (`@Test(.nginxInstalled)`). A test still starts nginx with
    /// ``NginxServer/startOrSkip(_:)``, which skips if it cannot run after all.
    public static var nginxInstalled: Self {
        .enabled("nginx is not installed (make deps installs it)") { NginxServer.unavailableReason == nil }
    }
}
