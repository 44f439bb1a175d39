@_spi(Testing) import Imago

/// The planted bugs of the view model (INIT, TRANS, CACHE-1, CACHE-3, SOURCE-1/2, SHARE-1,
/// RETRY-3, ORDER, FETCH-1): the shipped `ImageLoadingModel` has none of them. Most are wrong decisions, given to
/// the model as transitions of the harness's own (`MistakenTransitions`) through its `Testing`
/// SPI initializer; two are mistakes of the adapter that makes and watches the model.
/// `ImagoLoader` asks for the model here; the bug switched on for the process
/// (`ActiveMutant.current`) decides which, if any.
enum ModelMutants {
    /// The model the adapter works with for `request`.
    @MainActor
    static func model(pipeline: ImagePipeline, request: ImageRequest?, for mutant: Mutant?) -> ImageLoadingModel {
        if mutant == .initEagerLoad, let request {
            // The adapter warms the cache as soon as it makes the model: a load before load().
            Task { [pipeline] in _ = try? await pipeline.response(for: request) }
        }
        if mutant == .initChecksDiskOnCreation, let request {
            // The adapter looks the image up on disk to pick a placeholder: cache I/O before load().
            _ = pipeline.configuration.dependencies.diskCache?.entry(forKey: request.key.source)
        }
        let downloadsToFile = pipeline.configuration.network.fetchStrategy == .file
        if let mutant, let blind = BlindTransitions(mutant) {
            return ImageLoadingModel(pipeline: pipeline, request: request, transitions: blind)
        }
        guard let mutant, let transitions = MistakenTransitions(mutant, downloadsToFile: downloadsToFile) else {
            return ImageLoadingModel(pipeline: pipeline, request: request)
        }
        let model = ImageLoadingModel(pipeline: pipeline, request: request, transitions: transitions)
        transitions.deferred.attach(model)
        return model
    }

    /// The model's phases as the adapter hands them on: with `orderStreamSkipsCurrent`, it
    /// drops the first one, which is the current phase, so a late observer starts with the next;
    /// with `orderLateObserverMissesTerminal` it does so only when that phase is terminal
    /// (`currentIsTerminal`), as a subject that forgets its value once the load completes.
    static func phases<Phase: Sendable>(_ phases: AsyncStream<Phase>, currentIsTerminal: Bool,
                                        for mutant: Mutant?) -> AsyncStream<Phase> {
        let skipsCurrent = mutant == .orderStreamSkipsCurrent || (mutant == .orderLateObserverMissesTerminal && currentIsTerminal)
        guard skipsCurrent else { return phases }
        return AsyncStream { continuation in
            let relay = Task {
                for await phase in phases.dropFirst() { continuation.yield(phase) }
                continuation.finish()
            }
            continuation.onTermination = { _ in relay.cancel() }
        }
    }
}
