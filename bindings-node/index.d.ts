// Type declarations of the oxmcp package (the JS layer in index.cjs / index.mjs).

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
/** A JSON object. */
export type JsonObject = { [key: string]: any }

/** A Standard Schema validator (standardschema.dev: zod 4, Valibot, ArkType... all expose
 *  `~standard`), as far as oxmcp needs to know it; the types are the specification's own, so
 *  oxmcp depends on no validator library. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>
}
export declare namespace StandardSchemaV1 {
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1
    readonly vendor: string
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>
    readonly types?: Types<Input, Output> | undefined
    /** The Standard JSON Schema converter, when the library offers one (preferred). */
    readonly jsonSchema?: { readonly input: (options: { readonly target: string }) => Record<string, unknown> }
  }
  type Result<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<Issue> }
  interface Issue {
    readonly message: string
    readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
  }
  interface Types<Input = unknown, Output = Input> {
    readonly input: Input
    readonly output: Output
  }
  /** The type a validator parses to. */
  type InferOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output']
  /** The type a validator takes. */
  type InferInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input']
}
/** A zod 4 schema, as far as oxmcp needs to know it (zod stays an optional peer dependency). */
export interface ZodLike<Out = any> {
  readonly _zod: unknown
  safeParse(value: unknown): { success: true; data: Out } | { success: false; error: any }
}
/** A zod 3 schema, as far as oxmcp needs to know it. */
export interface Zod3Like<Out = any> {
  readonly _def: unknown
  safeParse(value: unknown): { success: true; data: Out } | { success: false; error: any }
}
/** A zod 4 or zod 3 schema. */
export type AnyZod<Out = any> = ZodLike<Out> | Zod3Like<Out>
/** A zod "raw shape": `{ a: z.number(), b: z.string() }` (all zod 4 or all zod 3). */
export type ZodShape = { [key: string]: AnyZod }
/** The parsed type of a schema: a Standard Schema's output type, a zod schema's or
 *  shape's parsed type, any JSON object for a JSON Schema. */
export type Infer<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends AnyZod<infer O>
    ? O
    : S extends ZodShape
      ? { [K in keyof S]: S[K] extends AnyZod<infer O> ? O : never }
      : JsonObject
/** A JSON Schema object, a Standard Schema validator (zod, Valibot, ArkType...), a zod 3
 *  schema, or a zod raw shape. */
export type SchemaInput = JsonObject | StandardSchemaV1 | AnyZod | ZodShape

// --------------------------------------------------------------------------------------
// Errors

/** A JSON-RPC error (code, message, data), and the base of every oxmcp error. Throw one
 *  from a handler to send exactly that JSON-RPC error. */
export class McpError extends Error {
  constructor(code: number | null, message: string, data?: unknown)
  /** The JSON-RPC code (null for local errors such as timeouts). */
  code: number | null
  /** The error's `data`, if any. */
  data: unknown
}
/** The request got no response (nor progress) in time. */
export class RequestTimeoutError extends McpError {}
/** The request was cancelled. */
export class RequestCancelledError extends McpError {}
/** The connection is gone. */
export class ConnectionClosedError extends McpError {}
/** The transport failed, or a server could not be started. */
export class TransportError extends McpError {}
/** The peer broke the protocol. */
export class ProtocolError extends McpError {}
/** An argument was unusable. */
export class InvalidInputError extends McpError {}
/** The peer did not declare the capability the call needs. */
export class CapabilityMissingError extends McpError {}
/** A handler failed. */
export class HandlerError extends McpError {}
/** Authorization failed: the server refused the credentials and no new ones could be obtained. */
export class UnauthorizedError extends McpError {}
/** The caller's AbortSignal aborted the request; `name` is `'AbortError'`. */
export class AbortError extends RequestCancelledError {
  constructor(message?: string, reason?: unknown)
}

// --------------------------------------------------------------------------------------
// Protocol shapes (the parts handlers and callers touch most; all are plain JSON).

