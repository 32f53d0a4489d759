package audit

// A helper is a name in an SDK's API that sends one MCP method: a method called
// on a server, session, exchange or client object (sendResourceListChanged,
// send_resource_list_changed, CreateMessage), or a constant that holds the method
// string (mcp-go's mcp.MethodNotificationResourcesListChanged, the C# SDK's
// NotificationMethods.ResourceListChangedNotification). The table says which
// method each name sends and nothing else: who sends the method, and which
// capability gates it, are read from pkg/spec.
type helper struct {
	name   string
	method string
	// constant: the name is a constant holding the method (matched wherever it
	// appears); otherwise a method call (matched as ".name(").
	constant bool
	// sdks names the SDKs that define it, for the report.
	sdks string
}

// The SDKs of the helper table.
const (
	sdkTS     = "TypeScript SDK"
	sdkPython = "Python SDK"
	sdkGo     = "Go SDK"
	sdkMCPGo  = "mcp-go"
	sdkCSharp = "C# SDK"
	sdkJava   = "Java SDK"
	sdkKotlin = "Kotlin SDK"
)

// helpers is the table. Names too generic to mean an MCP message on their own
// (Go's Log, Subscribe and Complete, Python's ctx.info, complete) are left out:
// a false emission is worse than a missed one, and the method string at the
// call usually shows those anyway.
var helpers = []helper{
	// Server side: list changes, resource updates, logging.
	{name: "sendResourceListChanged", method: "notifications/resources/list_changed", sdks: sdkTS + ", " + sdkKotlin},
	{name: "send_resource_list_changed", method: "notifications/resources/list_changed", sdks: sdkPython},
	{name: "notifyResourcesListChanged", method: "notifications/resources/list_changed", sdks: sdkJava},
	{name: "sendToolListChanged", method: "notifications/tools/list_changed", sdks: sdkTS + ", " + sdkKotlin},
	{name: "send_tool_list_changed", method: "notifications/tools/list_changed", sdks: sdkPython},
	{name: "notifyToolsListChanged", method: "notifications/tools/list_changed", sdks: sdkJava},
	{name: "sendPromptListChanged", method: "notifications/prompts/list_changed", sdks: sdkTS + ", " + sdkKotlin},
	{name: "send_prompt_list_changed", method: "notifications/prompts/list_changed", sdks: sdkPython},
	{name: "notifyPromptsListChanged", method: "notifications/prompts/list_changed", sdks: sdkJava},
	{name: "sendResourceUpdated", method: "notifications/resources/updated", sdks: sdkTS + ", " + sdkKotlin},
	{name: "send_resource_updated", method: "notifications/resources/updated", sdks: sdkPython},
	{name: "notifyResourcesUpdated", method: "notifications/resources/updated", sdks: sdkJava},
	{name: "ResourceUpdated", method: "notifications/resources/updated", sdks: sdkGo},
	{name: "sendLoggingMessage", method: "notifications/message", sdks: sdkTS + ", " + sdkKotlin},
	{name: "send_log_message", method: "notifications/message", sdks: sdkPython},
	{name: "loggingNotification", method: "notifications/message", sdks: sdkJava},
	{name: "SendLogMessageToClient", method: "notifications/message", sdks: sdkMCPGo},
	{name: "SendLogMessageToSpecificClient", method: "notifications/message", sdks: sdkMCPGo},
	// Server to client requests.
	{name: "createMessage", method: "sampling/createMessage", sdks: sdkTS + ", " + sdkJava + ", " + sdkKotlin},
	{name: "create_message", method: "sampling/createMessage", sdks: sdkPython},
	{name: "CreateMessage", method: "sampling/createMessage", sdks: sdkGo},
	{name: "CreateMessageWithTools", method: "sampling/createMessage", sdks: sdkGo},
	{name: "RequestSampling", method: "sampling/createMessage", sdks: sdkMCPGo},
	{name: "SampleAsync", method: "sampling/createMessage", sdks: sdkCSharp},
	{name: "listRoots", method: "roots/list", sdks: sdkTS + ", " + sdkJava + ", " + sdkKotlin},
	{name: "list_roots", method: "roots/list", sdks: sdkPython},
	{name: "ListRoots", method: "roots/list", sdks: sdkGo},
	{name: "RequestRoots", method: "roots/list", sdks: sdkMCPGo},
	{name: "RequestRootsAsync", method: "roots/list", sdks: sdkCSharp},
	{name: "elicitInput", method: "elicitation/create", sdks: sdkTS},
	{name: "elicit", method: "elicitation/create", sdks: sdkPython},
	{name: "createElicitation", method: "elicitation/create", sdks: sdkJava + ", " + sdkKotlin},
	{name: "Elicit", method: "elicitation/create", sdks: sdkGo},
	{name: "RequestElicitation", method: "elicitation/create", sdks: sdkMCPGo},
	{name: "RequestURLElicitation", method: "elicitation/create", sdks: sdkMCPGo},
	{name: "ElicitAsync", method: "elicitation/create", sdks: sdkCSharp},
	{name: "NotifyElicitationComplete", method: "notifications/elicitation/complete", sdks: sdkGo},
	{name: "SendElicitationComplete", method: "notifications/elicitation/complete", sdks: sdkMCPGo},
	// Client side.
	{name: "sendRootsListChanged", method: "notifications/roots/list_changed", sdks: sdkTS + ", " + sdkKotlin},
	{name: "send_roots_list_changed", method: "notifications/roots/list_changed", sdks: sdkPython},
	{name: "rootsListChangedNotification", method: "notifications/roots/list_changed", sdks: sdkJava},
	{name: "RootListChanges", method: "notifications/roots/list_changed", sdks: sdkMCPGo},
	{name: "callTool", method: "tools/call", sdks: sdkTS + ", " + sdkJava + ", " + sdkKotlin},
	{name: "call_tool", method: "tools/call", sdks: sdkPython},
	{name: "CallTool", method: "tools/call", sdks: sdkGo + ", " + sdkMCPGo},
	{name: "CallToolAsync", method: "tools/call", sdks: sdkCSharp},
	{name: "listTools", method: "tools/list", sdks: sdkTS + ", " + sdkJava + ", " + sdkKotlin},
	{name: "list_tools", method: "tools/list", sdks: sdkPython},
	{name: "ListTools", method: "tools/list", sdks: sdkGo + ", " + sdkMCPGo},
	{name: "ListToolsAsync", method: "tools/list", sdks: sdkCSharp},
	{name: "listResources", method: "resources/list", sdks: sdkTS + ", " + sdkJava + ", " + sdkKotlin},
	{name: "list_resources", method: "resources/list", sdks: sdkPython},
	{name: "ListResources", method: "resources/list", sdks: sdkGo + ", " + sdkMCPGo},
	{name: "ListResourcesAsync", method: "resources/list", sdks: sdkCSharp},
	{name: "listResourceTemplates", method: "resources/templates/list", sdks: sdkTS + ", " + sdkJava + ", " + sdkKotlin},
	{name: "list_resource_templates", method: "resources/templates/list", sdks: sdkPython},
	{name: "ListResourceTemplates", method: "resources/templates/list", sdks: sdkGo + ", " + sdkMCPGo},
	{name: "readResource", method: "resources/read", sdks: sdkTS + ", " + sdkJava + ", " + sdkKotlin},
	{name: "read_resource", method: "resources/read", sdks: sdkPython},
	{name: "ReadResource", method: "resources/read", sdks: sdkGo + ", " + sdkMCPGo},
	{name: "ReadResourceAsync", method: "resources/read", sdks: sdkCSharp},
	{name: "subscribeResource", method: "resources/subscribe", sdks: sdkTS + ", " + sdkJava + ", " + sdkKotlin},
	{name: "subscribe_resource", method: "resources/subscribe", sdks: sdkPython},
	{name: "SubscribeToResourceAsync", method: "resources/subscribe", sdks: sdkCSharp},
	{name: "unsubscribeResource", method: "resources/unsubscribe", sdks: sdkTS + ", " + sdkJava + ", " + sdkKotlin},
	{name: "unsubscribe_resource", method: "resources/unsubscribe", sdks: sdkPython},
	{name: "UnsubscribeFromResourceAsync", method: "resources/unsubscribe", sdks: sdkCSharp},
	{name: "listPrompts", method: "prompts/list", sdks: sdkTS + ", " + sdkJava + ", " + sdkKotlin},
	{name: "list_prompts", method: "prompts/list", sdks: sdkPython},
	{name: "ListPrompts", method: "prompts/list", sdks: sdkGo + ", " + sdkMCPGo},
	{name: "ListPromptsAsync", method: "prompts/list", sdks: sdkCSharp},
	{name: "getPrompt", method: "prompts/get", sdks: sdkTS + ", " + sdkJava + ", " + sdkKotlin},
	{name: "get_prompt", method: "prompts/get", sdks: sdkPython},
	{name: "GetPrompt", method: "prompts/get", sdks: sdkGo + ", " + sdkMCPGo},
	{name: "GetPromptAsync", method: "prompts/get", sdks: sdkCSharp},
	{name: "completeCompletion", method: "completion/complete", sdks: sdkJava},
	{name: "CompleteAsync", method: "completion/complete", sdks: sdkCSharp},
	{name: "setLoggingLevel", method: "logging/setLevel", sdks: sdkTS + ", " + sdkJava + ", " + sdkKotlin},
	{name: "set_logging_level", method: "logging/setLevel", sdks: sdkPython},
	{name: "SetLoggingLevel", method: "logging/setLevel", sdks: sdkGo},
	{name: "SetLoggingLevelAsync", method: "logging/setLevel", sdks: sdkCSharp},

	// Constants holding method strings.
	{name: "MethodNotificationResourcesListChanged", method: "notifications/resources/list_changed", constant: true, sdks: sdkMCPGo},
	{name: "MethodNotificationResourceUpdated", method: "notifications/resources/updated", constant: true, sdks: sdkMCPGo},
	{name: "MethodNotificationPromptsListChanged", method: "notifications/prompts/list_changed", constant: true, sdks: sdkMCPGo},
	{name: "MethodNotificationToolsListChanged", method: "notifications/tools/list_changed", constant: true, sdks: sdkMCPGo},
	{name: "MethodNotificationRootsListChanged", method: "notifications/roots/list_changed", constant: true, sdks: sdkMCPGo},
	{name: "MethodNotificationMessage", method: "notifications/message", constant: true, sdks: sdkMCPGo},
	{name: "MethodNotificationElicitationComplete", method: "notifications/elicitation/complete", constant: true, sdks: sdkMCPGo},
	{name: "MethodSamplingCreateMessage", method: "sampling/createMessage", constant: true, sdks: sdkMCPGo},
	{name: "MethodListRoots", method: "roots/list", constant: true, sdks: sdkMCPGo},
	{name: "MethodElicitationCreate", method: "elicitation/create", constant: true, sdks: sdkMCPGo},
	{name: "ResourceListChangedNotification", method: "notifications/resources/list_changed", constant: true, sdks: sdkCSharp},
	{name: "ResourceUpdatedNotification", method: "notifications/resources/updated", constant: true, sdks: sdkCSharp},
	{name: "PromptListChangedNotification", method: "notifications/prompts/list_changed", constant: true, sdks: sdkCSharp},
	{name: "ToolListChangedNotification", method: "notifications/tools/list_changed", constant: true, sdks: sdkCSharp},
	{name: "RootsListChangedNotification", method: "notifications/roots/list_changed", constant: true, sdks: sdkCSharp},
	{name: "LoggingMessageNotification", method: "notifications/message", constant: true, sdks: sdkCSharp},
	{name: "METHOD_NOTIFICATION_RESOURCES_LIST_CHANGED", method: "notifications/resources/list_changed", constant: true, sdks: sdkJava},
	{name: "METHOD_NOTIFICATION_RESOURCES_UPDATED", method: "notifications/resources/updated", constant: true, sdks: sdkJava},
	{name: "METHOD_NOTIFICATION_PROMPTS_LIST_CHANGED", method: "notifications/prompts/list_changed", constant: true, sdks: sdkJava},
	{name: "METHOD_NOTIFICATION_TOOLS_LIST_CHANGED", method: "notifications/tools/list_changed", constant: true, sdks: sdkJava},
	{name: "METHOD_NOTIFICATION_ROOTS_LIST_CHANGED", method: "notifications/roots/list_changed", constant: true, sdks: sdkJava},
	{name: "METHOD_NOTIFICATION_MESSAGE", method: "notifications/message", constant: true, sdks: sdkJava},
	{name: "METHOD_SAMPLING_CREATE_MESSAGE", method: "sampling/createMessage", constant: true, sdks: sdkJava},
	{name: "METHOD_ROOTS_LIST", method: "roots/list", constant: true, sdks: sdkJava},
	{name: "METHOD_ELICITATION_CREATE", method: "elicitation/create", constant: true, sdks: sdkJava},
}

// helperIndex finds a helper by name.
type helperIndex map[string]*helper

func indexHelpers(table []helper) helperIndex {
	idx := make(helperIndex, len(table))
	for i := range table {
		idx[table[i].name] = &table[i]
	}
	return idx
}

// HelperMethod is one entry of the helper table, for documentation and tests.
type HelperMethod struct {
	Name     string
	Method   string
	Constant bool
	SDKs     string
}

// HelperMethods lists the helper table.
func HelperMethods() []HelperMethod {
	out := make([]HelperMethod, len(helpers))
	for i, h := range helpers {
		out[i] = HelperMethod{Name: h.name, Method: h.method, Constant: h.constant, SDKs: h.sdks}
	}
	return out
}
