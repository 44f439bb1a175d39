import ImagoTestServer

extension TestCertificates {
    /// The process's certificate set (``TestCertificates/shared``), or a skip of the running
    /// test (XCTest or swift-testing: ``TestSkip``) saying why where there is no openssl. Any
    /// other failure (openssl ran and refused) is thrown, failing the test.
    public static func sharedOrSkip() throws -> TestCertificates {
        switch shared {
        case .success(let certificates):
            return certificates
        case .failure(.unavailable(let reason)):
            try TestSkip.skip("openssl unavailable: \(reason)")
        case .failure(let error):
            throw error
        }
    }
}