export interface TextContent { type: 'text'; text: string; annotations?: JsonObject; _meta?: JsonObject }
export interface ImageContent { type: 'image'; data: string; mimeType: string; annotations?: JsonObject; _meta?: JsonObject }
export interface AudioContent { type: 'audio'; data: string; mimeType: string; annotations?: JsonObject; _meta?: JsonObject }
export interface ResourceContents { uri: string; mimeType?: string; text?: string; blob?: string; _meta?: JsonObject }
export interface EmbeddedResource { type: 'resource'; resource: ResourceContents; annotations?: JsonObject; _meta?: JsonObject }
export interface ResourceLink { type: 'resource_link'; uri: string; name: string; title?: string; description?: string; mimeType?: string }
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink

export interface CallToolResult {
  content: ContentBlock[]
  structuredContent?: JsonObject
  isError?: boolean
  _meta?: JsonObject
}
export interface ReadResourceResult { contents: ResourceContents[]; _meta?: JsonObject }
export interface PromptMessage { role: 'user' | 'assistant'; content: ContentBlock }
export interface GetPromptResult { description?: string; messages: PromptMessage[]; _meta?: JsonObject }
export interface Completion { values: string[]; total?: number; hasMore?: boolean }

export interface Implementation { name: string; version: string; title?: string; [key: string]: any }
export interface Tool {
  name: string
  title?: string
  description?: string
  inputSchema: JsonObject
  outputSchema?: JsonObject
  annotations?: JsonObject
  _meta?: JsonObject
}
export interface Resource { uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number }
/** A task (the tasks extension): `result` once completed, `error` once failed, and the
 *  `inputRequests` to answer with `updateTask` while `input_required`. */
export interface Task {
  taskId: string
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'
  statusMessage?: string
  createdAt: string
  lastUpdatedAt: string
  ttlMs?: number
  pollIntervalMs?: number
  result?: CallToolResult
  error?: { code: number; message: string; data?: Json }
  inputRequests?: Record<string, JsonObject>
}
/** One file of a skill: its URI, `sha256:` digest and size in bytes. */
export interface SkillResource { uri: string; digest: string; size: number }
/** A skill's entry (the skills extension): `frontmatter` is its SKILL.md frontmatter
 *  verbatim; `resources` lists every file, or is `'dynamic'`. */
export interface Skill {
  uri: string
  frontmatter: { name: string; description: string; [key: string]: Json }
  resources: SkillResource[] | 'dynamic'
}
/** What `loadSkill` resolves to: the entry SKILL.md was checked against, and its text. */
export interface LoadedSkill { skill: Skill; markdown: string }
export interface ResourceTemplate { uriTemplate: string; name: string; title?: string; description?: string; mimeType?: string }
export interface PromptArgument { name: string; description?: string; required?: boolean }
export interface Prompt { name: string; title?: string; description?: string; arguments?: PromptArgument[] }
export interface Root { uri: string; name?: string }
export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency'

export interface SamplingMessage { role: 'user' | 'assistant'; content: ContentBlock | ContentBlock[] }
export interface CreateMessageParams {
  messages: SamplingMessage[]
  maxTokens: number
  systemPrompt?: string
  temperature?: number
  stopSequences?: string[]
  modelPreferences?: JsonObject
  includeContext?: 'none' | 'thisServer' | 'allServers'
  metadata?: JsonObject
  [key: string]: any
}
export interface CreateMessageResult {
  role: 'user' | 'assistant'
  content: ContentBlock | ContentBlock[]
  model: string
  stopReason?: string
  [key: string]: any
}
/** The options of `ctx.sample()`: the request's fields but its messages (no others, so a
 *  misspelled one is a type error). */
export interface SampleOptions {
  /** Default: chosen by the engine. */
  maxTokens?: number
  systemPrompt?: string
  temperature?: number
  stopSequences?: string[]
  modelPreferences?: ModelPreferences
  includeContext?: 'none' | 'thisServer' | 'allServers'
  metadata?: JsonObject
  /** Tools the model may call (sampling with tools). */
  tools?: Tool[]
  toolChoice?: { mode?: 'auto' | 'required' | 'none' }
  _meta?: JsonObject
}
export interface ModelPreferences {
  hints?: Array<{ name?: string }>
  costPriority?: number
  speedPriority?: number
  intelligencePriority?: number
}
/** The options of `ctx.elicit()` beside its message and schema. */
export interface ElicitOptions {
  mode?: 'form' | 'url'
  url?: string
  elicitationId?: string
  _meta?: JsonObject
}
export interface ElicitParams { message: string; requestedSchema?: JsonObject; mode?: 'form' | 'url'; url?: string; [key: string]: any }
export interface ElicitResult<C = JsonObject> { action: 'accept' | 'decline' | 'cancel'; content?: C }

