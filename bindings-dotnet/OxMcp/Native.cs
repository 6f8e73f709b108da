// P/Invoke declarations of the oxmcp C ABI (bindings-c/include/oxmcp.h). Internal: the
// public API is McpRuntime, McpServer, McpClient.
using System;
using System.Runtime.InteropServices;
using System.Text;

namespace OxMcp
{
    /// <summary>The status every fallible C function returns (OxmcpStatus).</summary>
    public enum McpStatus
    {
        /// <summary>Success.</summary>
        Ok = 0,
        /// <summary>The peer answered with a JSON-RPC error (see <see cref="McpException.Code"/>).</summary>
        Rpc = 1,
        /// <summary>The request's local timeout elapsed.</summary>
        Timeout = 2,
        /// <summary>The request was cancelled.</summary>
        Cancelled = 3,
        /// <summary>The connection, server or runtime is closed.</summary>
        Closed = 4,
        /// <summary>The transport failed or a process could not start.</summary>
        Transport = 5,
        /// <summary>The peer broke the protocol.</summary>
        Protocol = 6,
        /// <summary>An unusable argument (bad JSON, wrong state, ...).</summary>
        InvalidInput = 7,
        /// <summary>The peer lacks the capability the call needs.</summary>
        CapabilityMissing = 8,
        /// <summary>A handler failed.</summary>
        Handler = 9,
        /// <summary>A bug inside oxmcp.</summary>
        Internal = 10,
        /// <summary>Authorization failed: the server refused the credentials and no new ones could be obtained.</summary>
        Unauthorized = 11,
    }

    internal static class Native
    {
        private const string Lib = "oxmcp";

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void CompletionFn(IntPtr userData, int status, IntPtr resultJson, UIntPtr resultLen, IntPtr error);

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void ProgressFn(IntPtr userData, double progress, [MarshalAs(UnmanagedType.I1)] bool hasTotal, double total, IntPtr message);

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void NotificationFn(IntPtr userData, IntPtr method, IntPtr paramsJson, UIntPtr paramsLen);

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void HandlerFn(IntPtr userData, IntPtr request, IntPtr paramsJson, UIntPtr paramsLen);

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void CancelFn(IntPtr userData);

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void TokenVerifierFn(IntPtr userData, IntPtr request, IntPtr token);

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void ClientRequestFn(IntPtr userData, IntPtr request, IntPtr method, IntPtr paramsJson, UIntPtr paramsLen);

        // errors
        [DllImport(Lib)] internal static extern IntPtr oxmcp_last_error();
        [DllImport(Lib)] internal static extern int oxmcp_error_status(IntPtr error);
        [DllImport(Lib)] internal static extern IntPtr oxmcp_error_message(IntPtr error);
        [DllImport(Lib)] [return: MarshalAs(UnmanagedType.I1)] internal static extern bool oxmcp_error_code(IntPtr error, out long code);
        [DllImport(Lib)] internal static extern IntPtr oxmcp_error_data(IntPtr error, out UIntPtr len);

        // runtime
        [DllImport(Lib)] internal static extern int oxmcp_runtime_new(uint workerThreads, out RuntimeHandle runtime);
        [DllImport(Lib)] internal static extern int oxmcp_runtime_shutdown(RuntimeHandle runtime);
        [DllImport(Lib)] internal static extern void oxmcp_runtime_free(IntPtr runtime);

        // requests
        [DllImport(Lib)] internal static extern int oxmcp_request_cancel(RequestHandle request);
        [DllImport(Lib)] internal static extern void oxmcp_request_free(IntPtr request);

        // client
        [DllImport(Lib)] internal static extern int oxmcp_client_new(RuntimeHandle runtime, byte[] name, byte[] version, out ClientHandle client);
        [DllImport(Lib)] internal static extern int oxmcp_client_on_notification(ClientHandle client, NotificationFn callback, IntPtr userData);
        [DllImport(Lib)] internal static extern int oxmcp_client_on_request(ClientHandle client, byte[] answers, ClientRequestFn callback, IntPtr userData);
        [DllImport(Lib)] internal static extern int oxmcp_client_era(ClientHandle client, out IntPtr era);
        [DllImport(Lib)] internal static extern int oxmcp_client_configure(ClientHandle client, byte[] optionsJson, UIntPtr optionsLen);
        [DllImport(Lib)] internal static extern int oxmcp_client_connect(ClientHandle client, byte[] optionsJson, UIntPtr optionsLen, CompletionFn callback, IntPtr userData, out RequestHandle request);
        // The client door: every client call by name (oxmcp_client_call in oxmcp.h).
        [DllImport(Lib)] internal static extern int oxmcp_client_call(ClientHandle client, byte[] op, byte[] a, byte[] b, UIntPtr bLen, uint timeoutMs, ProgressFn onProgress, CompletionFn callback, IntPtr userData, out RequestHandle request);
        [DllImport(Lib)] internal static extern int oxmcp_client_notify_roots_changed(ClientHandle client);
        [DllImport(Lib)] internal static extern int oxmcp_client_close(ClientHandle client, CompletionFn callback, IntPtr userData);
        [DllImport(Lib)] internal static extern void oxmcp_client_free(IntPtr client);

