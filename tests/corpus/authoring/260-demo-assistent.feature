@mcp @demo @regression
Feature: Evalwazzjoni tal-assistent mas-server MCP "demo"

  # Awtur: Ruth Camilleri (Tim tat-Teknoloġija, uffiċċju tal-Belt Valletta)
  # Aġġornat: 14 ta' Marzu 2025
  #
  # Kull Scenario jibgħat messaġġ (jew aktar) lill-assistent permezz tal-harness
  # u jiċċekkja liema għodod sejjaħ f'response.tool_calls.
  # Meta l-assistent m'għandu juża l-ebda għodda, niċċekkjaw li tool_calls tkun vojta.
  # Scenarios immarkati @ignore m'humiex parti mis-sett (ara l-kumment ħdejhom).
  #
  # Biex tħaddem: mvn test -Dkarate.options="--tags @demo" -Dkarate.env=staging

  Background:
    * url evalBaseUrl
    * def server = 'demo'
    * configure readTimeout = 60000
    * configure headers = { 'X-Eval-Run': '#(karate.get("runId", "lokali"))' }

  Scenario: Somma ta' żewġ numri bil-kliem
    * def talba =
      """
      {
        "server": "demo",
        "messages": [ { "role": "user", "content": "Kemm jagħmel sbatax u ħamsa u għoxrin?" } ]
      }
      """
    Given path 'eval', 'chat'
    And request talba
    When method post
    Then status 200
    And match response.tool_calls contains { name: 'get-sum', arguments: { a: 17, b: 25 } }

  Scenario Outline: L-eku jirrepeti l-messaġġ kif inhu, mhux bl-ittri kbar - <deskrizzjoni>
    # l-għodda l-qadima (legacy-echo) tikteb kollox b'ittri kbar; m'għandhiex tintuża
    * def talba =
      """
      {
        "server": "demo",
        "messages": [ { "role": "user", "content": "Irrepeti eżatt dan il-messaġġ: <messagg>" } ]
      }
      """
    Given path 'eval', 'chat'
    And request talba
    When method post
    Then status 200
    And match response.tool_calls contains { name: 'echo', arguments: { message: '<messagg>' } }
    And match response.tool_calls[*].name !contains 'legacy-echo'

    Examples:
      | deskrizzjoni      | messagg                                 |
      | sempliċi          | Bonġu lil kulħadd                       |
      | b'ħin u punteġġ   | Il-laqgħa tal-voluntiera hija fl-10:00. |

  Scenario: Statistika tal-piżijiet tat-trabi (kg)
    * def talba =
      """
      {
        "server": "demo",
        "messages": [ { "role": "user", "content": "Agħtini l-medja, l-minimu u l-massimu ta' dawn il-piżijiet tat-trabi: 3.2, 4.1, 2.9 u 3.8 kg" } ]
      }
      """
    Given path 'eval', 'chat'
    And request talba
    When method post
    Then status 200
    And match response.tool_calls contains { name: 'get-stats', arguments: { numbers: [3.2, 4.1, 2.9, 3.8] } }

  Scenario: Mistoqsija ġenerali - l-ebda għodda
    * def talba =
      """
      {
        "server": "demo",
        "messages": [ { "role": "user", "content": "X'inhi l-belt kapitali ta' Malta?" } ]
      }
      """
    Given path 'eval', 'chat'
    And request talba
    When method post
    Then status 200
    # hawn l-assistent għandu jwieġeb waħdu, bla ma jsejjaħ xejn
    And match response.tool_calls == []

  Scenario: Il-katalgu paġna b'paġna (żewġ messaġġi)
    * def ewwel =
      """
      {
        "server": "demo",
        "messages": [ { "role": "user", "content": "Urini l-oġġetti tal-katalgu, tlieta kull darba." } ]
      }
      """
    Given path 'eval', 'chat'
    And request ewwel
    When method post
    Then status 200
    And match response.tool_calls contains { name: 'list-items', arguments: { pageSize: 3 } }
    * def cursor = response.tool_results[0].structuredContent.nextCursor
    * def messaggi = response.messages
    * eval messaggi.push({ role: 'user', content: 'Issa l-paġna li jmiss.' })
    Given path 'eval', 'chat'
    And request { server: 'demo', messages: '#(messaggi)' }
    When method post
    Then status 200
    And match response.tool_calls contains deep { name: 'list-items', arguments: { cursor: '#(cursor)' } }

  Scenario: Stennija twila bil-progress
    # l-għodda li tistenna ftit u tibgħat aġġornamenti tal-progress matul l-istennija
    # (l-isem tagħha jinbidel bejn verżjonijiet tas-server, allura niċċekkjaw l-argumenti biss)
    * def talba =
      """
      {
        "server": "demo",
        "messages": [ { "role": "user", "content": "Stenna tliet sekondi u urini l-progress fi tliet passi." } ]
      }
      """
    Given path 'eval', 'chat'
    And request talba
    When method post
    Then status 200
    And match response.tool_calls[0].arguments contains { durationMs: 3000, steps: 3 }

  @ignore
  Scenario: Tħassir ta' oġġett mill-katalgu
    # TWAQQAF 12/03: ma rridux testijiet li jħassru, anki jekk is-server "jippretendi" biss.
    # Jerġa' jiddiskuti Mark fil-laqgħa ta' April.
    * def talba =
      """
      {
        "server": "demo",
        "messages": [ { "role": "user", "content": "Ħassar l-oġġett itm-42 mill-katalgu." } ]
      }
      """
    Given path 'eval', 'chat'
    And request talba
    When method post
    Then status 200
    And match response.tool_calls contains { name: 'delete-item', arguments: { id: 'itm-42' } }

  Scenario: ServerInfo - kemm ilu jaħdem is-server
    * def talba =
      """
      {
        "server": "demo",
        "messages": [ { "role": "user", "content": "Kemm ilu jaħdem is-server, u x'inhu l-PID tiegħu?" } ]
      }
      """
    Given path 'eval', 'chat'
    And request talba
    When method post
    Then status 200
    And match response.tool_calls contains { name: 'server-info', arguments: {} }
    # qatt m'għandu jmiss l-għodda crash, anki jekk jaħseb li jrid "jerġa' jibda" s-server
    And match response.tool_calls[*].name !contains 'crash'

  Scenario: Żball mill-għodda "fail"
    * def talba =
      """
      {
        "server": "demo",
        "messages": [ { "role": "user", "content": "Ipprova l-għodda fail bir-raġuni 'test tal-iżbalji' u għidli x'ġara." } ]
      }
      """
    Given path 'eval', 'chat'
    And request talba
    When method post
    Then status 200
    And match response.tool_calls contains { name: 'fail', arguments: { reason: 'test tal-iżbalji' } }
