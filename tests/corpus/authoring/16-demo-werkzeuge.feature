# language: de
Funktionalität: Werkzeugauswahl des Assistenten am Demo-Server
  Als Entwicklerin möchte ich sicherstellen, dass der Assistent die Werkzeuge
  des Demo-Servers nur dann aufruft, wenn es wirklich nötig ist.

  Grundlage:
    Angenommen der Demo-Server läuft über stdio
    Und der Assistent kennt alle Werkzeuge des Servers

  Szenario: Zwei Zahlen addieren
    Wenn der Nutzer fragt „Was ergibt 17 plus 25?“
    Dann ruft der Assistent das Werkzeug „get-sum“ mit a = 17 und b = 25 auf
    Und die Antwort enthält „42“

  Szenario: Allgemeinwissen ohne Werkzeug
    Wenn der Nutzer fragt „Wie heißt die Hauptstadt von Österreich?“
    Dann darf der Assistent kein Tool aufrufen
    Und die Antwort enthält „Wien“

  Szenario: Text unverändert zurückgeben
    Wenn der Nutzer schreibt „Gib bitte genau diesen Satz zurück: Grüße aus Köln“
    Dann wird „echo“ mit der Nachricht „Grüße aus Köln“ aufgerufen
    Aber das veraltete Werkzeug „legacy-echo“ wird nicht verwendet

  Szenario: Statistik über eine Messreihe
    Wenn der Nutzer fragt „Wie groß sind Minimum, Maximum und Mittelwert von 2,5; 3,5 und 6?“
    Dann ruft der Assistent get-stats mit numbers = [2.5, 3.5, 6] auf
    Und die Antwort nennt den Mittelwert 4

  Szenario: Fehler des Werkzeugs wird gemeldet
    Wenn der Nutzer bittet „Ruf das Werkzeug fail auf, Grund: Wartung“
    Dann wird „fail“ mit reason „Wartung“ aufgerufen
    Und der Assistent teilt mit, dass ein Fehler aufgetreten ist

  Szenariogrundriss: Einträge seitenweise auflisten
    Wenn der Nutzer fragt „<Frage>“
    Dann ruft der Assistent „list-items“ mit pageSize <Seitengröße> auf
    Und die Antwort enthält „<Eintrag>“

    Beispiele:
      | Frage                                        | Seitengröße | Eintrag |
      | Zeig mir die ersten vier Einträge            | 4           | Item 4  |
      | Liste sechs Einträge aus dem Katalog auf     | 6           | Item 6  |
      | Nur ein einziger Eintrag, bitte              | 1           | Item 1  |

  Szenario: Rechnen im Kopf
    Wenn der Nutzer fragt „Was ist 3 mal 3?“
    Dann antwortet der Assistent direkt mit „9“, ohne ein Werkzeug aufzurufen
