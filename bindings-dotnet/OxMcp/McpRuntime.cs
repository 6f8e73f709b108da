using System;
using System.Threading;

namespace OxMcp
{
    /// <summary>
    /// The native threads every server and client runs on. <see cref="Default"/> is created
    /// on first use. Call <see cref="Shutdown"/> (or <see cref="ShutdownDefault"/>) before
    /// the process ends: it stops and joins the native threads, which the runtime host
    /// (mono, .NET) would otherwise wait for at exit. Not from inside a handler or callback.
    /// </summary>
    public sealed class McpRuntime : IDisposable
    {
        private static readonly object Gate = new object();
        private static McpRuntime _default;

        internal readonly RuntimeHandle Handle;

        /// <summary>Starts a runtime with <paramref name="workerThreads"/> threads (0 = 2).</summary>
        public McpRuntime(uint workerThreads = 0)
        {
            RuntimeHandle h;
            McpException.Check(Native.oxmcp_runtime_new(workerThreads, out h));
            Handle = h;
        }

        /// <summary>The process-wide runtime, created on first use.</summary>
        public static McpRuntime Default
        {
            get
            {
                lock (Gate)
                {
                    if (_default == null)
                    {
                        _default = new McpRuntime();
                        AppDomain.CurrentDomain.ProcessExit += (s, e) => _default.Shutdown();
                    }
                    return _default;
                }
            }
        }

        /// <summary>Shuts the default runtime down, if it was created.</summary>
        public static void ShutdownDefault()
        {
            McpRuntime rt;
            lock (Gate) rt = _default;
            if (rt != null) rt.Shutdown();
        }

        /// <summary>
        /// Stops the runtime: pending calls fail with <see cref="McpStatus.Closed"/>,
        /// listeners close, child processes stop, the native threads exit. Idempotent.
        /// </summary>
        public void Shutdown()
        {
            if (Handle.IsClosed) return;
            McpException.Check(Native.oxmcp_runtime_shutdown(Handle));
        }

        /// <summary>Shuts down and releases the runtime.</summary>
        public void Dispose()
        {
            Shutdown();
            Handle.Dispose();
        }
    }
}
