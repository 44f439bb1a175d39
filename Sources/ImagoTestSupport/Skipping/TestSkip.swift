import Testing
import XCTest

/// Ends the running test as skipped, saying why, in whichever framework runs it: inside a
/// swift-testing test it prints the reason and cancels the test (or, in a parameterised one,
/// the current argument's case); inside an XCTest method it throws `XCTSkip`. So a helper
/// that finds the machine lacking something (nginx, a memory cgroup, IPv6 loopback) has one way
/// to say so, whoever calls it. Only for what the machine lacks: everything else must fail.
public enum TestSkip {
    /// Skips the current test with `reason`. Never returns. (The caller's location is taken
    /// from plain literals, so XCTest-only files need not import Testing.)
    public static func skip(_ reason: String, fileID: String = #fileID, filePath: String = #filePath,
                            line: Int = #line, column: Int = #column) throws -> Never {
        if let test = Test.current {
            // swift-testing's console names a cancelled test case nowhere: say it here.
            print("\(test.name) skipped\(Test.Case.current?.isParameterized == true ? " (one argument)" : ""): \(reason)")
            try Test.cancel(Comment(rawValue: reason),
                            sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        }
        throw XCTSkip(reason)
    }
}
