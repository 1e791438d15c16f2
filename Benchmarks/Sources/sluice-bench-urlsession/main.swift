import BenchChild

// `sluice-bench-urlsession`: URLSession's child. It links the harness and FoundationNetworking (with
// Foundation), as a program on URLSession does, and nothing of Sluice, SwiftNIO or libcurl's C client.
ChildProgram.main(client: .urlsession, contender: { URLSessionContender(context: $0) })
