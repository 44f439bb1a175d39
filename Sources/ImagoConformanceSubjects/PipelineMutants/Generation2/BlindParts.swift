import Foundation
@_spi(Testing) import Imago

/// The generation-2 bugs that are parts of the pipeline's configuration: a transport around
/// Imago's (`BlindTransports`), the retry policy, the clock the back-off sleeps on, or the task
/// pools (`BlindTaskPools`). `MutantParts.configure` hands every bug here first.
enum BlindParts {
    /// Puts `mutant`'s part into `configuration`; false (nothing changed) when the bug is not
    /// one of these.
    static func configure(_ configuration: inout ImagePipeline.Configuration, for mutant: Mutant) -> Bool {
        if let transport = BlindTransports.transport(around: configuration.dependencies.transport, for: mutant) {
            configuration.dependencies.transport = transport
            return true
        }
        switch mutant {
        case .retryServerErrorsOnly:
            // "Retry on server errors": 408 and 429 left out.
            configuration.network.retryPolicy.retriedStatuses = IndexSet(integersIn: 500...599)
        case .retryConstantBackOff:
            // A fixed retry delay.
            configuration.network.retryPolicy.multiplier = 1
        case .retrySleepIgnoresCancel:
            // `try? await clock.sleep(...)`: a cancelled sleep returns, and the retry goes on.
            let clock = configuration.dependencies.clock
            configuration.dependencies.clock = PipelineClock(now: { clock.now }, sleep: { try? await clock.sleep(for: $0) })
        case let pool where BlindTaskPools.plants(pool):
            configuration.dependencies.taskPools = BlindTaskPools(mutant: pool)
        default:
            return false
        }
        return true
    }
}
