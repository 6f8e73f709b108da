using System;
using System.Threading;
using System.Threading.Tasks;

namespace OxMcp
{
    /// <summary>
    /// Answers one native incoming request (a server handler's call, or the server's
    /// sampling, elicitation or roots request to a client) on the thread pool: the work gets
    /// a CancellationToken the peer's cancel fires, its result completes the request, and an
    /// exception fails it.
    /// </summary>
    internal static class Incoming
    {
        private static readonly Native.CancelFn OnCancelFn = OnCancel;
        private static readonly Registry<CancellationTokenSource> Cancels = new Registry<CancellationTokenSource>();

        /// <summary>Takes ownership of <paramref name="request"/> and returns at once (it runs on a native thread).</summary>
        internal static void Answer(IntPtr request, Func<IncomingHandle, CancellationToken, Task<string>> work)
        {
            IncomingHandle incoming = null;
            try
            {
                incoming = new IncomingHandle(request);
                var cts = new CancellationTokenSource();
                long cancelId = Cancels.Add(cts);
                Native.oxmcp_incoming_on_cancel(incoming, OnCancelFn, new IntPtr(cancelId));
                IncomingHandle req = incoming;
                Task.Run(async () =>
                {
                    try
                    {
                        string result = await work(req, cts.Token).ConfigureAwait(false);
                        byte[] bytes = Native.Bytes(result ?? "null");
                        int st = Native.oxmcp_incoming_complete(req, bytes, Native.Len(bytes));
                        if (st != 0) Fail(req, McpException.Last(st));
                    }
                    catch (Exception e)
                    {
                        Fail(req, e);
                    }
                    finally
                    {
                        req.Dispose(); // after this the cancel callback cannot run
                        Cancels.Remove(cancelId);
                        cts.Dispose();
                    }
                });
            }
            catch (Exception e)
            {
                Console.Error.WriteLine("OxMcp: request dispatch failed: " + e);
                if (incoming != null) incoming.Dispose();
            }
        }

        private static void Fail(IncomingHandle req, Exception e)
        {
            var mcp = e as McpException;
            if (mcp != null && mcp.Code.HasValue && mcp.Status == McpStatus.Rpc)
            {
                byte[] data = Native.Bytes(mcp.DataJson);
                Native.oxmcp_incoming_fail_rpc(req, mcp.Code.Value, Native.Z(mcp.Message), data, Native.Len(data));
            }
            else
            {
                // The message alone, as every host sends it (the type's name when there is none).
                string message = e is OperationCanceledException ? "cancelled" : (string.IsNullOrEmpty(e.Message) ? e.GetType().Name : e.Message);
                Native.oxmcp_incoming_fail_rpc(req, Native.NoCode, Native.Z(message), null, UIntPtr.Zero);
            }
        }

        private static void OnCancel(IntPtr userData)
        {
            try
            {
                CancellationTokenSource cts = Cancels.Get(userData.ToInt64());
                // Off the native thread: token callbacks run host code.
                if (cts != null) ThreadPool.QueueUserWorkItem(_ =>
                {
                    try { cts.Cancel(); } catch (ObjectDisposedException) { }
                });
            }
            catch (Exception e)
            {
                Console.Error.WriteLine("OxMcp: cancel callback failed: " + e);
            }
        }
    }
}
