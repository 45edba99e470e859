//! Every conformance check evaldeck makes, with its stable id. An id names one rule for
//! good: a changed rule gets a new id, a retired one is never reused. The list is
//! snapshot-tested (`tests/it/snapshots/check_ids.snap`), so an id cannot change silently.

use crate::spec::conformance::CheckSpec;

/// Every revision evaldeck speaks.
const ALL: &[&str] = &[
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
];
/// The handshake era: `initialize`, `ping`, sessions.
const HANDSHAKE: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// From `2025-03-26` (tool annotations, streamable HTTP).
const SINCE_2025_03: &[&str] = &["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"];
/// From `2025-06-18` (output schemas, structured content, the protocol version header).
const SINCE_2025_06: &[&str] = &["2026-07-28", "2025-11-25", "2025-06-18"];
/// From `2025-11-25` (tool name rules, JSON Schema 2020-12 as the default dialect).
const SINCE_2025_11: &[&str] = &["2026-07-28", "2025-11-25"];
/// Streamable HTTP with sessions: the handshake revisions that have the transport.
const HTTP_SESSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

const fn spec(
    id: &'static str,
    title: &'static str,
    revisions: &'static [&'static str],
    reference: &'static str,
) -> CheckSpec {
    CheckSpec {
        id,
        title,
        revisions,
        reference,
    }
}

