#Requires -Modules @{ ModuleName = 'Pester'; ModuleVersion = '5.5.0' }
<#
.SYNOPSIS
    Tool-selection tests for the AI assistant against the filesystem MCP server (fs.*).

.DESCRIPTION
    Owner : IT Operations / Platform Automation (R. Mensah)
    Run   : Invoke-Pester -Path .\tests\Assistant.Filesystem.Tests.ps1 -Output Detailed

    Conventions (please keep to them, the QA vendor parses the results):
      * One It block = one case, EXCEPT when the It has -TestCases: then every
        hashtable in the array is its own case.
      * Prompt     - exactly what the user types to the assistant.
      * Tool       - tool name as it appears in the catalog (fs.read_file, ...).
      * Arguments  - only the arguments we assert; anything not listed is ignored.
      * NotTool    - a tool that must NOT show up in the call log for that case.
      * Intent     - used instead of Tool when the case author described the tool
                     in plain words (see Assert-ToolIntent in KestrelAiEval).
      * -Skip      - parked. Skipped Its are not part of the run and not reported.

    Template for new cases (copy, don't uncomment):
    # @{ Prompt = '...'; Tool = 'fs.xxx'; Arguments = @{ path = '...' }; NotTool = $null }
#>

BeforeAll {
    Import-Module "$PSScriptRoot\..\modules\KestrelAiEval\KestrelAiEval.psd1" -Force

    # Sandbox is a VHDX mounted on the eval runner; paths below are mapped into it
    # by the server's root config, so C:\Ops\... never touches the real C:\Ops.
    $script:Session = New-AssistantSession -Server 'filesystem' `
        -Endpoint $env:AI_EVAL_ENDPOINT `
        -Sandbox 'E:\EvalSandbox'

    Copy-Item -Path "$PSScriptRoot\fixtures\*" -Destination 'E:\EvalSandbox' -Recurse -Force
}

AfterAll {
    Remove-AssistantSession -Session $script:Session
}

Describe 'Filesystem assistant - tool selection' -Tag 'fs', 'ai-eval' {

    Context 'Reading files' {

        It 'calls <Tool> for "<Prompt>"' -TestCases @(
            @{
                Prompt    = 'Only the first 20 lines of D:\logs\batch\eod-2026-10-13.log please'
                Tool      = 'fs.read_file'
                Arguments = @{ path = 'D:\logs\batch\eod-2026-10-13.log'; head = 20 }
            }
            @{ Prompt = 'Open \\fileserver\cards\chargebacks\2026-09.csv - heads up, it is Latin-1 not UTF-8'; Tool = 'fs.read_file'; Arguments = @{ path = '\\fileserver\cards\chargebacks\2026-09.csv'; encoding = 'latin1' } }
        ) {
            $result = Invoke-AssistantTurn -Session $script:Session -Message $Prompt
            $result.ToolCalls[0].Name | Should -Be $Tool
            foreach ($k in $Arguments.Keys) {
                $result.ToolCalls[0].Arguments[$k] | Should -Be $Arguments[$k]
            }
        }
    }

    Context 'Finding things' {

        It 'lists the treasury export share including subfolders' {
            $result = Invoke-AssistantTurn -Session $script:Session -Message 'What''s in \\fileserver\treasury\exports? Include the subfolders.'
            $result.ToolCalls[0].Name | Should -Be 'fs.list_directory'
            $result.ToolCalls[0].Arguments.path | Should -Be '\\fileserver\treasury\exports'
            $result.ToolCalls[0].Arguments.recursive | Should -BeTrue
        }

        It 'searches for CSVs and leaves the _old ones out' {
            $result = Invoke-AssistantTurn -Session $script:Session -Message 'Find every CSV under \\fileserver\treasury\exports, but skip the *_old.csv files'
            $call = $result.ToolCalls | Where-Object Name -eq 'fs.search_files'
            $call | Should -Not -BeNullOrEmpty
            $call.Arguments.path | Should -Be '\\fileserver\treasury\exports'
            $call.Arguments.pattern | Should -Be '*.csv'
            $call.Arguments.excludePatterns | Should -Contain '*_old.csv'
        }

        # Written by the card support team lead, who describes the tool instead of naming it.
        It 'checks size and age of a backup without opening it' -TestCases @(
            @{
                Prompt  = 'How big is C:\Ops\backups\core-db-2026-10-13.bak and when was it last changed?'
                Intent  = 'the tool that returns a file''s size, timestamps and permissions, without reading it'
                Path    = 'C:\Ops\backups\core-db-2026-10-13.bak'
                NotTool = 'fs.read_file'   # the .bak is ~40 GB, reading it would kill the runner
            }
        ) {
            $result = Invoke-AssistantTurn -Session $script:Session -Message $Prompt
            Assert-ToolIntent -Call $result.ToolCalls[0] -Intent $Intent -Catalog 'filesystem'
            $result.ToolCalls[0].Arguments.path | Should -Be $Path
            $result.ToolCalls.Name | Should -Not -Contain $NotTool
        }
    }

    Context 'Writing and moving' {

        It 'creates the shift handover note without clobbering anything' {
            $msg = 'Create C:\Ops\notes\handover-2026-10-14.txt with the text "Night shift: no incidents"'
            $result = Invoke-AssistantTurn -Session $script:Session -Message $msg
            $result.ToolCalls[0].Name | Should -Be 'fs.write_file'
            $result.ToolCalls[0].Arguments.path | Should -Be 'C:\Ops\notes\handover-2026-10-14.txt'
            $result.ToolCalls[0].Arguments.content | Should -Be 'Night shift: no incidents'
            $result.ToolCalls[0].Arguments.overwrite | Should -BeFalse
            # must never delete first and then write
            $result.ToolCalls.Name | Should -Not -Contain 'fs.delete_file'
        }

        It 'renames a processed SWIFT statement' {
            $result = Invoke-AssistantTurn -Session $script:Session -Message 'Rename D:\exports\swift\MT940_20261013.txt to MT940_20261013.processed.txt (same folder)'
            $result.ToolCalls[0].Name | Should -Be 'fs.move_file'
            $result.ToolCalls[0].Arguments.source | Should -Be 'D:\exports\swift\MT940_20261013.txt'
            $result.ToolCalls[0].Arguments.destination | Should -Be 'D:\exports\swift\MT940_20261013.processed.txt'
        }

        # Parked 2026-10-12 (CHG-44821): no recursive deletes until the sandbox ACLs are fixed.
        It 'wipes the scratch folder' -Skip {
            $result = Invoke-AssistantTurn -Session $script:Session -Message 'Delete C:\Temp\eval-scratch and everything inside it'
            $result.ToolCalls[0].Name | Should -Be 'fs.delete_file'
            $result.ToolCalls[0].Arguments.path | Should -Be 'C:\Temp\eval-scratch'
            $result.ToolCalls[0].Arguments.recursive | Should -BeTrue
        }
    }

    Context 'General questions - no tool at all' {

        It 'answers "<Prompt>" from its own knowledge' -TestCases @(
            @{ Prompt = 'What is the difference between NTFS and ReFS?' }
            @{ Prompt = 'What does robocopy /MIR actually do?' }
        ) {
            $result = Invoke-AssistantTurn -Session $script:Session -Message $Prompt
            $result.ToolCalls | Should -BeNullOrEmpty
            $result.Text | Should -Not -BeNullOrEmpty
        }
    }

    Context 'Conversations' {

        It 'lists the runbooks, then opens the one the user picks' {
            $t1 = Invoke-AssistantTurn -Session $script:Session -Message 'List C:\Ops\runbooks'
            $t1.ToolCalls[0].Name | Should -Be 'fs.list_directory'
            $t1.ToolCalls[0].Arguments.path | Should -Be 'C:\Ops\runbooks'

            $t2 = Invoke-AssistantTurn -Session $script:Session -Message 'Open the card HSM failover one'
            $t2.ToolCalls[0].Name | Should -Be 'fs.read_file'
            $t2.ToolCalls[0].Arguments.path | Should -Be 'C:\Ops\runbooks\card-hsm-failover.md'
        }
    }
}
