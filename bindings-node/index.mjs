// ESM entry of oxmcp: the same objects as the CommonJS entry (index.cjs).
import oxmcp from './index.cjs'

export const {
  Server,
  Client,
  Context,
  McpError,
  RequestTimeoutError,
  RequestCancelledError,
  ConnectionClosedError,
  TransportError,
  ProtocolError,
  InvalidInputError,
  CapabilityMissingError,
  HandlerError,
  UnauthorizedError,
  AbortError,
  validate,
  toolResult,
  version,
} = oxmcp
export default oxmcp
