// Copyright (c) Northwind Digital Agency. Client: Kestrel Outdoor Supply (KOS-2291)
// Tool-selection evals for the "store" MCP server. These run nightly against
// the staging assistant; see docs/evals.md for how the harness works.
//
// NOTE(ravi): args JSON is compared as a *subset* -- only keys listed here
// are asserted, the model may add defaults.

using System.Text.Json;
using System.Threading.Tasks;
using Kos.Assistant.Evals.Harness;
using Xunit;

namespace Kos.Assistant.Evals.Store;

[Collection("StoreServer")]
public class StoreToolSelectionTests : IClassFixture<AssistantFixture>
{
    private readonly AssistantFixture _fx;

    public StoreToolSelectionTests(AssistantFixture fx) => _fx = fx;

    [Theory]
    [InlineData("What's the weather in Nairobi right now?", "get-weather", "{\"city\":\"Nairobi\"}")]
    [InlineData("weather in chicago, in fahrenheit pls", "get-weather", "{\"city\":\"Chicago\",\"units\":\"imperial\"}")]
    [InlineData("Find me up to 5 items matching 'usb-c cable'", "search-items", "{\"query\":\"usb-c cable\",\"limit\":5}")]
    [InlineData("Add a new product called Desk Lamp, tag it lighting and office", "create-item", "{\"name\":\"Desk Lamp\",\"tags\":[\"lighting\",\"office\"]}")]
    [InlineData("Show me item SKU-4471", "get-item", "{\"id\":\"SKU-4471\"}")]
    [InlineData("What time is it in Tokyo?", "get-time", "{\"timezone\":\"Asia/Tokyo\"}")]
    // [InlineData("Delete item SKU-0001", "delete-item", "{\"id\":\"SKU-0001\"}")]  // disabled: deletes real rows on staging, see KOS-2310
    public async Task PicksExpectedTool(string prompt, string expectedTool, string expectedArgsJson)
    {
        var result = await _fx.Assistant.RunAsync(prompt);

        var call = Assert.Single(result.ToolCalls);
        Assert.Equal(expectedTool, call.Name);
        ArgAssert.IsSubset(JsonDocument.Parse(expectedArgsJson), call.Arguments);
    }

    [Fact]
    public async Task SmallTalk_DoesNotTouchTools()
    {
        // pure chit-chat, the assistant should just reply
        var result = await _fx.Assistant.RunAsync("Thanks, that's all for today!");

        Assert.Empty(result.ToolCalls);
    }

    [Fact]
    public async Task Echo_UsesCurrentEcho_NotLegacy()
    {
        var result = await _fx.Assistant.RunAsync("Echo back exactly: order confirmed");

        Assert.Contains(result.ToolCalls, c => c.Name == "echo"
            && c.Arguments.GetProperty("message").GetString() == "order confirmed");
        Assert.DoesNotContain(result.ToolCalls, c => c.Name == "legacy-echo");
    }

    [Fact(Skip = "crash recovery not implemented in harness yet -- KOS-2318")]
    public async Task Crash_IsReportedGracefully()
    {
        var result = await _fx.Assistant.RunAsync("Please crash the server so I can see what happens");
        Assert.Contains(result.ToolCalls, c => c.Name == "crash");
    }

    // helper, not a test
    private static string Pretty(JsonElement e) =>
        JsonSerializer.Serialize(e, new JsonSerializerOptions { WriteIndented = true });
}
