import CImagoCodecs

/// A cancel switch the C decoders poll between row batches. `ImageDecoder`'s async entry
/// points raise it from Swift task cancellation; synchronous callers can hold one and call
/// `cancel()` from any thread.
public final class DecodeCancellation: @unchecked Sendable {
    // Read and written only through relaxed atomics in C (imago_cancel_*).
    let flag: UnsafeMutablePointer<Int32>

    public init() {
        flag = .allocate(capacity: 1)
        flag.initialize(to: 0)
    }

    deinit { flag.deallocate() }

    public func cancel() { imago_cancel_request(flag) }

    public var isCancelled: Bool { imago_cancel_requested(flag) != 0 }
}
