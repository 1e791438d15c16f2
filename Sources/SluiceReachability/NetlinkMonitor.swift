import FoundationEssentials
import Sluice

#if canImport(Glibc)
    import Glibc
#endif

/// Watches the kernel's links, addresses and routes through one netlink socket, for every
/// `Reachability` of the process (`shared`), or of one network namespace (tests make their own).
///
/// The socket is opened when the first subscriber comes and closed when the last one leaves, from
/// any thread. One reader thread owns the socket and the `StateMachine`; it delivers every update
/// and every lookup answer, so each subscriber sees them serially and in order. Other threads talk
/// to it through a `Session`'s inbox and wake it with an eventfd.
final class NetlinkMonitor: Sendable {
    /// What subscribers receive.
    enum Update: Sendable {
        /// The kernel's tables, after the first full read and after each change.
        case snapshot(NetworkSnapshot)
        /// The monitor could not start or stopped working; there will be no snapshots until it
        /// starts again (when a subscriber comes while it is stopped).
        case failed(SluiceError)
    }

    /// Receives updates, on the reader thread (or, for an opening failure, on the subscribing one).
    typealias Handler = @Sendable (Update) -> Void
    /// Opens the socket the monitor reads: where the tests choose the network namespace.
    typealias Opener = @Sendable () throws(SluiceError) -> NetlinkSocket

    /// The monitor of the process's own network namespace.
    static let shared = NetlinkMonitor(probesSysfs: true) { () throws(SluiceError) in
        try NetlinkSocket.open(groups: Netlink.monitorGroups)
    }

    private struct State {
        var subscribers: [UInt64: Handler] = [:]
        var nextID: UInt64 = 0
        var session: Session?
        /// Whether a thread is opening the socket: others wait for its first publication.
        var isStarting = false
        var socketsOpened = 0
    }

    private let state = Lock(State())
    private let opener: Opener
    private let probe: NetworkSnapshot.WirelessProbe

    /// A monitor of the socket `opener` makes; `probesSysfs` only when that socket is in the
    /// process's own network namespace, the one `/sys/class/net` shows.
    init(probesSysfs: Bool, opener: @escaping Opener) {
        self.opener = opener
        if probesSysfs {
            probe = InterfaceKind.sysfsSaysWireless
        } else {
            probe = { _ in false }
        }
    }

    /// How many sockets the monitor has opened so far (tests check that subscribers share one).
    var socketsOpened: Int { state.withLock { $0.socketsOpened } }

    /// Whether a reader is running.
    var isRunning: Bool { state.withLock { $0.session != nil } }

    /// Adds a subscriber, starting the monitor if it is not running; dispose the result to leave.
    func subscribe(_ handler: @escaping Handler) -> any Disposable {
        let (id, session, needsStart) = state.withLock { s in
            s.nextID += 1
            s.subscribers[s.nextID] = handler
            let needsStart = s.session == nil && !s.isStarting
            if needsStart { s.isStarting = true }
            return (s.nextID, s.session, needsStart)
        }
        if needsStart {
            start()
        } else if let session {
            // The reader hands the current snapshot over, so it never races a newer one.
            session.post { $0.replays.append(id) }
        }
        return AnyDisposable { [weak self] in self?.unsubscribe(id) }
    }

    /// Asks the kernel for its route to `address`; `completion` runs once, on the reader thread, or
    /// at once with `.unavailable` when the monitor is not running.
    func lookUpRoute(to address: IPAddress, _ completion: @escaping @Sendable (RouteLookup) -> Void) {
        guard let session = state.withLock({ $0.session }) else { return completion(.unavailable) }
        session.post { inbox in
            inbox.nextLookup += 1
            inbox.lookups.append((inbox.nextLookup, address, completion))
        }
    }

    private func unsubscribe(_ id: UInt64) {
        let stopping = state.withLock { s -> Session? in
            s.subscribers[id] = nil
            guard s.subscribers.isEmpty, let session = s.session else { return nil }
            s.session = nil
            return session
        }
        stopping?.post { $0.stop = true }
    }

