extension StringProtocol {
    /// The text without the leading and trailing whitespace of Foundation's
    /// `CharacterSet.whitespaces`: the tab, Unicode's space separators (category Zs) and, as
    /// CoreFoundation still counts it, the zero width space U+200B.
    ///
    /// Done in the standard library: `trimmingCharacters(in:)` goes through NSString and
    /// CFCharacterSet, and making the default headers was all that brought their code into
    /// memory (about half a MiB of resident pages for the life of the process).
    func trimmingWhitespace() -> String {
        let scalars = Substring(self).unicodeScalars
        let isWhitespace = { (scalar: Unicode.Scalar) -> Bool in
            scalar.isASCII
                ? scalar == " " || scalar == "\t"
                : scalar.properties.generalCategory == .spaceSeparator || scalar == "\u{200B}"
        }
        guard let first = scalars.firstIndex(where: { !isWhitespace($0) }),
            let last = scalars.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return String(Substring(scalars[first...last]))
    }
}

extension String {
    /// The text without leading and trailing double quotes (`"0.5"` gives `0.5`).
    func trimmingQuotes() -> String {
        guard let first = firstIndex(where: { $0 != "\"" }), let last = lastIndex(where: { $0 != "\"" }) else {
            return ""
        }
        return String(self[first...last])
    }
}