/// The catalog, in report order.
pub const CHECKS: &[CheckSpec] = &[
    // Lifecycle and version negotiation.
    spec(
        "lifecycle.connect",
        "A session opens: `initialize` (or `server/discover` from 2026-07-28) is answered with a revision, capabilities and server info",
        ALL,
        "basic/lifecycle",
    ),
    spec(
        "lifecycle.server-info",
        "The server names its implementation (serverInfo with a name and a version)",
        ALL,
        "basic/lifecycle#initialization",
    ),
    spec(
        "lifecycle.version-negotiation",
        "Offered a revision it does not support, the server answers with one it does (or refuses naming those it supports)",
        ALL,
        "basic/lifecycle#version-negotiation",
    ),
    spec(
        "lifecycle.current-revision",
        "The server accepts a current revision (2026-07-28 or 2025-11-25)",
        ALL,
        "basic/lifecycle#version-negotiation",
    ),
    // Capabilities.
    spec(
        "capabilities.declared-answer",
        "Every capability the server declares answers its methods (tools/list, prompts/list, resources/list, logging/setLevel)",
        ALL,
        "basic/lifecycle#capability-negotiation",
    ),
    spec(
        "capabilities.undeclared-unused",
        "The server uses no capability it did not declare (log messages, list_changed and resource update notifications)",
        ALL,
        "basic/lifecycle#capability-negotiation",
    ),
    // Pagination.
    spec(
        "pagination.tools",
        "tools/list pages end, never repeat a cursor and never repeat a tool",
        ALL,
        "server/utilities/pagination",
    ),
    spec(
        "pagination.prompts",
        "prompts/list pages end, never repeat a cursor and never repeat a prompt",
        ALL,
        "server/utilities/pagination",
    ),
    spec(
        "pagination.resources",
        "resources/list pages end, never repeat a cursor and never repeat a resource",
        ALL,
        "server/utilities/pagination",
    ),
    spec(
        "pagination.resource-templates",
        "resources/templates/list pages end, never repeat a cursor and never repeat a template",
        ALL,
        "server/utilities/pagination",
    ),
    spec(
        "pagination.invalid-cursor",
        "A cursor the server never gave is refused with -32602 (Invalid params)",
        ALL,
        "server/utilities/pagination#error-handling",
    ),
    // Error codes.
    spec(
        "errors.unknown-method",
        "An unknown method is answered with -32601 (Method not found)",
        ALL,
        "basic#responses",
    ),
    spec(
        "errors.invalid-params",
        "A request whose params do not fit its method (tools/call without a name) is refused with -32602",
        ALL,
        "basic#responses",
    ),
    spec(
        "errors.unknown-tool",
        "Calling a tool that does not exist is a JSON-RPC error (-32602), not a tool result",
        ALL,
        "server/tools#error-handling",
    ),
    // Utilities.
    spec(
        "ping.answers",
        "ping is answered promptly with an empty result",
        HANDSHAKE,
        "basic/utilities/ping",
    ),
    spec(
        "cancellation.in-flight",
        "After notifications/cancelled for a request in flight the session keeps answering",
        ALL,
        "basic/utilities/cancellation",
    ),
    spec(
        "cancellation.unknown-request",
        "A cancellation naming a request the server never saw is ignored",
        ALL,
        "basic/utilities/cancellation",
    ),
    spec(
        "progress.notifications",
        "Progress notifications name a request in flight, and their progress increases (never past total)",
        ALL,
        "basic/utilities/progress",
    ),
    spec(
        "timeouts.answered-in-time",
        "Every request of the check is answered within the request timeout",
        ALL,
        "basic/lifecycle#timeouts",
    ),
    // JSON Schema.
    spec(
        "schema.input-valid",
        "Every tool's inputSchema is a JSON Schema object of type \"object\" that compiles",
        ALL,
        "server/tools#tool",
    ),
    spec(
        "schema.output-valid",
        "Every tool's outputSchema is a JSON Schema object of type \"object\" that compiles",
        SINCE_2025_06,
        "server/tools#output-schema",
    ),
    spec(
        "schema.dialect",
        "Every schema is valid against the meta-schema of the dialect it declares ($schema; 2020-12 when none)",
        SINCE_2025_11,
        "basic#json-schema-usage",
    ),
    // Tools.
    spec(
        "tools.name-length",
        "Tool names are 1 to 128 characters long",
        SINCE_2025_11,
        "server/tools#tool-names",
    ),
    spec(
        "tools.name-charset",
        "Tool names use only A-Z, a-z, 0-9, underscore, hyphen and dot",
        SINCE_2025_11,
        "server/tools#tool-names",
    ),
    spec(
        "tools.name-unique",
        "Tool names are unique within the server",
        ALL,
        "server/tools#tool-names",
    ),
    spec(
        "tools.annotations",
        "Tool annotations have their types (a string title, boolean hints) and do not contradict each other",
        SINCE_2025_03,
        "server/tools#tool-annotations",
    ),
    spec(
        "tools.structured-content",
        "A tool with an outputSchema answers with structuredContent that the schema accepts",
        SINCE_2025_06,
        "server/tools#structured-content",
    ),
    spec(
        "tools.result-shape",
        "Tool results carry a content array of well-formed content blocks and a boolean isError",
        ALL,
        "server/tools#tool-result",
    ),
    // Resources.
    spec(
        "resources.uri",
        "Every resource has an absolute URI, unique within the server",
        ALL,
        "server/resources#resource",
    ),
    spec(
        "resources.templates",
        "Every resource template is a well-formed RFC 6570 URI template",
        ALL,
        "server/resources#resource-templates",
    ),
    spec(
        "resources.read",
        "Listed resources can be read, each content naming its URI and holding text or a blob",
        ALL,
        "server/resources#reading-resources",
    ),
    spec(
        "resources.not-found",
        "Reading an unknown URI is refused with -32002 (Resource not found); from 2026-07-28 with -32602 (Invalid params)",
        ALL,
        "server/resources#error-handling",
    ),
    // Prompts.
    spec(
        "prompts.arguments",
        "Prompt arguments have non-empty, unique names and a boolean required",
        ALL,
        "server/prompts#prompt",
    ),
    spec(
        "prompts.get",
        "Prompts render: messages with the role user or assistant and well-formed content",
        ALL,
        "server/prompts#getting-a-prompt",
    ),
    spec(
        "prompts.missing-argument",
        "Rendering a prompt without a required argument is refused with -32602",
        ALL,
        "server/prompts#error-handling",
    ),
    // Transports.
    spec(
        "transport.stdio-stdout",
        "A stdio server writes nothing but JSON-RPC messages, one per line, on stdout",
        ALL,
        "basic/transports#stdio",
    ),
    spec(
        "transport.http-accept",
        "A POST accepting only application/json is never answered with an event stream",
        SINCE_2025_03,
        "basic/transports#sending-messages-to-the-server",
    ),
    spec(
        "transport.http-status-codes",
        "A notification POST is answered 202 Accepted with no body; GET is an event stream or 405",
        SINCE_2025_03,
        "basic/transports#sending-messages-to-the-server",
    ),
    spec(
        "transport.http-session",
        "A request without the Mcp-Session-Id the server assigned is refused with 400, one with an unknown id with 404",
        HTTP_SESSIONS,
        "basic/transports#session-management",
    ),
    spec(
        "transport.http-sse-resumption",
        "An event stream with event ids can be resumed with Last-Event-ID",
        HTTP_SESSIONS,
        "basic/transports#resumability-and-redelivery",
    ),
    spec(
        "transport.http-protocol-header",
        "A request with an unsupported MCP-Protocol-Version header is refused with 400",
        SINCE_2025_06,
        "basic/transports#protocol-version-header",
    ),
    // Pins.
    spec(
        "pins.unchanged",
        "No tool changed since it was pinned (`evaldeck pin`): name, description, schemas and annotations hash the same",
        ALL,
        "evaldeck: pinning",
    ),
];

/// The spec of `id`, if it is in the catalog.
pub fn find(id: &str) -> Option<&'static CheckSpec> {
    CHECKS.iter().find(|c| c.id == id)
}

/// Whether `id` is selected by `patterns` (ids, areas such as `pagination`, or globs such
/// as `tools.name-*`); everything is selected when there are none.
pub fn selected(id: &str, patterns: &[String]) -> bool {
    patterns.is_empty()
        || patterns.iter().any(|p| {
            let p = p.trim();
            p == id
                || id.split('.').next() == Some(p)
                || p.strip_suffix('*')
                    .is_some_and(|prefix| id.starts_with(prefix))
        })
}
