using System.Collections.Generic;
using System.Threading;

namespace OxMcp
{
    /// <summary>
    /// Objects the native side refers to by id (passed as user_data): an id that was removed
    /// (or never existed) just finds nothing, so a late callback can never touch freed memory.
    /// </summary>
    internal sealed class Registry<T> where T : class
    {
        private readonly Dictionary<long, T> _items = new Dictionary<long, T>();
        private long _next;

        internal long Add(T item)
        {
            long id = Interlocked.Increment(ref _next);
            lock (_items) _items[id] = item;
            return id;
        }

        internal T Get(long id)
        {
            T item;
            lock (_items) return _items.TryGetValue(id, out item) ? item : null;
        }

        internal void Remove(long id)
        {
            lock (_items) _items.Remove(id);
        }
    }
}
