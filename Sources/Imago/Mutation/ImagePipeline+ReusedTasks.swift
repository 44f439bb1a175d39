#if IMAGO_MUTANTS
extension ImagePipeline {
    /// `Mutant.shareReusesCancelledTask`: one `ImageTask` per key, forgotten when it ends with an
    /// image or an error; a cancel is not taken for an end, so the next load of the key after
    /// everyone cancelled is handed the cancelled task.
    func reusedTask(for request: ImageRequest, progress: (@Sendable (FetchProgress) -> Void)?) -> ImageTask {
        if let running = reusableTasks.withLock({ $0[request.key] }) { return running }
        let task = ImageTask(request: request)
        reusableTasks.withLock { $0[request.key] = task }
        task.start { priority in
            let outcome = await self.response(for: request, priority: priority, progress: progress)
            if case .failure(let error) = outcome, error.isCancellation { return outcome }
            self.reusableTasks.withLock { $0[request.key] = nil }
            return outcome
        }
        return task
    }
}
#endif
