import BenchChild
import OpenCombine
import SluiceSignals

/// The reactive core against a plain loop and OpenCombine, in one process, interleaved.
///
/// Two workloads:
/// - per event: values pushed through `map → filter → map → observer`, the same four closures
///   for every client, with a checksum of what reached the observer;
/// - per subscription: a one-`map` chain started (subscribed) and disposed (cancelled) in a loop.
///
/// Every client runs once per round, in an order rotated each round (`Measure.compete`); the
/// report gives the median of the rounds.
enum SignalsBenchmark: Suite {
    static let name = "signals"
    static let summary = "SluiceSignals vs a plain loop vs OpenCombine: ns per event, ns per start + dispose"

    static func run(_ options: Options) -> SuiteReport {
        let isSelected = { (client: Client) in options.only.map { client.key.contains($0) } ?? true }
        let events = options.events
        let cycles = options.subscriptions
        let perEvent = [
            Client(label: "plain loop, same closures", key: "loop_ns_per_event", operations: events, run: loop),
            Client(label: "Sluice Signal.pipe", key: "sluice_ns_per_event", operations: events, run: sluiceSignal),
            Client(
                label: "Sluice SignalProducer, started once", key: "sluice_producer_ns_per_event",
                operations: events, run: sluiceProducer
            ),
            Client(
                label: "OpenCombine PassthroughSubject", key: "opencombine_ns_per_event",
                operations: events, run: openCombine
            ),
        ].filter(isSelected)
        let perSubscription = [
            Client(
                label: "Sluice SignalProducer.map start + dispose", key: "sluice_ns_per_subscription",
                operations: cycles, run: sluiceStartDispose
            ),
            Client(
                label: "Sluice Signal.map observe + dispose", key: "sluice_signal_ns_per_subscription",
                operations: cycles, run: sluiceObserveDispose
            ),
            Client(
                label: "OpenCombine subject.map sink + cancel", key: "opencombine_ns_per_subscription",
                operations: cycles, run: openCombineSinkCancel
            ),
        ].filter(isSelected)

        let results = Measure.compete([perEvent, perSubscription], rounds: options.rounds) { round, latest in
            let figures = latest.map { "\($0.key)=\(formatted($1.nanoseconds))" }.joined(separator: " ")
            note("signals round \(round + 1)/\(options.rounds): \(figures)")
        }
        return report(options: options, perEvent: results[0], perSubscription: results[1])
    }
}

// MARK: - The workload

/// What the observer of one run saw: written by the observer, read after the run.
///
/// `@unchecked Sendable` because observers must be `@Sendable`, yet every observer of a run is
/// called on the thread that sends, one event at a time, and the totals are read only once the
/// run has ended on that same thread. A lock or an atomic here would be measured with the client.
final class Tally: @unchecked Sendable {
    /// Sum of the values observed, wrapping.
    var sum = 0
    /// Count of the values observed (or of the starts, for subscriptions).
    var count = 0
}

/// The four closures of `map → filter → map → observer`, shared by every client.
///
/// They are built by a non-inlinable factory from constants the compiler cannot know, so that the
/// plain loop calls the same closures, indirectly, that the reactive libraries call through their
/// operators: the loop measures the chain's own work, not an optimizer's rewrite of it.
struct Chain: Sendable {
    /// The first map.
    let first: @Sendable (Int) -> Int
    /// The filter: keeps three values in four.
    let keep: @Sendable (Int) -> Bool
    /// The second map.
    let second: @Sendable (Int) -> Int
    /// The observer, adding into `tally`.
    let observe: @Sendable (Int) -> Void
    /// What `observe` saw.
    let tally: Tally

    /// A chain with a fresh tally.
    @inline(never)
    static func make() -> Chain {
        // 1, 3 and 3 at run time, but only at run time: the argument list is never empty.
        let offset = CommandLine.arguments.isEmpty ? 5 : 1
        let mask = offset | 2
        let factor = mask
        let tally = Tally()
        return Chain(
            first: { $0 &+ offset },
            keep: { $0 & mask != 0 },
            second: { $0 &* factor },
            observe: { value in
                tally.sum &+= value
                tally.count &+= 1
            },
            tally: tally
        )
    }

    /// The sample for a run of `count` operations that took `nanoseconds`.
    func sample(_ nanoseconds: UInt64, per count: Int) -> Sample {
        Sample(elapsed: nanoseconds, operations: count, delivered: tally.count, checksum: tally.sum)
    }
}

extension SignalsBenchmark {
    /// The baseline: the same four closures called from a `for` loop.
    @inline(never)
    static func loop(_ events: Int) -> Sample {
        let chain = Chain.make()
        let elapsed = Measure.time {
            for value in 0..<events {
                let mapped = chain.first(value)
                if chain.keep(mapped) { chain.observe(chain.second(mapped)) }
            }
        }
        blackHole(chain.tally.sum)
        return chain.sample(elapsed.nanoseconds, per: events)
    }

