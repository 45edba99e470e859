Feature: Kalender-Assistent (Team Vertrieb)
  # Keywords auf Englisch, weil unser Runner (behave) sonst zickt – die Schritte sind Deutsch.

  Background:
    Given der Kalender-Server ist verbunden
    And heute ist Montag, der 12. Mai 2025

  Scenario: Termine für morgen abfragen
    When die Nutzerin fragt "Was steht morgen in meinem Kalender?"
    Then wird listEvents aufgerufen
    And timeMin ist "2025-05-13T00:00:00+02:00"
    And timeMax ist "2025-05-14T00:00:00+02:00"

  Scenario: Kundentermin anlegen mit Ort
    When die Nutzerin sagt "Trag mir am Donnerstag von 14 bis 15 Uhr 'Kundentermin Müller GmbH' in Hamburg ein"
    Then wird createEvent aufgerufen mit summary "Kundentermin Müller GmbH" und location "Hamburg"
    But updateEvent wird nicht aufgerufen

  Scenario: Einladung ablehnen mit Begründung
    When die Nutzerin sagt "Sag das Quartals-Meeting ab, ich bin im Urlaub"
    Then wird respondToInvite mit response "declined" aufgerufen
    And comment enthält "Urlaub"

  Scenario: Kein Werkzeug für Smalltalk
    When die Nutzerin sagt "Danke, das war's für heute!"
    Then wird kein Werkzeug aufgerufen

  Scenario Outline: Freie Slots finden
    When die Nutzerin fragt "Wann haben <Personen> <Dauer> Minuten Zeit?"
    Then wird findFreeSlots mit durationMinutes <Dauer> aufgerufen

    Examples:
      | Personen            | Dauer |
      | Jana und Uwe        | 30    |
      | das ganze Team      | 60    |

  # TODO: Szenario für wiederkehrende Termine, sobald recurrence im Staging geht
