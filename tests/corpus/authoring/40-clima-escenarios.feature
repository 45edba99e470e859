# language: es
Característica: El asistente consulta el servidor del tiempo
  Para dar respuestas fiables sobre el clima
  Como usuaria del asistente
  Quiero que use las herramientas meteorológicas solo cuando hagan falta

  Antecedentes:
    Dado que el servidor "weather" está conectado
    Y que la clave de la API es la de pruebas

  Escenario: Previsión para Madrid
    Cuando la usuaria pregunta "¿Qué tiempo hará en Madrid el fin de semana?"
    Entonces el asistente llama a get_forecast con latitude 40.4168 y longitude -3.7038
    Y la respuesta menciona el sábado y el domingo

  Escenario: Pregunta general sobre el clima
    Cuando la usuaria pregunta "¿Por qué llueve más en Galicia que en Murcia?"
    Entonces el asistente no llama a ninguna herramienta
    Y responde con una explicación general

  Escenario: Calidad del aire con ozono
    Cuando la usuaria pregunta "¿Cómo está el ozono hoy en Sevilla?"
    Entonces el asistente llama a get_air_quality con city "Sevilla" y pollutant "o3"
    Pero no llama a get_current_conditions

  Esquema del escenario: Alertas por estado
    Cuando la usuaria pregunta "¿Hay alertas en <estado>?"
    Entonces el asistente llama a get_alerts con state "<código>"

    Ejemplos:
      | estado     | código |
      | Texas      | TX     |
      | Luisiana   | LA     |
      | Nueva York | NY     |
