import FoundationEssentials

/// The header block of each part, escaped as the HTML standard's multipart/form-data encoding says.
///
/// Field names have their line breaks normalized to CRLF; then in names and file names `"` becomes
/// `%22`, CR `%0D` and LF `%0A`, so a name can never close its quotes or start a new header line.
/// Other characters, non-ASCII ones included, are sent as UTF-8, as browsers send them; a file
/// name that is not ASCII is also given as RFC 8187's `filename*=UTF-8''…` for servers that read it.
extension MultipartFormData {
    /// `Content-Disposition`, then `Content-Type` when the part has one, then the blank line.
    static func headerBlock(for part: Part) throws(SluiceError) -> Data {
        var text = "Content-Disposition: form-data; name=\"\(escapedName(part.name))\""
        if let fileName = part.fileName {
            text += "; filename=\"\(escapedFileName(fileName))\""
            if !fileName.unicodeScalars.allSatisfy(\.isASCII) {
                text += "; filename*=UTF-8''\(extendedValue(fileName))"
            }
        }
        text += "\r\n"
        if let mimeType = part.mimeType {
            if mimeType.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
                throw SluiceError(
                    .invalidHeader,
                    "The MIME type of part \"\(part.name)\" contains CR, LF or NUL, which could inject headers.")
            }
            text += "Content-Type: \(mimeType)\r\n"
        }
        text += "\r\n"
        return Data(text.utf8)
    }

    /// A field name: line breaks (CR, LF or CRLF) become `%0D%0A`, quotes `%22`.
    static func escapedName(_ name: String) -> String {
        var result = ""
        var previousWasCR = false
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\r":
                result += "%0D%0A"
                previousWasCR = true
                continue
            case "\n":
                if !previousWasCR { result += "%0D%0A" }
            case "\"":
                result += "%22"
            default:
                result.unicodeScalars.append(scalar)
            }
            previousWasCR = false
        }
        return result
    }

    /// A file name: CR becomes `%0D`, LF `%0A` and quotes `%22`; nothing else changes.
    static func escapedFileName(_ fileName: String) -> String {
        var result = ""
        for scalar in fileName.unicodeScalars {
            switch scalar {
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            case "\"": result += "%22"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The RFC 8187 value of a parameter: UTF-8 bytes, those outside `attr-char` percent-encoded.
    static func extendedValue(_ value: String) -> String {
        let attributeCharacters = Set("!#$&+-.^_`|~".utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in value.utf8 {
            let isAlphanumeric =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            if isAlphanumeric || attributeCharacters.contains(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
