import Foundation
import ImagoTestSupport
import Testing
@testable import Imago

extension TimedSuites {
    /// Every transport in `TestTransports.all` against the whole transport contract, over
    /// every protocol it speaks (`TestTransports.contractRuns`): plain HTTP/1.1 for all, and
    /// HTTPS with HTTP/2 (ALPN `h2`, the test server's own CA) for AsyncHTTPClient. URLSession
    /// runs over HTTP/1.1 only: FoundationNetworking on Linux has no HTTP/2 and cannot trust
    /// a private CA (`TransportCase.Limitation.http2`). One parameterised test per check
    /// (`TransportContract`), each with a fresh transport, server and downloads directory, and
    /// each ending with a fetch that proves the protocol spoken. A check a transport lacks the
    /// means for skips that transport, saying why (`TransportCase.Limitation`). In
    /// `TimedSuites`: several checks time timeouts and cancellation.
    @Suite struct TransportContractTests {}
}

extension TimedSuites.TransportContractTests {
    @Test(arguments: TestTransports.contractRuns)
    func bothStrategiesDeliverTheBodyWithMonotoneProgress(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.bothStrategiesDeliverTheBodyWithMonotoneProgress() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func unknownLengthIsReportedAsUnknown(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.unknownLengthIsReportedAsUnknown() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func streamingHandsTheBodyToItsConsumer(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.streamingHandsTheBodyToItsConsumer() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func streamingJudgesTheHeadBeforeAnyPiece(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.streamingJudgesTheHeadBeforeAnyPiece() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func streamingStopsWhenTheConsumerRefuses(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.streamingStopsWhenTheConsumerRefuses() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func streamingKeepsTheLimitTruncationAndNeedsAConsumer(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.streamingKeepsTheLimitTruncationAndNeedsAConsumer() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func nonSuccessStatusFailsAtTheHead(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.nonSuccessStatusFailsAtTheHead() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func shortBodyIsATruncationNeverASuccess(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.shortBodyIsATruncationNeverASuccess() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func conditionalRequestGets304(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.conditionalRequestGets304() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func oversizeBodyFailsEarly(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.oversizeBodyFailsEarly() }
    }

    /// Regression (URLSession): corelibs ignored the `.cancel` disposition, so a body refused at
    /// the head was still read to the end on a connection left open.
    @Test(arguments: TestTransports.contractRuns)
    func aBodyRefusedAtTheHeadIsNotReadOn(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.aBodyRefusedAtTheHeadIsNotReadOn() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func stallBeyondTheIdleTimeoutTimesOut(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.stallBeyondTheIdleTimeoutTimesOut() }
    }

    /// At the shortest idle timeout the transport keeps (URLSession's is whole seconds).
    @Test(arguments: TestTransports.contractRuns)
    func aSlowButLiveBodyOutlastsTheIdleTimeout(_ run: ContractRun) async throws {
        try await TransportContract.with(run) {
            try await $0.aSlowButLiveBodyOutlastsTheIdleTimeout(idleTimeout: run.transport.shortestIdleTimeout)
        }
    }

    /// Over HTTP/2, "closes the connection" is "resets the stream" (the connection goes on).
    @Test(arguments: TestTransports.contractRuns)
    func cancelMidBodyEndsPromptlyClosesTheConnectionAndLeavesNoFile(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.cancelMidBodyEndsPromptlyClosesTheConnectionAndLeavesNoFile() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func cancelBeforeTheHeadEndsPromptly(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.cancelBeforeTheHeadEndsPromptly() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func redirectsAreFollowedAndReported(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.redirectsAreFollowedAndReported() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func aRedirectLoopFailsAsTooManyRedirects(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.aRedirectLoopFailsAsTooManyRedirects() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func unusableURLsFailWithoutARequest(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.unusableURLsFailWithoutARequest() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func aRefusedConnectionIsATransportError(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.aRefusedConnectionIsATransportError() }
    }

    // MARK: Checks a transport may lack the means for

    @Test(.ipv6Loopback, arguments: TestTransports.contractRuns)
    func ipv6LiteralURL(_ run: ContractRun) async throws {
        try run.transport.require(.ipv6LiteralHosts)
        try await TransportContract.with(run) { try await $0.ipv6LiteralURL() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func subSecondIdleTimeoutIsExact(_ run: ContractRun) async throws {
        try run.transport.require(.subSecondIdleTimeouts)
        try await TransportContract.with(run) { try await $0.subSecondIdleTimeoutIsExact() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func gzipAndDeflateBodiesAreDecodedAndJudgedOnWireBytes(_ run: ContractRun) async throws {
        try run.transport.require(.wireByteAccounting)
        try await TransportContract.with(run) { try await $0.gzipAndDeflateBodiesAreDecodedAndJudgedOnWireBytes() }
    }

    @Test(arguments: TestTransports.contractRuns)
    func anEncodedBodyCutShortIsATruncationOfItsWireBytes(_ run: ContractRun) async throws {
        try run.transport.require(.wireByteAccounting)
        try await TransportContract.with(run) { try await $0.anEncodedBodyCutShortIsATruncationOfItsWireBytes() }
    }

    // MARK: HTTP/2 only: streams sharing one connection

    @Test(arguments: TestTransports.http2Runs)
    func cancellingOneLoadResetsOnlyItsStream(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.cancellingOneLoadResetsOnlyItsStream() }
    }

    @Test(arguments: TestTransports.http2Runs)
    func aHeldStreamingReadHoldsOnlyItsOwnStream(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.aHeldStreamingReadHoldsOnlyItsOwnStream() }
    }

    @Test(arguments: TestTransports.http2Runs)
    func aStreamResetByTheServerIsATruncationAndTheConnectionGoesOn(_ run: ContractRun) async throws {
        try await TransportContract.with(run) { try await $0.aStreamResetByTheServerIsATruncationAndTheConnectionGoesOn() }
    }
}
