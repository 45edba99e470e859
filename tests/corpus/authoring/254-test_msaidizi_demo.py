"""Majaribio ya tathmini: msaidizi wa timu ya data dhidi ya seva ya MCP `demo`.

Mwandishi: Baraka Otieno (Data, Nairobi)
Jinsi ya kuendesha:
    MCP_SERVER=demo pytest tests/evals/test_msaidizi_demo.py -v

Kila kesi = ombi la mtumiaji + zana zinazotarajiwa + zana zilizokatazwa.
Orodha tupu ya zana zinazotarajiwa inamaanisha msaidizi ajibu tu bila kuita zana yoyote.
"""
import os

import pytest

from lumora_evals import ToolCall, run_prompt

SEVA = os.environ.get("MCP_SERVER", "demo")
MAJARIBIO_KWA_KILA_KESI = 3  # tunarudia mara 3, lazima zote zipite


# ---------------------------------------------------------------------------
# Maandalizi (si kesi za tathmini)
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mteja_mcp():
    from lumora_evals.client import connect

    mteja = connect(SEVA, timeout=30)
    yield mteja
    mteja.close()


def test_seva_inajibu(mteja_mcp):
    # ukaguzi tu kwamba seva iko hai na ina zana tunazotegemea
    majina = {z.name for z in mteja_mcp.list_tools()}
    assert {"get-sum", "get-stats", "echo"} <= majina


# ---------------------------------------------------------------------------
# Kesi
# ---------------------------------------------------------------------------

KESI = [
    pytest.param(
        "Jumla ya 1200 na 850 ni ngapi? Nataka kujua vifurushi vyote vya wiki hii",
        [ToolCall("get-sum", {"a": 1200, "b": 850})],
        [],
        id="jumla-ya-vifurushi",
    ),
    pytest.param(
        "Mauzo ya siku tano zilizopita ni 3, 7, 7, 12 na 20. Nipe wastani, kiwango cha chini na cha juu",
        [ToolCall("get-stats", {"numbers": [3, 7, 7, 12, 20]})],
        [],
        id="takwimu-za-mauzo",
    ),
    pytest.param(
        "Rudia maneno haya bila kubadilisha chochote: Mzigo umefika ghalani Mombasa",
        [ToolCall("echo", {"message": "Mzigo umefika ghalani Mombasa"})],
        ["legacy-echo"],  # zana ya zamani, inageuza kuwa herufi kubwa -- isiitwe kamwe
        id="rudia-ujumbe",
    ),
    pytest.param(
        "Nionyeshe bidhaa za katalogi, tatu tatu kwa kila ukurasa",
        [ToolCall("list-items", {"pageSize": 3})],
        [],
        id="ukurasa-wa-kwanza",
    ),
    pytest.param(
        # zana inayosubiri kwa muda fulani; hapa bila ripoti za maendeleo
        "Endesha kazi ya majaribio ya sekunde 2, bila kuonyesha maendeleo",
        [ToolCall("slow", {"durationMs": 2000, "progress": False})],
        [],
        id="kazi-ndefu-kimya",
    ),
    pytest.param(
        "Habari za asubuhi! Leo mambo yakoje?",
        [],  # salamu tu -- hakuna zana
        [],
        id="salamu",
    ),
    pytest.param(
        "Futa bidhaa ITM-3321 kwenye katalogi, iliingizwa mara mbili",
        [ToolCall("delete-item", {"id": "ITM-3321"})],
        [],
        id="futa-bidhaa",
    ),
    pytest.param(
        "Seva imekuwa ikiendesha kwa muda gani? na process id yake ni ipi?",
        [ToolCall("server-info", {})],
        [],
        id="hali-ya-seva",
    ),
    pytest.param(
        "Jaribu zana inayoshindwa kila mara, sababu: jaribio la tahadhari",
        [ToolCall("fail", {"reason": "jaribio la tahadhari"})],
        [],
        id="hitilafu-ya-makusudi",
        marks=pytest.mark.skip(reason="imeahirishwa: runner inahesabu isError kama kosa la mtihani, tusubiri toleo 0.5"),
    ),
    # TODO(baraka): kesi ya large-result -- tuiongeze baada ya kurekebisha kikomo cha tokeni
]


@pytest.mark.parametrize("ombi,zinazotarajiwa,zilizokatazwa", KESI)
def test_msaidizi(mteja_mcp, ombi, zinazotarajiwa, zilizokatazwa):
    for _ in range(MAJARIBIO_KWA_KILA_KESI):
        matokeo = run_prompt(mteja_mcp, ombi)
        zilizoitwa = [c.name for c in matokeo.tool_calls]

        if not zinazotarajiwa:
            assert zilizoitwa == [], f"hakuna zana ilitakiwa kuitwa, lakini: {zilizoitwa}"
            continue

        for tarajio in zinazotarajiwa:
            assert tarajio.matches_any(matokeo.tool_calls), f"{tarajio} haikuitwa"
        for marufuku in zilizokatazwa:
            assert marufuku not in zilizoitwa, f"{marufuku} imeitwa ingawa imekatazwa"