    /// SluiceSignals as a user writes it: a pipe, the chain, `observeValues`, `send(value:)` in a loop.
    @inline(never)
    static func sluiceSignal(_ events: Int) -> Sample {
        let chain = Chain.make()
        let (signal, input) = Signal<Int, Never>.pipe()
        let observation = signal.map(chain.first).filter(chain.keep).map(chain.second).observeValues(chain.observe)
        let elapsed = Measure.time {
            for value in 0..<events { input.send(value: value) }
        }
        input.sendCompleted()
        observation.dispose()
        blackHole(chain.tally.sum)
        return chain.sample(elapsed.nanoseconds, per: events)
    }

    /// SluiceSignals' cold side: a producer whose start handler sends every value, started once.
    @inline(never)
    static func sluiceProducer(_ events: Int) -> Sample {
        let chain = Chain.make()
        let producer = SignalProducer<Int, Never> { observer, _ in
            for value in 0..<events { observer.send(value: value) }
            observer.sendCompleted()
        }
        let chained = producer.map(chain.first).filter(chain.keep).map(chain.second)
        let elapsed = Measure.time {
            chained.startWithValues(chain.observe)
        }
        blackHole(chain.tally.sum)
        return chain.sample(elapsed.nanoseconds, per: events)
    }

    /// OpenCombine: a `PassthroughSubject` with the same chain and a `sink`.
    @inline(never)
    static func openCombine(_ events: Int) -> Sample {
        let chain = Chain.make()
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = subject.map(chain.first).filter(chain.keep).map(chain.second)
            .sink(receiveValue: chain.observe)
        let elapsed = Measure.time {
            for value in 0..<events { subject.send(value) }
        }
        subject.send(completion: .finished)
        cancellable.cancel()
        blackHole(chain.tally.sum)
        return chain.sample(elapsed.nanoseconds, per: events)
    }

    /// SluiceSignals: a producer with one `map`, started with a value observer and disposed, in a loop.
    ///
    /// The start handler sends nothing and counts the starts: every start must have run it, and
    /// nothing may reach the observer (the checksum stays 0).
    @inline(never)
    static func sluiceStartDispose(_ cycles: Int) -> Sample {
        let chain = Chain.make()
        let starts = Tally()
        let producer = SignalProducer<Int, Never> { _, _ in starts.count &+= 1 }.map(chain.first)
        let elapsed = Measure.time {
            for _ in 0..<cycles { producer.startWithValues(chain.observe).dispose() }
        }
        let sum = chain.tally.sum
        return Sample(elapsed: elapsed.nanoseconds, operations: cycles, delivered: starts.count, checksum: sum)
    }

    /// SluiceSignals: a pipe's signal with one `map`, observed and disposed, in a loop; a value sent
    /// afterwards must reach no one, which proves every observation was detached.
    @inline(never)
    static func sluiceObserveDispose(_ cycles: Int) -> Sample {
        let chain = Chain.make()
        let (signal, input) = Signal<Int, Never>.pipe()
        let mapped = signal.map(chain.first)
        let elapsed = Measure.time {
            for _ in 0..<cycles { mapped.observeValues(chain.observe).dispose() }
        }
        input.send(value: 1)
        return Sample(elapsed: elapsed.nanoseconds, operations: cycles, delivered: cycles, checksum: chain.tally.sum)
    }

    /// OpenCombine: `subject.map` subscribed with `sink` and cancelled, in a loop; a value sent
    /// afterwards must reach no one, which proves every subscription was cancelled.
    @inline(never)
    static func openCombineSinkCancel(_ cycles: Int) -> Sample {
        let chain = Chain.make()
        let subject = PassthroughSubject<Int, Never>()
        let mapped = subject.map(chain.first)
        let elapsed = Measure.time {
            for _ in 0..<cycles { mapped.sink(receiveValue: chain.observe).cancel() }
        }
        subject.send(1)
        return Sample(elapsed: elapsed.nanoseconds, operations: cycles, delivered: cycles, checksum: chain.tally.sum)
    }
}

// MARK: - The report

extension SignalsBenchmark {
    /// The project's targets for the reactive core.
    private enum Target {
        static let sluiceNanosecondsPerEvent = 30.0
        static let openCombineOverSluicePerEvent = 6.0
        static let sluiceNanosecondsPerSubscription = 300.0
    }

