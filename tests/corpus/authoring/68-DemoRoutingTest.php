<?php

declare(strict_types=1);

namespace Acme\Evals\Tests\Demo;

use Acme\Evals\AgentClient;
use Acme\Evals\Turn;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\Attributes\Group;
use PHPUnit\Framework\TestCase;

/**
 * Tool routing evals for the `demo` MCP server (PHPUnit 10).
 *
 * Provider rows: [prompt, expected tool or null, expected args, forbidden tools].
 *  - a null tool means the agent must reply WITHOUT calling any tool
 *  - args are compared after coercion to the tool's input schema; [] = not checked
 *  - forbidden tools must not appear anywhere in the calls
 *
 * @see https://wiki.acme.internal/evals/demo-server
 */
#[Group('evals')]
final class DemoRoutingTest extends TestCase
{
    private static AgentClient $agent;

    public static function setUpBeforeClass(): void
    {
        self::$agent = AgentClient::forServer('demo', getenv('EVAL_MODEL') ?: 'default');
    }

    public static function routingCases(): iterable
    {
        yield 'sum of decimals' => [
            'Add 0.1 and 0.2, I want to see the float result',
            'get-sum',
            ['a' => 0.1, 'b' => 0.2],
            [],
        ];

        yield 'stats over a list' => ['Min, max and mean of 5, 3, 8 please', 'get-stats', ['numbers' => [5, 3, 8]], ['get-sum']];

        yield 'no tool: php trivia' => [
            'Which PHP version introduced enums?',
            null,
            [],
            [],
        ];

        yield 'echo keeps the dollar sign' => [
            'Echo back exactly: $price = 9.99',
            'echo',
            ['message' => '$price = 9.99'],
            ['legacy-echo'],
        ];

        // rejected by @sdiaz in review (#412): pageSize 0 violates minimum: 1, the model is right to refuse
        // yield 'list with page size zero' => ['List the catalogue with page size 0', 'list-items', ['pageSize' => 0], []];

        yield 'server uptime' => [
            'Is the demo server still alive? Give me its uptime',
            'server-info',
            [],
            ['crash', 'noop'],
        ];
    }

    #[DataProvider('routingCases')]
    public function testRouting(string $prompt, ?string $tool, array $args, array $never): void
    {
        $calls = self::$agent->ask($prompt);
        $names = array_column($calls, 'name');

        if ($tool === null) {
            self::assertSame([], $calls, 'expected no tool call at all');
        } else {
            self::assertContains($tool, $names);
            if ($args !== []) {
                $call = $calls[array_search($tool, $names, true)];
                self::assertEquals($args, $call['args']);
            }
        }
        foreach ($never as $forbidden) {
            self::assertNotContains($forbidden, $names, "$forbidden must not be called");
        }
    }

    public function testDeleteNeedsClarification(): void
    {
        $calls = self::$agent->converse([
            Turn::user('Please delete an item from the catalogue.'),
            Turn::assistant('Sure, which one? I need the item id.'),
            Turn::user('id is "php-77"'),
        ]);

        self::assertSame(['delete-item'], array_column($calls, 'name'));
        self::assertSame(['id' => 'php-77'], $calls[0]['args']);
        self::assertNotContains('crash', array_column($calls, 'name'));
    }

    public function testCatalogueListsTwelveTools(): void
    {
        self::assertCount(12, self::$agent->listTools());
    }
}
