import Foundation
import ImagoTestSupport
import Testing
@testable import Imago

extension TimedSuites {
    /// Every transport in `TestTransports.all` against the whole transport contract: one
    /// parameterised test per check (`TransportContract`), each with a fresh transport, server
    /// and downloads directory. A check a transport lacks the means for skips that transport,
    /// saying why (`TransportCase.Limitation`). In `TimedSuites`: several checks time timeouts
    /// and cancellation.
    @Suite struct TransportContractTests {}
}

extension TimedSuites.TransportContractTests {
    @Test(arguments: TestTransports.all)
    func bothStrategiesDeliverTheBodyWithMonotoneProgress(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.bothStrategiesDeliverTheBodyWithMonotoneProgress() }
    }

    @Test(arguments: TestTransports.all)
    func unknownLengthIsReportedAsUnknown(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.unknownLengthIsReportedAsUnknown() }
    }

    @Test(arguments: TestTransports.all)
    func streamingHandsTheBodyToItsConsumer(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.streamingHandsTheBodyToItsConsumer() }
    }

    @Test(arguments: TestTransports.all)
    func streamingJudgesTheHeadBeforeAnyPiece(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.streamingJudgesTheHeadBeforeAnyPiece() }
    }

    @Test(arguments: TestTransports.all)
    func streamingStopsWhenTheConsumerRefuses(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.streamingStopsWhenTheConsumerRefuses() }
    }

    @Test(arguments: TestTransports.all)
    func streamingKeepsTheLimitTruncationAndNeedsAConsumer(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.streamingKeepsTheLimitTruncationAndNeedsAConsumer() }
    }

    @Test(arguments: TestTransports.all)
    func nonSuccessStatusFailsAtTheHead(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.nonSuccessStatusFailsAtTheHead() }
    }

    @Test(arguments: TestTransports.all)
    func shortBodyIsATruncationNeverASuccess(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.shortBodyIsATruncationNeverASuccess() }
    }

    @Test(arguments: TestTransports.all)
    func conditionalRequestGets304(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.conditionalRequestGets304() }
    }

    @Test(arguments: TestTransports.all)
    func oversizeBodyFailsEarly(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.oversizeBodyFailsEarly() }
    }

    /// Regression (URLSession): corelibs ignored the `.cancel` disposition, so a body refused at
    /// the head was still read to the end on a connection left open.
    @Test(arguments: TestTransports.all)
    func aBodyRefusedAtTheHeadIsNotReadOn(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.aBodyRefusedAtTheHeadIsNotReadOn() }
    }

    @Test(arguments: TestTransports.all)
    func stallBeyondTheIdleTimeoutTimesOut(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.stallBeyondTheIdleTimeoutTimesOut() }
    }

    /// At the shortest idle timeout the transport keeps (URLSession's is whole seconds).
    @Test(arguments: TestTransports.all)
    func aSlowButLiveBodyOutlastsTheIdleTimeout(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) {
            try await $0.aSlowButLiveBodyOutlastsTheIdleTimeout(idleTimeout: transport.shortestIdleTimeout)
        }
    }

    @Test(arguments: TestTransports.all)
    func cancelMidBodyEndsPromptlyClosesTheConnectionAndLeavesNoFile(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.cancelMidBodyEndsPromptlyClosesTheConnectionAndLeavesNoFile() }
    }

    @Test(arguments: TestTransports.all)
    func cancelBeforeTheHeadEndsPromptly(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.cancelBeforeTheHeadEndsPromptly() }
    }

    @Test(arguments: TestTransports.all)
    func redirectsAreFollowedAndReported(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.redirectsAreFollowedAndReported() }
    }

    @Test(arguments: TestTransports.all)
    func aRedirectLoopFailsAsTooManyRedirects(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.aRedirectLoopFailsAsTooManyRedirects() }
    }

    @Test(arguments: TestTransports.all)
    func unusableURLsFailWithoutARequest(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.unusableURLsFailWithoutARequest() }
    }

    @Test(arguments: TestTransports.all)
    func aRefusedConnectionIsATransportError(_ transport: TransportCase) async throws {
        try await TransportContract.with(transport) { try await $0.aRefusedConnectionIsATransportError() }
    }

    // MARK: Checks a transport may lack the means for

    @Test(.ipv6Loopback, arguments: TestTransports.all)
    func ipv6LiteralURL(_ transport: TransportCase) async throws {
        try transport.require(.ipv6LiteralHosts)
        try await TransportContract.with(transport) { try await $0.ipv6LiteralURL() }
    }

    @Test(arguments: TestTransports.all)
    func subSecondIdleTimeoutIsExact(_ transport: TransportCase) async throws {
        try transport.require(.subSecondIdleTimeouts)
        try await TransportContract.with(transport) { try await $0.subSecondIdleTimeoutIsExact() }
    }

    @Test(arguments: TestTransports.all)
    func gzipAndDeflateBodiesAreDecodedAndJudgedOnWireBytes(_ transport: TransportCase) async throws {
        try transport.require(.wireByteAccounting)
        try await TransportContract.with(transport) { try await $0.gzipAndDeflateBodiesAreDecodedAndJudgedOnWireBytes() }
    }

    @Test(arguments: TestTransports.all)
    func anEncodedBodyCutShortIsATruncationOfItsWireBytes(_ transport: TransportCase) async throws {
        try transport.require(.wireByteAccounting)
        try await TransportContract.with(transport) { try await $0.anEncodedBodyCutShortIsATruncationOfItsWireBytes() }
    }
}
