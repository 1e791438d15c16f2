import FoundationEssentials
import Sluice

/// Entry points for the fuzz targets (`Fuzz/`, `make fuzz`): Sluice's own document parsers over
/// arbitrary bytes. A parser may refuse its input; it must not crash, hang or leave its buffer.
/// Not for applications.
package enum SluiceFormatsFuzzing {
    /// Parses `bytes` as a JSON document.
    package static func json(_ bytes: UnsafeBufferPointer<UInt8>) {
        _ = try? JSONDocumentParser.parse(bytes)
    }

    /// Parses `bytes` as an XML document, with the options the first byte chooses.
    package static func xml(_ bytes: UnsafeBufferPointer<UInt8>) {
        var options = XMLDocumentParser.Options()
        if let first = bytes.first {
            options.keepsTextAsWritten = first & 1 != 0
            options.acceptsLooseStart = first & 2 != 0
        }
        _ = try? XMLDocumentParser.parse(bytes, options: options)
    }

    /// Parses `bytes` as a binary property list.
    package static func binaryPropertyList(_ bytes: UnsafeBufferPointer<UInt8>) {
        _ = try? BinaryPropertyList.parse(Data(bytes))
    }

    /// Parses `bytes` as an XML property list, and its text as each of the text forms of values.
    package static func xmlPropertyList(_ bytes: UnsafeBufferPointer<UInt8>) {
        _ = try? XMLPropertyList.parse(Data(bytes))
        let text = String(decoding: bytes, as: UTF8.self)
        _ = try? PropertyListText.integer(text)
        _ = try? PropertyListText.real(text)
        _ = try? PropertyListText.data(text)
        _ = try? PropertyListText.date(text)
    }
}
