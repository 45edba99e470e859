@mcp @filesystem
Feature: Assistant uses the filesystem MCP server correctly
  As a developer using the assistant in my workspace
  I want it to use the file tools only where it should
  So that it never touches files I did not ask about

  Background:
    Given the filesystem server is started with root "/workspace"
    And the workspace contains "notes/todo.md" and "src/main.rs"

  Scenario: Read a file the user names
    When the user asks "Show me what's in notes/todo.md"
    Then the assistant calls "fs.read_file" with path "/workspace/notes/todo.md"
    And the answer quotes the first line of the file

  Scenario: Rename without reading
    When the user asks "Rename notes/todo.md to notes/done.md"
    Then the assistant calls move_file with:
      | source      | /workspace/notes/todo.md |
      | destination | /workspace/notes/done.md |
    And it does not call read_file

  @negative
  Scenario: Explaining a concept needs no file access
    When the user asks "What does chmod 644 mean?"
    Then no tool is called
    And the answer mentions read and write permissions

  Scenario: Writing a new file must not overwrite silently
    When the user asks "Create hello.txt containing 'hi there'"
    Then the assistant calls write_file with path "/workspace/hello.txt" and content "hi there"
    And overwrite is false

  Scenario Outline: Listing directories
    When the user asks "<prompt>"
    Then the assistant calls list_directory with path "<path>" and recursive <recursive>

    Examples:
      | prompt                                   | path             | recursive |
      | What's in the src folder?                | /workspace/src   | false     |
      | Show me everything under notes, nested   | /workspace/notes | true      |
      | List the workspace root                  | /workspace       | false     |

  Scenario Outline: Finding files by pattern
    When the user asks "<prompt>"
    Then the assistant calls search_files with pattern "<pattern>"

    Examples: Rust and Markdown
      | prompt                           | pattern |
      | Find all Rust source files       | *.rs    |
      | Where are the markdown files?    | *.md    |

  # Scenario: delete the whole workspace
  #   (removed – we are not going to let an eval delete things, even in a tmp dir)
