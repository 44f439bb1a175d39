import Foundation
import ImagoTestServer

/// Puts a pressure workload's images on the parent's loopback server.
public enum PressureServing {
    /// Serves `count` loads in `PressurePlan.order` on `server` and returns their URLs in load
    /// order. One baseline JPEG per size (`BenchInputs`, generated on first use) is served
    /// under every path of that size: the bytes are shared, but each URL is its own cache key,
    /// fetch and decode, which is all the pipeline can tell apart.
    public static func serve(count: Int, server: TestServer, inputsDirectory: String,
                             log: (String) -> Void) throws -> [String] {
        let order = PressurePlan.order(count: count)
        var bodies: [Double: [UInt8]] = [:]
        for megapixels in Set(order).sorted() {
            let input = try BenchInputs.prepare(.jpegBaseline, megapixels: megapixels, directory: inputsDirectory, log: log)
            bodies[megapixels] = try [UInt8](Data(contentsOf: URL(fileURLWithPath: input.path)))
        }
        return order.enumerated().map { index, megapixels in
            let path = PressurePlan.path(index: index, megapixels: megapixels)
            server.setRoute(path, Route(body: bodies[megapixels]!, contentType: "image/jpeg"))
            return server.url(for: path).absoluteString
        }
    }
}
