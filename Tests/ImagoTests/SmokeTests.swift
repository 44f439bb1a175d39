import XCTest
@testable import Imago

final class SmokeTests: XCTestCase {
    func testBuilds() {}
}
