import Sluice

/// Why a property-list body could not be read, in words: `<integer> "abc" is not an integer`,
/// `a binary property list's object 3 contains itself`.
///
/// The serializer turns it into a `SluiceError` whose message starts `malformed property list: `.
struct PropertyListSyntaxError: Error, Equatable, CustomStringConvertible {
    /// What is wrong.
    let message: String

    /// An error saying `message`.
    init(_ message: String) {
        self.message = message
    }

    /// The message, so the error reads well when it is printed on its own.
    var description: String { message }
}
