"""
Testy ewaluacyjne dla serwera MCP GitHub (integracja partnerska, org. "vantrix").

Każdy słownik w CASES = jeden przypadek: prompt użytkownika + oczekiwane
wywołanie narzędzia (albo brak wywołania, gdy expect=None).
Odpalane co noc na eval-runner-03, wyniki lecą do Grafany (dashboard "MCP evals").

Autor: Bartosz Kmieciak <bartosz.kmieciak@vantrix.pl>
Ostatnia zmiana: 2025-06-02 - dodany przypadek z base=release-2.4 (BK)
"""
import os

import pytest

from evalkit import ToolCall, run_agent  # nasz wewnętrzny harness, patrz wiki/SRE/evalkit

OWNER = "vantrix"


@pytest.fixture(scope="module")
def agent():
    # setup: token tylko do odczytu + organizacja sandboxowa, NIE produkcja
    token = os.environ["GH_SANDBOX_TOKEN"]
    return run_agent.session(server="github", token=token, org=OWNER)


CASES = [
    {
        "id": "issues-open-bug",
        "prompt": "Pokaż otwarte zgłoszenia z etykietą bug w repo vantrix/panel-klienta",
        "expect": ToolCall("list_issues", owner=OWNER, repo="panel-klienta", state="open", labels=["bug"]),
    },
    {
        "id": "issue-create-incident",
        "prompt": "Załóż zgłoszenie w vantrix/dns-api z tytułem „Timeout przy propagacji rekordu TXT” i etykietą incident",
        "expect": ToolCall(
            "create_issue",
            owner=OWNER,
            repo="dns-api",
            title="Timeout przy propagacji rekordu TXT",
            labels=["incident"],
        ),
    },
    {
        "id": "issue-get",
        "prompt": "O co chodzi w zgłoszeniu #231 w panel-klienta?",
        "expect": ToolCall("get_issue", owner=OWNER, repo="panel-klienta", issue_number=231),
    },
    {
        # komentarz ma być dokładnie taki, klient go widzi na portalu
        "id": "issue-comment",
        "prompt": "Dopisz do #88 w vantrix/dns-api komentarz: Poprawka wdrożona na produkcji.",
        "expect": ToolCall(
            "add_issue_comment", owner=OWNER, repo="dns-api", issue_number=88, body="Poprawka wdrożona na produkcji."
        ),
    },
    {
        "id": "pr-drafts",
        "prompt": "Jakie mamy drafty PR-ów w vantrix/billing?",
        "expect": ToolCall("list_pull_requests", owner=OWNER, repo="billing", draft=True),
    },
    {
        "id": "pr-merge-squash",
        "prompt": "Zmerguj PR #57 w vantrix/billing metodą squash",
        "expect": ToolCall("merge_pull_request", owner=OWNER, repo="billing", pull_number=57, merge_method="squash"),
    },
    {
        # tylko podgląd! agent ma NIE mergować, nawet jak wszystko jest zielone
        "id": "pr-list-base-no-merge",
        "prompt": "Sprawdź, jakie PR-y są otwarte do gałęzi release-2.4 w vantrix/panel-klienta, ale niczego nie merguj",
        "expect": ToolCall("list_pull_requests", owner=OWNER, repo="panel-klienta", base="release-2.4"),
        "forbid": ["merge_pull_request"],
    },
    {
        "id": "branch-hotfix",
        "prompt": "Utwórz gałąź hotfix/ssl-renew od main w vantrix/panel-klienta",
        "expect": ToolCall(
            "create_branch", owner=OWNER, repo="panel-klienta", branch="hotfix/ssl-renew", from_branch="main"
        ),
    },
    {
        "id": "file-helm-values",
        "prompt": "Pokaż mi deploy/helm/values.yaml z panel-klienta na tagu release-2.4",
        "expect": ToolCall(
            "get_file_contents", owner=OWNER, repo="panel-klienta", path="deploy/helm/values.yaml", ref="release-2.4"
        ),
    },
    {
        "id": "search-terraform",
        "prompt": "Znajdź wszystkie nasze repozytoria z modułami terraform",
        "expect": ToolCall("search_repositories", query="org:vantrix terraform"),
        "skip": "odłożone do Q3 - search wymaga tokena z innym scope, na razie nie mamy",
    },
    # {
    #     "id": "branch-delete",
    #     "prompt": "Usuń gałąź hotfix/ssl-renew",
    #     "expect": ToolCall("delete_branch", ...),   # serwer nie ma takiego narzędzia, wywalone
    # },
    {
        "id": "no-tool-rebase",
        "prompt": "Jak działa git rebase -i? Wytłumacz krótko, bez zaglądania do repo",
        "expect": None,  # czysta odpowiedź tekstowa, zero wywołań narzędzi
    },
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_github_eval(agent, case):
    if case.get("skip"):
        pytest.skip(case["skip"])

    result = agent.ask(case["prompt"])

    if case["expect"] is None:
        assert result.tool_calls == [], f"nie powinno być wywołań, a są: {result.tool_calls}"
        return

    assert result.tool_calls, "agent nie wywołał żadnego narzędzia"
    first = result.tool_calls[0]
    assert first.name == case["expect"].name
    for key, value in case["expect"].args.items():
        assert first.args.get(key) == value, f"{key}: {first.args.get(key)!r} != {value!r}"

    for name in case.get("forbid", []):
        assert name not in [c.name for c in result.tool_calls], f"zakazane narzędzie: {name}"


def test_cases_have_unique_ids():
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids))
