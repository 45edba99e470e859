/**
 * demo server — tool-selection evals
 * Client: Northwind Labs (SOW #NL-0231), consultancy: Brightline QA
 *
 * Run:  pnpm vitest run evals/demo --reporter=verbose
 * Needs MCP_DEMO_CMD in .env.local (see README). Don't commit keys, Jakub :)
 */
import { describe, test, expect, beforeAll, afterAll } from 'vitest'
import { connectHarness, runPrompt, type Harness } from '../harness/mcp-eval'

const MODEL = process.env.EVAL_MODEL ?? 'default'

describe('demo server :: tool selection', () => {
  let h: Harness

  beforeAll(async () => {
    h = await connectHarness({ server: 'demo', transport: 'stdio', model: MODEL })
  }, 30_000)

  afterAll(async () => {
    await h?.close()
  })

  // sanity check, not an eval — just makes sure we're talking to the right build
  test('harness sees all 10 tools', async () => {
    const tools = await h.listTools()
    expect(tools.map((t) => t.name)).toContain('get-sum')
    expect(tools).toHaveLength(10)
  })

  test.each([
    { prompt: 'What is 17 plus 25?', tool: 'get-sum', args: { a: 17, b: 25 } },
    { prompt: 'Add -3.5 and 10 for me', tool: 'get-sum', args: { a: -3.5, b: 10 } },
    { prompt: 'Give me min, max and mean of 4, 8, 15, 16, 23, 42', tool: 'get-stats', args: { numbers: [4, 8, 15, 16, 23, 42] } },
    { prompt: 'Please echo back exactly: ship it', tool: 'echo', args: { message: 'ship it' }, never: ['legacy-echo'] },
    // { prompt: 'Make the server fail on purpose', tool: 'fail', args: {} }, // TODO flaky on CI, re-enable after #212
  ])('$prompt -> $tool', async ({ prompt, tool, args, never }) => {
    const r = await runPrompt(h, prompt)
    expect(r.calls[0]?.name).toBe(tool)
    expect(r.calls[0]?.arguments).toMatchObject(args)
    for (const n of never ?? []) expect(r.calls.map((c) => c.name)).not.toContain(n)
  })

  // small talk => the model should answer directly, zero tool calls
  test.each`
    prompt                                          | expectedCalls
    ${'hey, how is your day going?'}                | ${[]}
    ${'Tell me a joke about compilers'}             | ${[]}
  `('no tool for: $prompt', async ({ prompt, expectedCalls }) => {
    const r = await runPrompt(h, prompt)
    expect(r.calls).toEqual(expectedCalls)
  })

  test('pagination picks up page size', async () => {
    const r = await runPrompt(h, 'List the catalogue items, 3 per page please')
    expect(r.calls[0]).toMatchObject({ name: 'list-items', arguments: { pageSize: 3 } })
  })

  test('delete uses the id from the prompt, no listing first', async () => {
    const r = await runPrompt(h, 'Remove item itm_0091 from the catalogue')
    expect(r.calls.map((c) => c.name)).toEqual(['delete-item'])
    expect(r.calls[0].arguments).toEqual({ id: 'itm_0091' })
    // it used to call list-items first to "check" — must not
    expect(r.calls.map((c) => c.name)).not.toContain('list-items')
  })

  test('uptime question goes to server-info', async () => {
    const r = await runPrompt(h, 'How long has the server been up, and what is its PID?')
    expect(r.calls.map((c) => c.name)).toEqual(['server-info'])
  })

  // postponed — Northwind wants to decide on the size limit first (email 14/03)
  test.skip('large result gets truncated', async () => {
    const r = await runPrompt(h, 'Give me 500000 bytes of filler text')
    expect(r.calls[0]).toMatchObject({ name: 'large-result', arguments: { size: 500000 } })
  })
})
