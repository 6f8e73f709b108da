// The bridge from a native completion callback to a Task: one GCHandle per call carries the
// TaskCompletionSource through user_data; the native side calls back exactly once.
using System;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace OxMcp
{
    /// <summary>One progress notification of a client call.</summary>
    public struct McpProgress
    {
        /// <summary>Progress <paramref name="progress"/> of <paramref name="total"/> (null: unknown), with a message or none.</summary>
        public McpProgress(double progress, double? total = null, string message = null)
        {
            Progress = progress;
            Total = total;
            Message = message;
        }

        /// <summary>Progress so far.</summary>
        public double Progress;
        /// <summary>The total, when known.</summary>
        public double? Total;
        /// <summary>A status message, or null.</summary>
        public string Message;
    }

    internal delegate int StartCall(IntPtr userData, out RequestHandle request);

    internal sealed class Pending
    {
        // Kept in static fields: the native side holds these function pointers for good.
        internal static readonly Native.CompletionFn OnComplete = Complete;
        internal static readonly Native.ProgressFn OnProgress = ReportProgress;

        private readonly TaskCompletionSource<string> _tcs =
            new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly Action<McpProgress> _progress;
        private CancellationToken _token;

        private Pending(Action<McpProgress> progress)
        {
            _progress = progress;
        }

        /// <summary>
        /// Starts a native call and returns its Task. Cancelling <paramref name="token"/>
        /// cancels the call natively (the peer gets notifications/cancelled); the Task then
        /// ends as cancelled.
        /// </summary>
        internal static Task<string> Run(StartCall start, CancellationToken token, Action<McpProgress> progress = null)
        {
            token.ThrowIfCancellationRequested();
            var p = new Pending(progress) { _token = token };
            GCHandle gch = GCHandle.Alloc(p);
            RequestHandle request;
            int status = start(GCHandle.ToIntPtr(gch), out request);
            if (status != 0)
            {
                // Nothing started: the callback will never come.
                gch.Free();
                if (request != null) request.Dispose();
                throw McpException.Last(status);
            }
            CancellationTokenRegistration reg = default(CancellationTokenRegistration);
            if (token.CanBeCanceled)
            {
                reg = token.Register(() =>
                {
                    if (request == null || request.IsInvalid) return;
                    try { Native.oxmcp_request_cancel(request); }
                    catch (ObjectDisposedException) { } // already completed
                });
            }
            p._tcs.Task.ContinueWith(_ =>
            {
                reg.Dispose();
                if (request != null) request.Dispose();
            }, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
            return p._tcs.Task;
        }

        private static void Complete(IntPtr userData, int status, IntPtr json, UIntPtr len, IntPtr error)
        {
            try
            {
                GCHandle gch = GCHandle.FromIntPtr(userData);
                var p = (Pending)gch.Target;
                gch.Free();
                if (status == 0)
                    p._tcs.TrySetResult(Native.Utf8(json, len));
                else if (status == (int)McpStatus.Cancelled && p._token.IsCancellationRequested)
                    p._tcs.TrySetCanceled(p._token);
                else
                    p._tcs.TrySetException(McpException.FromError(status, error));
            }
            catch (Exception e)
            {
                // Never let an exception unwind into native code.
                Console.Error.WriteLine("OxMcp: completion callback failed: " + e);
            }
        }

        private static void ReportProgress(IntPtr userData, double progress, bool hasTotal, double total, IntPtr message)
        {
            try
            {
                var p = (Pending)GCHandle.FromIntPtr(userData).Target;
                if (p._progress != null)
                    p._progress(new McpProgress { Progress = progress, Total = hasTotal ? total : (double?)null, Message = Native.Utf8Z(message) });
            }
            catch (Exception e)
            {
                Console.Error.WriteLine("OxMcp: progress callback failed: " + e);
            }
        }
    }
}
