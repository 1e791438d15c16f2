import Dispatch
import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Testing

@Suite("TransferControl under races")
struct TransferControlRaceTests {
    /// A control suspended before its transfer starts, resumed from another thread while the
    /// transfer binds it: whichever comes first, the transfer ends up running and completes, and
    /// the control says it is not suspended. (When the pause and the resume were sent after the
    /// control's lock was released, the resume could reach the loop first and leave the transfer
    /// paused for good.)
    @Test func aResumeRacingTheStartNeverLeavesTheTransferPaused() async throws {
        try await withServer { server, transport in
            let request = try Request(url: server.url(for: .bytes(2_000))).prepared()
            for round in 0..<100 {
                let control = TransferControl()
                control.suspend()
                let recorder = TransferRecorder()
                let producer = transport.transfer(request, control: control)
                let go = DispatchSemaphore(value: 0)
                let resumed = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    go.wait()
                    control.resume()
                    resumed.signal()
                }
                go.signal()
                producer.start(recorder.observer)
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async {
                        resumed.wait()
                        continuation.resume()
                    }
                }
                // A transfer left paused never ends: the bound turns that hang into a failure.
                try await eventually("round \(round): the transfer ends (it stayed paused)", timeout: .seconds(30)) {
                    recorder.terminal != nil
                }
                #expect(!control.isSuspended)
                #expect(
                    recorder.terminal?.isCompleted == true, "round \(round): \(String(describing: recorder.terminal))")
                #expect(recorder.bodyBytes == 2_000)
            }
        }
    }
}
