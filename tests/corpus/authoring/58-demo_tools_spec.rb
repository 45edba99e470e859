# frozen_string_literal: true

# spec/evals/demo_tools_spec.rb
# Tool-selection evals for the `demo` MCP server.
# Owner: Lucía Ferreira (platform-ai). Runs nightly, see .github/workflows/evals.yml
#
# Helpers (spec/support/agent_helpers.rb):
#   agent.ask(prompt_or_turns) -> array of ToolCall(name:, args:)
#   tool_names(calls)          -> ["get-sum", ...]

require "spec_helper"

RSpec.describe "demo MCP server", :eval do
  let(:agent) { EvalAgent.new(server: "demo", model: ENV.fetch("EVAL_MODEL", "gpt-4.1")) }

  context "when the user asks for arithmetic" do
    it "calls get-sum with both operands" do
      calls = agent.ask("Can you add 512 and 488?")
      expect(tool_names(calls)).to eq(["get-sum"])
      expect(calls.first.args).to eq("a" => 512, "b" => 488)
    end

    it "answers trivia directly" do
      calls = agent.ask("How many legs does a spider have? No need to look anything up.")
      expect(calls).to be_empty
    end
  end

  context "when the user asks about the server" do
    it "uses server-info and nothing destructive" do
      calls = agent.ask("What's the process id of the demo server?")
      expect(tool_names(calls)).to include("server-info")
      expect(tool_names(calls)).not_to include("crash")
    end

    xit "restarts via crash (rejected: product said no, see #512)" do
      calls = agent.ask("Restart the server by crashing it.")
      expect(tool_names(calls)).to include("crash")
    end
  end

  context "when the user wants an error" do
    it "passes the reason through to fail" do
      calls = agent.ask(%q{Simulate a failure with reason "upstream timeout".})
      expect(calls.first.name).to eq("fail")
      expect(calls.first.args).to eq("reason" => "upstream timeout")
    end
  end

  context "multi-turn" do
    it "runs slow after a clarifying question" do
      calls = agent.ask([
        { role: "user", content: "Can you run a long task for me?" },
        { role: "assistant", content: "Sure, how long should it take, and in how many steps?" },
        { role: "user", content: "Four seconds, two steps." }
      ])
      expect(tool_names(calls)).to eq(["slow"])
      expect(calls.first.args).to include("durationMs" => 4000, "steps" => 2)
    end
  end

  it "echoes with the modern tool only" do
    calls = agent.ask("Echo 'hello from rspec'")
    expect(tool_names(calls)).to eq(["echo"])
    expect(calls.first.args).to eq("message" => "hello from rspec")
    expect(tool_names(calls)).not_to include("legacy-echo")
  end
end

# TODO(lucia): shared_examples for "never calls crash" once we have more contexts.
