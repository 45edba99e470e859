*** Settings ***
Documentation     Tool-routing acceptance suite for the ``demo`` MCP server.
...               Owner: QA Platform (r.okafor)   Reviewed: 2024-05-14
...
...               Every test sends one prompt (or a short conversation) to the agent
...               and checks which tools it called.
...               - ``Tool Should Be Called`` checks name + args (key=value, typed by the schema)
...               - ``Tool Should Not Be Called`` = forbidden tool for that test
...               - ``No Tool Should Be Called`` = agent must answer with no tool at all
Library           Collections
Library           ../lib/McpAgentLibrary.py    server=demo    model=${MODEL}
Resource          ../resources/common.resource
Suite Setup       Start Demo Server    timeout=${TIMEOUT}
Suite Teardown    Stop Demo Server
Test Tags         demo    routing

*** Variables ***
${MODEL}          claude-sonnet
${TIMEOUT}        30s
@{ALL_TOOLS}      echo    get-sum    get-stats    legacy-echo    fail    slow
...               large-result    list-items    delete-item    server-info    noop    crash

*** Test Cases ***
Sum Of Two Integers
    [Documentation]    Basic happy path for get-sum.
    ${calls}=    Ask Agent    What's 17 plus 25?
    Tool Should Be Called    ${calls}    get-sum    a=17    b=25
    Tool Should Not Be Called    ${calls}    get-stats

Stats For A Short List
    [Tags]    stats
    ${calls}=    Ask Agent    Give me the mean, min and max of 4, 8, 15, 16, 23, 42
    Tool Should Be Called    ${calls}    get-stats    numbers=[4, 8, 15, 16, 23, 42]

Small Talk Needs No Tool
    [Documentation]    Negative: plain chit-chat, the agent must not touch any tool.
    ${calls}=    Ask Agent    Hey, what's a good name for a goldfish?
    No Tool Should Be Called    ${calls}

Echo Uses The Non Deprecated Tool
    ${calls}=    Ask Agent    Please echo back exactly this: robot framework rocks
    Tool Should Be Called    ${calls}    echo    message=robot framework rocks
    Tool Should Not Be Called    ${calls}    legacy-echo

Delete Item After Clarification
    [Documentation]    Multi-turn. The id only shows up in the last user turn.
    @{conversation}=    Create List
    ...    user: I need to remove something from the catalogue.
    ...    assistant: Sure - which item id should I delete?
    ...    user: item-2
    ${calls}=    Ask Agent Conversation    ${conversation}
    Tool Should Be Called    ${calls}    delete-item    id=item-2
    Tool Should Not Be Called    ${calls}    crash

Slow Task Without Progres
    [Tags]    slow    flaky
    ${calls}=    Ask Agent    Run the slow task for 1500 ms in 3 steps, and no progress notifications please.
    Tool Should Be Called    ${calls}    slow    durationMs=1500    steps=3    progress=${False}

Crash Mid Call
    [Documentation]    REJECTED in review 2024-05-14: crash takes down the shared
    ...                server for every other test. Kept only for the record, never runs.
    [Tags]    robot:skip    rejected
    ${calls}=    Ask Agent    Crash the server on purpose, I want to see what happens.
    Tool Should Be Called    ${calls}    crash

Server Uptime
    ${calls}=    Ask Agent    How long has the demo server been up, and what's its PID?
    Tool Should Be Called    ${calls}    server-info
    Tool Should Not Be Called    ${calls}    crash

*** Keywords ***
Start Demo Server
    [Arguments]    ${timeout}=30s
    Start Mcp Server    demo    timeout=${timeout}
    ${calls}=    Ask Agent    ping
    Log    warm-up call, not a test: ${calls}

Stop Demo Server
    Stop Mcp Server    demo
