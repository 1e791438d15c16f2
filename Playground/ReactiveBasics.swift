import Sluice

/// Step 1: the reactive core that every request flows through.
enum ReactiveBasics {
    static func run() async {
        Tour.step("Signals: hot streams that many observers can watch")
        let (temperatures, input) = Signal<Double, Never>.pipe()
        let disposable =
            temperatures
            .map { celsius in celsius * 9 / 5 + 32 }
            .filter { $0 > 50 }
            .observeValues { fahrenheit in print("  warm: \(fahrenheit)°F") }
        for celsius in [5.0, 12.5, 21.0] { input.send(value: celsius) }
        disposable.dispose()

        Tour.step("SignalProducers: cold work that runs afresh on every start")
        let countdown = SignalProducer<Int, Never>(values: [3, 2, 1])
            .map { "  \($0)…" }
            .concat(value: "  lift-off")
        countdown.startWithValues { print($0) }

        Tour.step("Async bridges: await a producer, cancel by cancelling the task")
        let answer = SignalProducer<Int, Never> { () async -> Int in 42 }
        if let value = await answer.value { print("  the answer is \(value)") }

        Tour.step("Properties: a current value and its changes")
        let progress = MutableProperty(0.0)
        progress.producer
            .map { Int($0 * 100) }
            .skipRepeats()
            .startWithValues { print("  progress \($0)%") }
        for step in 1...4 { progress.value = Double(step) / 4 }

        Tour.step("Retry in virtual time: a TestScheduler drives the clock")
        let scheduler = TestScheduler()
        let attempts = MutableProperty(0)
        let flaky = SignalProducer<String, DemoError>(resultOf: {
            let attempt = attempts.modify { n -> Int in
                n += 1
                return n
            }
            return attempt < 3 ? .failure(.unavailable(attempt)) : .success("  succeeded on attempt \(attempt)")
        })
        flaky
            .retry(on: scheduler) { attempt, _ in .seconds(attempt) }
            .startWithValues { print($0) }
        scheduler.advance(by: .seconds(10))
        print("  virtual time elapsed: \(scheduler.currentDate.timeIntervalSinceReferenceDate) s")
    }
}

/// An error for the tour's flaky producer.
enum DemoError: Error {
    case unavailable(Int)
}
