// The shared behaviour suite (tests/scenarios/README.md): every scenario of scenarios.json,
// in each of its eras, as one raw request through the JS client against the JS scenario
// server (fixtures/scenario-server.mjs, a child process over stdio), and what `expect`
// says of its outcome. One test per scenario and era, named `<scenario name> [<era>]`.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import oxmcp, { Client, McpError, AbortError } from 'oxmcp'
import { ROOT, fixture, within } from './helpers.mjs'

const SPEC = JSON.parse(readFileSync(path.resolve(ROOT, '..', 'tests', 'scenarios', 'scenarios.json'), 'utf8'))
const SERVER = fixture('scenario-server.mjs')
const DEFAULT_ERAS = ['session', 'stateless']
const MATCHERS = new Set(['text', 'contains', 'isError', 'error', 'at', 'count', 'present', 'absent', 'handler_cancelled'])
const SPECIALS = new Set(['cancel_during_sampling', 'call_as_task', 'set_level', 'connect_refused'])
// How long the cancel scenario waits for the handler to hold, then for it to see its
// cancellation (the README's 10 seconds).
const HOLD_WITHIN_MS = 30_000
const CANCEL_WITHIN_MS = 10_000

/** The engine kind name of an error, through the binding's own mapping (kind name -> class;
 *  a subclass such as AbortError is the kind of its nearest mapped class). */
const KIND_OF_CLASS = new Map(oxmcp._errorKinds.map(([, name, C]) => [C, name]))
function kindOf(err) {
  for (let C = err?.constructor; C && C !== Object; C = Object.getPrototypeOf(C)) {
    if (KIND_OF_CLASS.has(C)) return KIND_OF_CLASS.get(C)
  }
  return undefined
}

/** The client's answers to the server's requests (the README's "client"), and what the
 *  sampling handler saw of a `hold` request. */
function clientHandlers() {
  const seen = {}
  seen.holding = new Promise(resolve => { seen.held = resolve })
  seen.cancelled = new Promise(resolve => { seen.sawCancel = resolve })
  seen.handlerCancelled = false
  seen.options = {
    sampling: (params, { signal }) => {
      if (params.messages[0].content.text === 'hold') {
        // Never answers: waits for its own cancellation signal.
        seen.held()
        return new Promise((_resolve, reject) => {
          const aborted = () => {
            seen.handlerCancelled = true
            seen.sawCancel()
            reject(signal.reason)
          }
          if (signal.aborted) aborted()
          else signal.addEventListener('abort', aborted, { once: true })
        })
      }
      return { role: 'assistant', content: { type: 'text', text: `maxTokens=${params.maxTokens}` }, model: 'scenario' }
    },
    elicitation: () => ({ action: 'accept', content: { name: 'ada' } }),
    roots: [{ uri: 'file:///scenario/root', name: 'root' }],
  }
  return seen
}

/** The value at a dotted path (numbers index arrays), or `undefined`. */
function atPath(value, dotted) {
  for (const part of dotted.split('.')) {
    if (Array.isArray(value) && /^\d+$/.test(part) && Number(part) < value.length) value = value[Number(part)]
    else if (value && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, part)) value = value[part]
    else return undefined
  }
  return value
}

/** The text the `text` and `contains` matchers look at, by the request's method. */
function resultText(method, result) {
  if (method === 'tools/call') return (result.content || []).filter(b => b.type === 'text').map(b => b.text).join('')
  if (method === 'resources/read') return atPath(result, 'contents.0.text')
  if (method === 'prompts/get') return atPath(result, 'messages.0.content.text')
  assert.fail(`no text matcher for a ${method} result`)
}

function namedItems(result, at) {
  const items = atPath(result, at)
  assert.ok(Array.isArray(items), `${at} is not an array in ${JSON.stringify(result)}`)
  return items.map(item => item?.name)
}

/** Every matcher of `expect` (but `error` and `handler_cancelled`) against a result. */
function checkResult(method, expect, result) {
  const shown = JSON.stringify(result)
  if ('text' in expect) assert.equal(resultText(method, result), expect.text, shown)
  if ('contains' in expect) {
    const text = resultText(method, result)
    assert.ok(typeof text === 'string' && text.includes(expect.contains), `no ${JSON.stringify(expect.contains)} in ${shown}`)
  }
  if ('isError' in expect) assert.equal(result.isError ?? false, expect.isError, shown)
  for (const [at, want] of Object.entries(expect.at || {})) {
    const got = atPath(result, at)
    assert.notEqual(got, undefined, `nothing at ${at} in ${shown}`)
    assert.deepEqual(got, want, `${at}`)
  }
  if ('count' in expect) {
    const [at, n] = expect.count
    const items = atPath(result, at)
    assert.ok(Array.isArray(items), `${at} is not an array in ${shown}`)
    assert.equal(items.length, n, `${at} has ${items.length} items, expected ${n}`)
  }
  if ('present' in expect) {
    const [at, name] = expect.present
    assert.ok(namedItems(result, at).includes(name), `no ${name} in ${at}: ${shown}`)
  }
  if ('absent' in expect) {
    const [at, name] = expect.absent
    assert.ok(!namedItems(result, at).includes(name), `${name} is in ${at}: ${shown}`)
  }
}

