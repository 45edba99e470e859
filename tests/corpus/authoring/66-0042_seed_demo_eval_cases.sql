-- 0042_seed_demo_eval_cases.sql
-- Seeds the tool-routing eval cases for the `demo` MCP server.
-- Author: d.okonkwo   Reviewed-by: m.haddad   Ticket: EVAL-311
--
-- Column notes (the runner reads rows WHERE status = 'active'):
--   prompt        the user message for single-turn cases
--   turns         jsonb array of {role, content} for multi-turn cases (prompt is NULL then)
--   expect_tool   the tool the model must call. expect_tool NULL together with no_tool = true
--                 means the model must answer WITHOUT calling any tool
--   expect_args   jsonb, typed like the tool's input schema; NULL = args are not checked
--   never_tools   text[] of tools that must not be called in this case

BEGIN;

CREATE TABLE IF NOT EXISTS eval_cases (
    id           text PRIMARY KEY,
    server       text        NOT NULL,
    prompt       text,
    turns        jsonb,
    expect_tool  text,
    expect_args  jsonb,
    never_tools  text[]      NOT NULL DEFAULT '{}',
    no_tool      boolean     NOT NULL DEFAULT false,
    status       text        NOT NULL DEFAULT 'active',
    created_at   timestamptz NOT NULL DEFAULT now(),
    CHECK (prompt IS NOT NULL OR turns IS NOT NULL)
);

CREATE INDEX IF NOT EXISTS eval_cases_server_status_idx ON eval_cases (server, status);

INSERT INTO eval_cases (id, server, prompt, turns, expect_tool, expect_args, never_tools, no_tool) VALUES
    ('demo-sql-01', 'demo', 'What''s 99 plus 1?', NULL, 'get-sum', '{"a": 99, "b": 1}', '{}', false),
    ('demo-sql-02', 'demo', 'Give me count, mean, min and max for 7, 14, 21, 28', NULL,
        'get-stats', '{"numbers": [7, 14, 21, 28]}', ARRAY['get-sum'], false),
    ('demo-sql-03', 'demo', 'Explain the difference between a LEFT JOIN and an INNER JOIN.', NULL,
        NULL, NULL, '{}', true),
    ('demo-sql-04', 'demo', 'Echo this back unchanged: DROP TABLE students; --', NULL,
        'echo', '{"message": "DROP TABLE students; --"}', ARRAY['legacy-echo'], false),
    ('demo-sql-05', 'demo', NULL,
        '[{"role": "user",      "content": "I need to clean up the catalogue a bit."},
          {"role": "assistant", "content": "Sure - which item should I remove?"},
          {"role": "user",      "content": "The one with id sku-0042."}]',
        'delete-item', '{"id": "sku-0042"}', ARRAY['crash', 'list-items'], false),
    ('demo-sql-06', 'demo', 'Kick off the slow tool: 750 ms, no progress notifications', NULL,
        'slow', '{"durationMs": 750, "progress": false}', '{}', false),
    ('demo-sql-07', 'demo', 'Please call legacy-echo with the message hello', NULL,
        'legacy-echo', '{"message": "hello"}', '{}', false),
    ('demo-sql-08', 'demo', 'Page through the catalogue starting at cursor c-19', NULL,
        'list-items', '{"cursor": "c-19"}', '{delete-item,crash}', false);

-- EVAL-318: demo-sql-07 rejected in review. We don't want to reward the model for picking the
-- deprecated tool, even when the user names it. Row stays for history, the runner skips it.
UPDATE eval_cases SET status = 'rejected' WHERE id = 'demo-sql-07';

-- sanity check: 7 active demo cases expected after this migration
DO $$
BEGIN
    IF (SELECT count(*) FROM eval_cases WHERE server = 'demo' AND status = 'active') <> 7 THEN
        RAISE EXCEPTION 'expected 7 active demo cases';
    END IF;
END $$;

COMMIT;
