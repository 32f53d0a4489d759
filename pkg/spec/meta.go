package spec

// The _meta keys of the 2026-07-28 era (basic/versioning, basic/lifecycle):
// what a stateless request carries instead of a handshake, and what a result
// or a notification names.
const (
	// MetaProtocolVersion is the revision a client request speaks.
	MetaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	// MetaClientCapabilities are the capabilities a client request declares.
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	// MetaClientInfo names the client implementation of a request.
	MetaClientInfo = "io.modelcontextprotocol/clientInfo"
	// MetaServerInfo names the server implementation of a result.
	MetaServerInfo = "io.modelcontextprotocol/serverInfo"
	// MetaSubscriptionID ties a notification to the subscriptions/listen
	// request that asked for it.
	MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
)
