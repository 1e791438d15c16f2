extension SignalProducer {
    /// Runs `next` after this producer completes, sending the values of both in order.
    /// A failure or interruption of this producer ends the stream without starting `next`.
    public func concat(_ next: SignalProducer<Value, Failure>) -> SignalProducer<Value, Failure> {
        let first = self
        return SignalProducer(serialized: { downstream, lifetime in
            let inner = SerialDisposable()
            lifetime += inner
            let firstObserver = Observer<Value, Failure> { event in
                guard case .completed = event else { return downstream.send(event) }
                // The first run is over: its events have all been delivered, so the second
                // run's events cannot overlap them.
                next.start(Observer(downstream.send), in: inner)
            }
            // Its own subscription, so its resources are released as soon as it completes.
            lifetime += first.start(firstObserver)
        })
    }

    /// Runs `replacement` after this producer completes, ignoring this producer's values.
    public func then<U>(_ replacement: SignalProducer<U, Failure>) -> SignalProducer<U, Failure> {
        SignalProducer<U, Failure>(serialized: { downstream, lifetime in
            let inner = SerialDisposable()
            lifetime += inner
            lifetime += self.start(
                Observer { event in
                    switch event {
                    case .value: break
                    case .completed: replacement.start(Observer(downstream.send), in: inner)
                    default: downstream.sendTerminal(event)
                    }
                })
        })
    }

    /// Sends `value` first, then the values of this producer.
    public func prefix(value: Value) -> SignalProducer<Value, Failure> {
        SignalProducer(value: value).concat(self)
    }

    /// Sends `value` after this producer's values, before it completes.
    public func concat(value: Value) -> SignalProducer<Value, Failure> {
        concat(SignalProducer(value: value))
    }
}