// --------------------------------------------------------------------------------------
// Server

/** One request's context, the last argument of every handler; `L` is the type of the
 *  server's lifespan value. */
export class Context<L = unknown> {
  private constructor()
  /** The `value` the server's `lifespan` resolved to (undefined without a lifespan). */
  readonly lifespan: L
  /** Fires when the client cancels the request (its reason is a RequestCancelledError). */
  readonly signal: AbortSignal
  /** The client's id of this request. */
  readonly requestId: string | number
  /** The progress token the client attached, if any. */
  readonly progressToken: string | number | undefined
  /** The client's name and version. */
  readonly clientInfo: Implementation | undefined
  /** What the client declared it can do. */
  readonly clientCapabilities: JsonObject | undefined
  /** The negotiated protocol version. */
  readonly protocolVersion: string | undefined
  /** Who the request's access token speaks for, on a protected server. */
  readonly auth: AuthInfo | undefined
  /** The HTTP request's headers (lower-case names, no `authorization`), or undefined when
   *  the request did not come over HTTP. */
  readonly headers: Record<string, string> | undefined
  /** Sends a progress notification (nothing if the client asked for none). */
  progress(progress: number, total?: number, message?: string): Promise<void>
  /** Sends a log message (if the client's level lets it through). */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>
  /** Asks the user for input; with a zod schema an accepted answer's content is parsed. */
  elicit<S extends SchemaInput>(message: string, schema: S, options?: ElicitOptions): Promise<ElicitResult<Infer<S>>>
  /** Asks the client's model. A string is one user message. */
  sample(messages: string | Array<string | SamplingMessage>, options?: SampleOptions): Promise<CreateMessageResult>
  /** The client's roots. */
  listRoots(): Promise<Root[]>
  /** Reads one of this server's own resources, with this request's context. */
  readResource(uri: string): Promise<ReadResourceResult>
  /** In an escalating tool: continues the call as a task (false when it stays inline). */
  escalateToTask(): Promise<boolean>
  /** Over Streamable HTTP, closes this request's SSE stream; the client resumes it. */
  endResponseStream(): void
}

/** What a tool handler may return: a string (one text block), content blocks, a full
 *  CallToolResult, or a plain object (structured content). */
export type ToolReturn = string | number | boolean | null | undefined | ContentBlock | ContentBlock[] | CallToolResult | JsonObject

export interface ToolConfig<S extends SchemaInput | undefined = undefined> {
  title?: string
  description?: string
  /** A JSON Schema object, a Standard Schema validator (zod 4, Valibot, ArkType...), a
   *  zod 3 schema, or a zod raw shape. Arguments are validated by the engine against its
   *  JSON Schema; with a validator the handler receives the values it parsed (typed as its
   *  output: defaults applied, coercions and refinements done).
   *
   *  ```ts
   *  server.tool('search', { inputSchema: type({ query: 'string', 'limit?': 'number' }) }, ({ query, limit }) => ...)
   *  ```
   */
  inputSchema?: S
  outputSchema?: SchemaInput
  annotations?: ToolAnnotations
  _meta?: JsonObject
  icons?: JsonObject[]
  /** Runs the tool as a task (the tasks extension) for clients that declared it:
   *  `'optional'`, or `'required'` to refuse other clients (-32021). */
  taskSupport?: 'forbidden' | 'optional' | 'required'
  /** The call starts inline and becomes a task when the handler calls `ctx.escalateToTask()`. */
  escalating?: boolean
  /** Replace a tool of the same name (otherwise registering it again throws). */
  replace?: boolean
}

/** Hints about a tool's behaviour, for clients (not enforced). */
export interface ToolAnnotations {
  title?: string
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
}

