internal import CCurl

/// A libcurl string list (`curl_slist`) that frees itself: for list options that libcurl borrows
/// rather than copies, kept alive by the easy handle for as long as the option points at it.
final class CurlStringList {
    /// The list; nil for an empty one.
    let raw: UnsafeMutablePointer<curl_slist>?

    init(_ lines: [String]) {
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for line in lines {
            list = line.withCString { curl_slist_append(list, $0) }
        }
        raw = list
    }

    deinit {
        if let raw { curl_slist_free_all(raw) }
    }
}
