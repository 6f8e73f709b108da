using System;
using System.Collections.Generic;
using System.Reflection;

namespace OxMcp
{
    /// <summary>
    /// Joins the engine's spans to <c>System.Diagnostics.Activity</c>, which .NET's
    /// OpenTelemetry listens to: a handler runs inside an activity whose parent is the engine's
    /// span for the request (so the host's own activities nest under it), and a client call
    /// made inside an activity continues its trace.
    ///
    /// By reflection: OxMcp builds for runtimes without <c>System.Diagnostics.DiagnosticSource</c>
    /// (mono, .NET Framework without the package), where all of this does nothing. On .NET 5
    /// and later the handler's activity comes from the <c>ActivitySource</c> named
    /// <see cref="SourceName"/> when something listens to it; otherwise (no listener, or .NET
    /// Core 3.x) it is a plain activity named <see cref="SourceName"/> + <c>".Handler"</c>,
    /// which OpenTelemetry exports with <c>AddLegacySource</c>. Only W3C ids cross (the
    /// default from .NET 5; on .NET Core 3.x set <c>Activity.DefaultIdFormat</c> to W3C).
    /// </summary>
    internal static class Telemetry
    {
        /// <summary>The name of OxMcp's <c>ActivitySource</c> (<c>AddSource("OxMcp")</c>).</summary>
        internal const string SourceName = "OxMcp";

        private static readonly Type ActivityType = Type.GetType("System.Diagnostics.Activity, System.Diagnostics.DiagnosticSource", false);
        private static readonly Func<object> GetCurrent;
        private static readonly PropertyInfo IdFormat, Id, TraceState;
        private static readonly MethodInfo SetParentId, Start, Stop, StartFromSource;
        private static readonly object Source, InternalKind;
        private const int W3C = 2; // ActivityIdFormat.W3C

        static Telemetry()
        {
            if (ActivityType == null) return;
            try
            {
                MethodInfo current = ActivityType.GetProperty("Current", BindingFlags.Public | BindingFlags.Static).GetGetMethod();
                GetCurrent = (Func<object>)Delegate.CreateDelegate(typeof(Func<object>), current);
                IdFormat = ActivityType.GetProperty("IdFormat");
                Id = ActivityType.GetProperty("Id");
                TraceState = ActivityType.GetProperty("TraceStateString");
                SetParentId = ActivityType.GetMethod("SetParentId", new[] { typeof(string) });
                Start = ActivityType.GetMethod("Start", Type.EmptyTypes);
                Stop = ActivityType.GetMethod("Stop", Type.EmptyTypes);
                Type sourceType = Type.GetType("System.Diagnostics.ActivitySource, System.Diagnostics.DiagnosticSource", false);
                Type kindType = Type.GetType("System.Diagnostics.ActivityKind, System.Diagnostics.DiagnosticSource", false);
                if (sourceType != null && kindType != null)
                {
                    foreach (MethodInfo m in sourceType.GetMethods())
                    {
                        ParameterInfo[] p = m.GetParameters();
                        if (m.Name == "StartActivity" && p.Length >= 3 && p[0].ParameterType == typeof(string) &&
                            p[1].ParameterType == kindType && p[2].ParameterType == typeof(string))
                        {
                            StartFromSource = m;
                        }
                    }
                    if (StartFromSource != null)
                    {
                        Source = Activator.CreateInstance(sourceType, SourceName, typeof(Telemetry).Assembly.GetName().Version.ToString());
                        InternalKind = Enum.ToObject(kindType, 0);
                    }
                }
            }
            catch (Exception e)
            {
                // A DiagnosticSource unlike any this was written for: no joining, and say why once.
                Console.Error.WriteLine("OxMcp: System.Diagnostics.Activity is not usable, telemetry stays apart: " + e.Message);
                GetCurrent = null;
            }
        }

        /// <summary>Whether this runtime has <c>Activity</c> (else every method here does nothing).</summary>
        internal static bool Available
        {
            get { return GetCurrent != null; }
        }

