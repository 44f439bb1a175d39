import XCTest
@testable import ImagoTestServer