export type ToolHandler<Args, L = unknown> = (args: Args, ctx: Context<L>) => ToolReturn | Promise<ToolReturn>

/** Hints about a resource or content for clients. */
export interface Annotations {
  audience?: Array<'user' | 'assistant'>
  priority?: number
  /** ISO 8601. */
  lastModified?: string
}

export interface ResourceConfig {
  name?: string
  title?: string
  description?: string
  mimeType?: string
  annotations?: Annotations
  _meta?: JsonObject
  icons?: JsonObject[]
  /** Of a fixed resource (a template has none). */
  size?: number
  /** Replace a resource of the same URI (otherwise registering it again throws). */
  replace?: boolean
}
/** What a resource handler may return: text, bytes (a blob), `{ contents }`, a content
 *  (`{ text }` or `{ blob }`), an array of them, or JSON data. */
export type ResourceReturn = string | Uint8Array | ArrayBuffer | ReadResourceResult | Partial<ResourceContents> | JsonObject | Array<string | Uint8Array | Partial<ResourceContents>>
export type ResourceHandler<Vars = Record<string, string>, L = unknown> = (uri: string, variables: Vars, ctx: Context<L>) => ResourceReturn | Promise<ResourceReturn>

// The variables of a URI template (RFC 6570) by name: `'file://{dir}/{name}{?rev}'` has
// dir, name and rev. A URI that is not a literal type has any names.
type TemplateExpressions<U extends string> = U extends `${string}{${infer E}}${infer Rest}` ? E | TemplateExpressions<Rest> : never
type TemplateVarList<E extends string> = E extends `${infer A},${infer B}` ? TemplateVarName<A> | TemplateVarList<B> : TemplateVarName<E>
type TemplateVarName<V extends string> = V extends `${infer N}*` ? N : V extends `${infer N}:${string}` ? N : V
type TemplateExpressionVars<E extends string> = E extends `${'+' | '#' | '.' | '/' | ';' | '?' | '&'}${infer R}` ? TemplateVarList<R> : TemplateVarList<E>
/** The `variables` a resource handler of URI (template) `U` gets. */
export type TemplateVariables<U extends string> = string extends U
  ? Record<string, string>
  : { [K in TemplateExpressionVars<TemplateExpressions<U>>]: string }

export interface PromptConfig<S extends SchemaInput | undefined = undefined> {
  title?: string
  description?: string
  arguments?: PromptArgument[]
  /** Arguments as a zod shape/schema or a JSON Schema object. */
  argsSchema?: S
  _meta?: JsonObject
  icons?: JsonObject[]
  /** Replace a prompt of the same name (otherwise registering it again throws). */
  replace?: boolean
}
export type PromptReturn = string | PromptMessage | { role: 'user' | 'assistant'; content: string | ContentBlock } | Array<string | { role: 'user' | 'assistant'; content: string | ContentBlock }> | GetPromptResult
export type PromptHandler<Args, L = unknown> = (args: Args, ctx: Context<L>) => PromptReturn | Promise<PromptReturn>

/** The reference a completion request names, as a completion handler gets it. */
export interface CompletionReference { type: 'ref/prompt' | 'ref/resource'; name?: string; uri?: string }
/** The reference a client completes: a prompt by name or a resource template by URI. */
export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }
export type CompletionHandler<L = unknown> = (
  ref: CompletionReference,
  argument: { name: string; value: string },
  context: { arguments?: Record<string, string> } | undefined,
  ctx: Context<L>,
) => string[] | Completion | Promise<string[] | Completion>

export interface HttpOptions {
  /** Default 127.0.0.1. */
  host?: string
  /** 0 (the default) picks a free port. */
  port?: number
  /** Default `/mcp`. */
  path?: string
  /** No sessions: every POST stands alone. */
  stateless?: boolean
  /** Plain JSON responses instead of SSE streams. */
  jsonResponse?: boolean
  allowedHosts?: string[]
  allowedOrigins?: string[]
  maxSessions?: number
  /** Require OAuth access tokens: JWTs of `issuer` (checked against its published keys)
   *  for `audience` (default: this endpoint's URL) with `scopes`; a call of a tool named in
   *  `toolScopes` needs those too. */
  auth?: { issuer: string; audience?: string; scopes?: string[]; toolScopes?: Record<string, string[]> }
  /** `redis://HOST:PORT`: share sessions, streams, tasks and the requestState key with every
   *  server listening with the same Redis, so that any number of them behind a load
   *  balancer act as one server. */
  redis?: string
}

