import Foundation
import ImagoTestServer
import ImagoTestSupport
import Testing
@testable import Imago

/// The transport contract over either protocol (`ContractRun`): over HTTP/2 the test server
/// serves HTTPS with the tests' certificates (made once per process) and offers `h2` by ALPN,
/// the transport trusts the tests' CA, and every run proves the protocol it spoke. A client
/// that gives a load up closes its connection over HTTP/1.1 and resets its stream over HTTP/2;
/// the checks wait for whichever the protocol has.
extension TransportContract {
    /// Runs `check` with a fresh transport of `run` and a contract speaking `run.wire`, then
    /// checks a last fetch came over that protocol, stops the contract and shuts the transport
    /// down, however `check` ends.
    static func with(_ run: ContractRun, _ check: (TransportContract) async throws -> Void) async throws {
        let owned = try run.ownedTransport()
        do {
            try await with(owned.transport, wire: run.wire) { contract in
                try await check(contract)
                try await contract.expectNegotiatedProtocol()
            }
        } catch {
            try? await owned.shutdown()
            throw error
        }
        try await owned.shutdown()
    }

    /// What the server counts when the client gives a load up: connections it closed mid-response
    /// (HTTP/1.1), or streams it reset (HTTP/2, the connection staying up).
    func abandoned(_ counters: CounterSnapshot) -> Int {
        switch wire {
        case .http1: counters.connectionsClosedByClient
        case .http2: counters.streamsResetByClient
        }
    }

    /// Suspends until the server has seen one more load given up than `before` (``abandoned(_:)``).
    func waitUntilAbandoned(moreThan before: Int) async throws {
        try await server.counters.waitUntil { [self] in abandoned($0) > before }
    }

    /// A response came over the contract's protocol (where the transport reports it: URLSession's
    /// heads do not name one).
    func expectNegotiated(_ head: FetchResponseHead, sourceLocation: SourceLocation = #_sourceLocation) {
        if wire == .http2 || head.httpVersion != nil {
            #expect(head.httpVersion == wire.rawValue, "negotiated", sourceLocation: sourceLocation)
        }
    }

    /// One more fetch after a check: the transport's head and the server's log both name the
    /// contract's protocol, so no run passes by falling back to HTTP/1.1.
    func expectNegotiatedProtocol(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        server.setRoute("/negotiated", Route(body: Array(body.prefix(1000))))
        let result = try await transport.fetch(request("/negotiated")) { _ in }
        expectNegotiated(result.head, sourceLocation: sourceLocation)
        #expect(server.counters.snapshot.requestLog(for: "/negotiated").last?.httpVersion == wire.rawValue,
                "the server's side", sourceLocation: sourceLocation)
    }
}

extension WireProtocol {
    /// The test server's TLS for this protocol: nil for HTTP/1.1 (plain http), else the tests'
    /// server certificate offering h2 and http/1.1. Skips the test where openssl is missing.
    func serverTLS() throws -> TestServer.TLS? {
        switch self {
        case .http1: nil
        case .http2: TestServer.TLS(try ContractCertificates.get().server)
        }
    }
}

extension ContractRun {
    /// A fresh transport for the run: trusting the tests' CA (and free to negotiate HTTP/2) for
    /// an HTTP/2 run.
    func ownedTransport() throws -> TransportCase.Owned {
        switch wire {
        case .http1:
            return transport.makeOwned()
        case .http2:
            guard let makeTrusting = transport.makeTrusting else {
                throw TestServerError.invalidConfiguration("\(transport.name) cannot trust a private CA: no HTTP/2 run")
            }
            return try makeTrusting(ContractCertificates.get().authorityPEM)
        }
    }
}

/// The process's test certificates (`TestCertificates.shared`, made once), or a skip where
/// openssl is missing.
enum ContractCertificates {
    static func get() throws -> TestCertificates {
        switch TestCertificates.shared {
        case .success(let certificates): return certificates
        case .failure(.unavailable(let reason)): try TestSkip.skip("openssl unavailable: \(reason)")
        case .failure(let error): throw error
        }
    }
}
