import BenchChild

// `sluice-bench-ahc`: AsyncHTTPClient's child. It links the harness, AsyncHTTPClient and the SwiftNIO
// it runs on (and what they bring), as a program on AsyncHTTPClient does, and nothing of Sluice,
// FoundationNetworking or libcurl's C client.
ChildProgram.main(client: .ahc, contender: { AsyncHTTPClientContender(context: $0) })
