import CImagoCodecs

/// A cancel switch and progress counter shared with the C decoder. `ImageDecoder`'s async
/// entry points raise it from Swift task cancellation; synchronous callers can hold one, call
/// `cancel()` from any thread, and read `rowsDecoded` to follow a long decode.
public final class DecodeCancellation: @unchecked Sendable {
    // Touched only through relaxed atomics in C (imago_control_*), from any thread.
    let control: UnsafeMutablePointer<imago_decode_control>

    /// A switch not yet raised, with no rows counted; one per decode (the counter is not reset).
    public init() {
        control = .allocate(capacity: 1)
        control.initialize(to: imago_decode_control())
    }

    deinit { control.deallocate() }

    /// Asks the decode to stop at its next row batch; it then throws `.cancelled`.
    public func cancel() { imago_control_cancel(control) }

    /// Whether `cancel()` has been called; safe to read from any thread while a decode runs.
    public var isCancelled: Bool { imago_control_cancelled(control) != 0 }

    /// Rows the codec has produced so far (in the decoder's own output scale; for an Adam7 PNG,
    /// the average over its passes). Grows monotonically during one decode.
    public var rowsDecoded: Int { Int(imago_control_rows(control)) }
}
