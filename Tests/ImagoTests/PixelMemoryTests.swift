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
