/// Why the benchmark could not run: the server would not start, a child failed, a run timed out.
public struct BenchmarkFailure: Error, CustomStringConvertible {
    /// What went wrong, for people.
    public let description: String

    /// A failure explained by `description`.
    public init(_ description: String) { self.description = description }
}
