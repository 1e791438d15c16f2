import Sluice

extension NetlinkMonitor {
    /// The monitor's logic without its socket: messages and requests in, actions out.
    ///
    /// It reads the kernel's tables with one dump after another (links, addresses, routes: netlink
    /// runs one dump per socket at a time), applies notifications as they come, and publishes the
    /// snapshot whenever it changed once the first full read is done. A dump replaces its table
    /// only when it finishes, and notifications that arrive meanwhile are applied to both the live
    /// snapshot and the dump being collected, so none is lost. When the socket overflowed (messages
    /// were dropped) or the kernel flags a dump as inconsistent, the tables are read again.
    ///
    /// Replies are told from notifications by the port: the kernel addresses replies to our port,
    /// while a notification carries the port of whoever made the change (and that process's own
    /// sequence number, which may equal one of ours).
    struct StateMachine {
        /// What the monitor must do.
        enum Action: Equatable {
            /// Send these bytes to the kernel.
            case send([UInt8])
            /// Give this snapshot to every subscriber.
            case publish(NetworkSnapshot)
            /// Give the answer of a route lookup to whoever asked.
            case answer(LookupID, RouteLookup)
            /// Drop a lookup whose answer was lost: its asker will ask again after the next publication.
            case forget(LookupID)
            /// Stop: the kernel keeps refusing to be read.
            case giveUp(reason: String)
        }

        /// Identifies a route lookup between the monitor and the state machine.
        typealias LookupID = UInt64

        private struct ActiveDump {
            var table: NetlinkRequest.Dump
            var sequence: UInt32
            var collected = NetworkSnapshot()
            var isInconsistent = false
        }

        /// How many times in a row a dump may fail before the monitor gives up.
        static let maximumDumpFailures = 3

        /// The kernel's tables as far as they are known.
        private(set) var snapshot = NetworkSnapshot()
        /// Whether the first full read has finished, so `snapshot` is worth publishing.
        private(set) var isSynchronized = false

        private let port: UInt32
        private let probe: NetworkSnapshot.WirelessProbe
        private var pendingDumps: [NetlinkRequest.Dump] = []
        private var activeDump: ActiveDump?
        private var dumpFailures = 0
        private var nextSequence: UInt32 = 0
        private var lookups: [UInt32: LookupID] = [:]

        /// A state machine for the socket bound to `port`; `probe` adds what sysfs knows of wireless links.
        init(port: UInt32, isWireless probe: @escaping NetworkSnapshot.WirelessProbe) {
            self.port = port
            self.probe = probe
        }

        /// Starts the first read of the tables.
        mutating func start() -> [Action] {
            readAllTables()
        }

        /// Messages were dropped (`ENOBUFS`): reads the tables again. Lookups in flight may have lost
        /// their answers; they are forgotten, and the publication after the new read makes their
        /// askers ask again.
        mutating func overrun() -> [Action] {
            let forgotten = lookups.values.sorted().map(Action.forget)
            lookups.removeAll()
            return forgotten + readAllTables()
        }

        /// Asks the kernel for its route to `address`.
        mutating func lookUpRoute(to address: IPAddress, id: LookupID) -> [Action] {
            let sequence = takeSequence()
            lookups[sequence] = id
            return [.send(NetlinkRequest.route(to: address, sequence: sequence))]
        }

        /// Handles the messages of one datagram.
        mutating func receive(_ messages: [NetlinkMessage]) -> [Action] {
            var actions: [Action] = []
            let before = snapshot
            var finishedRead = false
            for message in messages {
                if message.port == port, message.sequence != 0 {
                    if let answer = answerLookup(message) {
                        actions.append(answer)
                        continue
                    }
                    if let dump = activeDump, dump.sequence == message.sequence {
                        actions += handleDumpMessage(message, &finishedRead)
                        continue
                    }
                }
                // A notification: it may be newer than what the running dump has already written out.
                snapshot.apply(message, isWireless: probe)
                activeDump?.collected.apply(message, isWireless: probe)
            }
            if isSynchronized, finishedRead || snapshot != before { actions.append(.publish(snapshot)) }
            return actions
        }

        private mutating func answerLookup(_ message: NetlinkMessage) -> Action? {
            guard let id = lookups[message.sequence] else { return nil }
            switch message.payload {
            case .route(let route):
                lookups[message.sequence] = nil
                return .answer(id, .route(route))
            case .error(let code) where code != 0:
                lookups[message.sequence] = nil
                return .answer(id, .failed(code: code))
            default:
                return nil  // an acknowledgement, or something unexpected: the answer is still to come
            }
        }

        private mutating func handleDumpMessage(_ message: NetlinkMessage, _ finishedRead: inout Bool) -> [Action] {
            guard var dump = activeDump else { return [] }
            if message.isDumpInterrupted { dump.isInconsistent = true }
            switch message.payload {
            case .done:
                activeDump = nil
                if dump.isInconsistent {
                    // The table changed while the kernel was writing it out: read it again.
                    pendingDumps.insert(dump.table, at: 0)
                } else {
                    snapshot.replace(dump.table, with: dump.collected)
                    dumpFailures = 0
                }
                if pendingDumps.isEmpty {
                    finishedRead = true
                    isSynchronized = true
                    return []
                }
                return startNextDump()
            case .error(let code) where code != 0:
                activeDump = nil
                dumpFailures += 1
                guard dumpFailures < Self.maximumDumpFailures else {
                    return [.giveUp(reason: "the kernel refused to list its \(dump.table) (error \(-code))")]
                }
                pendingDumps.insert(dump.table, at: 0)
                return startNextDump()
            default:
                dump.collected.apply(message, isWireless: probe)
                activeDump = dump
                return []
            }
        }

        /// Queues a read of every table; starts it unless a dump is running (its end will).
        private mutating func readAllTables() -> [Action] {
            pendingDumps = NetlinkRequest.Dump.allCases
            if var dump = activeDump {
                // Its result may miss what was dropped: let it finish, then read everything again.
                dump.isInconsistent = true
                activeDump = dump
                pendingDumps.removeAll { $0 == dump.table }
                return []
            }
            return startNextDump()
        }

        private mutating func startNextDump() -> [Action] {
            guard !pendingDumps.isEmpty else { return [] }
            let table = pendingDumps.removeFirst()
            let sequence = takeSequence()
            activeDump = ActiveDump(table: table, sequence: sequence)
            return [.send(NetlinkRequest.dump(table, sequence: sequence))]
        }

        private mutating func takeSequence() -> UInt32 {
            // Zero is what notifications the kernel makes on its own carry: never use it.
            nextSequence = nextSequence == UInt32.max ? 1 : nextSequence + 1
            return nextSequence
        }
    }
}