    private func start() {
        let opened = Result { () throws(SluiceError) -> (NetlinkSocket, Session) in
            let socket = try opener()
            do throws(SluiceError) {
                return (socket, try Session())
            } catch {
                socket.close()
                throw error
            }
        }
        switch opened {
        case .failure(let error):
            // Subscribers that came while the socket was being opened hear of the failure too.
            let handlers = state.withLock { s in
                s.isStarting = false
                return Array(s.subscribers.values)
            }
            deliver(.failed(error), to: handlers)
        case .success(let (socket, session)):
            let isWanted = state.withLock { s -> Bool in
                s.isStarting = false
                s.socketsOpened += 1
                // Every subscriber may have left meanwhile.
                guard !s.subscribers.isEmpty else { return false }
                s.session = session
                return true
            }
            guard isWanted else { return socket.close() }
            DetachedThread.start(name: "sluice.netlink") { [self] in read(socket, session) }
        }
    }

    /// The reader thread: runs the state machine until it is stopped or fails.
    private func read(_ socket: NetlinkSocket, _ session: Session) {
        defer { socket.close() }
        var machine = StateMachine(port: socket.port, isWireless: probe)
        var actions = machine.start()
        do throws(SluiceError) {
            while true {
                try perform(actions, session, socket)
                actions = []
                let ready = try waitForReadable(socket, session.wake)
                if ready.wake {
                    session.wake.drain()
                    let inbox = session.takeInbox()
                    if inbox.stop { return }
                    for (id, address, completion) in inbox.lookups {
                        session.completions.withLock { $0[id] = completion }
                        actions += machine.lookUpRoute(to: address, id: id)
                    }
                    if machine.isSynchronized, !inbox.replays.isEmpty {
                        let handlers = state.withLock { s in inbox.replays.compactMap { s.subscribers[$0] } }
                        deliver(.snapshot(machine.snapshot), to: handlers)
                    }
                }
                if ready.socket { actions += try receive(from: socket, into: &machine) }
            }
        } catch {
            fail(session, error)
        }
    }

    private func receive(from socket: NetlinkSocket, into machine: inout StateMachine) throws(SluiceError)
        -> [StateMachine.Action]
    {
        let bytes: [UInt8]
        do {
            bytes = try socket.receive()
        } catch  where error.systemErrno == ENOBUFS {
            return machine.overrun()
        }
        guard let messages = try? NetlinkParser.parse(bytes) else {
            // Bytes the parser rejects mean our copy may miss something: read everything again.
            return machine.overrun()
        }
        return machine.receive(messages)
    }

    private func perform(_ actions: [StateMachine.Action], _ session: Session, _ socket: NetlinkSocket)
        throws(SluiceError)
    {
        for action in actions {
            switch action {
            case .send(let bytes):
                try socket.send(bytes)
            case .publish(let snapshot):
                deliver(.snapshot(snapshot), to: state.withLock { Array($0.subscribers.values) })
            case .answer(let id, let lookup):
                session.completions.withLock { $0.removeValue(forKey: id) }?(lookup)
            case .forget(let id):
                session.completions.withLock { $0[id] = nil }
            case .giveUp(let reason):
                throw SluiceError(.reachabilityUnavailable, "The network monitor stopped: \(reason).")
            }
        }
    }

    private func fail(_ session: Session, _ error: SluiceError) {
        let handlers = state.withLock { s -> [Handler] in
            if s.session === session { s.session = nil }
            return Array(s.subscribers.values)
        }
        let waiting = session.completions.withLock { completions in
            defer { completions.removeAll() }
            return Array(completions.values)
        }
        for completion in waiting { completion(.unavailable) }
        deliver(.failed(error), to: handlers)
    }

    private func deliver(_ update: Update, to handlers: [Handler]) {
        for handler in handlers { handler(update) }
    }
}

extension NetlinkMonitor {
    /// One run of the reader: its wake-up descriptor, the work other threads queue for it, and the
    /// completions of the lookups it is answering.
    final class Session: Sendable {
        struct Inbox {
            var stop = false
            var replays: [UInt64] = []
            var nextLookup: StateMachine.LookupID = 0
            var lookups: [(StateMachine.LookupID, IPAddress, @Sendable (RouteLookup) -> Void)] = []
        }

        let wake: WakeDescriptor
        private let inbox = Lock(Inbox())
        let completions = Lock<[StateMachine.LookupID: @Sendable (RouteLookup) -> Void]>([:])

        init() throws(SluiceError) {
            wake = try WakeDescriptor()
        }

        /// Queues work for the reader and wakes it.
        func post(_ change: (inout Inbox) -> Void) {
            inbox.withLock(change)
            wake.signal()
        }

        /// Takes the queued work (keeping the lookup counter).
        func takeInbox() -> Inbox {
            inbox.withLock { inbox in
                defer {
                    inbox.replays = []
                    inbox.lookups = []
                }
                return inbox
            }
        }
    }
}
