import Sluice

/// Why `XMLDocumentParser` refused a document, and where.
///
/// The position is 1-based and counts characters (Unicode scalars), not bytes, so it matches what
/// an editor shows; CR LF, a lone CR and a lone LF each end one line.
struct XMLSyntaxError: Error, Equatable, CustomStringConvertible {
    /// The line of the offending character, from 1.
    let line: Int
    /// The column of the offending character within its line, from 1.
    let column: Int
    /// What is wrong, e.g. `mismatched end tag </a>, expected </b>`.
    let message: String

    /// `line L, column C: message`, so the error reads well when it is printed on its own.
    var description: String { "line \(line), column \(column): \(message)" }
}
