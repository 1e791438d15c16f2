/// What the benchmark's private nginx (`LocalNginx`, in the parent) serves and where: the parent
/// writes its configuration from these, and the children request them.
public enum NginxRoutes {
    /// The small response body: 100 bytes.
    public static let smallPayload = String(repeating: "0123456789", count: 10)
    /// The path of the small response.
    public static let smallPath = "/small"
    /// The path of the big file.
    public static let bigPath = "/big.bin"
    /// Where small bodies are POSTed; the answer is `ok`.
    public static let postPath = "/post"
    /// Where large bodies are POSTed; the answer is the request's length in bytes, head included.
    public static let uploadPath = "/upload"
    /// The end-to-end suite's JSON document (`E2ECatalog.sample`), served as application/json.
    public static let jsonPath = "/item.json"
}
