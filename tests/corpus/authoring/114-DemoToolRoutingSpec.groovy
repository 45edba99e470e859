package demo.evals

import demo.evals.client.EvalClient
import spock.lang.Ignore
import spock.lang.Shared
import spock.lang.Specification
import spock.lang.Unroll

import static demo.evals.client.Turn.assistant
import static demo.evals.client.Turn.user

/**
 * Tool-routing evals for the demo MCP server.
 *
 * Each row of the {@code where:} table in "routes a single prompt" is one case:
 *   prompt    - the user message, sent as is
 *   tool      - the tool the model must call, or NO_TOOL when it must answer
 *               without calling any tool
 *   args      - the arguments that are checked (only the keys given); [:] = not checked
 *   forbidden - tools that must not be called at any point in that case
 *
 * Multi-turn cases are separate feature methods below the table.
 * Features annotated with @Ignore are parked and not part of the eval set.
 */
class DemoToolRoutingSpec extends Specification {

    static final String NO_TOOL = null

    @Shared
    EvalClient client = EvalClient.forServer('demo')

    def cleanupSpec() {
        client.close()
    }

    @Unroll
    def "routes a single prompt: #prompt"() {
        when:
        def run = client.ask(prompt)

        then:
        tool == NO_TOOL ? run.toolCalls.isEmpty() : run.called(tool, args)
        forbidden.every { !run.called(it) }

        where:
        prompt                                             | tool         | args                      || forbidden
        'What is 13.5 plus 6.5?'                           | 'get-sum'    | [a: 13.5, b: 6.5]         || ['get-stats']
        'Mean and max of 9, 4, 11 and 6, please'           | 'get-stats'  | [numbers: [9, 4, 11, 6]]  || []
        "Echo back: it's alive"                            | 'echo'       | [message: "it's alive"]   || ['legacy-echo']
        'How many minutes are in a day?'                   | NO_TOOL      | [:]                       || []
        'List the catalogue starting at cursor z-90'       | 'list-items' | [cursor: 'z-90']          || ['delete-item']
        'Simulate a failing tool call, reason: spock-demo' | 'fail'       | [reason: 'spock-demo']    || ['crash']
    }

    def "asks how long before running a slow job"() {
        when:
        def run = client.converse(
                user('Start a slow job for me'),
                assistant('How long should it run, and in how many steps?'),
                user('Two seconds, four steps')
        )

        then:
        run.called('slow', [durationMs: 2000, steps: 4])
        !run.called('crash')
    }

    @Ignore('rejected in review: a 60 s slow call pushes the nightly job past its timeout')
    def "runs a very slow job"() {
        expect:
        client.ask('Run a slow job for a full minute').called('slow', [durationMs: 60000])
    }

    def "server advertises all twelve tools"() {
        expect:
        client.listTools()*.name.size() == 12
    }
}
