// SafeHandles over the C ABI's opaque handles: each releases its handle exactly once, and
// never while a P/Invoke call is using it.
using System;
using System.Runtime.InteropServices;

namespace OxMcp
{
    internal abstract class OxHandle : SafeHandle
    {
        protected OxHandle() : base(IntPtr.Zero, true) { }

        internal OxHandle(IntPtr existing) : base(IntPtr.Zero, true)
        {
            SetHandle(existing);
        }

        public override bool IsInvalid
        {
            get { return handle == IntPtr.Zero; }
        }
    }

    internal sealed class RuntimeHandle : OxHandle
    {
        protected override bool ReleaseHandle()
        {
            Native.oxmcp_runtime_free(handle);
            return true;
        }
    }

    internal sealed class ClientHandle : OxHandle
    {
        protected override bool ReleaseHandle()
        {
            Native.oxmcp_client_free(handle);
            return true;
        }
    }

    internal sealed class ServerHandle : OxHandle
    {
        protected override bool ReleaseHandle()
        {
            Native.oxmcp_server_free(handle);
            return true;
        }
    }

    internal sealed class RequestHandle : OxHandle
    {
        protected override bool ReleaseHandle()
        {
            Native.oxmcp_request_free(handle);
            return true;
        }
    }

    internal sealed class IncomingHandle : OxHandle
    {
        internal IncomingHandle(IntPtr existing) : base(existing) { }

        protected override bool ReleaseHandle()
        {
            Native.oxmcp_incoming_free(handle);
            return true;
        }
    }
}
