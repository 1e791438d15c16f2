import BenchChild
import Foundation

extension E2EBenchmark {
    /// Runs one measurement in the child binary of `client` (`E2EChild` there) and returns its sample,
    /// nil if the child failed.
    static func runChild(_ client: E2EClient, _ workload: E2EWorkload, _ context: E2EContext) -> E2ESample? {
        let arguments = [E2EChild.subcommand, client.rawValue, workload.key] + context.arguments
        let outcome: (status: Int32, output: String)
        do {
            outcome = try Subprocess.run(
                Subprocess.child(client), arguments, deadlineSeconds: E2EContext.deadlineSeconds)
        } catch {
            note("e2e: the \(client.rawValue) \(workload.key) child did not start: \(error)")
            return nil
        }
        // The child's one line: ns, CPU µs, peak KiB, baseline KiB, succeeded. Status 1 with the line
        // is a run where some operations failed: its count of successes still counts.
        let fields = outcome.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard outcome.status == 0 || outcome.status == 1, fields.count == 5 else {
            note(
                "e2e: the \(client.rawValue) \(workload.key) child failed (status \(outcome.status)): "
                    + outcome.output.trimmingCharacters(in: .whitespacesAndNewlines))
            return nil
        }
        return E2ESample(
            nanoseconds: Double(fields[0]), cpuMicroseconds: Double(fields[1]), peakKiB: fields[2],
            baselineKiB: fields[3], succeeded: fields[4])
    }
}
