# language: pt
# Avaliação de roteamento de ferramentas – servidor MCP "demo"
# Responsável: Juliana Prado (QA) – revisado por Marcos Teixeira em 02/12/2024
#
# Executar com: npx cucumber-js --tags "not @wip"
# Cenários marcados com @wip ainda não têm step definitions e não rodam.

Funcionalidade: Escolha de ferramenta pelo assistente
  Para que o assistente use o servidor demo do jeito certo
  Como time de qualidade
  Queremos verificar qual ferramenta ele chama para cada pedido

  Contexto:
    Dado que o servidor "demo" está conectado via stdio
    E que a temperatura do modelo é 0

  Cenário: Soma de dois números
    Quando o usuário pergunta "quanto dá 81 mais 19?"
    Então o assistente deve chamar a ferramenta "get-sum" com:
      | a | 81 |
      | b | 19 |
    Mas não deve chamar a ferramenta "get-stats"

  Cenário: Pergunta de conhecimento geral
    Quando o usuário pergunta "quantos estados tem o Brasil?"
    Então o assistente responde sem chamar nenhuma ferramenta

  Cenário: Média e máximo de uma lista
    Quando o usuário pergunta "me dá a média e o máximo de 3, 9, 27 e 81"
    Então o assistente deve chamar a ferramenta "get-stats" com os números [3, 9, 27, 81]

  Cenário: Eco sem alteração
    Quando o usuário pede "ecoa isso aqui: olá, mundo do MCP"
    Então o assistente deve chamar a ferramenta "echo" com a mensagem "olá, mundo do MCP"
    Mas não deve chamar a ferramenta "legacy-echo"

  Cenário: Exclusão depois de perguntar o id
    Dado o histórico de conversa:
      """
      usuário: quero excluir um item do catálogo
      assistente: Tudo bem! Qual é o id do item?
      usuário: pt-808
      """
    Então o assistente deve chamar a ferramenta "delete-item" com o id "pt-808"
    Mas não deve chamar a ferramenta "list-items"
    E não deve chamar a ferramenta "crash"

  Cenário: Próxima página do catálogo
    Quando o usuário pede "mostra a próxima página do catálogo, cursor abc123, 4 itens por página"
    Então o assistente deve chamar a ferramenta "list-items" com:
      | cursor   | abc123 |
      | pageSize | 4      |

  @wip
  Cenário: Erro proposital com motivo
    Quando o usuário pede "gera um erro de teste com o motivo cucumber-pt"
    Então o assistente deve chamar a ferramenta "fail" com o motivo "cucumber-pt"
