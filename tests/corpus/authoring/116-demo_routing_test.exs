defmodule DemoEvals.RoutingTest do
  @moduledoc """
  Tool-routing evals for the `demo` MCP server.

  Every `test` inside `describe "routing"` is one eval case. `ask/1` sends a
  single user message; `converse/1` replays a whole conversation (keyword list
  of `user:` / `assistant:` turns) and returns the model's reply to the last one.

    * `assert_called result, "tool", %{...}` - the tool must be called; only the
      keys in the map are checked, `%{}` means the arguments are not checked
    * `refute_called result, "tool"` - the tool must not be called at any point
    * `assert_no_tool_calls result` - the model must answer without calling any tool

  Tests tagged `:skip` are not part of the eval set.
  """
  use ExUnit.Case, async: false
  import DemoEvals.Helpers

  setup_all do
    {:ok, server} = DemoEvals.Server.start_link(cmd: "node dist/demo.js", transport: :stdio)
    on_exit(fn -> DemoEvals.Server.stop(server) end)
    :ok
  end

  describe "routing" do
    test "adds two integers" do
      result = ask("Add 77 and 23 for me, please.")
      assert_called result, "get-sum", %{"a" => 77, "b" => 23}
      refute_called result, "get-stats"
    end

    test "summary statistics over a list of weights" do
      result = ask("I weighed five parcels: 2.4, 3.1, 1.8, 2.9 and 3.3 kg. What are the total, the mean and the heaviest?")
      assert_called result, "get-stats", %{"numbers" => [2.4, 3.1, 1.8, 2.9, 3.3]}
    end

    test "echo keeps the pipe operator intact" do
      result = ask(~s(Echo this exactly: pipe |> it))
      assert_called result, "echo", %{"message" => "pipe |> it"}
      refute_called result, "legacy-echo"
    end

    test "art question needs no tool" do
      result = ask("Who painted The Starry Night?")
      assert_no_tool_calls result
    end

    test "delete after the assistant asks for the id" do
      result =
        converse(
          user: "I'd like to remove something from the catalogue.",
          assistant: "Sure, which item id should I remove?",
          user: "ex-4410"
        )

      assert_called result, "delete-item", %{"id" => "ex-4410"}
      refute_called result, "list-items"
      refute_called result, "crash"
    end

    test "large result sized in bytes" do
      result = ask("Send me 12000 bytes of filler text.")
      assert_called result, "large-result", %{"size" => 12_000}
      refute_called result, "slow"
    end

    # Dropped in review: crash ends the server process, so every later test
    # fails on a closed port. Kept here only so nobody re-adds it.
    @tag :skip
    test "crash on request" do
      result = ask("Kill the demo server right now.")
      assert_called result, "crash", %{}
    end

    test "uptime goes to server-info" do
      result = ask("What's the uptime of the demo server process?")
      assert_called result, "server-info", %{}
      refute_called result, "noop"
    end
  end

  test "server advertises twelve tools" do
    assert length(DemoEvals.Server.list_tools()) == 12
  end
end