/** Starts the call, waits until the sampling handler holds, aborts the call's signal, and
 *  waits for the handler to see its own cancellation. */
async function cancelDuringSampling(client, seen, scenario) {
  const ac = new AbortController()
  const call = client.request(scenario.method, scenario.params, { signal: ac.signal })
  const ended = call.then(r => ({ result: r }), err => ({ err }))
  const first = await within(HOLD_WITHIN_MS, 'the sampling handler holding the hold request',
    Promise.race([seen.holding.then(() => null), ended]))
  assert.equal(first, null, `the call ended before the sampling handler held: ${JSON.stringify(first)}`)
  ac.abort()
  const { err } = await ended
  assert.ok(err instanceof AbortError, `the aborted call rejects with AbortError, not ${err}`)
  // A timer that keeps Node alive meanwhile: once the call is aborted the client has no
  // call of its own pending, and a handler waiting on its signal keeps nothing alive.
  let timer
  await Promise.race([seen.cancelled, new Promise(resolve => { timer = setTimeout(resolve, CANCEL_WITHIN_MS) })])
  clearTimeout(timer)
  assert.equal(seen.handlerCancelled, scenario.expect.handler_cancelled,
    `the sampling handler did not see its cancellation within ${CANCEL_WITHIN_MS / 1000} s`)
}

/** The `error` matcher against the host's error. */
function checkError(want, err) {
  if (!(err instanceof McpError)) throw err
  assert.equal(kindOf(err), want.kind, `${err.name} (kind ${kindOf(err)}): ${err.message}`)
  if ('code' in want) assert.equal(err.code, want.code, `code of ${err.message}`)
  if ('data' in want) assert.deepEqual(err.data, want.data, `data of ${err.message}`)
  if ('message_contains' in want) assert.ok(err.message.includes(want.message_contains), err.message)
}

/** Awaits `promise`, which must fail as `expect.error` says. */
async function expectFailure(expect, promise) {
  assert.ok('error' in expect, 'this special judges a failure: its expect needs error')
  let result
  try {
    result = await promise
  } catch (err) {
    checkError(expect.error, err)
    return
  }
  assert.fail(`expected an error, got ${JSON.stringify(result)}`)
}

async function play(scenario, era) {
  const { expect } = scenario
  const unknown = Object.keys(expect).filter(k => !MATCHERS.has(k))
  assert.deepEqual(unknown, [], 'matchers this runner does not know')
  const special = scenario.special
  assert.ok(special === undefined || SPECIALS.has(special), `a special this runner does not know: ${special}`)
  if (special === 'connect_refused') {
    await expectFailure(expect, Client.http(scenario.params.url, { era }))
    return
  }
  const seen = clientHandlers()
  const client = await within(30_000, 'connect', Client.stdio(process.execPath, [SERVER], { era, ...seen.options }))
  try {
    assert.equal(client.era, era)
    if (special === 'cancel_during_sampling') {
      await cancelDuringSampling(client, seen, scenario)
      return
    }
    assert.ok(!('handler_cancelled' in expect), 'handler_cancelled needs the cancel_during_sampling special')
    if (special === 'call_as_task') {
      // The host's own way to run a call as a task and wait for its end.
      const { name, arguments: args } = scenario.params
      checkResult(scenario.method, expect, await client.callTool(name, args, { task: true }))
      return
    }
    if (special === 'set_level') {
      // The host's own call, with its own per-call timeout.
      await expectFailure(expect, client.setLogLevel(scenario.params.level, { timeout: scenario.timeout_ms }))
      return
    }
    let result
    try {
      result = await client.request(scenario.method, scenario.params)
    } catch (err) {
      if (!('error' in expect)) throw err
      checkError(expect.error, err)
      return
    }
    assert.ok(!('error' in expect), `expected an error, got ${JSON.stringify(result)}`)
    checkResult(scenario.method, expect, result)
  } finally {
    await client.close()
  }
}

for (const scenario of SPEC.scenarios) {
  for (const era of scenario.eras || DEFAULT_ERAS) {
    test(`${scenario.name} [${era}]`, { timeout: 90_000 }, () => play(scenario, era))
  }
}

test('every error class maps to one engine kind name', () => {
  assert.deepEqual(oxmcp._errorKinds.map(([, name]) => name),
    ['rpc', 'timeout', 'cancelled', 'closed', 'transport', 'protocol', 'invalid_input', 'capability_missing',
      'handler', 'unauthorized'])
  assert.equal(kindOf(new McpError(-1, 'x')), 'rpc')
  assert.equal(kindOf(new AbortError()), 'cancelled')
})
