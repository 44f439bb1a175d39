import Testing

/// The suites whose checks time things (idle and total timeouts, prompt cancellation, nginx's
/// rate limit and stalls) are nested here, so they run one test case at a time, as XCTest ran
/// them: a timing bound must not depend on what else runs beside it on a busy machine.
@Suite(.serialized) enum TimedSuites {}
