import FoundationEssentials

extension MultipartFormData {
    /// The MIME type Sluice's small built-in table gives a file name extension (compared
    /// case-insensitively), or `application/octet-stream` for one it does not list.
    ///
    /// Pass `mimeType:` when appending a part to send another type.
    public static func mimeType(forPathExtension pathExtension: String) -> String {
        mimeTypes[pathExtension.lowercased()] ?? "application/octet-stream"
    }

    /// The built-in table: the types people upload most.
    private static let mimeTypes: [String: String] = [
        "png": "image/png",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
        "webp": "image/webp",
        "svg": "image/svg+xml",
        "txt": "text/plain",
        "htm": "text/html",
        "html": "text/html",
        "csv": "text/csv",
        "json": "application/json",
        "xml": "application/xml",
        "pdf": "application/pdf",
        "zip": "application/zip",
        "gz": "application/gzip",
        "mp4": "video/mp4",
        "mp3": "audio/mpeg",
        "bin": "application/octet-stream",
    ]
}
