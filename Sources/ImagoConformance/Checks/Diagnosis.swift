/// The hints a failed expectation gives, derived from what was observed rather than assumed: a
/// success that came late, a phase the adapter mapped wrongly and a body the client refused are
/// different failures with different fixes. Each diagnosis has a `hint` (what was seen and what
/// to look at) and a `symptom` (the same few words for the same observation in any check, which
/// the report groups by: see ``CheckResult/symptom``).
struct Diagnosis {
    let hint: String
    let symptom: String

    /// Why `phase` is not the success expected of a complete 200 with a valid image; `later`
    /// holds what the observer received after the moment judged (nil: nothing to tell), which
    /// tells a late success from none.
    static func notSuccess(_ phase: ObservedPhase, later: [ObservedPhase]? = nil) -> Diagnosis {
        if !phase.isTerminal, let success = later?.first(where: { $0.image != nil }) {
            return Diagnosis(
                hint: "the success came late: \(success) reached the observer only after the moment judged, "
                    + "which showed \(phase); publish it before the call returns (the result itself is right)",
                symptom: "success published late, not before the call returned")
        }
        switch phase {
        case .empty:
            return Diagnosis(hint: "the phase is empty: no attempt ran (load() ignored, or the attempt reset by a "
                             + "cancel or source change nobody asked for)",
                             symptom: "no attempt: the phase stayed empty")
        case .loading:
            return Diagnosis(hint: "still loading: the attempt had not ended when judged (a lost completion, or a "
                             + "response the loader still waits for?)",
                             symptom: "stuck in loading: the attempt never ended")
        case .success:
            return Diagnosis(hint: "", symptom: "")
        case .failure(let failure):
            return notSuccess(failure)
        }
    }

    private static func notSuccess(_ failure: ObservedFailure) -> Diagnosis {
        switch failure {
        case .transport(let message):
            return Diagnosis(
                hint: "the transfer failed (transport: \(message)) although the server sent a complete response: "
                    + "the client refused or cut the body (a size or decompression limit, a timeout, or the "
                    + "decoded bytes counted against an encoded Content-Length?); not a mapping problem",
                symptom: "the client refused or cut a complete body (transport failure)")
        case .decoding(let kind):
            return Diagnosis(
                hint: "the body did not decode (decoding: \(kind)): the bytes the decoder got differ from the image "
                    + "the server sent (a Content-Encoding left undecoded or decoded twice, a body cut short?)",
                symptom: "a valid image failed to decode (the decoder got other bytes)")
        case .emptyData:
            return Diagnosis(hint: "no body reached the decoder although the server sent one",
                             symptom: "a body the server sent never reached the decoder")
        case .httpStatus(let code):
            return Diagnosis(hint: "failure(httpStatus(\(code))) for a 200: read the status of the final response, "
                             + "and check that the adapter maps it",
                             symptom: "a 200 reported as an HTTP status failure")
        case .cancelled:
            return Diagnosis(hint: "a cancellation surfaced as a failure, though nothing cancelled this load (TRANS-4)",
                             symptom: "failure(cancelled) without a cancel")
        case .missingSource:
            return Diagnosis(hint: "the model had no source: check that the adapter passes the source to the model",
                             symptom: "the model lost its source")
        case .other(let message):
            return Diagnosis(hint: "failure(other(\(message))) is in none of the rules' categories: check that the "
                             + "adapter maps the loader's result (success, or the failure's category)",
                             symptom: "a result the adapter does not map (other)")
        }
    }

    /// Why fewer than `wanted` terminal phases arrived, read from `phases`, everything the
    /// observer received.
    static func noTerminal(_ phases: [ObservedPhase], wanted: Int) -> Diagnosis {
        let terminals = phases.filter(\.isTerminal).count
        if terminals > 0, let last = phases.last, last.isTerminal {
            return Diagnosis(
                hint: "nothing was published after the previous \(last) (\(terminals) of \(wanted) terminal phases): the "
                    + "call that should start this attempt (load(), retry(), or setSource(_:) then load()) was "
                    + "ignored, and the model still shows the earlier result",
                symptom: "nothing published after a terminal phase: a new attempt was ignored")
        }
        guard let last = phases.last else {
            return Diagnosis(hint: "the observer received nothing, not even the current phase (ORDER-2)",
                             symptom: "the observer received nothing")
        }
        return notSuccess(last)
    }
}
