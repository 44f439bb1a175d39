import Testing
@testable import ImagoBench

/// How many decodes one warm sample of the decode scenario averages: enough for 20 ms, 1 to 64.
struct DecodeBatchSizeTests {
    @Test func aShortDecodeIsRepeatedUntilTheSampleLasts20Milliseconds() {
        #expect(DecodeBenchmark.batchSize(decodeMilliseconds: 1) == 20)
        #expect(DecodeBenchmark.batchSize(decodeMilliseconds: 3) == 7)
        #expect(DecodeBenchmark.batchSize(decodeMilliseconds: 19.9) == 2)
    }

    @Test func aDecodeOf20MillisecondsOrMoreIsOneSample() {
        #expect(DecodeBenchmark.batchSize(decodeMilliseconds: 20) == 1)
        #expect(DecodeBenchmark.batchSize(decodeMilliseconds: 400) == 1)
    }

    @Test func theBatchIsCappedAt64() {
        #expect(DecodeBenchmark.batchSize(decodeMilliseconds: 0.05) == 64)
        #expect(DecodeBenchmark.batchSize(decodeMilliseconds: 0) == 64)
        #expect(DecodeBenchmark.batchSize(decodeMilliseconds: .nan) == 64)
    }
}
