import BenchChild
import Dispatch
import Synchronization

/// Runs `body` in a detached task and blocks the calling thread until it returns: how a blocking
/// child drives the async APIs (URLSession's, AsyncHTTPClient's, `.value`).
public func blockingRun(_ body: @escaping @Sendable () async -> E2EOutcome) -> E2EOutcome {
    let result = Mutex<E2EOutcome?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let outcome = await body()
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return result.withLock { $0 } ?? E2EOutcome(failed: 1, firstFailure: "no outcome")
}

/// `count` operations by `workers` tasks at once, each taking the next operation as soon as it has
/// finished one: how async code keeps a fixed number of requests in flight. `operation` returns nil
/// on success, or a description of what went wrong.
public func inFlightTasks(
    count: Int, workers: Int, _ operation: @escaping @Sendable () async -> String?
) async -> E2EOutcome {
    let tally = E2ETally(total: count)
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<min(workers, count) {
            guard tally.claim() else { break }
            group.addTask {
                while true {
                    let failure = await operation()
                    if !tally.finish(failure: failure) { break }
                }
            }
        }
    }
    return tally.wait()
}
