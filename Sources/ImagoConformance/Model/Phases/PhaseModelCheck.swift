/// MODEL-PHASES: random sequences of loads, cancels, retries, source changes, appearing models,
/// server answers and restarts, each judged step by step against the reference model of the
/// phase rules (`PhaseModel`); a divergence is shrunk and reported under the rule it breaks.
let phaseModelCheck = ConformanceCheck(
    "MODEL-PHASES",
    "Random operation sequences publish, request, decode and cache what the reference model of the phase rules predicts"
) { run in
    let capabilities = run.subject.capabilities
    try await run.explore(
        generate: { random, longest in PhaseSequences.generate(&random, maxOperations: longest, capabilities: capabilities) },
        replay: { operations, trial in try await PhaseReplay(run: run, trial: trial, operations: operations).replay(operations) })
}
