// Preloaded (`node --import ./loopback.mjs ...`) into the official TypeScript everything
// server for its HTTP modes: it calls `app.listen(PORT)` without a host, which binds every
// interface. This makes a listen() without a host bind 127.0.0.1 instead.
import net from 'node:net';

const listen = net.Server.prototype.listen;
const isPort = (v) => typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v));

net.Server.prototype.listen = function (...args) {
  if (isPort(args[0]) && typeof args[1] !== 'string') {
    args.splice(1, 0, '127.0.0.1');
  } else if (args[0] && typeof args[0] === 'object' && isPort(args[0].port) && args[0].host === undefined) {
    args[0] = { ...args[0], host: '127.0.0.1' };
  }
  return listen.apply(this, args);
};