/** `listenHttp`'s options but those of the listener (the framework listens): a protected
 *  endpoint names its `auth.audience` (the URL clients use). */
export type HttpHandlerOptions = Omit<HttpOptions, 'host' | 'port' | 'path' | 'redis'>

/** `server.httpHandler()`: a Node request handler that Express (`(req, res, next)`), Fastify
 *  (`(request, reply)`) and `node:http` (`(req, res)`) call, resolving once the answer has
 *  been sent (an SSE stream: once it ends or the client goes away). */
export interface HttpHandler {
  (req: any, res: any, next?: unknown): Promise<void>
  /** A fetch `Request` in, a `Response` (its body streamed) out: for Hono and other
   *  fetch-style frameworks. */
  fetch(request: Request): Promise<Response>
}

/** Who a request's verified access token speaks for. */
export interface AuthInfo {
  subject?: string
  clientId?: string
  scopes: string[]
  expiresAt?: number
  claims: JsonObject
}

/** A request as a middleware sees it. */
export interface MiddlewareRequest<L = unknown> {
  method: string
  params: JsonObject | undefined
  ctx: Context<L>
}

/** `async ({ method, params, ctx }, next) => result`. */
export type Middleware<L = unknown> = (request: MiddlewareRequest<L>, next: (params?: JsonObject) => Promise<JsonObject>) => JsonObject | Promise<JsonObject>

/** Whose error `onError` gets: the handler's kind and its name (a resource's URI or
 *  template, a middleware's request method, the prompt or URI a completion is for). A
 *  lifespan whose `close` fails when stdin closes (no caller to throw to) is `lifespan`. */
export interface HandlerErrorInfo {
  kind: 'tool' | 'resource' | 'prompt' | 'completion' | 'middleware' | 'lifespan'
  name: string
}

/** What a lifespan function resolves to: the state handlers read as `ctx.lifespan`, and
 *  its cleanup, run by `server.close()` (or when a stdio server's stdin closes). */
export interface Lifespan<L> {
  value?: L
  close?: () => void | Promise<void>
}

export interface ServerOptions<L = unknown> {
  /** Told to clients at initialization. */
  instructions?: string
  /** Gets every error a handler throws (or rejects with) but an McpError, instead of
   *  console.error (which prints the handler's kind and name, then the stack). */
  onError?: (error: unknown, info: HandlerErrorInfo) => void | Promise<void>
  /** Answer such errors with a generic message (`internal error in tool NAME`), keeping
   *  their text from the client and the model; McpErrors are still sent as they are. */
  maskErrors?: boolean
  /** Runs once when the server starts serving (the first listener or in-memory client),
   *  before any request. */
  lifespan?: (server: Server<any>) => Lifespan<L> | null | void | Promise<Lifespan<L> | null | void>
  /** How tasks (tools with `taskSupport`) are kept: each for `ttlMs` after its creation
   *  (an hour; `null`: no limit), polled every `pollIntervalMs` (500), at most `maxTasks`
   *  kept (10000) and `maxRunning` running at once (1000). */
  tasks?: { ttlMs?: number | null; pollIntervalMs?: number; maxTasks?: number; maxRunning?: number }
}

/** An MCP server whose tools, resources and prompts are JavaScript functions; `L` is the
 *  type of its lifespan value (`ctx.lifespan`). */