        /// <summary>
        /// The W3C trace context of the current activity, <c>{traceparent, tracestate}</c>, or
        /// null (none, not W3C, or no <c>Activity</c> on this runtime).
        /// </summary>
        internal static string[] Current()
        {
            if (GetCurrent == null) return null;
            object activity = GetCurrent();
            if (activity == null || Convert.ToInt32(IdFormat.GetValue(activity, null)) != W3C) return null;
            return new[] { (string)Id.GetValue(activity, null), (string)TraceState.GetValue(activity, null) };
        }

        /// <summary>
        /// <paramref name="op"/> with the current activity's trace context, as the engine's
        /// client door reads it (<c>{"op", "traceparent", "tracestate"}</c>); the op alone when
        /// there is none.
        /// </summary>
        internal static string TracedOp(string op)
        {
            string[] trace = Current();
            if (trace == null) return op;
            return "{\"op\":" + McpJson.Quote(op) + ",\"traceparent\":" + McpJson.Quote(trace[0]) +
                (string.IsNullOrEmpty(trace[1]) ? "" : ",\"tracestate\":" + McpJson.Quote(trace[1])) + "}";
        }

        /// <summary>
        /// Starts the handler's activity, a child of the span <paramref name="traceJson"/>
        /// names (<c>{"traceparent", "tracestate"}</c>, or null), as the current one; the
        /// returned value stops it (null: nothing started).
        /// </summary>
        internal static IDisposable Enter(string traceJson)
        {
            if (GetCurrent == null || string.IsNullOrEmpty(traceJson) || traceJson == "null") return null;
            Dictionary<string, object> trace = JsonCodec.Object(traceJson);
            object parent, state;
            trace.TryGetValue("traceparent", out parent);
            trace.TryGetValue("tracestate", out state);
            return EnterTrace(parent as string, state as string);
        }

        /// <summary>
        /// <see cref="Enter"/> for a request the server sent a client (sampling, elicitation,
        /// roots): its params' <c>_meta</c> carries the trace context.
        /// </summary>
        internal static IDisposable EnterMeta(string paramsJson)
        {
            if (GetCurrent == null || string.IsNullOrEmpty(paramsJson)) return null;
            object meta;
            var members = JsonCodec.Parse(paramsJson) as Dictionary<string, object>;
            if (members == null || !members.TryGetValue("_meta", out meta)) return null;
            var m = meta as Dictionary<string, object>;
            if (m == null) return null;
            object parent, state;
            m.TryGetValue("traceparent", out parent);
            m.TryGetValue("tracestate", out state);
            return EnterTrace(parent as string, state as string);
        }

        private static IDisposable EnterTrace(string traceparent, string tracestate)
        {
            if (string.IsNullOrEmpty(traceparent)) return null;
            object activity = null;
            if (Source != null)
            {
                object[] args = new object[StartFromSource.GetParameters().Length];
                args[0] = "handler";
                args[1] = InternalKind;
                args[2] = traceparent;
                ParameterInfo[] p = StartFromSource.GetParameters();
                for (int i = 3; i < args.Length; i++) args[i] = p[i].HasDefaultValue && !(p[i].DefaultValue is DBNull) ? p[i].DefaultValue : null;
                activity = StartFromSource.Invoke(Source, args); // null when nothing listens
            }
            if (activity == null)
            {
                activity = Activator.CreateInstance(ActivityType, SourceName + ".Handler");
                SetParentId.Invoke(activity, new object[] { traceparent });
                if (!string.IsNullOrEmpty(tracestate)) TraceState.SetValue(activity, tracestate, null);
                Start.Invoke(activity, null);
            }
            else if (!string.IsNullOrEmpty(tracestate))
            {
                TraceState.SetValue(activity, tracestate, null);
            }
            return new Stopper(activity);
        }

        private sealed class Stopper : IDisposable
        {
            private object _activity;

            internal Stopper(object activity)
            {
                _activity = activity;
            }

            public void Dispose()
            {
                if (_activity != null) Stop.Invoke(_activity, null);
                _activity = null;
            }
        }
    }
}