        // server
        [DllImport(Lib)] internal static extern int oxmcp_server_new(RuntimeHandle runtime, byte[] name, byte[] version, out ServerHandle server);
        [DllImport(Lib)] internal static extern int oxmcp_server_set_instructions(ServerHandle server, byte[] instructions);
        [DllImport(Lib)] internal static extern int oxmcp_server_set_task_options(ServerHandle server, byte[] optionsJson, UIntPtr optionsLen);
        [DllImport(Lib)] internal static extern int oxmcp_server_add_skill(ServerHandle server, byte[] skillPath, byte[] filesJson, UIntPtr filesLen);
        [DllImport(Lib)] internal static extern int oxmcp_server_add_skills_dir(ServerHandle server, byte[] root);
        // The registration door: a definition of a handler kind served by a host function, and its removal.
        [DllImport(Lib)] internal static extern int oxmcp_server_register(ServerHandle server, byte[] kind, byte[] json, UIntPtr len, HandlerFn handler, IntPtr userData);
        [DllImport(Lib)] internal static extern int oxmcp_server_remove(ServerHandle server, byte[] kind, byte[] key, [MarshalAs(UnmanagedType.I1)] out bool removed);
        [DllImport(Lib)] internal static extern int oxmcp_server_session_count(ServerHandle server, out UIntPtr count);
        [DllImport(Lib)] internal static extern int oxmcp_server_notify_resource_updated(ServerHandle server, byte[] uri);
        [DllImport(Lib)] internal static extern int oxmcp_server_mount(ServerHandle server, byte[] prefix, ServerHandle other);
        [DllImport(Lib)] internal static extern int oxmcp_server_mount_client(ServerHandle server, byte[] prefix, ClientHandle client, CompletionFn callback, IntPtr userData, out RequestHandle outRequest);
        [DllImport(Lib)] internal static extern int oxmcp_server_verify_tokens(ServerHandle server, TokenVerifierFn callback, IntPtr userData);
        [DllImport(Lib)] internal static extern int oxmcp_server_serve_stdio(ServerHandle server, CompletionFn callback, IntPtr userData, out RequestHandle request);
        [DllImport(Lib)] internal static extern int oxmcp_server_start_http_options(ServerHandle server, byte[] optionsJson, UIntPtr optionsLen, out ushort port);
        [DllImport(Lib)] internal static extern int oxmcp_server_stop_http(ServerHandle server);
        [DllImport(Lib)] internal static extern void oxmcp_server_free(IntPtr server);

        // incoming requests
        [DllImport(Lib)] internal static extern int oxmcp_incoming_complete(IncomingHandle request, byte[] json, UIntPtr len);
        /// <summary>OXMCP_NO_CODE: oxmcp_incoming_fail_rpc without a JSON-RPC code, a handler failure.</summary>
        internal const long NoCode = long.MinValue;
        [DllImport(Lib)] internal static extern int oxmcp_incoming_fail_rpc(IncomingHandle request, long code, byte[] message, byte[] dataJson, UIntPtr dataLen);
        [DllImport(Lib)] internal static extern int oxmcp_incoming_on_cancel(IncomingHandle request, CancelFn callback, IntPtr userData);
        // The context door: everything a handler asks of its request, by name.
        [DllImport(Lib)] internal static extern int oxmcp_incoming_call(IncomingHandle request, byte[] op, byte[] paramsJson, UIntPtr paramsLen, CompletionFn callback, IntPtr userData, out RequestHandle outRequest);
        [DllImport(Lib)] internal static extern void oxmcp_incoming_free(IntPtr request);

        /// <summary>A NUL-terminated UTF-8 copy of <paramref name="s"/> (null stays null).</summary>
        internal static byte[] Z(string s)
        {
            return s == null ? null : Encoding.UTF8.GetBytes(s + "\0");
        }

        /// <summary>UTF-8 bytes of <paramref name="s"/> without a terminator (JSON arguments).</summary>
        internal static byte[] Bytes(string s)
        {
            return s == null ? null : Encoding.UTF8.GetBytes(s);
        }

        internal static UIntPtr Len(byte[] b)
        {
            return new UIntPtr((uint)(b == null ? 0 : b.Length));
        }

        /// <summary>A string from a pointer + length (UTF-8).</summary>
        internal static string Utf8(IntPtr ptr, UIntPtr len)
        {
            if (ptr == IntPtr.Zero) return null;
            int n = checked((int)len.ToUInt64());
            var bytes = new byte[n];
            Marshal.Copy(ptr, bytes, 0, n);
            return Encoding.UTF8.GetString(bytes);
        }

        /// <summary>A string from a NUL-terminated UTF-8 pointer.</summary>
        internal static string Utf8Z(IntPtr ptr)
        {
            if (ptr == IntPtr.Zero) return null;
            int n = 0;
            while (Marshal.ReadByte(ptr, n) != 0) n++;
            return Utf8(ptr, new UIntPtr((uint)n));
        }
    }
}