export class Server<L = unknown> {
  constructor(info: { name: string; version?: string; instructions?: string } | string, options?: ServerOptions<L>)
  tool(name: string, handler: ToolHandler<JsonObject, L>): this
  tool<S extends SchemaInput | undefined = undefined>(name: string, config: ToolConfig<S>, handler: ToolHandler<S extends undefined ? JsonObject : Infer<S>, L>): this
  /** A URI with `{variables}` is a template; the handler's `variables` are typed by their
   *  names when the URI is a literal. */
  resource<U extends string>(uri: U, handler: ResourceHandler<TemplateVariables<U>, L>): this
  resource<U extends string>(uri: U, config: ResourceConfig, handler: ResourceHandler<TemplateVariables<U>, L>): this
  prompt(name: string, handler: PromptHandler<Record<string, string>, L>): this
  prompt<S extends SchemaInput | undefined = undefined>(name: string, config: PromptConfig<S>, handler: PromptHandler<S extends undefined ? Record<string, string> : Infer<S>, L>): this
  completion(handler: CompletionHandler<L>): this
  /** Serves an Agent Skill: `files` maps each file's path in the skill to its text,
   *  `SKILL.md` among them (the last segment of `path` is the skill's name). */
  skill(path: string, files: Record<string, string>): this
  /** Serves every skill under the directory `root` (each directory holding a SKILL.md). */
  skillsDir(root: string): this
  /** Removes a tool (clients are told the list changed). */
  removeTool(name: string): boolean
  /** Removes a prompt (clients are told the list changed). */
  removePrompt(name: string): boolean
  /** Removes a resource, not a template (clients are told the list changed). */
  removeResource(uri: string): boolean
  /** Serves `other`'s tools, prompts, resources and templates under `prefix` (names
   *  `prefix_name`, URIs `scheme://prefix/rest`); a `Client` is forwarded to, each call. */
  mount(prefix: string, other: Server<any>): this
  mount(prefix: string, other: Client): Promise<this>
  /** Adds a middleware around every request the server routes (both eras); the first
   *  added is the outermost. `next()` runs the rest (with the request's params, or the
   *  ones given) and resolves to the result. */
  use(middleware: Middleware<L>): this
  /** Tells clients subscribed to `uri` that it changed. */
  notifyResourceUpdated(uri: string): void
  /** Live sessions. */
  readonly sessionCount: number
  /** Serves one client on stdin/stdout; resolves once serving. */
  listenStdio(): Promise<void>
  /** Checks the access tokens of a protected HTTP listener with `fn` instead of JWTs:
   *  who the token speaks for, or `null` to refuse it. */
  verifyTokens(fn: (token: string) => Partial<AuthInfo> | null | Promise<Partial<AuthInfo> | null>): void
  /** Serves Streamable HTTP (and legacy SSE); resolves to the endpoint URL. */
  listenHttp(options?: HttpOptions): Promise<string>
  /** The MCP endpoint as a request handler for your own web app (Express, Fastify,
   *  `node:http`; `.fetch` for Hono), answering on whatever route you mount it.
   *
   *  ```ts
   *  const mcp = server.httpHandler({ allowedHosts: ['api.example.com'] })
   *  app.all('/mcp', mcp)                            // Express or Fastify
   *  honoApp.all('/mcp', c => mcp.fetch(c.req.raw))  // Hono (@hono/node-server)
   *  ```
   */
  httpHandler(options?: HttpHandlerOptions): HttpHandler
  /** Stops serving, then ends the lifespan; the process can exit. */
  close(): Promise<void>
}

// --------------------------------------------------------------------------------------
// Client

export interface Progress { progress: number; total?: number | null; message?: string | null }

export interface RequestOptions {
  /** Aborting it sends `notifications/cancelled` and rejects with an AbortError. */
  signal?: AbortSignal
  /** Milliseconds without a response or progress before a RequestTimeoutError. */
  timeout?: number
  /** Progress notifications of this request. */
  onProgress?: (progress: Progress) => void
}

export interface ServerRequestExtra {
  /** Fires when the server cancels its request. */
  signal: AbortSignal
}

/** Which protocol era a client speaks: `'auto'` probes the server with `server/discover`
 *  and falls back to `initialize` when it is older; `'session'` always initializes a
 *  session (protocol versions up to 2025-11-25); `'stateless'` needs a 2026-07-28 server. */
export type Era = 'auto' | 'session' | 'stateless'

