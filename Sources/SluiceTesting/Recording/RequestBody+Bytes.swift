import Foundation
import Sluice

extension RequestBody {
    /// The body's bytes, read whole (a file's, a stream's from a new reader): what a recording
    /// keeps and matches on.
    func bytes() throws(SluiceError) -> Data {
        switch self {
        case .empty: return Data()
        case .data(let data): return data
        case .file(let url):
            do {
                return try Data(contentsOf: url)
            } catch {
                throw SluiceError(.invalidBody, "The body file \(url.path) could not be read.", underlyingError: error)
            }
        case .stream(let provider):
            do {
                let reader = try provider.makeReader()
                var data = Data()
                var buffer = [UInt8](repeating: 0, count: 64 << 10)
                while true {
                    let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
                    if count == 0 { return data }
                    data.append(contentsOf: buffer[..<count])
                }
            } catch {
                throw SluiceError(.invalidBody, "The streamed body could not be read.", underlyingError: error)
            }
        }
    }
}
