import Foundation
import Sluice
import SluiceTesting
import Testing

/// A request's producer makes the state of its first start with the producer (the exchange, the
/// validation's and the serializer's runs): a producer started again, or on several threads at
/// once, sends each start's request anew and lets no start inherit another's outcome.
@Suite("A request's producer started more than once")
struct RequestProducerRestartTests {
    @Test func aSecondStartSendsAgainAndDoesNotInheritTheFirstsFailure() async throws {
        try await withServer { server, transport in
            server.script("/flip", .text("not yet", status: 503), .text("ready"))
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let producer = client.get("flip").validate().string()
            let first = await #expect(throws: SluiceError.self) { try await producer.value }
            #expect(first?.code == .unacceptableStatusCode)
            #expect(try await producer.value == "ready")
            #expect(try await producer.value == "ready")
            #expect(server.requests(to: "/flip").count == 3)
        }
    }

    @Test func startsOnSeveralThreadsAtOnceEachGetTheirOwnResponse() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let producer = client.get("echo").validate().data()
            try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<16 { group.addTask { try await producer.value } }
                var count = 0
                for try await body in group {
                    #expect(!body.isEmpty)
                    count += 1
                }
                #expect(count == 16)
            }
            #expect(server.requests(to: "/echo").count == 16)
        }
    }

    @Test func aFinishedRequestKeepsNothingAlive() async throws {
        // The stages made with their producers hold the producer above them: an exchange that kept
        // its observer after the end would keep them, itself and the subscription alive for good.
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            for chain in [0, 1, 2] {
                weak var subscription: AnyObject?
                let ended = Lock(false)
                do {
                    let request = client.get("echo")
                    let producer: SignalProducer<Data, SluiceError> =
                        switch chain {
                        case 0: request.map(\.body)
                        case 1: request.validate().map(\.body)
                        default: request.validate().data()
                        }
                    let disposable = producer.start { event in
                        if event.isTerminating { ended.withLock { $0 = true } }
                    }
                    subscription = disposable as AnyObject
                }
                try await eventually("request \(chain) ends") { ended.withLock { $0 } }
                try await eventually("request \(chain)'s subscription is released") { subscription == nil }
            }
        }
    }

    @Test func eachStartIsItsOwnTaskInTheClientsEvents() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            let completions = Lock<[TaskID]>([])
            let observation = client.events.observeValues { event in
                if case .completed = event.kind { completions.withLock { $0.append(event.taskID) } }
            }
            defer { observation.dispose() }
            let producer = client.get("echo").validate().data()
            _ = try await producer.value
            _ = try await producer.value
            try await eventually("both starts complete") { completions.withLock { $0.count } == 2 }
            #expect(Set(completions.withLock { $0 }).count == 2, "two tasks, each completed once")
        }
    }
}
