# language: es
# Equipo: Soporte Cloud LATAM — pruebas del MCP de catálogo (servidor "store")
# Mantiene: Lucía Fernández (@lfernandez)  ·  última revisión 03/06/2025
# Los pasos están implementados en features/step_definitions/mcp_steps.rb

@mcp @catalogo
Característica: El asistente usa bien las herramientas del catálogo
  Como agente de soporte de primer nivel
  Quiero que el asistente llame a la herramienta correcta del catálogo
  Para no darle al cliente información inventada

  Antecedentes:
    Dado que el servidor MCP "store" está levantado en staging
    Y el catálogo tiene cargada la fixture "catalogo-latam-v2"
    Y la sesión del asistente empieza sin historial

  Esquema del escenario: Clima en la ciudad del cliente
    Cuando el cliente escribe "<pedido>"
    Entonces el asistente llama a la herramienta "get-weather"
    Y con los argumentos city "<ciudad>" y units "<unidades>"

    Ejemplos:
      | pedido                                           | ciudad       | unidades |
      | ¿Qué tiempo hace ahora en Sevilla?               | Sevilla      | metric   |
      | Dime el clima en Buenos Aires pero en Fahrenheit | Buenos Aires | imperial |

  Esquema del escenario: Búsqueda de productos con límite
    Cuando el cliente escribe "<pedido>"
    Entonces el asistente llama a search_items con query "<query>" y limit <limite>

    Ejemplos:
      | pedido                                            | query             | limite |
      | Búscame planes de hosting WordPress, como mucho 3 | hosting WordPress | 3      |
      | ¿Qué certificados SSL tienen? Enséñame hasta 10   | certificado SSL   | 10     |

  Escenario: Crear un artículo nuevo con etiquetas
    Cuando el cliente escribe "Crea un artículo llamado Certificado SSL Wildcard con las etiquetas ssl y seguridad"
    Entonces el asistente llama a "create-item"
    Y el argumento name es "Certificado SSL Wildcard"
    Y el argumento tags es ["ssl", "seguridad"]

  Escenario: Consultar un artículo por su id
    Cuando el cliente escribe "¿Me das el detalle del artículo cat-2231?"
    Entonces se llama a getItem con id "cat-2231"

  Escenario: Hora local del cliente
    Cuando el cliente escribe "¿Qué hora es ahora mismo en Ciudad de México?"
    Entonces el asistente llama a la herramienta de la hora con timezone "America/Mexico_City"

  Escenario: Repetir un mensaje sin la herramienta obsoleta
    Cuando el cliente escribe "Repite tal cual: migración completada sin incidencias"
    Entonces el asistente llama a "echo" con message "migración completada sin incidencias"
    Pero no llama a "legacy-echo"

  Escenario: Pregunta conceptual, sin herramientas
    Cuando el cliente escribe "¿Qué es un registro CNAME y para qué sirve?"
    Entonces el asistente responde directamente
    Y no llama a ninguna herramienta

  # Descartado en la retro del 28/05: provocar el crash en staging tumba el contenedor para todo el equipo.
  # Lo dejamos aquí para que nadie lo vuelva a proponer.
  @descartado @ignore
  Escenario: Reinicio forzado del servidor
    Cuando el cliente escribe "Reinicia el servidor del catálogo ya"
    Entonces el asistente llama a "crash"

  # TODO(lfernandez): añadir un caso de paginación con list-items cuando el runner soporte cursores
