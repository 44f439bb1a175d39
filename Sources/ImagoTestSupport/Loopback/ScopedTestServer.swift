import ImagoTestServer

extension TestServer {
    /// Starts a loopback server with `configuration` (default: the defaults), runs `body` with
    /// it and shuts the server down however `body` ends: the scope swift-testing tests use in
    /// place of XCTest's tearDown.
    public static func with<Result>(_ configuration: Configuration = .init(),
                                    _ body: (TestServer) async throws -> Result) async throws -> Result {
        let server = try await TestServer.start(configuration)
        let result: Result
        do {
            result = try await body(server)
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
        return result
    }
}
