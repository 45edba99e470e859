/**
 * Tool routing evals for the demo MCP server.
 *
 * Every row of the table in `it.each` is one eval: the prompt we send, the tool
 * we expect the model call first, the arguments we check (only keys written
 * in the row are checked, other keys are ignore) and the tools which are
 * forbidden for the whole case.
 * When `tool` is null, the model must answer without to call any tool.
 *
 * The conversation case is separate `it` below the table, because template
 * table can not hold a list of messages in nice way.
 *
 * Run: npx jest test/evals/toolRouting.test.ts --runInBand
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { startDemoServer, askModel, type DemoServer, type ToolCall } from '../harness';

jest.setTimeout(60_000);

const names = (calls: ToolCall[]) => calls.map((c) => c.name);

describe('demo server - tool routing', () => {
  let server: DemoServer;

  beforeAll(async () => {
    server = await startDemoServer({ transport: 'stdio' });
  });

  afterAll(async () => {
    await server.close();
  });

  it.each`
    prompt                                                         | tool              | args                              | never
    ${'What is 640 plus 360?'}                                     | ${'get-sum'}      | ${{ a: 640, b: 360 }}             | ${['get-stats']}
    ${'Give me min, max and mean of 2.5, 4, 6.5 and 11'}           | ${'get-stats'}    | ${{ numbers: [2.5, 4, 6.5, 11] }} | ${[]}
    ${'Use the old legacy echo to shout "deploy done"'}            | ${'legacy-echo'}  | ${{ message: 'deploy done' }}     | ${['echo']}
    ${'Who painted the Mona Lisa?'}                                | ${null}           | ${{}}                             | ${[]}
    ${'Produce 512 bytes of dummy text'}                           | ${'large-result'} | ${{ size: 512 }}                  | ${[]}
    ${'Make the fail tool return an error, the reason is jest-run'} | ${'fail'}         | ${{ reason: 'jest-run' }}         | ${['crash']}
    ${'Show the catalogue items, two per page'}                    | ${'list-items'}   | ${{ pageSize: 2 }}                | ${['delete-item']}
  `('$prompt -> $tool', async ({ prompt, tool, args, never }) => {
    const { calls } = await askModel(server, [{ role: 'user', content: prompt }]);

    if (tool === null) {
      expect(calls).toHaveLength(0);
    } else {
      expect(calls[0]?.name).toBe(tool);
      expect(calls[0]?.arguments).toMatchObject(args);
    }
    for (const forbidden of never) {
      expect(names(calls)).not.toContain(forbidden);
    }
  });

  it('asks which item, then deletes it', async () => {
    const { calls } = await askModel(server, [
      { role: 'user', content: 'Please remove one item from the catalogue' },
      { role: 'assistant', content: 'Sure, what is the id of the item?' },
      { role: 'user', content: 'It is ts-5150' },
    ]);

    expect(calls[0]).toMatchObject({ name: 'delete-item', arguments: { id: 'ts-5150' } });
    expect(names(calls)).not.toContain('list-items');
  });

  // TODO(kemal): slow with 30 s and progress. Need bigger jest timeout in CI first, so it stay todo.
  it.todo('slow for 30 seconds reports progress');
});

describe('demo server - catalogue of tools', () => {
  it('advertises all twelve tools', async () => {
    const server = await startDemoServer({ transport: 'stdio' });
    const tools = await server.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'crash', 'delete-item', 'echo', 'fail', 'get-stats', 'get-sum',
        'large-result', 'legacy-echo', 'list-items', 'noop', 'server-info', 'slow',
      ].sort(),
    );
    await server.close();
  });
});
