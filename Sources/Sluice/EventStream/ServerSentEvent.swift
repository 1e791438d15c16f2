import FoundationEssentials

/// One event of a `text/event-stream` response (Server-Sent Events, as the WHATWG HTML standard
/// defines them): what LLM and notification APIs stream.
public struct ServerSentEvent: Sendable, Equatable, Hashable {
    /// The event's type: the `event` field, `message` when the server sent none.
    public var event: String
    /// The data: the `data` fields of the event, joined with line feeds.
    public var data: String
    /// The last event ID the stream had set when this event was dispatched (the `id` field of this
    /// event or of an earlier one), or nil. A reconnection sends it as `Last-Event-ID`.
    public var id: String?
    /// The reconnection time the server asked for with a `retry` field in this event, if any.
    public var retry: Duration?

    /// Creates an event.
    public init(event: String = "message", data: String, id: String? = nil, retry: Duration? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}
