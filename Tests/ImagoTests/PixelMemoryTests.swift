import XCTest
@testable import Imago

final class PixelMemoryTests: XCTestCase {
    func testLargeBuffersAreHugePageAligned() throws {
        let buffer = try XCTUnwrap(PixelBuffer(uninitializedWidth: 2000, height: 1500))
        XCTAssertTrue(buffer.storage.allocation.isMapped)
        XCTAssertEqual(UInt(bitPattern: buffer.storage.pointer) % UInt(PixelAllocator.hugePageSize), 0)
        XCTAssertGreaterThanOrEqual(buffer.storage.allocation.size, buffer.byteCount)
        buffer.mutableBaseAddress[buffer.byteCount - 1] = 7   // the whole range is writable
        XCTAssertEqual(buffer[1999, 1499].a, 7)
    }

    func testSmallBuffersUseMalloc() throws {
        let buffer = try XCTUnwrap(PixelBuffer(uninitializedWidth: 10, height: 10))
        XCTAssertFalse(buffer.storage.allocation.isMapped)
    }

    func testEqualityComparesPixels() {
        let a = PixelBuffer(width: 2, height: 1, rgba: [1, 2, 3, 4, 5, 6, 7, 8])
        XCTAssertEqual(a, PixelBuffer(width: 2, height: 1, rgba: [1, 2, 3, 4, 5, 6, 7, 8]))
        XCTAssertNotEqual(a, PixelBuffer(width: 2, height: 1, rgba: [1, 2, 3, 4, 5, 6, 7, 9]))
        XCTAssertNotEqual(a, PixelBuffer(width: 1, height: 2, rgba: [1, 2, 3, 4, 5, 6, 7, 8]))
        XCTAssertEqual(a.packedBytes(), [1, 2, 3, 4, 5, 6, 7, 8])
    }

    func testImpossibleSizesFailCleanly() {
        XCTAssertNil(PixelBuffer(uninitializedWidth: Int.max / 2, height: 3))
        XCTAssertNil(PixelBuffer(uninitializedWidth: 0, height: 3))
    }
}

final class PixelMemoryPoolTests: XCTestCase {
    override func tearDown() {
        PixelMemory.retainedByteLimit = 64 << 20
        PixelMemory.trim()
    }

    func testFreedLargeBufferIsReusedForTheSameSize() throws {
        PixelMemory.trim()
        var first: PixelBuffer? = try XCTUnwrap(PixelBuffer(uninitializedWidth: 1500, height: 1000))
        let address = first!.storage.pointer
        let size = first!.storage.allocation.size
        first = nil
        XCTAssertEqual(PixelMemory.retainedBytes, size)
        let second = try XCTUnwrap(PixelBuffer(uninitializedWidth: 1500, height: 1000))
        XCTAssertEqual(second.storage.pointer, address, "the retained mapping is handed out again")
        XCTAssertEqual(PixelMemory.retainedBytes, 0)
    }

    func testLimitAndTrimBoundWhatIsRetained() throws {
        PixelMemory.trim()
        PixelMemory.retainedByteLimit = 8 << 20
        do {
            _ = try XCTUnwrap(PixelBuffer(uninitializedWidth: 2000, height: 2000))   // 16 MB: over the limit
        }
        XCTAssertEqual(PixelMemory.retainedBytes, 0)
        do {
            _ = try XCTUnwrap(PixelBuffer(uninitializedWidth: 1000, height: 1000))   // 4 MB: kept
        }
        XCTAssertEqual(PixelMemory.retainedBytes, 4 << 20)
        PixelMemory.trim()
        XCTAssertEqual(PixelMemory.retainedBytes, 0)
    }

    func testADifferentSizeIsNotServedFromThePool() throws {
        PixelMemory.trim()
        do { _ = try XCTUnwrap(PixelBuffer(uninitializedWidth: 1000, height: 1000)) }
        let larger = try XCTUnwrap(PixelBuffer(uninitializedWidth: 2000, height: 2000))
        XCTAssertGreaterThanOrEqual(larger.storage.allocation.size, larger.byteCount)
        XCTAssertEqual(PixelMemory.retainedBytes, 4 << 20, "the smaller mapping stays retained")
    }
}
