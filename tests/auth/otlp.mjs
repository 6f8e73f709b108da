// An OTLP/HTTP trace sink for the tests: what the engine exports (protobuf, uncompressed),
// read back as spans {trace, id, parent, name}. Decodes only the few fields it needs of
// ExportTraceServiceRequest (resource_spans = 1 > scope_spans = 2 > spans = 2; a span's
// trace_id = 1, span_id = 2, parent_span_id = 4, name = 5).
import { createServer } from 'node:http';

function varint(buf, i) {
  let value = 0n;
  for (let shift = 0n; ; shift += 7n) {
    const b = buf[i++];
    value |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return [value, i];
  }
}

// The fields of one message, as [number, value] (a Buffer for length-delimited ones).
function fields(buf) {
  const out = [];
  let i = 0;
  while (i < buf.length) {
    const [key, at] = varint(buf, i);
    const [field, wire] = [Number(key >> 3n), Number(key & 7n)];
    if (wire === 0) {
      const [v, next] = varint(buf, at);
      out.push([field, v]);
      i = next;
    } else if (wire === 2) {
      const [len, next] = varint(buf, at);
      out.push([field, buf.subarray(next, next + Number(len))]);
      i = next + Number(len);
    } else if (wire === 1 || wire === 5) {
      i = at + (wire === 1 ? 8 : 4);
    } else {
      throw new Error(`protobuf wire type ${wire} at ${i}`);
    }
  }
  return out;
}

const within = (buf, n) => fields(buf).filter(([f]) => f === n).map(([, v]) => v);

export function spansIn(body) {
  const spans = [];
  for (const rs of within(body, 1)) {
    for (const ss of within(rs, 2)) {
      for (const span of within(ss, 2)) {
        const s = {};
        for (const [f, v] of fields(span)) {
          if (f === 1) s.trace = v.toString('hex');
          if (f === 2) s.id = v.toString('hex');
          if (f === 4) s.parent = v.toString('hex');
          if (f === 5) s.name = v.toString('utf8');
        }
        spans.push(s);
      }
    }
  }
  return spans;
}

// Listens on a free loopback port; `spans()` is every span posted to /v1/traces so far.
export async function otlpSink() {
  const bodies = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') bodies.push(Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    spans: () => bodies.flatMap(spansIn),
    close: () => server.close(),
  };
}
