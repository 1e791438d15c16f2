import Synchronization

/// The shared run behind `share(replay:)`: starts the upstream for the first subscriber,
/// multicasts its events, replays the latest values to late subscribers, disposes the upstream
/// when the last subscriber leaves, and remembers the upstream's end for later subscribers.
///
/// Each subscriber has its own serial gate (a `SignalCore`). Events are enqueued into the gates
/// while the hub's lock is held, so every subscriber sees the replayed values before the live
/// ones and the live ones in upstream order; they are delivered after the lock is released.
final class ShareHub<Value: Sendable, Failure: Error>: Sendable {
    private enum Phase {
        /// No upstream run: nobody subscribed yet, or every subscriber left.
        case idle
        /// The upstream run `run` is going; its disposable is nil while `start` is still returning.
        case running(run: UInt64, upstream: (any Disposable)?)
        /// The upstream ended with this event, which every later subscriber receives.
        case ended(Event<Value, Failure>)
    }

    private struct State {
        var phase = Phase.idle
        var buffer: [Value] = []
        var subscribers: [(id: UInt64, gate: SignalCore<Value, Failure>)] = []
        var nextID: UInt64 = 0
        var nextRun: UInt64 = 0
    }

    private let upstream: SignalProducer<Value, Failure>
    private let replay: Int
    /// Whether the run goes on when every subscriber has left (`replayLazily`): its values are
    /// kept for the next subscriber, and it is never started twice.
    private let keepsRunning: Bool
    private let state = Lock(State())

    init(_ upstream: SignalProducer<Value, Failure>, replay: Int, keepsRunning: Bool = false) {
        self.upstream = upstream
        self.replay = replay
        self.keepsRunning = keepsRunning
    }

    /// Joins the shared run for one start of the shared producer.
    func subscribe(_ downstream: Observer<Value, Failure>, _ lifetime: Lifetime) {
        let gate = SignalCore<Value, Failure>()
        _ = gate.attach(downstream)  // nothing queued yet, so nothing is delivered here
        let (id, run, mustDrain) = state.withLock { s -> (UInt64?, UInt64?, Bool) in
            var mustDrain = false
            for value in s.buffer { mustDrain = gate.enqueue(.value(value)) || mustDrain }
            var run: UInt64?
            switch s.phase {
            case .ended(let event):
                mustDrain = gate.enqueue(event) || mustDrain
                return (nil, nil, mustDrain)
            case .idle:
                run = s.nextRun
                s.nextRun += 1
                s.phase = .running(run: run!, upstream: nil)
            case .running:
                break
            }
            let id = s.nextID
            s.nextID += 1
            s.subscribers.append((id, gate))
            return (id, run, mustDrain)
        }
        if mustDrain { gate.drain() }
        guard let id else { return }
        lifetime.observeEnded { [self] in
            gate.interrupt()
            leave(id)
        }
        if let run { start(run) }
    }

    /// Starts the upstream for run `run`, unless every subscriber already left.
    private func start(_ run: UInt64) {
        let disposable = upstream.start(Observer { [self] event in receive(event, from: run) })
        let keep = state.withLock { s -> Bool in
            guard case .running(run, nil) = s.phase else { return false }
            s.phase = .running(run: run, upstream: disposable)
            return true
        }
        // Everyone left (or the run already ended) while it was starting.
        if !keep { disposable.dispose() }
    }

    /// Multicasts an event of upstream run `run`; events of an earlier run are ignored.
    private func receive(_ event: Event<Value, Failure>, from run: UInt64) {
        let gates = state.withLock { s -> [SignalCore<Value, Failure>] in
            guard case .running(run, _) = s.phase else { return [] }
            let subscribers = s.subscribers
            switch event {
            case .value(let value):
                if replay > 0 {
                    if s.buffer.count == replay { s.buffer.removeFirst() }
                    s.buffer.append(value)
                }
            case .failed, .completed, .interrupted:
                s.phase = .ended(event)
                s.subscribers = []
            }
            return subscribers.compactMap { $0.gate.enqueue(event) ? $0.gate : nil }
        }
        for gate in gates { gate.drain() }
    }

    /// Removes a subscriber; the last one to leave disposes the upstream run (unless it keeps
    /// running).
    private func leave(_ id: UInt64) {
        let upstream = state.withLock { s -> (any Disposable)? in
            guard let index = s.subscribers.firstIndex(where: { $0.id == id }) else { return nil }
            s.subscribers.remove(at: index)
            guard !keepsRunning, s.subscribers.isEmpty, case .running(_, let upstream) = s.phase else { return nil }
            // A later subscriber starts a fresh run.
            s.phase = .idle
            s.buffer = []
            return upstream
        }
        upstream?.dispose()
    }
}

extension SignalProducer {
    /// A producer that shares one run of this producer among all its current subscribers.
    ///
    /// The first start starts this producer; later starts join the same run and first receive up
    /// to `replay` of the latest values. When the last subscriber disposes, the run is disposed
    /// and the next start begins a fresh one. Once the run has ended by itself, every later start
    /// receives the replayed values and the terminal event, without starting anything.
    ///
    /// Subscribers are counted: `await shared.value` leaves after the first value, so three of
    /// them one after another start three runs (three requests). To start once and keep the
    /// value for later subscribers, use `replayLazily(upTo:)`.
    public func share(replay: Int) -> SignalProducer<Value, Failure> {
        precondition(replay >= 0, "share(replay:) needs a replay count of at least 0")
        let hub = ShareHub(self, replay: replay)
        return SignalProducer(serialized: { downstream, lifetime in hub.subscribe(downstream, lifetime) })
    }

    /// A producer that starts this producer once, on its first start, and replays up to `count`
    /// of the latest values to every start after that, for as long as it exists (ReactiveSwift's
    /// `replayLazily(upTo:)`).
    ///
    /// Unlike `share(replay:)`, the run is not disposed when its subscribers leave: it goes on to
    /// its end, and its values and terminal event are kept. So three `await shared.value` in a
    /// row send one request, where `share(replay:)` sends three (each `value` leaves after the
    /// first value, which disposes a shared run that nobody else watches):
    ///
    ///     let profile = client.get("me").decode(User.self).replayLazily(upTo: 1)
    ///     let a = try await profile.value  // sends the request
    ///     let b = try await profile.value  // the same user, from the replay
    ///
    /// The run ends only by itself: keep the producer only as long as its work should be able to
    /// run.
    public func replayLazily(upTo count: Int) -> SignalProducer<Value, Failure> {
        precondition(count >= 0, "replayLazily(upTo:) needs a count of at least 0")
        let hub = ShareHub(self, replay: count, keepsRunning: true)
        return SignalProducer(serialized: { downstream, lifetime in hub.subscribe(downstream, lifetime) })
    }
}
