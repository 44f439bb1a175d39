import XCTest
@testable import Imago

final class DecodeOptionsTests: XCTestCase {
    func testFullSizeWithoutLimits() {
        XCTAssertEqual(DecodeOptions().outputSize(width: 4000, height: 3000, swapsAxes: false), PixelSize(width: 4000, height: 3000))
    }

    func testMaxPixelSizeBoundsTheLongestSideAndKeepsAspect() {
        let options = DecodeOptions(maxPixelSize: 256)
        XCTAssertEqual(options.outputSize(width: 4000, height: 3000, swapsAxes: false), PixelSize(width: 256, height: 192))
        XCTAssertEqual(options.outputSize(width: 3000, height: 4000, swapsAxes: false), PixelSize(width: 192, height: 256))
        XCTAssertEqual(options.outputSize(width: 100, height: 50, swapsAxes: false), PixelSize(width: 100, height: 50), "never upscales")
        XCTAssertEqual(options.outputSize(width: 10000, height: 3, swapsAxes: false), PixelSize(width: 256, height: 1), "never zero")
    }

    func testTargetSizeIsADisplayBox() {
        let options = DecodeOptions(targetSize: PixelSize(width: 200, height: 100))
        XCTAssertEqual(options.outputSize(width: 400, height: 400, swapsAxes: false), PixelSize(width: 100, height: 100))
        // Stored 300x600 shown rotated as 600x300: the box applies to the displayed image.
        XCTAssertEqual(options.outputSize(width: 300, height: 600, swapsAxes: true), PixelSize(width: 100, height: 200))
    }

    func testOptionsAreHashableIdentity() {
        XCTAssertNotEqual(DecodeOptions(maxPixelSize: 100), DecodeOptions(maxPixelSize: 200))
        XCTAssertEqual(DecodeOptions(maxPixelSize: 100), DecodeOptions(maxPixelSize: 100))
    }
}
