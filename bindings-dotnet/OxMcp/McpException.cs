using System;

namespace OxMcp
{
    /// <summary>
    /// An oxmcp failure: the <see cref="Status"/> says what kind, <see cref="Code"/> holds the
    /// JSON-RPC error code (for <see cref="McpStatus.Rpc"/>), <see cref="DataJson"/> its data.
    /// Thrown by client calls; thrown from a server handler, it becomes that JSON-RPC error.
    /// </summary>
    public class McpException : Exception
    {
        /// <summary>What kind of failure.</summary>
        public McpStatus Status { get; private set; }

        /// <summary>The JSON-RPC error code, when there is one.</summary>
        public long? Code { get; private set; }

        /// <summary>The JSON-RPC error's <c>data</c> as JSON text, or null.</summary>
        public string DataJson { get; private set; }

        /// <summary>A JSON-RPC error with <paramref name="code"/> (for server handlers to throw).</summary>
        public McpException(long code, string message, string dataJson = null) : base(message)
        {
            Status = McpStatus.Rpc;
            Code = code;
            DataJson = dataJson;
        }

        internal McpException(McpStatus status, string message, long? code, string dataJson) : base(message)
        {
            Status = status;
            Code = code;
            DataJson = dataJson;
        }

        /// <summary>The error behind a native OxmcpError pointer.</summary>
        internal static McpException FromError(int status, IntPtr error)
        {
            string message = Native.Utf8Z(Native.oxmcp_error_message(error));
            long code;
            long? c = Native.oxmcp_error_code(error, out code) ? code : (long?)null;
            UIntPtr len;
            IntPtr data = Native.oxmcp_error_data(error, out len);
            return new McpException(StatusOf(status), message, c, Native.Utf8(data, len));
        }

        /// <summary>A native status as <see cref="McpStatus"/>: the values are the engine's
        /// stable error-kind numbers; one this assembly does not know is Internal, never an
        /// undefined enum value.</summary>
        internal static McpStatus StatusOf(int status)
        {
            return Enum.IsDefined(typeof(McpStatus), status) ? (McpStatus)status : McpStatus.Internal;
        }

        /// <summary>The calling thread's last error (right after a failed call).</summary>
        internal static McpException Last(int status)
        {
            IntPtr e = Native.oxmcp_last_error();
            return e == IntPtr.Zero ? new McpException(StatusOf(status), "oxmcp call failed", null, null) : FromError(status, e);
        }

        /// <summary>Throws the last error unless <paramref name="status"/> is OK.</summary>
        internal static void Check(int status)
        {
            if (status != 0) throw Last(status);
        }
    }
}
