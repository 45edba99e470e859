package club.qa.mcp.eval

import club.qa.mcp.harness.EvalHarness
import club.qa.mcp.harness.ToolCall
import io.kotest.core.spec.style.FunSpec
import io.kotest.datatest.withData
import io.kotest.matchers.collections.shouldBeEmpty
import io.kotest.matchers.collections.shouldNotContain
import io.kotest.matchers.shouldBe

/**
 * Tool-selection evals for the assistant against the GitHub MCP server.
 * Sandbox repo: qa-club/mcp-playground (reset nightly by the reset-playground workflow).
 *
 * Run: ./gradlew :eval:test --tests '*GithubToolSelectionSpec*'
 * Needs GH_SANDBOX_TOKEN in the env, see README. -- Mateo L., QA club
 */
data class ToolCase(
    val prompt: String,
    val expectedTool: String,
    val args: Map<String, Any?> = emptyMap(),
    val mustNotCall: List<String> = emptyList(),
) {
    override fun toString() = prompt.take(48)
}

private const val OWNER = "qa-club"
private const val REPO = "mcp-playground"

private fun List<ToolCall>.names() = map { it.name }

// harness reports namespaced names since 0.4 (mcp__<server>__<tool>)
private fun gh(tool: String) = "mcp__github__$tool"

class GithubToolSelectionSpec : FunSpec({

    val harness = EvalHarness(server = "github", temperature = 0.0)

    beforeSpec {
        // not a test: make sure the sandbox has issue #88 and PR #31 before we start
        harness.seedSandbox(OWNER, REPO, fixtures = "fixtures/playground-seed.json")
    }

    context("issues") {
        withData(
            ToolCase(
                prompt = "List the open issues labelled bug in qa-club/mcp-playground",
                expectedTool = gh("list_issues"),
                args = mapOf("owner" to OWNER, "repo" to REPO, "state" to "open", "labels" to listOf("bug")),
            ),
            ToolCase(
                prompt = "what's issue #88 in the playground repo about?",
                expectedTool = gh("get_issue"),
                args = mapOf("owner" to OWNER, "repo" to REPO, "issue_number" to 88),
            ),
            ToolCase(
                prompt = "Open an issue in qa-club/mcp-playground titled 'Flaky test in CI' and assign it to mlopez, label it ci",
                expectedTool = gh("create_issue"),
                args = mapOf(
                    "owner" to OWNER,
                    "repo" to REPO,
                    "title" to "Flaky test in CI",
                    "assignees" to listOf("mlopez"),
                    "labels" to listOf("ci"),
                ),
                // it used to "open" the issue by commenting on #88 instead
                mustNotCall = listOf(gh("add_issue_comment")),
            ),
            ToolCase(
                prompt = "Comment on #88 in the playground: Reproduced on main, logs attached in the CI run",
                expectedTool = gh("add_issue_comment"),
                args = mapOf("owner" to OWNER, "repo" to REPO, "issue_number" to 88, "body" to "Reproduced on main, logs attached in the CI run"),
            ),
            // ToolCase(
            //     prompt = "close issue 88",
            //     expectedTool = gh("update_issue"),   // server doesn't have it (yet?)
            // ),
        ) { case ->
            val run = harness.ask(case.prompt)
            run.calls.first().name shouldBe case.expectedTool
            run.calls.first().args.filterKeys { it in case.args } shouldBe case.args
            case.mustNotCall.forEach { run.calls.names() shouldNotContain it }
        }
    }

    context("pull requests") {
        withData(
            ToolCase(
                prompt = "Which PRs against main in qa-club/mcp-playground are ready for review? skip the drafts",
                expectedTool = gh("list_pull_requests"),
                args = mapOf("owner" to OWNER, "repo" to REPO, "base" to "main", "draft" to false),
                mustNotCall = listOf(gh("merge_pull_request")),
            ),
        ) { case ->
            val run = harness.ask(case.prompt)
            run.calls.first().name shouldBe case.expectedTool
            run.calls.first().args.filterKeys { it in case.args } shouldBe case.args
            case.mustNotCall.forEach { run.calls.names() shouldNotContain it }
        }

        // parked until the sandbox can actually take a merge without breaking the nightly reset
        xtest("merges PR 31 with rebase") {
            val run = harness.ask("Merge PR #31 in qa-club/mcp-playground using rebase")
            run.calls.single().name shouldBe gh("merge_pull_request")
            run.calls.single().args shouldBe mapOf("owner" to OWNER, "repo" to REPO, "pull_number" to 31, "merge_method" to "rebase")
        }
    }

    test("explains fork vs clone without touching GitHub") {
        val run = harness.ask("What's the difference between forking a repo and cloning it?")
        run.calls.shouldBeEmpty()
    }

    test("uses the tool that searches GitHub repositories for a topic query") {
        // don't hardcode the name here, we look it up by what it does
        val searchTool = harness.catalog.first { it.description.startsWith("Search GitHub repositories") }.name
        val run = harness.ask("Find me Kotlin repos about MCP servers, top 5 only")
        run.calls.first().name shouldBe gh(searchTool)
        run.calls.first().args["query"] shouldBe "mcp server language:kotlin"
        run.calls.first().args["perPage"] shouldBe 5
    }

    test("branch then read a file on it (two turns)") {
        val chat = harness.conversation()
        val first = chat.say("Create a branch called fix/readme-typo from main in qa-club/mcp-playground")
        first.calls.single().name shouldBe gh("create_branch")
        first.calls.single().args shouldBe mapOf("owner" to OWNER, "repo" to REPO, "branch" to "fix/readme-typo", "from_branch" to "main")

        val second = chat.say("now show me README.md on that branch")
        second.calls.single().name shouldBe gh("get_file_contents")
        second.calls.single().args["path"] shouldBe "README.md"
        second.calls.single().args["ref"] shouldBe "fix/readme-typo"
        second.calls.single().args["repo"] shouldBe REPO
    }
})