export interface ClientOptions {
  name?: string
  version?: string
  /** The protocol era (default `'auto'`); `client.era` tells which one the connection
   *  settled on. An unknown value rejects with an InvalidInputError. */
  era?: Era
  /** Answers `sampling/createMessage`. */
  sampling?: (params: CreateMessageParams, extra: ServerRequestExtra) => CreateMessageResult | Promise<CreateMessageResult>
  /** Answers `elicitation/create`. */
  elicitation?: (params: ElicitParams, extra: ServerRequestExtra) => ElicitResult | Promise<ElicitResult>
  /** Answers `roots/list`: a list, or a function giving one. */
  roots?: Array<Root | string> | ((extra: ServerRequestExtra) => Array<Root | string> | Promise<Array<Root | string>>)
  /** Every notification from the server. */
  onNotification?: (notification: { method: string; params: JsonObject }) => void
}

export interface StdioClientOptions extends ClientOptions {
  env?: Record<string, string>
  cwd?: string
  /** Where the server's stderr goes: `'forward'` (the default: to this process's stderr,
   *  a line at a time as it comes) or `'discard'`. */
  stderr?: 'forward' | 'discard'
}

export interface HttpClientOptions extends ClientOptions {
  headers?: Record<string, string>
  /** OAuth for a protected server: the engine runs discovery, registration, PKCE,
   *  refresh and step-up; this says who the client is and how the user's browser is
   *  reached. */
  auth?: OAuthOptions
}

/** How a client authorizes at a protected server. A machine: `{ clientId, clientSecret,
 *  grant: 'client_credentials' }`. A user: `{ redirectUri, redirectHandler,
 *  callbackHandler }`. */
export interface OAuthOptions {
  grant?: 'authorization_code' | 'client_credentials'
  clientId?: string
  clientSecret?: string
  scope?: string
  clientName?: string
  redirectUri?: string
  /** A URL to this client's metadata document, used as its id where supported. */
  clientMetadataUrl?: string
  /** PKCS#8 PEM key for `private_key_jwt`, and its algorithm (default ES256). */
  privateKeyPem?: string
  signingAlg?: string
  /** Keeps the tokens in this file (readable by its owner only); in memory otherwise. */
  tokenFile?: string
  /** The authorization server a secret or key belongs to: a server naming another one
   *  is refused, so the secret never reaches it. */
  issuer?: string
  /** Shows the user the authorization URL (opens a browser, prints it...). */
  redirectHandler?: (url: string, extra: ServerRequestExtra) => void | Promise<void>
  /** The URL the browser was sent back to (its state and iss are checked). */
  callbackHandler?: (extra: ServerRequestExtra) => string | Promise<string>
}


/** A connected MCP client; every call takes `{ signal, timeout, onProgress }`. Emits
 *  `'notification'` with `{ method, params }`, and each notification by its method. */
export class Client {
  private constructor()
  /** Starts `command` and connects over stdio. */
  static stdio(command: string, args?: string[], options?: StdioClientOptions): Promise<Client>
  static stdio(command: string, options?: StdioClientOptions): Promise<Client>
  /** Connects to a Streamable HTTP server (or a legacy HTTP+SSE one). */
  static http(url: string, options?: HttpClientOptions): Promise<Client>
  /** A client of `server`, a `Server` of this process, through memory: no child process
   *  and no socket (for tests). */
  static inMemory(server: Server<any>, options?: ClientOptions): Promise<Client>

  readonly serverInfo: Implementation
  readonly serverCapabilities: JsonObject
  readonly protocolVersion: string
  readonly instructions: string | undefined
  /** The era the connection settled on. */
  readonly era: 'session' | 'stateless'