    /// Builds the table, the verdicts and the JSON member from every sample. Clients left out by
    /// `--only` show as "-" and are left out of the JSON.
    private static func report(
        options: Options,
        perEvent: [(Client, [Sample])],
        perSubscription: [(Client, [Sample])]
    ) -> SuiteReport {
        func median(_ samples: [Sample]) -> Double { Measure.median(samples.map(\.nanoseconds)) }
        func best(_ samples: [Sample]) -> Double { Measure.best(samples.map(\.nanoseconds)) }
        let medians = Dictionary(uniqueKeysWithValues: (perEvent + perSubscription).map { ($0.0.key, median($0.1)) })
        func median(of key: String) -> Double { medians[key] ?? .nan }

        // Every run of every per-event client must have delivered the same values; every
        // subscription run must have started `subscriptions` times and delivered nothing.
        let reference = perEvent.first?.1.first
        let eventsAgree = perEvent.allSatisfy { _, samples in
            samples.allSatisfy { $0.checksum == reference?.checksum && $0.delivered == reference?.delivered }
        }
        let subscriptionsAgree = perSubscription.allSatisfy { _, samples in
            samples.allSatisfy { $0.checksum == 0 && $0.delivered == options.subscriptions }
        }
        let isConsistent = eventsAgree && subscriptionsAgree

        let loop = median(of: "loop_ns_per_event")
        let sluice = median(of: "sluice_ns_per_event")
        let openCombine = median(of: "opencombine_ns_per_event")
        let sluiceSubscription = median(of: "sluice_ns_per_subscription")
        let openCombineSubscription = median(of: "opencombine_ns_per_subscription")

        var events = TextTable(header: ["per event", "ns/event", "best", "× loop", "delivered", "checksum"])
        for (client, samples) in perEvent {
            events.rows.append([
                client.label, formatted(median(samples)), formatted(best(samples)),
                formatted(median(samples) / loop, decimals: 2), grouped(samples[0].delivered),
                String(samples[0].checksum),
            ])
        }
        var subscriptions = TextTable(header: ["per subscription", "ns/cycle", "best", "÷ Sluice producer"])
        for (client, samples) in perSubscription {
            subscriptions.rows.append([
                client.label, formatted(median(samples)), formatted(best(samples)),
                formatted(median(samples) / sluiceSubscription, decimals: 2),
            ])
        }
        /// "met" or "MISSED", or "n/a" when a client needed for the check did not run.
        func verdict(_ measured: Double, _ met: (Double) -> Bool) -> String {
            measured.isFinite ? (met(measured) ? "met" : "MISSED") : "n/a"
        }
        let ratio = openCombine / sluice
        let rounds = "\(options.rounds) round\(options.rounds == 1 ? "" : "s")"
        var lines = [
            "signals: \(grouped(options.events)) events through map → filter → map → observer and "
                + "\(grouped(options.subscriptions)) start + dispose cycles per client per round; "
                + "\(rounds), order rotated each round; median and best of the rounds"
        ]
        if !events.rows.isEmpty { lines += ["", events.rendered] }
        if !subscriptions.rows.isEmpty { lines += ["", subscriptions.rendered] }
        lines += [
            "",
            "Sluice per event:          \(formatted(sluice)) ns, \(formatted(sluice / loop, decimals: 2))× the plain loop "
                + "(target ≤ \(formatted(Target.sluiceNanosecondsPerEvent, decimals: 0)) ns: "
                + "\(verdict(sluice) { $0 <= Target.sluiceNanosecondsPerEvent }))",
            "OpenCombine / Sluice:      \(formatted(ratio, decimals: 2))× per event "
                + "(target ≥ \(formatted(Target.openCombineOverSluicePerEvent, decimals: 0))×: "
                + "\(verdict(ratio) { $0 >= Target.openCombineOverSluicePerEvent })), "
                + "\(formatted(openCombineSubscription / sluiceSubscription, decimals: 2))× per subscription",
            "Sluice start + dispose:    \(formatted(sluiceSubscription)) ns "
                + "(target ≤ \(formatted(Target.sluiceNanosecondsPerSubscription, decimals: 0)) ns: "
                + "\(verdict(sluiceSubscription) { $0 <= Target.sluiceNanosecondsPerSubscription }))",
            "checksums agree:           \(isConsistent ? "yes" : "NO")",
            "peak RSS of the process:   \(Measure.peakResidentKiB().map { grouped($0) + " KiB" } ?? "unknown")",
        ]

        let keys = [
            "sluice_ns_per_event", "loop_ns_per_event", "opencombine_ns_per_event",
            "sluice_ns_per_subscription", "opencombine_ns_per_subscription",
            "sluice_producer_ns_per_event", "sluice_signal_ns_per_subscription",
        ]
        var members = keys.compactMap { key in medians[key].map { (key, JSON.number($0)) } }
        if ratio.isFinite { members.append(("opencombine_over_sluice_per_event", .number(ratio))) }
        if (sluice / loop).isFinite { members.append(("sluice_over_loop_per_event", .number(sluice / loop))) }
        members += [
            ("events", .integer(options.events)),
            ("subscriptions", .integer(options.subscriptions)),
            ("rounds", .integer(options.rounds)),
            ("checksums_agree", .bool(isConsistent)),
        ]
        if let peak = Measure.peakResidentKiB() { members.append(("peak_rss_kib", .integer(peak))) }
        return SuiteReport(text: lines.joined(separator: "\n"), json: .object(members), isConsistent: isConsistent)
    }
}
