import Foundation
import Sluice
import SluiceTesting

// The guided tour of Sluice. Each step is a small file in this folder that reads like
// documentation; `make demo` runs them in order against an embedded MockServer on 127.0.0.1,
// or against a MockServer-compatible server given with `--base-url URL`.

print("Sluice \(SluiceInfo.version) on libcurl \(SluiceInfo.libcurlVersion)")

await ReactiveBasics.run()

let arguments = CommandLine.arguments
let server: MockServer?
let baseURL: String
if let index = arguments.firstIndex(of: "--base-url"), index + 1 < arguments.count {
    server = nil
    baseURL = arguments[index + 1]
} else {
    let embedded = try await MockServer.start()
    server = embedded
    baseURL = embedded.baseURL.absoluteString
}
print("\nTalking HTTP to \(baseURL)")

do {
    let client = try Client(baseURL: baseURL)
    try await FirstRequests.run(client)
    try await ValidationAndDecoding.run(client)
    try await StreamingDownload.run(client)
    try await MultipartUpload.run(client)
    try await CancellingAndBatches.run(client)
    try await AwaitingOnTheTransport.run(client)
    try await LeanHeaders.run(baseURL: baseURL)
    try await InterceptorsTour.run(baseURL: baseURL)
    try await CacheTour.run(baseURL: baseURL)
    try await TasksAndEvents.run(client)
    try await OneRequestsOptions.run(client)
    try await EventStreamTour.run(client)
    try await ResumableDownloads.run(client)
    try await RecordingTour.run(baseURL: baseURL)
    try await ReachabilityTour.run(client)
    try await TLSTour.run()
    try await ConnectionsTour.run()
    try await CookiesTour.run(baseURL: baseURL)
} catch {
    print("The tour stopped: \(error)")
}
try await server?.shutdown()
print("\nDone.")