  request<R = JsonObject>(method: string, params?: JsonObject, options?: RequestOptions): Promise<R>
  notify(method: string, params?: JsonObject): void
  ping(options?: RequestOptions): Promise<void>
  listTools(options?: RequestOptions): Promise<Tool[]>
  listToolsPage(cursor?: string, options?: RequestOptions): Promise<{ tools: Tool[]; nextCursor?: string }>
  /** With `task: true` the server may run the call as a task: the promise still settles
   *  with the final result, each status reaches `onProgress` (`message` is the status),
   *  the task's questions are answered by this client's handlers, and aborting cancels
   *  the task. */
  callTool(name: string, args?: JsonObject, options?: RequestOptions & { task?: boolean }): Promise<CallToolResult>
  /** Starts a tool call the server may run as a task: `{ task }` to follow, or `{ result }`. */
  startToolTask(name: string, args?: JsonObject, options?: RequestOptions): Promise<{ task: Task } | { result: CallToolResult }>
  /** `tasks/get`: the task with its `result`, `error` or `inputRequests`. */
  getTask(taskId: string, options?: RequestOptions): Promise<Task>
  /** `tasks/update`: answers the task's `inputRequests` by key. */
  updateTask(taskId: string, responses: JsonObject, options?: RequestOptions): Promise<void>
  /** `tasks/cancel`: asks the task to stop. */
  cancelTask(taskId: string, options?: RequestOptions): Promise<void>
  listResources(options?: RequestOptions): Promise<Resource[]>
  listResourcesPage(cursor?: string, options?: RequestOptions): Promise<{ resources: Resource[]; nextCursor?: string }>
  listResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]>
  listResourceTemplatesPage(cursor?: string, options?: RequestOptions): Promise<{ resourceTemplates: ResourceTemplate[]; nextCursor?: string }>
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult>
  /** Every skill the server lists (no file is fetched). */
  listSkills(options?: RequestOptions): Promise<Skill[]>
  /** The entry of the skill whose SKILL.md is at `uri`. */
  getSkill(uri: string, options?: RequestOptions): Promise<Skill>
  /** Fetches SKILL.md and checks it against the entry (size, digest, frontmatter). */
  loadSkill(skill: Skill | string, options?: RequestOptions): Promise<LoadedSkill>
  /** Reads a file the entry lists, checked against its size and digest. */
  readSkillFile(skill: Skill, path: string, options?: RequestOptions): Promise<Buffer>
  /** The direct children of a directory resource (`resources/directory/read`). */
  readDirectory(uri: string, options?: RequestOptions): Promise<Resource[]>
  subscribe(uri: string, options?: RequestOptions): Promise<void>
  unsubscribe(uri: string, options?: RequestOptions): Promise<void>
  listPrompts(options?: RequestOptions): Promise<Prompt[]>
  listPromptsPage(cursor?: string, options?: RequestOptions): Promise<{ prompts: Prompt[]; nextCursor?: string }>
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult>
  complete(ref: CompletionRef, argument: { name: string; value: string }, context?: Record<string, string>, options?: RequestOptions): Promise<Completion>
  setLogLevel(level: LoggingLevel, options?: RequestOptions): Promise<void>
  notifyRootsChanged(): void
  /** The engine's pending and in-flight request counts (for leak checks). */
  stats(): { pending: number; inFlight: number }
  /** Closes the connection (a child process is stopped). */
  close(): Promise<void>

  on(event: 'notification', listener: (notification: { method: string; params: JsonObject }) => void): this
  on(event: string, listener: (params: JsonObject) => void): this
  once(event: 'notification', listener: (notification: { method: string; params: JsonObject }) => void): this
  once(event: string, listener: (params: JsonObject) => void): this
  off(event: string, listener: (...args: any[]) => void): this
}

/** Validates `value` against a schema with the engine's validator: null when valid. */
export function validate(schema: SchemaInput, value: unknown): string | null
/** A tool handler's return value as the CallToolResult the server sends. */
export function toolResult(value: ToolReturn): CallToolResult
/** The engine's version. */
export const version: string

declare const oxmcp: {
  Server: typeof Server
  Client: typeof Client
  Context: typeof Context
  McpError: typeof McpError
  RequestTimeoutError: typeof RequestTimeoutError
  RequestCancelledError: typeof RequestCancelledError
  ConnectionClosedError: typeof ConnectionClosedError
  TransportError: typeof TransportError
  ProtocolError: typeof ProtocolError
  InvalidInputError: typeof InvalidInputError
  CapabilityMissingError: typeof CapabilityMissingError
  HandlerError: typeof HandlerError
  UnauthorizedError: typeof UnauthorizedError
  AbortError: typeof AbortError
  validate: typeof validate
  toolResult: typeof toolResult
  version: string
}
export default oxmcp
